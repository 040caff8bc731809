/* test_targs.c — typed arguments of tracing programs on the running kernel (as root):
 * tests/lib/targs.lisp compiled in memory and loaded; its tp_btf programs read
 * sched_process_fork's parent and child and sched_switch's prev, next, preempt and prev_state
 * by name and with (arg N), following task pointers with direct loads, and its raw tracepoints
 * read the same fork (probe reads) and sys_enter's id. Each value is checked against what the
 * test itself did: the pid of the child it forked, its own pid, the syscall it made, and
 * the fork's against clang's twin (tests/lib/targs-clang.bpf.c) attached at the same time. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t get(struct kiln_object *obj, const char *map, uint32_t slot)
{
	uint64_t v = 0;
	struct kiln_map *m = kiln_object_find_map(obj, map);
	if (m)
		kiln_map_lookup(m, &slot, &v);
	return v;
}

static void set(struct kiln_object *obj, const char *map, uint32_t slot, uint64_t v)
{
	struct kiln_map *m = kiln_object_find_map(obj, map);
	int err = m ? kiln_map_update(m, &slot, &v, 0) : -ENOENT;
	CHECK("targs: set cfg", !err, "%s[%u]: %d %s", map, slot, err, kiln_errmsg());
}

/* Wait up to 2 s for out[slot] to reach min (a tracepoint fires in the kernel at once, but a
 * switch back in after a sleep may come a little later). */
static uint64_t wait_for(struct kiln_object *obj, uint32_t slot, uint64_t min)
{
	uint64_t v = 0;
	for (int i = 0; i < 200 && (v = get(obj, "out", slot)) < min; i++)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	return v;
}

static struct kiln_link *attach(struct kiln_object *obj, const char *prog)
{
	struct kiln_link *l = NULL;
	struct kiln_prog *p = kiln_object_find_prog(obj, prog);
	int err = p ? kiln_prog_attach(p, NULL, &l) : -ENOENT;
	char what[128];
	snprintf(what, sizeof(what), "targs: attach %s", prog);
	CHECK(what, !err && l, "%d %s", err, kiln_errmsg());
	return l;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_targs: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/targs.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	CHECK("targs: open", !err, "%s", kiln_errmsg());
	if (err)
		return CHECK_DONE();
	err = kiln_object_load(obj);
	CHECK("targs: load (tp_btf and raw_tp, the verifier checks every direct load)", !err, "%d %s", err,
	      kiln_errmsg());
	if (err) {
		kiln_object_close(obj);
		return CHECK_DONE();
	}
	pid_t me = getpid();
	set(obj, "cfg", 0, (uint64_t)me);
	set(obj, "cfg", 1, SYS_getppid);

	/* clang's twin of on_fork, built against a vmlinux.h generated in the scratch directory */
	char dir[] = "/tmp/kiln-test-targs-XXXXXX";
	struct kiln_object *twin = NULL;
	struct kiln_link *twin_l = NULL;
	if (mkdtemp(dir)) {
		int rc = check_sh("bpftool btf dump file /sys/kernel/btf/vmlinux format c >'%s/vmlinux.h' && "
				  "clang -O2 -g -target bpf -I'%s' -c '%s/tests/lib/targs-clang.bpf.c' -o '%s/twin.o'",
				  dir, dir, root, dir);
		CHECK("targs: clang twin builds (bpftool, clang)", rc == 0, "exit %d", rc);
		char twin_path[PATH_MAX];
		snprintf(twin_path, sizeof(twin_path), "%s/twin.o", dir);
		if (!rc && !(err = kiln_object_open(twin_path, NULL, &twin)) && !(err = kiln_object_load(twin))) {
			set(twin, "cfg", 0, (uint64_t)me);
			twin_l = attach(twin, "on_fork_clang");
		} else if (!rc) {
			CHECK("targs: clang twin loads", false, "%d %s", err, kiln_errmsg());
		}
		check_sh("rm -rf '%s'", dir);
	}

