/* tcpcc.c — test tool: a loopback TCP connection whose sender uses the congestion control CC
 * (setsockopt TCP_CONGESTION before connecting), moving BYTES from the sender to a receiver
 * (a child process) that counts them. Prints "cc=NAME sent=N received=N", NAME being what
 * getsockopt(TCP_CONGESTION) says of the sender after the transfer. Exits 1 when a step fails
 * (the step and errno on stderr: ENOENT from setsockopt is an unknown CC), 2 on bad usage.
 * usage: tcpcc CC BYTES */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *step)
{
	fprintf(stderr, "tcpcc: %s: %s\n", step, strerror(errno));
	return 1;
}

/* The receiver: read everything from the accepted connection; the count is its exit's pipe. */
static void receive(int lfd, int out)
{
	int c = accept(lfd, NULL, NULL);
	unsigned long long got = 0;
	char buf[65536];
	ssize_t r;
	while (c >= 0 && (r = read(c, buf, sizeof(buf))) > 0)
		got += (unsigned long long)r;
	dprintf(out, "%llu\n", got);
	_exit(c < 0);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tcpcc CC BYTES\n");
		return 2;
	}
	unsigned long long total = strtoull(argv[2], NULL, 10);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), p[2];
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) || pipe(p))
		return fail("listen");
	pid_t child = fork();
	if (child < 0)
		return fail("fork");
	if (!child) {
		close(p[0]);
		receive(lfd, p[1]);
	}
	close(p[1]);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	if (setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, argv[1], (socklen_t)strlen(argv[1])))
		return fail("setsockopt(TCP_CONGESTION)");
	if (connect(s, (struct sockaddr *)&a, sizeof(a)))
		return fail("connect");
	static char buf[65536];
	memset(buf, 'k', sizeof(buf));
	unsigned long long sent = 0;
	while (sent < total) {
		size_t n = total - sent < sizeof(buf) ? (size_t)(total - sent) : sizeof(buf);
		ssize_t w = write(s, buf, n);
		if (w <= 0)
			return fail("write");
		sent += (unsigned long long)w;
	}
	char cc[32] = "";
	socklen_t cl = sizeof(cc) - 1;
	if (getsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, &cl))
		return fail("getsockopt(TCP_CONGESTION)");
	close(s);
	char line[64] = "";
	FILE *f = fdopen(p[0], "r");
	if (!f || !fgets(line, sizeof(line), f))
		return fail("the receiver's count");
	int st;
	waitpid(child, &st, 0);
	printf("cc=%s sent=%llu received=%llu\n", cc, sent, strtoull(line, NULL, 10));
	return !WIFEXITED(st) || WEXITSTATUS(st) || strtoull(line, NULL, 10) != sent;
}
