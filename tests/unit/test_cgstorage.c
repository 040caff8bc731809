/* test_cgstorage.c — cgroup local storage that loads and runs (tests/lib/cgroup-storage.lisp).
 * :cgrp-storage (BPF_MAP_TYPE_CGRP_STORAGE, newer than Debian 12's uapi header): this process's
 * syscalls count into its own cgroup's value (cgrp-storage-get on task->cgroups->dfl_cgrp,
 * create), read back with the cgroup directory's fd as the key; its getppid() deletes the value
 * (cgrp-storage-delete), which then starts again from the syscalls that follow.
 * :cgroup-storage and :percpu-cgroup-storage: a cgroup_skb/egress program attached to a cgroup
 * the test makes counts packets and bytes into the storage get-local-storage gives; a socket
 * made in that cgroup sends 8 datagrams, and user space reads both by the cgroup's id. */
#define _GNU_SOURCE
#include "check.h"
#include "cgroup.h"
#include <kiln/kiln.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KL_MAP_TYPE_CGRP_STORAGE KILN_MAP_TYPE_CGRP_STORAGE

static struct kiln_link *attach(struct kiln_object *obj, const char *prog, const struct kiln_attach_opts *o)
{
	struct kiln_link *l = NULL;
	struct kiln_prog *p = kiln_object_find_prog(obj, prog);
	int err = p ? kiln_prog_attach(p, o, &l) : -ENOENT;
	char what[128];
	snprintf(what, sizeof(what), "cgroup storage: attach %s", prog);
	CHECK(what, !err && l, "%d %s", err, kiln_errmsg());
	return l;
}

