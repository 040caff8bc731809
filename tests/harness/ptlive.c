/* ptlive.c — test tool: the socket program types of tests/progtypes/{sockmap,reuseport,
 * sklookup}.lisp, run live. Each subcommand loads a kiln object with libkiln, attaches it
 * (kiln_prog_attach, the code `kiln run` uses, or the socket option that is an sk_reuseport
 * program's only hook), makes traffic on loopback, and prints one line per check:
 * "ok NAME: what" or "fail NAME: why". Every wait has a deadline. Exit status 0 when every check passed.
 *   ptlive sockmap OBJ.o          sk_skb parser+verdict and sk_msg redirection (sockmap.lisp)
 *   ptlive reuseport OBJ.o        sk_reuseport picking a socket of the group (reuseport.lisp)
 *   ptlive rawtpw OBJ.o           raw_tp.w/bpf_test_finish changing a test run's result
 *                                 (rawtpw.lisp)
 *   ptlive sklookup NETNS OBJ.o   sk_lookup on the netns file NETNS, which the tool runs in
 *                                 (`ip netns exec`), steering a connection (sklookup.lisp) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "kiln/error.h"
#include "kiln/object.h"

#define DEADLINE_MS 3000

static int failures;

static void report(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s %s: ", ok ? "ok" : "fail", name);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	failures += !ok;
}

static struct kiln_object *open_load(const char *path)
{
	struct kiln_object *obj;
	if (kiln_object_open(path, NULL, &obj) || kiln_object_load(obj)) {
		fprintf(stderr, "ptlive: load %s: %s\n", path, kiln_errmsg());
		exit(1);
	}
	return obj;
}

static struct kiln_link *attach(struct kiln_object *obj, const char *prog, const char *map, const char *netns)
{
	struct kiln_prog *p = kiln_object_find_prog(obj, prog);
	struct kiln_attach_opts o = { .sz = sizeof(o), .map = map, .netns = netns };
	struct kiln_link *l = NULL;
	if (!p || kiln_prog_attach(p, &o, &l)) {
		fprintf(stderr, "ptlive: attach %s: %s\n", prog, p ? kiln_errmsg() : "no such program");
		exit(1);
	}
	return l;
}

static int map_fd(struct kiln_object *obj, const char *name)
{
	struct kiln_map *m = kiln_object_find_map(obj, name);
	if (!m) {
		fprintf(stderr, "ptlive: no map %s\n", name);
		exit(1);
	}
	return kiln_map_fd(m);
}

static uint64_t runs(struct kiln_object *obj, uint32_t key)
{
	uint64_t v = 0;
	bpf_map_lookup_elem(map_fd(obj, "runs"), &key, &v);
	return v;
}

static void put_sock(int map, uint32_t key, int sock, size_t value_size)
{
	uint64_t v = (uint64_t)sock;
	if (bpf_map_update_elem(map, &key, &v, BPF_ANY)) {
		fprintf(stderr, "ptlive: put socket in slot %u (%zu-byte value): %s\n", key, value_size, strerror(errno));
		exit(1);
	}
}

static struct sockaddr_in loopback(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int listener(uint16_t port)
{
	struct sockaddr_in a = loopback(port);
	int one = 1, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 8)) {
		fprintf(stderr, "ptlive: listen on 127.0.0.1:%u: %s\n", port, strerror(errno));
		exit(1);
	}
	return s;
}

static uint16_t local_port(int s)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	getsockname(s, (struct sockaddr *)&a, &len);
	return ntohs(a.sin_port);
}

/* A connection to 127.0.0.1:port: the client fd, or -errno. */
static int dial(uint16_t port)
{
	struct sockaddr_in a = loopback(port);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0)
		return -errno;
	if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
		int err = -errno;
		close(c);
		return err;
	}
	return c;
}

static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1;
}

/* A loopback TCP connection: its client and server ends. */
static void tcp_pair(int *cli, int *srv)
{
	int l = listener(0);
	*cli = dial(local_port(l));
	if (*cli < 0 || !wait_fd(l, DEADLINE_MS) || (*srv = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		fprintf(stderr, "ptlive: loopback connection: %s\n", strerror(errno));
		exit(1);
	}
	close(l);
}

/* Read what arrives on fd within the deadline into buf (NUL-terminated); its length. */
static ssize_t read_within(int fd, char *buf, size_t len)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t got = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = DEADLINE_MS - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || got >= len - 1 || !wait_fd(fd, (int)left))
			break;
		ssize_t n = recv(fd, buf + got, len - 1 - got, MSG_DONTWAIT);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf, '\n', got))
			break;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

