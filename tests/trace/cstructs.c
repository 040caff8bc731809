/* cstructs.c — a program for tests/suites/trace-cstructs.sh: hands a uprobe pointers to
 * structs the script defines again in C (arrays of structs, nested and anonymous members,
 * char arrays, a pointer to a pointer), then makes the syscalls the tracepoint cases read:
 * two write()s of parts of a buffer to /dev/null, a connect() to 127.0.0.1 and one to fe80::1:2:3. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct T {
	uint32_t a;
	uint32_t b[2];
};
struct W {
	uint32_t a;
	struct T t;
};
struct C {
	uint32_t a;
	void *b;
	struct W w[10];
};
struct Foo {
	int a;
	char b[10];
	short s;
	long l;
	struct {
		int m[2];
		unsigned char u;
	} in;
	struct Foo *next;
};

__attribute__((noinline)) int cs_walk(struct C *c, struct Foo *f, struct Foo **pp, struct W *w)
{
	__asm__ volatile("" : : "r"(c), "r"(f), "r"(pp), "r"(w) : "memory");
	return c->a + f->a;
}

int main(void)
{
	static struct C c;
	static struct Foo f, g;
	c.a = 7;
	c.b = &c;
	for (int x = 0; x < 10; x++) {
		c.w[x].a = 100 + x;
		c.w[x].t.a = x;
		c.w[x].t.b[0] = 100 - x;
		c.w[x].t.b[1] = 100 - 2 * x;
	}
	f.a = 123;
	memcpy(f.b, "hello", 6);
	f.s = -5;
	f.l = 1L << 40;
	f.in.m[0] = 11;
	f.in.m[1] = -22;
	f.in.u = 200;
	f.next = &g;
	g.a = 456;
	memcpy(g.b, "0123456789", 10);   /* no NUL: all ten bytes */
	struct Foo *pf = &f;
	cs_walk(&c, &f, &pf, c.w);

	const char msg[] = "hello world, a longer line";
	int null = open("/dev/null", O_WRONLY);
	if (null < 0 || write(null, msg, 5) != 5 || write(null, msg + 6, 20) != 20)
		return 1;
	close(null);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	connect(s, (struct sockaddr *)&sa, sizeof(sa));   /* refused or not: only the call is traced */
	close(s);
	s = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_scope_id = 7 };
	inet_pton(AF_INET6, "fe80::1:2:3", &sa6.sin6_addr);
	connect(s, (struct sockaddr *)&sa6, sizeof(sa6));
	close(s);
	return 0;
}
