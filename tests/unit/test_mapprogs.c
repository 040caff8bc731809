/* test_mapprogs.c — map types used from programs that run, where the map has to hold a kernel
 * object first (tests/lib/mapprogs.lisp). A sockops program attached to a cgroup the test makes
 * puts both ends of a loopback TCP connection made in that cgroup into a sockmap (slot 0 the
 * connecting end, 1 the accepted one) and a sockhash keyed by local port: user space reads back
 * each end's socket cookie (SO_COOKIE) under both keys. XDP programs under BPF_PROG_TEST_RUN
 * redirect through a devmap-hash (XDP_REDIRECT once slot 1 holds lo, the XDP_PASS fallback
 * before) and an empty xskmap (XDP_PASS: an xskmap slot needs an AF_XDP socket). A program
 * drains a user ring buffer that user space wrote three records into
 * (kiln_user_ringbuf_write): its callback (#'take, a defun) sums them. An sk_reuseport program
 * attached to a SO_REUSEPORT group of two UDP sockets picks the one a reuseport sockarray holds
 * in the slot the datagram's length selects: each socket gets exactly the datagrams meant for
 * it, which the kernel's own hash would not arrange. */
#define _GNU_SOURCE
#include "check.h"
#include "cgroup.h"
#include <kiln/kiln.h>
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

static uint64_t cookie(int fd)
{
	uint64_t c = 0;
	socklen_t len = sizeof(c);
	return getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &len) ? 0 : c;
}

static void test_sockmaps(struct kiln_object *obj, const struct cg2 *cg)
{
	char dir[1200];
	snprintf(dir, sizeof(dir), "%s/kiln-test-mapprogs-%d", cg->mount, getpid());
	if (mkdir(dir, 0755) && errno != EEXIST) {
		CHECK("sockmap: mkdir", false, "%s: %s", dir, strerror(errno));
		return;
	}
	struct kiln_attach_opts o = { .sz = sizeof(o), .cgroup = dir };
	struct kiln_link *l = NULL;
	int err = kiln_prog_attach(kiln_object_find_prog(obj, "on_established"), &o, &l);
	CHECK("sockmap: attach the sockops program to the cgroup", !err, "%d %s", err, kiln_errmsg());
	/* sockets belong to the cgroup they are made in; an accepted one to its listener's */
	int ls = -1, cs = -1, as = -1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	err = cg2_move_self(dir);
	if (!err) {
		ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cs = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	int back = cg2_move_self(cg->home);
	CHECK("sockmap: sockets made in the test's cgroup", !err && !back && ls >= 0 && cs >= 0, "%s",
	      strerror(err ? -err : back ? -back : errno));
	if (ls < 0 || cs < 0 || bind(ls, (void *)&a, sizeof(a)) || listen(ls, 1) || getsockname(ls, (void *)&a, &alen) ||
	    connect(cs, (void *)&a, sizeof(a)) || (as = accept(ls, NULL, NULL)) < 0) {
		CHECK("sockmap: a loopback TCP connection", false, "%s", strerror(errno));
	} else {
		struct kiln_map *sm = kiln_object_find_map(obj, "socks"), *sh = kiln_object_find_map(obj, "by_port");
		uint64_t got[2] = { 0, 0 }, want[2] = { cookie(cs), cookie(as) };
		uint32_t k0 = 0, k1 = 1;
		int e0 = kiln_map_lookup(sm, &k0, &got[0]), e1 = kiln_map_lookup(sm, &k1, &got[1]);
		CHECK("sockmap: the connecting end in slot 0, the accepted end in slot 1 (their cookies)",
		      !e0 && !e1 && want[0] && got[0] == want[0] && got[1] == want[1], "%d %d: %llu %llu, want %llu %llu",
		      e0, e1, (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)want[0],
		      (unsigned long long)want[1]);
		struct sockaddr_in cl;
		socklen_t cllen = sizeof(cl);
		getsockname(cs, (void *)&cl, &cllen);
		uint32_t cport = ntohs(cl.sin_port), sport = ntohs(a.sin_port);
		e0 = kiln_map_lookup(sh, &cport, &got[0]);
		e1 = kiln_map_lookup(sh, &sport, &got[1]);
		CHECK("sockhash: each end under its local port", !e0 && !e1 && got[0] == want[0] && got[1] == want[1],
		      "%d %d: ports %u %u", e0, e1, cport, sport);
	}
	if (as >= 0)
		close(as);
	if (cs >= 0)
		close(cs);
	if (ls >= 0)
		close(ls);
	kiln_link_destroy(l);
	rmdir(dir);
}

static uint32_t run_xdp(struct kiln_object *obj, const char *prog)
{
	uint8_t pkt[64] = { 0 };
	pkt[12] = 0x08;          /* an IPv4 ethertype; the programs do not look */
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt) };
	int err = kiln_prog_test_run(kiln_prog_fd(kiln_object_find_prog(obj, prog)), &r);
	return err ? 1000 + (uint32_t)-err : r.retval;
}

