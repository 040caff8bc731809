/* test_storage.c — local storage that loads and runs: tests/lib/task-storage.lisp declares a
 * :task-storage map with neither :max-entries nor :map-flags (kiln fills in what the kernel
 * requires: 0 entries, BPF_F_NO_PREALLOC); a tp_btf program counts the switches of this
 * process's tasks into each task's own storage (task-storage-get with create), another deletes
 * it on getppid (task-storage-delete on get-current-task-btf). User space reads the counter with
 * a pidfd as the key: present and growing while the test sleeps, gone after getppid.
 * tests/lib/sk-storage.lisp does the same per socket: receives on a loopback TCP socket count
 * into its :sk-storage (sk-storage-get on tp_btf/tcp_rcv_space_adjust's sk), a send from it
 * deletes it (sk-storage-delete); user space reads it with the socket's fd as the key. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct kiln_link *attach(struct kiln_object *obj, const char *prog)
{
	struct kiln_link *l = NULL;
	struct kiln_prog *p = kiln_object_find_prog(obj, prog);
	int err = p ? kiln_prog_attach(p, NULL, &l) : -ENOENT;
	char what[128];
	snprintf(what, sizeof(what), "storage: attach %s", prog);
	CHECK(what, !err && l, "%d %s", err, kiln_errmsg());
	return l;
}

/* A connected loopback TCP pair: fds in sv[0] (client) and sv[1] (accepted). */
static int tcp_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (void *)&a, &len))
		return -1;
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (void *)&a, sizeof(a)) || (sv[1] = accept(l, NULL, NULL)) < 0)
		return -1;
	close(l);
	return 0;
}

static void test_sk_storage(const char *root)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/sk-storage.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	err = err ? err : kiln_object_load(obj);
	CHECK("sk storage: open and load", !err, "%d %s", err, kiln_errmsg());
	if (err) {
		kiln_object_close(obj);
		return;
	}
	struct kiln_map *m = kiln_object_find_map(obj, "rcvs");
	const struct kiln_map_info *mi = kiln_map_info(m);
	CHECK("sk storage: the kernel made an sk storage, 0 entries, not preallocated",
	      mi->type == BPF_MAP_TYPE_SK_STORAGE && mi->max_entries == 0 && (mi->flags & BPF_F_NO_PREALLOC),
	      "type %d max %u flags %#x", mi->type, mi->max_entries, mi->flags);
	struct kiln_link *l1 = attach(obj, "on_rcv"), *l2 = attach(obj, "on_send");
	int sv[2] = { -1, -1 };
	CHECK("sk storage: a loopback TCP pair", !tcp_pair(sv), "%s", strerror(errno));
	char buf[16];
	uint64_t v = 0;
	for (int i = 0; i < 5; i++)
		if (write(sv[0], "hello", 5) != 5 || read(sv[1], buf, sizeof(buf)) <= 0)
			break;
	err = kiln_map_lookup(m, &sv[1], &v);
	CHECK("sk storage: 5 receives counted in the receiving socket's own storage", !err && v >= 5 && v <= 10,
	      "%d %llu", err, (unsigned long long)v);
	err = kiln_map_lookup(m, &sv[0], &v);
	CHECK("sk storage: the sending socket has none", err == -ENOENT, "%d %llu", err, (unsigned long long)v);
	if (write(sv[1], "bye", 3) == 3 && read(sv[0], buf, sizeof(buf)) > 0) {
		err = kiln_map_lookup(m, &sv[1], &v);
		CHECK("sk storage: sk-storage-delete on the socket's send removed it", err == -ENOENT, "%d %llu",
		      err, (unsigned long long)v);
	}
	close(sv[0]);
	close(sv[1]);
	kiln_link_destroy(l1);
	kiln_link_destroy(l2);
	kiln_object_close(obj);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_storage: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/task-storage.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	CHECK("storage: open", !err, "%s", kiln_errmsg());
	if (err)
		return CHECK_DONE();
	struct kiln_map *m = kiln_object_find_map(obj, "switches");
	const struct kiln_map_info *mi = m ? kiln_map_info(m) : NULL;
	err = kiln_object_load(obj);
	CHECK("storage: load", !err, "%d %s", err, kiln_errmsg());
	if (err || !m) {
		kiln_object_close(obj);
		return CHECK_DONE();
	}
	mi = kiln_map_info(m);
	CHECK("storage: the kernel made a task storage, 0 entries, not preallocated",
	      mi->type == BPF_MAP_TYPE_TASK_STORAGE && mi->max_entries == 0 && (mi->flags & BPF_F_NO_PREALLOC),
	      "type %d max %u flags %#x", mi->type, mi->max_entries, mi->flags);
	uint32_t zero = 0, me = (uint32_t)getpid();
	kiln_map_update(kiln_object_find_map(obj, "watch"), &zero, &me, BPF_ANY);
	struct kiln_link *l1 = attach(obj, "count_in"), *l2 = attach(obj, "forget");
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	CHECK("storage: pidfd_open", pidfd >= 0, "%s", strerror(errno));

	/* each sleep switches this task out and back in: its counter must appear and grow */
	uint64_t first = 0, later = 0;
	for (int i = 0; i < 200 && kiln_map_lookup(m, &pidfd, &first); i++)
		nanosleep(&(struct timespec){ 0, 2 * 1000 * 1000 }, NULL);
	CHECK("storage: the task's counter exists after it was switched in", first > 0, "%llu (%s)",
	      (unsigned long long)first, kiln_errmsg());
	for (int i = 0; i < 20; i++)
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	kiln_map_lookup(m, &pidfd, &later);
	/* each sleep is a switch out and back in; the count read before them may already include
	 * the first, and a slow machine (ASan) may merge none: at least half of them, as a floor */
	CHECK("storage: 20 more sleeps, at least 10 more switches in", later >= first + 10, "%llu then %llu",
	      (unsigned long long)first, (unsigned long long)later);

	/* getppid makes the program delete this task's storage */
	syscall(SYS_getppid);
	uint64_t v;
	err = kiln_map_lookup(m, &pidfd, &v);
	/* gone, or (if the task was switched out and in since) begun again from scratch */
	CHECK("storage: task-storage-delete on getppid removed it", err == -ENOENT || v < later / 2,
	      "lookup: %d (%llu, before %llu)", err, (unsigned long long)v, (unsigned long long)later);
	/* and a fresh switch makes it again, from 1 */
	nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	err = kiln_map_lookup(m, &pidfd, &v);
	CHECK("storage: created again after the next switch, counting from scratch", !err && v >= 1 && v < later,
	      "%d %llu", err, (unsigned long long)v);
	if (pidfd >= 0)
		close(pidfd);
	kiln_link_destroy(l1);
	kiln_link_destroy(l2);
	kiln_object_close(obj);
	test_sk_storage(root);
	CHECK("storage: no fd leaks", check_open_fds() == fds_before, "%d before, %d after", fds_before,
	      check_open_fds());
	return CHECK_DONE();
}