static bool nothing_queued(int fd)
{
	char c;
	return recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

static uint32_t attached_count(int map, enum bpf_attach_type t)
{
	uint32_t ids[4], cnt = 4;
	if (bpf_prog_query(map, t, 0, NULL, ids, &cnt))
		return (uint32_t)-1;
	return cnt;
}

static int cmd_sockmap(const char *path)
{
	struct kiln_object *obj = open_load(path);
	struct kiln_link *parser = attach(obj, "parse_whole", "socks", NULL);
	struct kiln_link *verdict = attach(obj, "to_slot_1", "socks", NULL);
	struct kiln_link *msg = attach(obj, "msg_to_slot_1", "msgs", NULL);
	int socks = map_fd(obj, "socks"), msgs = map_fd(obj, "msgs");
	char buf[64];

	/* sk_skb: a_cli -> a_srv is redirected out of b_srv, to b_cli */
	int a_cli, a_srv, b_cli, b_srv;
	tcp_pair(&a_cli, &a_srv);
	tcp_pair(&b_cli, &b_srv);
	put_sock(socks, 0, a_srv, 4);
	put_sock(socks, 1, b_srv, 4);
	const char skb_text[] = "kiln sk_skb\n";
	send(a_cli, skb_text, strlen(skb_text), 0);
	read_within(b_cli, buf, sizeof(buf));
	report(!strcmp(buf, skb_text) && nothing_queued(a_srv), "sk-skb-redirect",
	       "sent on one connection, '%.*s' arrived on the other (parser ran %llu times, verdict %llu)",
	       (int)strcspn(buf, "\n"), buf, (unsigned long long)runs(obj, 0), (unsigned long long)runs(obj, 1));

	/* sk_msg: what c_cli sends lands in d_srv's receive queue, not c_srv's */
	int c_cli, c_srv, d_cli, d_srv;
	tcp_pair(&c_cli, &c_srv);
	tcp_pair(&d_cli, &d_srv);
	put_sock(msgs, 0, c_cli, 4);
	put_sock(msgs, 1, d_srv, 4);
	const char msg_text[] = "kiln sk_msg\n";
	send(c_cli, msg_text, strlen(msg_text), 0);
	read_within(d_srv, buf, sizeof(buf));
	report(!strcmp(buf, msg_text) && nothing_queued(c_srv) && runs(obj, 2) > 0, "sk-msg-redirect",
	       "sent on one connection, '%.*s' arrived on the other (sk_msg ran %llu times)",
	       (int)strcspn(buf, "\n"), buf, (unsigned long long)runs(obj, 2));

	/* the maps' attachments end with the links */
	uint32_t before = attached_count(socks, BPF_SK_SKB_STREAM_VERDICT) + attached_count(socks, BPF_SK_SKB_STREAM_PARSER) +
			  attached_count(msgs, BPF_SK_MSG_VERDICT);
	kiln_link_destroy(parser);
	kiln_link_destroy(verdict);
	kiln_link_destroy(msg);
	uint32_t after = attached_count(socks, BPF_SK_SKB_STREAM_VERDICT) + attached_count(socks, BPF_SK_SKB_STREAM_PARSER) +
			 attached_count(msgs, BPF_SK_MSG_VERDICT);
	report(before == 3 && after == 0, "sockmap-detach", "programs attached to the maps: %u, after detaching %u",
	       before, after);
	kiln_object_close(obj);
	return failures ? 1 : 0;
}

static int cmd_reuseport(const char *path)
{
	struct kiln_object *obj = open_load(path);
	int prog = kiln_prog_fd(kiln_object_find_prog(obj, "pick_second")), group = map_fd(obj, "group");
	int s[2], one = 1;
	uint16_t port = 0;
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in a = loopback(port);
		s[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s[i] < 0 || setsockopt(s[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
		    bind(s[i], (struct sockaddr *)&a, sizeof(a))) {
			fprintf(stderr, "ptlive: reuseport socket: %s\n", strerror(errno));
			return 1;
		}
		port = local_port(s[i]);
		put_sock(group, (uint32_t)i, s[i], 8);
	}
	if (setsockopt(s[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &prog, sizeof(prog))) {
		fprintf(stderr, "ptlive: SO_ATTACH_REUSEPORT_EBPF: %s\n", strerror(errno));
		return 1;
	}
	enum { N = 16 };
	for (int i = 0; i < N; i++) {   /* from 16 source ports, which the hash would spread */
		struct sockaddr_in a = loopback(port);
		int c = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		sendto(c, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
		close(c);
	}
	int got[2] = { 0, 0 };
	char c;
	while (got[1] < N && wait_fd(s[1], DEADLINE_MS) && recv(s[1], &c, 1, MSG_DONTWAIT) == 1)
		got[1]++;
	while (recv(s[0], &c, 1, MSG_DONTWAIT) == 1)
		got[0]++;
	report(got[1] == N && got[0] == 0 && runs(obj, 0) >= N, "sk-reuseport-select",
	       "%d datagrams from %d ports: %d to the socket the program picks, %d to the other (it ran %llu times)",
	       N, N, got[1], got[0], (unsigned long long)runs(obj, 0));
	kiln_object_close(obj);
	return failures ? 1 : 0;
}

static int cmd_sklookup(const char *path, const char *netns)
{
	struct kiln_object *obj = open_load(path);
	int refused = listener(7008);   /* a listener the program refuses connections to */
	int target = listener(0);
	put_sock(map_fd(obj, "target"), 0, target, 8);
	int before = dial(7007);
	struct kiln_link *l = attach(obj, "steer", NULL, netns);
	int c = dial(7007), s = -1;
	char buf[32] = "";
	if (c >= 0 && wait_fd(target, DEADLINE_MS) && (s = accept4(target, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		send(c, "steered\n", 8, 0);
		read_within(s, buf, sizeof(buf));
	}
	report(before == -ECONNREFUSED && !strcmp(buf, "steered\n"), "sk-lookup-steer",
	       "port 7007 (no listener: %s before attaching) reached the socket on port %u: '%.*s' (%s%s%s)",
	       before < 0 ? strerror(-before) : "connected", local_port(target), (int)strcspn(buf, "\n"), buf,
	       kiln_link_describe(l), c < 0 ? ": " : "", c < 0 ? strerror(-c) : "");
	int d = dial(7008);
	report(d == -ECONNREFUSED && runs(obj, 1) > 0, "sk-lookup-drop",
	       "a connection to the listener on port 7008: %s", d < 0 ? strerror(-d) : "connected");
	kiln_link_destroy(l);
	int after = dial(7007), ok8 = dial(7008);
	report(after == -ECONNREFUSED && ok8 >= 0, "sk-lookup-detach",
	       "after detaching, port 7007: %s, port 7008: %s", after < 0 ? strerror(-after) : "connected",
	       ok8 < 0 ? strerror(-ok8) : "connected");
	close(refused);
	kiln_object_close(obj);
	return failures ? 1 : 0;
}

/* BPF_PROG_TEST_RUN of a socket filter: what the syscall returns (a writable raw tracepoint
 * on bpf_test_finish may have changed it) */
static int test_run(int prog)
{
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt));
	int rc = bpf_prog_test_run_opts(prog, &o);
	return rc < 0 ? -errno : rc;
}

static int cmd_rawtpw(const char *path)
{
	struct kiln_object *obj = open_load(path);
	int prog = kiln_prog_fd(kiln_object_find_prog(obj, "probe_me"));
	uint32_t key = 0, me = (uint32_t)getpid();
	bpf_map_update_elem(map_fd(obj, "target"), &key, &me, BPF_ANY);
	int before = test_run(prog);
	struct kiln_link *l = attach(obj, "set_result", NULL, NULL);
	int during = test_run(prog);
	char desc[256];      /* the link's own text goes with it */
	snprintf(desc, sizeof(desc), "%s", kiln_link_describe(l));
	kiln_link_destroy(l);
	int after = test_run(prog);
	report(before == 0 && during == 42 && after == 0 && runs(obj, 0) == 1, "raw-tracepoint-writable",
	       "BPF_PROG_TEST_RUN returned %d, %d while %s was attached, %d after", before, during, desc, after);
	kiln_object_close(obj);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sockmap"))
		return cmd_sockmap(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "reuseport"))
		return cmd_reuseport(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rawtpw"))
		return cmd_rawtpw(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "sklookup"))
		return cmd_sklookup(argv[3], argv[2]);
	fprintf(stderr, "usage: ptlive sockmap|reuseport|rawtpw OBJ.o | ptlive sklookup NETNS OBJ.o\n");
	return 2;
}