static void test_cgrp_storage(struct kiln_object *obj, const struct cg2 *cg)
{
	struct kiln_map *m = kiln_object_find_map(obj, "cg_calls");
	const struct kiln_map_info *mi = kiln_map_info(m);
	CHECK("cgrp storage: the kernel made a cgrp storage, 0 entries, not preallocated",
	      mi->type == KL_MAP_TYPE_CGRP_STORAGE && mi->max_entries == 0 && (mi->flags & BPF_F_NO_PREALLOC),
	      "type %d max %u flags %#x", mi->type, mi->max_entries, mi->flags);
	uint32_t zero = 0, me = (uint32_t)getpid();
	kiln_map_update(kiln_object_find_map(obj, "watch"), &zero, &me, BPF_ANY);
	int cgfd = open(cg->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK("cgrp storage: open this process's cgroup", cgfd >= 0, "%s: %s", cg->home, strerror(errno));
	struct kiln_link *l1 = attach(obj, "count_calls", NULL), *l2 = attach(obj, "forget_calls", NULL);
	uint64_t first = 0, later = 0, after = 0;
	int err = kiln_map_lookup(m, &cgfd, &first);
	CHECK("cgrp storage: this cgroup's counter exists (the lookup's own syscall made it)", !err && first >= 1,
	      "%d %llu %s", err, (unsigned long long)first, kiln_errmsg());
	for (int i = 0; i < 100; i++)
		syscall(SYS_getpid);
	err = kiln_map_lookup(m, &cgfd, &later);
	CHECK("cgrp storage: 100 getpid calls counted", !err && later >= first + 100, "%d %llu then %llu", err,
	      (unsigned long long)first, (unsigned long long)later);
	syscall(SYS_getppid);
	err = kiln_map_lookup(m, &cgfd, &after);
	/* deleted on getppid's entry; the lookup's own syscall (and getppid's, if its counting
	 * program ran after the deleting one) made it again */
	CHECK("cgrp storage: cgrp-storage-delete on getppid started the counter again", !err && after <= 2,
	      "%d %llu after %llu", err, (unsigned long long)after, (unsigned long long)later);
	kiln_link_destroy(l1);
	kiln_link_destroy(l2);
	if (cgfd >= 0)
		close(cgfd);
}

static void test_cgroup_storage(struct kiln_object *obj, const struct cg2 *cg)
{
	struct kiln_map *pk = kiln_object_find_map(obj, "cg_pkts"), *by = kiln_object_find_map(obj, "cg_bytes");
	const struct kiln_map_info *mi = kiln_map_info(pk);
	CHECK("cgroup storage: the kernel made a cgroup storage, u64 key, 0 entries",
	      mi->type == BPF_MAP_TYPE_CGROUP_STORAGE && mi->key_size == 8 && mi->max_entries == 0,
	      "type %d key %u max %u", mi->type, mi->key_size, mi->max_entries);
	CHECK("cgroup storage: and a per-cpu one",
	      kiln_map_info(by)->type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE && kiln_map_is_percpu(by), "type %d",
	      kiln_map_info(by)->type);
	char dir[1200];
	snprintf(dir, sizeof(dir), "%s/kiln-test-cgstorage-%d", cg->mount, getpid());
	if (mkdir(dir, 0755) && errno != EEXIST) {
		CHECK("cgroup storage: mkdir", false, "%s: %s", dir, strerror(errno));
		return;
	}
	struct stat st;
	uint64_t id = stat(dir, &st) ? 0 : st.st_ino;    /* a cgroup's id is its directory's inode */
	struct kiln_attach_opts o = { .sz = sizeof(o), .cgroup = dir };
	struct kiln_link *l = attach(obj, "count_egress", &o);
	/* a socket belongs to the cgroup it was made in */
	int err = cg2_move_self(dir), s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = err ? err : cg2_move_self(cg->home);
	CHECK("cgroup storage: a socket made in the test's cgroup", !err && s >= 0, "%s", strerror(err ? -err : errno));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int sent = 0;
	for (int i = 0; i < 8; i++)
		sent += sendto(s, "kiln", 4, 0, (struct sockaddr *)&a, sizeof(a)) == 4;
	uint64_t pkts = 0, bytes = 0;
	err = kiln_map_lookup(pk, &id, &pkts);
	CHECK("cgroup storage: the 8 datagrams counted in the cgroup's storage", !err && sent == 8 && pkts == 8,
	      "%d: %d sent, %llu counted %s", err, sent, (unsigned long long)pkts, kiln_errmsg());
	size_t n = kiln_map_value_buf_size(by) / sizeof(uint64_t);
	uint64_t *v = calloc(n, sizeof(uint64_t));
	err = v ? kiln_map_lookup(by, &id, v) : -ENOMEM;
	for (size_t i = 0; v && i < n; i++)
		bytes += v[i];
	/* each is an IPv4 header, a UDP header and 4 bytes: skb->len at cgroup egress */
	CHECK("cgroup storage: their bytes summed over the per-cpu values", !err && bytes == 8 * (20 + 8 + 4),
	      "%d %llu", err, (unsigned long long)bytes);
	free(v);
	uint64_t other = 12345;
	err = kiln_map_lookup(pk, &other, &pkts);
	CHECK("cgroup storage: no value for a cgroup the program is not attached to", err == -ENOENT, "%d", err);
	close(s);
	kiln_link_destroy(l);
	rmdir(dir);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_cgstorage: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	struct cg2 cg;
	if (!cg2_find(&cg)) {
		CHECK("cgroup storage: a cgroup v2 hierarchy", false, "none mounted and mounting one failed: %s",
		      strerror(errno));
		return CHECK_DONE();
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/cgroup-storage.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	err = err ? err : kiln_object_load(obj);
	CHECK("cgroup storage: open and load", !err, "%d %s", err, kiln_errmsg());
	if (!err) {
		test_cgrp_storage(obj, &cg);
		test_cgroup_storage(obj, &cg);
	}
	kiln_object_close(obj);
	cg2_release(&cg);
	CHECK("cgroup storage: no fd leaked", check_open_fds() == fds_before, "%d then %d", fds_before,
	      check_open_fds());
	return CHECK_DONE();
}