	/* fork: the child's pid, tgid and parent as the tp_btf and raw tracepoint read them */
	struct kiln_link *fork_l = attach(obj, "on_fork"), *raw_l = attach(obj, "on_fork_raw");
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	int status;
	waitpid(child, &status, 0);
	if (fork_l)
		kiln_link_destroy(fork_l);
	if (raw_l)
		kiln_link_destroy(raw_l);
	if (twin_l)
		kiln_link_destroy(twin_l);
	if (twin) {
		for (uint32_t k = 0; k < 3; k++) {
			char what[128];
			snprintf(what, sizeof(what), "targs: clang twin reads the same out[%u] (%s)", k,
				 k == 0 ? "child->pid" : k == 1 ? "child->tgid" : "child->real_parent->tgid");
			CHECK(what, get(twin, "out", k) == get(obj, "out", k) && get(twin, "out", k) != 0,
			      "clang %llu, kiln %llu", (unsigned long long)get(twin, "out", k),
			      (unsigned long long)get(obj, "out", k));
		}
		kiln_object_close(twin);
	}
	CHECK("targs: fork seen once (tp_btf sched_process_fork, parent->tgid is the test)",
	      get(obj, "out", 4) == 1, "%llu times", (unsigned long long)get(obj, "out", 4));
	CHECK("targs: (-> child pid) is the forked child's pid", get(obj, "out", 0) == (uint64_t)child,
	      "%llu, child %d", (unsigned long long)get(obj, "out", 0), child);
	CHECK("targs: (-> child tgid) is the child's pid", get(obj, "out", 1) == (uint64_t)child,
	      "%llu, child %d", (unsigned long long)get(obj, "out", 1), child);
	CHECK("targs: (-> child real_parent tgid) is the test (pointer followed by direct loads)",
	      get(obj, "out", 2) == (uint64_t)me, "%llu, test %d", (unsigned long long)get(obj, "out", 2), me);
	CHECK("targs: (-> (arg 1) pid) is the child too", get(obj, "out", 3) == (uint64_t)child,
	      "%llu, child %d", (unsigned long long)get(obj, "out", 3), child);
	CHECK("targs: (core-read child task_struct tgid) on a BTF pointer (probe read) is the child",
	      get(obj, "out", 11) == (uint64_t)child, "%llu, child %d", (unsigned long long)get(obj, "out", 11), child);
	CHECK("targs: raw_tp sched_process_fork: (-> child pid) by probe reads", get(obj, "out", 8) == (uint64_t)child,
	      "%llu, child %d", (unsigned long long)get(obj, "out", 8), child);
	CHECK("targs: raw_tp: (core-read (arg 1) task_struct real_parent pid) is the test",
	      get(obj, "out", 9) == (uint64_t)me, "%llu, test %d", (unsigned long long)get(obj, "out", 9), me);

	/* sched_switch: the test's thread sleeping (prev, prev_state INTERRUPTIBLE (1, with FREEZABLE), not preempted) and back */
	struct kiln_link *sw = attach(obj, "on_switch");
	for (int i = 0; i < 5; i++)
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	uint64_t sleeps = wait_for(obj, 6, 5);
	if (sw)
		kiln_link_destroy(sw);
	CHECK("targs: sched_switch: the test's 5 sleeps seen as prev with prev_state 1, preempt false",
	      sleeps >= 5, "%llu", (unsigned long long)sleeps);
	CHECK("targs: sched_switch: (-> prev pid) is the test's thread", get(obj, "out", 5) == (uint64_t)me,
	      "%llu, test %d", (unsigned long long)get(obj, "out", 5), me);
	CHECK("targs: sched_switch: (-> next pid) is the test's thread switched back in",
	      get(obj, "out", 7) == (uint64_t)me, "%llu, test %d", (unsigned long long)get(obj, "out", 7), me);

	/* sys_enter: id by name and (arg 1), for the test's own getppid calls only */
	struct kiln_link *se = attach(obj, "on_sys_enter");
	for (int i = 0; i < 7; i++)
		syscall(SYS_getppid);
	if (se)
		kiln_link_destroy(se);
	CHECK("targs: raw_tp sys_enter: id and (arg 1) are the syscall, 7 getppid calls",
	      get(obj, "out", 10) == 7, "%llu", (unsigned long long)get(obj, "out", 10));

	kiln_object_close(obj);
	CHECK("targs: no fd leaks", check_open_fds() == fds_before, "%d fds before, %d after", fds_before,
	      check_open_fds());
	return CHECK_DONE();
}
