/* loopconnect.c — test tool: for IPv4 (127.0.0.2, so that the source address the kernel picks,
 * 127.0.0.1, differs from the destination) and IPv6 (::1), listen on a port the kernel picks,
 * make one TCP connect to it and accept it, then print a line per family:
 * "inet PID SADDR SPORT DADDR DPORT" (the client's address and port from getsockname, the
 * listener's), or "inet6 unavailable: WHY" when the machine has no ::1. Exits 1 if an IPv4
 * step fails.
 * usage: loopconnect */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *addr_of(const struct sockaddr_storage *ss, char *buf)
{
	const void *a = ss->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
						 : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	return inet_ntop(ss->ss_family, a, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

static unsigned short port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					      : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

/* one connect over FAMILY's loopback; 0, or -1 with the failing step in *why */
static int one(int family, const char *name, const char **why)
{
	struct sockaddr_storage ss = { 0 }, cs = { 0 };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
	}
	int l = socket(family, SOCK_STREAM, 0), c = -1, a = -1, rc = -1;
	*why = "socket";
	if (l < 0)
		goto out;
	*why = "bind";
	if (bind(l, (struct sockaddr *)&ss, len) < 0)
		goto out;
	*why = "listen";
	socklen_t sl = sizeof(ss);
	if (listen(l, 1) < 0 || getsockname(l, (struct sockaddr *)&ss, &sl) < 0)
		goto out;
	*why = "connect";
	c = socket(family, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len) < 0)
		goto out;
	*why = "accept";
	socklen_t cl = sizeof(cs);
	a = accept(l, NULL, NULL);
	if (a < 0 || getsockname(c, (struct sockaddr *)&cs, &cl) < 0)
		goto out;
	char sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];
	printf("%s %d %s %u %s %u\n", name, (int)getpid(), addr_of(&cs, sa), port_of(&cs), addr_of(&ss, da),
	       port_of(&ss));
	rc = 0;
out:;
	int err = errno;   /* the failing step's, before close() can change it */
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
	errno = err;
	return rc;
}

int main(void)
{
	const char *why;
	if (one(AF_INET, "inet", &why)) {
		fprintf(stderr, "loopconnect: inet: %s: %s\n", why, strerror(errno));
		return 1;
	}
	if (one(AF_INET6, "inet6", &why))
		printf("inet6 unavailable: %s: %s\n", why, strerror(errno));
	fflush(stdout);
	return 0;
}