static void test_redirects(struct kiln_object *obj)
{
	CHECK("devmap-hash: an empty slot falls back to XDP_PASS", run_xdp(obj, "to_port") == XDP_PASS, "%u",
	      run_xdp(obj, "to_port"));
	uint32_t k = 1, lo = if_nametoindex("lo");
	int err = kiln_map_update(kiln_object_find_map(obj, "ports"), &k, &lo, BPF_ANY);
	CHECK("devmap-hash: slot 1 holds lo", !err, "%d %s", err, kiln_errmsg());
	CHECK("devmap-hash: then the program redirects", run_xdp(obj, "to_port") == XDP_REDIRECT, "%u",
	      run_xdp(obj, "to_port"));
	CHECK("xskmap: an empty slot falls back to XDP_PASS", run_xdp(obj, "to_xsk") == XDP_PASS, "%u",
	      run_xdp(obj, "to_xsk"));
}

static void test_user_ringbuf(struct kiln_object *obj)
{
	struct kiln_map *rb = kiln_object_find_map(obj, "requests");
	static const uint64_t sent[] = { 5, 7, 30 };
	int wrote = 0;
	for (size_t i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		wrote += !kiln_user_ringbuf_write(rb, &sent[i], sizeof(sent[i]));
	CHECK("user ringbuf: three records written", wrote == 3, "%d %s", wrote, kiln_errmsg());
	int err = kiln_user_ringbuf_write(kiln_object_find_map(obj, "drained"), &sent[0], 8);
	CHECK("user ringbuf: writing into another map type is refused", err == -EINVAL, "%d", err);
	uint32_t ret = run_xdp(obj, "drain");
	struct kiln_map *d = kiln_object_find_map(obj, "drained");
	uint64_t n = 0, sum = 0;
	uint32_t k0 = 0, k1 = 1;
	kiln_map_lookup(d, &k0, &n);
	kiln_map_lookup(d, &k1, &sum);
	CHECK("user ringbuf: the program drained the three through its callback, summing 42",
	      ret == XDP_PASS && n == 3 && sum == 42, "ret %u, %llu records, sum %llu", ret, (unsigned long long)n,
	      (unsigned long long)sum);
	run_xdp(obj, "drain");
	kiln_map_lookup(d, &k0, &n);
	CHECK("user ringbuf: and nothing is left for a second run", n == 3, "%llu", (unsigned long long)n);
}

static int reuseport_udp(struct sockaddr_in *a)
{
	int one = 1, s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	socklen_t len = sizeof(*a);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) || bind(s, (void *)a, sizeof(*a)) ||
	    getsockname(s, (void *)a, &len)) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

static void test_reuseport(struct kiln_object *obj)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s[2] = { reuseport_udp(&a), -1 }, tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	s[1] = s[0] >= 0 ? reuseport_udp(&a) : -1;       /* the same port: one group */
	CHECK("reuseport: two UDP sockets in one SO_REUSEPORT group", s[0] >= 0 && s[1] >= 0 && tx >= 0, "%s",
	      strerror(errno));
	if (s[0] < 0 || s[1] < 0 || tx < 0)
		goto out;
	struct kiln_map *g = kiln_object_find_map(obj, "group");
	int err = 0;
	for (uint32_t k = 0; k < 2 && !err; k++) {
		uint64_t fd = (uint64_t)s[k];
		err = kiln_map_update(g, &k, &fd, BPF_ANY);
	}
	CHECK("reuseport: both sockets in the sockarray", !err, "%d %s", err, kiln_errmsg());
	int pfd = kiln_prog_fd(kiln_object_find_prog(obj, "pick"));
	err = setsockopt(s[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &pfd, sizeof(pfd)) ? -errno : 0;
	CHECK("reuseport: the program attached to the group", !err, "%s", strerror(-err));
	static const char *const msgs[] = { "ab", "abc", "abcd", "abcde", "xy", "xyz" };
	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		sendto(tx, msgs[i], strlen(msgs[i]), 0, (void *)&a, sizeof(a));
	/* 8 bytes of UDP header: an even payload length is an even len, slot 0 */
	int right = 0, wrong = 0;
	for (int tries = 0; tries < 400 && right + wrong < 6; tries++) {
		char buf[16];
		ssize_t n;
		for (int k = 0; k < 2; k++)
			while ((n = recv(s[k], buf, sizeof(buf), 0)) > 0) {
				if ((n & 1) == k)
					right++;
				else
					wrong++;
			}
		if (right + wrong < 6)
			nanosleep(&(struct timespec){ 0, 5 * 1000 * 1000 }, NULL);
	}
	CHECK("reuseport: each socket got the datagrams its slot was picked for", right == 6 && wrong == 0,
	      "%d right, %d wrong", right, wrong);
out:
	for (int k = 0; k < 2; k++)
		if (s[k] >= 0)
			close(s[k]);
	if (tx >= 0)
		close(tx);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_mapprogs: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/mapprogs.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	err = err ? err : kiln_object_load(obj);
	CHECK("mapprogs: open and load", !err, "%d %s", err, kiln_errmsg());
	struct cg2 cg;
	if (!err) {
		test_redirects(obj);
		test_user_ringbuf(obj);
		test_reuseport(obj);
		if (cg2_find(&cg)) {
			test_sockmaps(obj, &cg);
			cg2_release(&cg);
		} else {
			CHECK("sockmap: a cgroup v2 hierarchy", false, "none mounted and mounting one failed: %s",
			      strerror(errno));
		}
	}
	kiln_object_close(obj);
	CHECK("mapprogs: no fd leaked", check_open_fds() == fds_before, "%d then %d", fds_before, check_open_fds());
	return CHECK_DONE();
}
