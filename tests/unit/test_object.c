/* test_object.c — libkiln's objects, links and program info on the running kernel (as root):
 * kiln-built, in-memory-compiled and clang-built objects loaded, every hook this kernel allows
 * attached and its counter watched, pins, verifier rejections, test runs, and no fd leaked. */
#define _GNU_SOURCE
#include "check.h"
#include "cgroup.h"
#include <kiln/kiln.h>
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char tmp[128];            /* scratch directory for built objects */
static char pin_dir[128];        /* on bpffs */
static char netns[32], veth_a[16], veth_b[16], addr_a[32], addr_b[32];
static struct cg2 cg;
static char cg_dir[512];
static char exe[PATH_MAX];
static const char *src_root = ".";
static const char *kiln_bin = "./kiln";

/* The uprobe's target: a function of this binary that the compiler must keep as it is. */
__attribute__((noinline, used)) int kiln_test_uprobe_target(int x)
{
	asm volatile("" : "+r"(x) : : "memory");
	return x + 1;
}

/* The output of a command (first 64 KiB), "" if it failed to run. */
static char *sh_out(const char *cmd)
{
	static char buf[65536];
	buf[0] = 0;
	fflush(stdout);
	FILE *f = popen(cmd, "r");
	if (!f)
		return buf;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	pclose(f);
	return buf;
}

static void msleep(int ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000L }, NULL);
}

static uint64_t hits(struct kiln_object *obj, uint32_t slot)
{
	uint64_t v = 0;
	struct kiln_map *m = kiln_object_find_map(obj, "hits");
	if (m)
		kiln_map_lookup(m, &slot, &v);
	return v;
}

/* Packets arrive asynchronously (veth NAPI): wait up to 2 s for the counter to reach min. */
static uint64_t wait_hits(struct kiln_object *obj, uint32_t slot, uint64_t min)
{
	uint64_t v = 0;
	for (int i = 0; i < 100 && (v = hits(obj, slot)) < min; i++)
		msleep(20);
	return v;
}

/* -------------------------------------------------------------------------------------------
 * The environment: a netns with a veth pair, a cgroup, pins; made and always removed. */

static void cleanup(void)
{
	char cmd[PATH_MAX + 64];
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "ip netns del %s >/dev/null 2>&1; ip link del %s >/dev/null 2>&1", netns, veth_a);
	if (system(cmd)) {
		/* nothing to delete */
	}
	if (cg_dir[0])
		rmdir(cg_dir);
	cg2_release(&cg);
	if (pin_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", pin_dir);
		if (system(cmd)) {
			/* reported by the checks that needed it */
		}
	}
	if (tmp[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd)) {
			/* ditto */
		}
	}
}

/* What an earlier run that died left behind: everything here is named after its pid. */
static bool stale(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n) || !name[n])
		return false;
	char *end;
	long pid = strtol(name + n, &end, 10);
	return pid > 0 && (!*end || *end == '-') && pid != getpid() && kill((pid_t)pid, 0) && errno == ESRCH;
}

static void sweep_stale(void)
{
	DIR *d = opendir("/var/run/netns");
	for (struct dirent *e; d && (e = readdir(d));)
		if (stale(e->d_name, "kiln-obj-"))
			check_sh("ip netns del '%s' >/dev/null 2>&1", e->d_name);
	if (d)
		closedir(d);
	static const char *const dirs[] = { "/sys/fs/bpf", "/tmp" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!(d = opendir(dirs[i])))
			continue;
		for (struct dirent *e; (e = readdir(d));)
			if (stale(e->d_name, "kiln-test-object-"))
				check_sh("rm -rf '%s/%s'", dirs[i], e->d_name);
		closedir(d);
	}
	if (cg.mount[0] && (d = opendir(cg.mount))) {
		char path[PATH_MAX];
		for (struct dirent *e; (e = readdir(d));)
			if (stale(e->d_name, "kiln-test-object-")) {
				snprintf(path, sizeof(path), "%s/%s", cg.mount, e->d_name);
				rmdir(path);
			}
		closedir(d);
	}
}

static bool net_setup(void)
{
	return !check_sh("ip netns add %s && ip link add %s type veth peer name %s netns %s && "
		   "ip addr add %s/30 dev %s && ip link set %s up && "
		   "ip -n %s addr add %s/30 dev %s && ip -n %s link set %s up && ip -n %s link set lo up",
		   netns, veth_a, veth_b, netns, addr_a, veth_a, veth_a, netns, addr_b, veth_b, netns, veth_b, netns);
}

/* A UDP socket in the named netns (NULL: this one); the socket stays in it. */
static int udp_socket_in(const char *ns)
{
	if (!ns)
		return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char path[128];
	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int there = open(path, O_RDONLY | O_CLOEXEC);
	int s = -1;
	if (self >= 0 && there >= 0 && !setns(there, CLONE_NEWNET)) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (setns(self, CLONE_NEWNET)) {
			perror("setns back");
			exit(2);
		}
	}
	if (self >= 0)
		close(self);
	if (there >= 0)
		close(there);
	return s;
}

static void send_udp(const char *ns, const char *to, int n)
{
	int s = udp_socket_in(ns);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };
	inet_pton(AF_INET, to, &a.sin_addr);
	for (int i = 0; s >= 0 && i < n; i++) {
		if (sendto(s, "kiln", 4, 0, (struct sockaddr *)&a, sizeof(a)) < 0)
			msleep(10);
		msleep(5);
	}
	if (s >= 0)
		close(s);
}

/* -------------------------------------------------------------------------------------------
 * Opening and loading. */

static struct kiln_object *open_load(const char *path, const struct kiln_object_opts *o)
{
	struct kiln_object *obj = NULL;
	if (kiln_object_open(path, o, &obj)) {
		printf("    open %s: %s\n", path, kiln_errmsg());
		return NULL;
	}
	if (kiln_object_load(obj)) {
		printf("    load %s: %s\n", path, kiln_errmsg());
		kiln_object_close(obj);
		return NULL;
	}
	return obj;
}

static void test_kiln_object(const char *obj_path)
{
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(obj_path, NULL, &obj);
	CHECK("object: open kiln-built .o", !err && obj, "%d %s", err, kiln_errmsg());
	if (err)
		return;
	CHECK("object: name is the file's", !strcmp(kiln_object_name(obj), "obj-counters.o"), "%s", kiln_object_name(obj));
	CHECK("object: programs counted", kiln_object_prog_count(obj) == 12, "%zu", kiln_object_prog_count(obj));
	CHECK("object: maps counted", kiln_object_map_count(obj) == 2, "%zu", kiln_object_map_count(obj));
	struct kiln_prog *xdp = kiln_object_find_prog(obj, "count_xdp");
	struct kiln_prog *named = kiln_object_find_prog(obj, "count-xdp-named");
	struct kiln_prog *tcin = kiln_object_find_prog(obj, "count_tc_in");
	struct kiln_prog *raw = kiln_object_find_prog(obj, "count_sys_enter");
	CHECK("object: find prog by name (and by kiln's dashed name)", xdp && named && tcin && raw, "missing");
	CHECK("object: no such prog", !kiln_object_find_prog(obj, "nope"), "found");
	CHECK("object: find map", kiln_object_find_map(obj, "hits") && kiln_object_find_map(obj, "config"), "missing");
	if (!xdp || !named || !tcin || !raw) {
		kiln_object_close(obj);
		return;
	}
	CHECK("object: insn count", kiln_prog_insn_count(xdp) > 0, "%zu", kiln_prog_insn_count(xdp));
	CHECK("object: prog fd -1 before load", kiln_prog_fd(xdp) == -1, "%d", kiln_prog_fd(xdp));
	CHECK("object: map fd -1 before load", kiln_map_fd(kiln_object_find_map(obj, "hits")) == -1, "not -1");
	CHECK("object: section xdp/named is XDP", kiln_prog_type(named) == BPF_PROG_TYPE_XDP &&
	      kiln_prog_expected_attach_type(named) == BPF_XDP, "type %d", kiln_prog_type(named));
	CHECK("object: section tc/ingress is SCHED_CLS", kiln_prog_type(tcin) == BPF_PROG_TYPE_SCHED_CLS,
	      "type %d", kiln_prog_type(tcin));
	static const struct { const char *prog; enum kiln_attach_kind kind; } kinds[] = {
		{ "count_xdp", KILN_ATTACH_XDP }, { "count_xdp_named", KILN_ATTACH_XDP },
		{ "count_tc_in", KILN_ATTACH_TC }, { "count_tcx_in", KILN_ATTACH_TC }, { "mark_bump", KILN_ATTACH_TC },
		{ "count_getppid", KILN_ATTACH_TRACEPOINT }, { "count_sys_enter", KILN_ATTACH_RAW_TRACEPOINT },
		{ "count_uprobe", KILN_ATTACH_UPROBE }, { "count_uretprobe", KILN_ATTACH_UPROBE },
		{ "count_egress", KILN_ATTACH_CGROUP },
	};
	bool kinds_ok = true;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct kiln_prog *p = kiln_object_find_prog(obj, kinds[i].prog);
		if (!p || kiln_prog_attach_kind(p) != kinds[i].kind) {
			printf("    %s: kind %s\n", kinds[i].prog, p ? kiln_attach_kind_name(kiln_prog_attach_kind(p)) : "?");
			kinds_ok = false;
		}
	}
	CHECK("object: attach kinds from sections", kinds_ok, "see above");
	CHECK("object: attach kind names", !strcmp(kiln_attach_kind_name(KILN_ATTACH_RAW_TRACEPOINT), "raw_tracepoint") &&
	      !strcmp(kiln_attach_kind_name((enum kiln_attach_kind)99), "unknown"), "wrong");

	err = kiln_object_load(obj);
	CHECK("object: load kiln-built .o", !err, "%d %s", err, kiln_errmsg());
	if (err) {
		kiln_object_close(obj);
		return;
	}
	CHECK("object: prog fd after load", kiln_prog_fd(xdp) >= 0 && kiln_prog_fd(named) >= 0, "%d", kiln_prog_fd(xdp));
	CHECK("object: map fd after load", kiln_map_fd(kiln_object_find_map(obj, "hits")) >= 0, "-1");
	CHECK("object: no log at log_level 0", !strcmp(kiln_object_log(obj), ""), "%s", kiln_object_log(obj));
	err = kiln_object_load(obj);
	CHECK("object: second load refused", err == -EINVAL && strstr(kiln_errmsg(), "once"), "%d %s", err, kiln_errmsg());

	/* program info, checked against the kernel's own view through bpftool */
	struct kiln_prog_info info;
	err = kiln_prog_info_fd(kiln_prog_fd(xdp), &info);
	CHECK("info: by fd", !err, "%s", kiln_errmsg());
	CHECK("info: type and name", info.type == BPF_PROG_TYPE_XDP && !strcmp(info.name, "count_xdp"),
	      "%d %s", info.type, info.name);
	bool hex = strlen(info.tag) == 16;
	for (int i = 0; hex && i < 16; i++)
		hex = strchr("0123456789abcdef", info.tag[i]) != NULL;
	CHECK("info: tag is 16 hex digits", hex, "'%s'", info.tag);
	char cmd[128], want[64];
	snprintf(cmd, sizeof(cmd), "bpftool prog show id %u -j 2>/dev/null", info.id);
	snprintf(want, sizeof(want), "\"tag\":\"%s\"", info.tag);
	const char *bt = sh_out(cmd);
	CHECK("info: tag as bpftool reports it", strstr(bt, want) != NULL, "want %s in %.200s", want, bt);
	CHECK("info: xlated insns", info.xlated_insns > 0 && info.jited_bytes > 0, "%u %u", info.xlated_insns, info.jited_bytes);
	CHECK("info: verified insns", info.verified_insns > 0, "%u", info.verified_insns);
	CHECK("info: one map", info.nr_map_ids == 1 &&
	      info.map_ids[0] == kiln_map_info(kiln_object_find_map(obj, "hits"))->id, "%u", info.nr_map_ids);
	int64_t age = (int64_t)time(NULL) - info.load_time_unix;
	CHECK("info: load time within a minute", age >= -60 && age <= 60, "%lld s", (long long)age);
	CHECK("info: load time since boot", info.load_time_ns > 0, "0");
	struct kiln_prog_info rinfo;
	err = kiln_prog_info_fd(kiln_prog_fd(raw), &rinfo);
	CHECK("info: two maps for the raw tracepoint", !err && rinfo.nr_map_ids == 2, "%d %u", err, rinfo.nr_map_ids);
	struct kiln_prog_info byid;
	err = kiln_prog_info_id(info.id, &byid);
	CHECK("info: by id", !err && !strcmp(byid.tag, info.tag) && byid.id == info.id, "%d %s", err, kiln_errmsg());
	bool found = false;
	int steps = 0;
	for (uint32_t id = 0; !found && !kiln_prog_next_id(id, &id) && steps < 100000; steps++)
		found = id == info.id;
	CHECK("info: next_id finds the program", found, "after %d ids", steps);
	uint32_t last = 0, next;
	for (uint32_t id = 0; !kiln_prog_next_id(id, &next); id = next)
		last = next;
	err = kiln_prog_next_id(last, &next);
	CHECK("info: next_id ends with -ENOENT", err == -ENOENT, "%d", err);
	int fd = kiln_prog_fd_by_id(info.id);
	CHECK("info: fd by id", fd >= 0, "%d %s", fd, kiln_errmsg());
	if (fd >= 0)
		close(fd);
	err = kiln_prog_info_id(UINT32_MAX, &byid);
	CHECK("info: unknown id fails", err == -ENOENT && strstr(kiln_errmsg(), "4294967295"), "%d %s", err, kiln_errmsg());
	CHECK("info: type names", !strcmp(kiln_prog_type_name(BPF_PROG_TYPE_XDP), "xdp") &&
	      !strcmp(kiln_prog_type_name(BPF_PROG_TYPE_SCHED_CLS), "sched_cls") &&
	      !strcmp(kiln_prog_type_name((enum bpf_prog_type)9999), "unknown"), "wrong");
	kiln_object_close(obj);
}

static void test_clang_object(const char *good, const char *bad)
{
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(good, NULL, &obj);
	CHECK("clang: open", !err, "%s", kiln_errmsg());
	if (err)
		return;
	/* the .rodata map is named after the object: "obj-clang" must not reach the kernel */
	err = kiln_object_load(obj);
	CHECK("clang: load (with .rodata of a dashed object name)", !err, "%s", kiln_errmsg());
	struct kiln_prog *xdp = kiln_object_find_prog(obj, "clang_xdp");
	struct kiln_prog *tc = kiln_object_find_prog(obj, "clang_tc");
	struct kiln_map *counts = kiln_object_find_map(obj, "clang_counts");
	CHECK("clang: find progs and maps", xdp && tc && counts && kiln_object_map_count(obj) == 2,
	      "%zu maps", kiln_object_map_count(obj));
	if (err || !xdp || !tc || !counts) {
		kiln_object_close(obj);
		return;
	}
	CHECK("clang: insn count", kiln_prog_insn_count(xdp) > 0, "0");
	uint8_t pkt[64] = { 0 };
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt) };
	err = kiln_prog_test_run(kiln_prog_fd(xdp), &r);
	uint32_t k = 0;
	uint64_t v = 0;
	kiln_map_lookup(counts, &k, &v);
	CHECK("clang: test-run XDP_PASS and counted", !err && r.retval == XDP_PASS && v == 1, "%d %u %llu", err,
	      r.retval, (unsigned long long)v);
	struct __sk_buff in = { .mark = 41 }, outc;
	memset(&outc, 0, sizeof(outc));
	struct kiln_test_run t = { .sz = sizeof(t), .data_in = pkt, .data_size_in = sizeof(pkt), .ctx_in = &in,
				   .ctx_size_in = sizeof(in), .ctx_out = &outc, .ctx_size_out = sizeof(outc) };
	err = kiln_prog_test_run(kiln_prog_fd(tc), &t);
	CHECK("clang: test-run tc with a __sk_buff ctx", !err && outc.mark == 42 && t.ctx_size_out == sizeof(outc),
	      "%d %s mark %u", err, kiln_errmsg(), outc.mark);
	kiln_object_close(obj);

	obj = NULL;
	err = kiln_object_open(bad, NULL, &obj);
	if (!err)
		err = kiln_object_load(obj);
	CHECK("clang: rejected program fails", err < 0, "%d", err);
	CHECK("clang: message names the program and the verifier", strstr(kiln_errmsg(), "'past_value'") &&
	      strstr(kiln_errmsg(), "verifier"), "%s", kiln_errmsg());
	CHECK("clang: log has the verifier's text", strstr(kiln_errlog(), "invalid access to map value") &&
	      obj && strstr(kiln_object_log(obj), "invalid access to map value"), "%.300s", kiln_errlog());
	/* clang's .BTF.ext line info has columns too: v[1] is at 20:9 */
	const struct kiln_verifier_error *ve = obj ? kiln_object_verifier_error(obj) : NULL;
	CHECK("clang: the rejection at file:line:col with cause and source line",
	      ve && strstr(ve->file, "obj-clang-rejected.bpf.c") && ve->line == 20 && ve->col == 9 &&
	      strstr(ve->source, "return v[1]") && !strcmp(ve->cause, "map-value-bounds") && ve->hint[0] &&
	      !strcmp(ve->prog, "past_value") && ve->insn >= 0 && strstr(ve->insn_text, "+8)"),
	      "%s:%u:%u %s [%s] insn %ld %s", ve ? ve->file : "-", ve ? ve->line : 0, ve ? ve->col : 0,
	      ve ? ve->message : "-", ve ? ve->cause : "-", ve ? ve->insn : -1, ve ? ve->insn_text : "-");
	kiln_object_close(obj);
}

static void test_rejected_and_logs(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/obj-rejected.lisp", dir);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	CHECK("reject: open .lisp in memory", !err, "%s", kiln_errmsg());
	if (!err) {
		err = kiln_object_load(obj);
		CHECK("reject: negative errno", err < 0, "%d", err);
		CHECK("reject: message", strstr(kiln_errmsg(), "load program 'unchecked' of obj-rejected.lisp: the verifier "
						"rejected it: "), "%s", kiln_errmsg());
		CHECK("reject: the message is the verifier's, not EACCES's text",
		      strstr(kiln_errmsg(), "outside of the packet") && !strstr(kiln_errmsg(), "Permission denied"), "%s",
		      kiln_errmsg());
		CHECK("reject: errlog", strstr(kiln_errlog(), "invalid access to packet") != NULL, "%.300s", kiln_errlog());
		CHECK("reject: object log", strstr(kiln_object_log(obj), "invalid access to packet") != NULL, "%.300s",
		      kiln_object_log(obj));
		const struct kiln_verifier_error *ve = kiln_object_verifier_error(obj);
		CHECK("reject: the verifier error at the load form, 4:5", ve && strstr(ve->file, "obj-rejected.lisp") &&
		      ve->line == 4 && ve->col == 5 && !strcmp(ve->message, "R1 offset is outside of the packet") &&
		      !strcmp(ve->cause, "packet-bounds") && ve->insn == 1 && strstr(ve->source, "(load u32 data 20)"),
		      "%s:%u:%u %s [%s]", ve ? ve->file : "-", ve ? ve->line : 0, ve ? ve->col : 0,
		      ve ? ve->message : "-", ve ? ve->cause : "-");
		kiln_object_close(obj);
	}

	snprintf(path, sizeof(path), "%s/tests/lib/obj-counters.lisp", dir);
	struct kiln_object_opts o = { .sz = sizeof(o), .log_level = 1 };
	obj = open_load(path, &o);
	CHECK("log: log_level 1 keeps the log of a success", obj && strstr(kiln_object_log(obj), "processed") &&
	      strstr(kiln_object_log(obj), "prog count_xdp:"), "%.200s", obj ? kiln_object_log(obj) : "");
	CHECK("log: no verifier error after a load that succeeded", obj && !kiln_object_verifier_error(obj), "%s",
	      obj && kiln_object_verifier_error(obj) ? kiln_object_verifier_error(obj)->message : "");
	kiln_object_close(obj);
	o.log_level = 2;
	o.log_size = 64;
	obj = NULL;
	err = kiln_object_open(path, &o, &obj);
	if (!err)
		err = kiln_object_load(obj);
	CHECK("log: a log that outgrows log_size says so", err == -ENOSPC && strstr(kiln_errmsg(), "log_size"),
	      "%d %s", err, kiln_errmsg());
	kiln_object_close(obj);
	o = (struct kiln_object_opts){ .sz = sizeof(o), .opt_level = -1, .name = "custom" };
	obj = open_load(path, &o);
	CHECK("open: -O0 and a given name", obj && !strcmp(kiln_object_name(obj), "custom"), "%s", kiln_errmsg());
	kiln_object_close(obj);

	/* a map pinned by name with another shape: the error says which property differs */
	char root[128], p8[PATH_MAX], p16[PATH_MAX], pinned[PATH_MAX];
	snprintf(root, sizeof(root), "/sys/fs/bpf/kiln-shape-%d", getpid());
	mkdir(root, 0700);
	snprintf(p8, sizeof(p8), "%s/shape8.lisp", tmp);
	snprintf(p16, sizeof(p16), "%s/shape16.lisp", tmp);
	for (int k = 0; k < 2; k++) {
		FILE *sf = fopen(k ? p16 : p8, "w");
		if (sf) {
			fprintf(sf, "(defmap shared :type :hash :key u32 :value u64 :max-entries %d :pinning :by-name)\n"
				    "(defprog p (:type :xdp) (incf (getmap shared 1)) XDP_PASS)\n", k ? 16 : 8);
			fclose(sf);
		}
	}
	o = (struct kiln_object_opts){ .sz = sizeof(o), .pin_root = root };
	obj = open_load(p8, &o);
	CHECK("pinning: the first object pins its map", obj != NULL, "%s", kiln_errmsg());
	kiln_object_close(obj);
	obj = NULL;
	err = kiln_object_open(p16, &o, &obj);
	if (!err)
		err = kiln_object_load(obj);
	CHECK("pinning: another shape is refused, naming what differs", err == -EINVAL &&
	      strstr(kiln_errmsg(), "max entries 8 pinned, 16 here") && strstr(kiln_errmsg(), "'shared'"),
	      "%d %s", err, kiln_errmsg());
	kiln_object_close(obj);
	snprintf(pinned, sizeof(pinned), "%s/shared", root);
	unlink(pinned);
	rmdir(root);

	snprintf(path, sizeof(path), "%s/broken.lisp", tmp);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("(defprog broken (:type :xdp)\n  (no-such-function 1))\n", f);
		fclose(f);
	}
	obj = NULL;
	err = kiln_object_open(path, NULL, &obj);
	CHECK("open: compile error is -EINVAL with file:line:col", err == -EINVAL && !obj &&
	      strstr(kiln_errmsg(), "broken.lisp:2:") && strstr(kiln_errmsg(), "error"), "%d %s", err, kiln_errmsg());
	err = kiln_object_open("/nonexistent/x.o", NULL, &obj);
	CHECK("open: missing file", err == -ENOENT && strstr(kiln_errmsg(), "/nonexistent/x.o"), "%d %s", err, kiln_errmsg());
	snprintf(path, sizeof(path), "%s/tests/lib/obj-clang.bpf.c", dir);
	err = kiln_object_open(path, NULL, &obj);
	CHECK("open: not an ELF object", err < 0 && strstr(kiln_errmsg(), "obj-clang.bpf.c"), "%d %s", err, kiln_errmsg());
	o = (struct kiln_object_opts){ 0 };
	err = kiln_object_open(path, &o, &obj);
	CHECK("open: opts without sz", err == -EINVAL && strstr(kiln_errmsg(), "sz"), "%d %s", err, kiln_errmsg());

	/* from memory */
	char opath[PATH_MAX];
	snprintf(opath, sizeof(opath), "%s/obj-counters.o", tmp);
	f = fopen(opath, "rb");
	static char image[1 << 20];
	size_t n = f ? fread(image, 1, sizeof(image), f) : 0;
	if (f)
		fclose(f);
	obj = NULL;
	err = kiln_object_open_mem(image, n, NULL, &obj);
	CHECK("open_mem: open", !err && !strcmp(kiln_object_name(obj), "object"), "%d %s", err, kiln_errmsg());
	if (!err) {
		err = kiln_object_load(obj);
		CHECK("open_mem: load", !err, "%s", kiln_errmsg());
		kiln_object_close(obj);
	}
}

static void test_pinning(const char *dir)
{
	char path[PATH_MAX], pin[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/obj-pinned.lisp", dir);
	snprintf(pin_dir, sizeof(pin_dir), "/sys/fs/bpf/kiln-test-object-%d", getpid());
	if (mkdir(pin_dir, 0700)) {
		CHECK("pin: temp dir on bpffs", false, "%s", strerror(errno));
		pin_dir[0] = 0;
		return;
	}
	char root[256];
	snprintf(root, sizeof(root), "%s/maps", pin_dir);
	struct kiln_object_opts o = { .sz = sizeof(o), .pin_root = root };
	struct kiln_object *a = open_load(path, &o);
	CHECK("pin: load with pin_root", a != NULL, "%s", kiln_errmsg());
	if (!a)
		return;
	struct kiln_map *m = kiln_object_find_map(a, "very-long-map-name-here");
	CHECK("pin: long map name kept by libbpf", m && !strcmp(kiln_map_name(m), "very_long_map_name_here"),
	      "%s", m ? kiln_map_name(m) : "missing");
	CHECK("pin: the kernel keeps 15 characters", m && !strcmp(kiln_map_info(m)->name, "very_long_map_n"),
	      "'%s'", m ? kiln_map_info(m)->name : "");
	snprintf(pin, sizeof(pin), "%s/very_long_map_name_here", root);
	struct stat st;
	CHECK("pin: pinned by its full name under pin_root", !stat(pin, &st), "%s: %s", pin, strerror(errno));
	snprintf(pin, sizeof(pin), "%s/pinned_hash", root);
	CHECK("pin: second map pinned", !stat(pin, &st), "%s: %s", pin, strerror(errno));
	uint32_t k = 2;
	uint64_t v = 7;
	if (m)
		kiln_map_update(m, &k, &v, 0);
	struct kiln_object *b = open_load(path, &o);
	struct kiln_map *m2 = b ? kiln_object_find_map(b, "very_long_map_name_here") : NULL;
	v = 0;
	if (m2)
		kiln_map_lookup(m2, &k, &v);
	CHECK("pin: a second load reuses the map", m && m2 && kiln_map_info(m)->id == kiln_map_info(m2)->id && v == 7,
	      "ids %u %u value %llu", m ? kiln_map_info(m)->id : 0, m2 ? kiln_map_info(m2)->id : 0, (unsigned long long)v);
	kiln_object_close(a);
	kiln_object_close(b);
	CHECK("pin: pins outlive the objects", !stat(pin, &st), "%s", strerror(errno));
	check_sh("rm -rf '%s/maps'", pin_dir);
}

/* -------------------------------------------------------------------------------------------
 * Attaching. */

static struct kiln_link *attach(struct kiln_object *obj, const char *prog, const struct kiln_attach_opts *o,
				const char *name)
{
	struct kiln_link *l = NULL;
	struct kiln_prog *p = kiln_object_find_prog(obj, prog);
	int err = p ? kiln_prog_attach(p, o, &l) : -ENOENT;
	char what[128];
	snprintf(what, sizeof(what), "%s: attach", name);
	CHECK(what, !err && l, "%d %s", err, kiln_errmsg());
	return l;
}

/* The counter grows by at least n when traffic flows, and not at all after the detach. */
static void counted_then_not(struct kiln_object *obj, struct kiln_link *l, uint32_t slot, const char *name,
			     void (*traffic)(int n))
{
	char what[128];
	uint64_t before = hits(obj, slot);
	traffic(5);
	uint64_t after = wait_hits(obj, slot, before + 5);
	snprintf(what, sizeof(what), "%s: counted", name);
	CHECK(what, after >= before + 5, "%llu -> %llu", (unsigned long long)before, (unsigned long long)after);
	int err = kiln_link_detach(l);
	snprintf(what, sizeof(what), "%s: detach", name);
	CHECK(what, !err && kiln_link_detach(l) == 0, "%d %s", err, kiln_errmsg());
	msleep(100);
	before = hits(obj, slot);
	traffic(5);
	msleep(300);
	after = hits(obj, slot);
	snprintf(what, sizeof(what), "%s: not counted after detach", name);
	CHECK(what, after == before, "%llu -> %llu", (unsigned long long)before, (unsigned long long)after);
	kiln_link_destroy(l);
}

static void from_peer(int n)
{
	send_udp(netns, addr_a, n);
}

static void to_peer(int n)
{
	send_udp(NULL, addr_b, n);
}

static void getppids(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void test_net(struct kiln_object *obj)
{
	if (!net_setup()) {
		CHECK("net: netns and veth pair", false, "ip failed");
		return;
	}
	struct kiln_attach_opts o = { .sz = sizeof(o), .iface = veth_a };
	char want[64];

	struct kiln_link *l = attach(obj, "count_xdp", &o, "xdp");
	if (l) {
		snprintf(want, sizeof(want), "xdp on %s", veth_a);
		CHECK("xdp: describe", !strcmp(kiln_link_describe(l), want) && kiln_link_kind(l) == KILN_ATTACH_XDP &&
		      kiln_link_fd(l) >= 0, "%s", kiln_link_describe(l));
		struct kiln_link *l2 = NULL;
		int err = kiln_prog_attach(kiln_object_find_prog(obj, "count_xdp_named"), &o, &l2);
		CHECK("xdp: a second program on the interface is refused", err == -EBUSY && !l2 &&
		      strstr(kiln_errmsg(), "count_xdp_named") && strstr(kiln_errmsg(), veth_a), "%d %s", err, kiln_errmsg());
		counted_then_not(obj, l, 0, "xdp", from_peer);
	}
	struct kiln_attach_opts oi = { .sz = sizeof(o), .ifindex = (int)if_nametoindex(veth_a) };
	if ((l = attach(obj, "count_xdp_named", &oi, "xdp/NAME by ifindex"))) {
		snprintf(want, sizeof(want), "xdp on %s", veth_a);
		CHECK("xdp/NAME: describe", !strcmp(kiln_link_describe(l), want), "%s", kiln_link_describe(l));
		counted_then_not(obj, l, 1, "xdp/NAME", from_peer);
	}
	struct kiln_attach_opts none = { .sz = sizeof(o) };
	struct kiln_link *bad = NULL;
	int err = kiln_prog_attach(kiln_object_find_prog(obj, "count_xdp"), &none, &bad);
	CHECK("xdp: no interface", err == -EINVAL && strstr(kiln_errmsg(), "interface"), "%d %s", err, kiln_errmsg());
	o.iface = "kiln-no-such0";
	err = kiln_prog_attach(kiln_object_find_prog(obj, "count_xdp"), &o, &bad);
	CHECK("xdp: unknown interface", err == -ENODEV && strstr(kiln_errmsg(), "kiln-no-such0"), "%d %s", err, kiln_errmsg());
	o.iface = veth_a;

	/* tc through tcx links */
	if ((l = attach(obj, "count_tc_in", &o, "tcx ingress"))) {
		snprintf(want, sizeof(want), "tc ingress on %s (tcx)", veth_a);
		CHECK("tcx ingress: describe", !strcmp(kiln_link_describe(l), want) && kiln_link_fd(l) >= 0,
		      "%s", kiln_link_describe(l));
		counted_then_not(obj, l, 2, "tcx ingress", from_peer);
	}
	if ((l = attach(obj, "count_tc_out", &o, "tcx egress"))) {
		snprintf(want, sizeof(want), "tc egress on %s (tcx)", veth_a);
		CHECK("tcx egress: describe", !strcmp(kiln_link_describe(l), want), "%s", kiln_link_describe(l));
		counted_then_not(obj, l, 3, "tcx egress", to_peer);
	}
	if ((l = attach(obj, "count_tcx_in", &o, "tcx/ingress section")))
		counted_then_not(obj, l, 9, "tcx/ingress section", from_peer);
	/* a bare "tc" section takes the direction from the options */
	o.tc_dir = KILN_TC_EGRESS;
	if ((l = attach(obj, "mark_bump", &o, "tc section with tc_dir"))) {
		snprintf(want, sizeof(want), "tc egress on %s (tcx)", veth_a);
		CHECK("tc section with tc_dir: describe", !strcmp(kiln_link_describe(l), want), "%s", kiln_link_describe(l));
		kiln_link_destroy(l);
	}
	o.tc_dir = 0;

	/* tc through a clsact qdisc filter */
	o.tc_legacy = true;
	char cmd[128];
	struct kiln_link *lin = attach(obj, "count_tc_in", &o, "tc legacy ingress");
	struct kiln_link *lout = attach(obj, "count_tc_out", &o, "tc legacy egress");
	if (lin && lout) {
		snprintf(want, sizeof(want), "tc ingress on %s (clsact filter)", veth_a);
		CHECK("tc legacy: describe", !strcmp(kiln_link_describe(lin), want) && kiln_link_fd(lin) == -1,
		      "%s", kiln_link_describe(lin));
		snprintf(cmd, sizeof(cmd), "tc filter show dev %s ingress", veth_a);
		CHECK("tc legacy: tc shows the filter", strstr(sh_out(cmd), "count_tc_in") != NULL, "%s", sh_out(cmd));
		char pin[PATH_MAX];
		snprintf(pin, sizeof(pin), "%s/links/legacy", pin_dir);
		err = kiln_link_pin(lin, pin);
		CHECK("tc legacy: cannot be pinned", err == -EOPNOTSUPP, "%d", err);
		counted_then_not(obj, lin, 2, "tc legacy ingress", from_peer);
		CHECK("tc legacy: the filter is gone", !strstr(sh_out(cmd), "count_tc_in"), "%s", sh_out(cmd));
		snprintf(cmd, sizeof(cmd), "tc qdisc show dev %s", veth_a);
		CHECK("tc legacy: clsact kept while the egress filter is there", strstr(sh_out(cmd), "clsact") != NULL,
		      "%s", sh_out(cmd));
		counted_then_not(obj, lout, 3, "tc legacy egress", to_peer);
		CHECK("tc legacy: the clsact qdisc we added is gone", !strstr(sh_out(cmd), "clsact"), "%s", sh_out(cmd));
	} else {
		kiln_link_destroy(lin);
		kiln_link_destroy(lout);
	}
	/* a clsact qdisc that was there before stays */
	check_sh("tc qdisc add dev %s clsact >/dev/null 2>&1", veth_a);
	if ((lin = attach(obj, "count_tc_in", &o, "tc legacy on an existing clsact"))) {
		kiln_link_destroy(lin);
		snprintf(cmd, sizeof(cmd), "tc qdisc show dev %s", veth_a);
		char q[4096];
		snprintf(q, sizeof(q), "%s", sh_out(cmd));
		snprintf(cmd, sizeof(cmd), "tc filter show dev %s ingress", veth_a);
		CHECK("tc legacy: someone else's clsact stays, our filter goes", strstr(q, "clsact") &&
		      !strstr(sh_out(cmd), "count_tc_in"), "%s", q);
	}
	o.tc_legacy = false;
}

static void test_tracing(struct kiln_object *obj)
{
	struct kiln_link *l = attach(obj, "count_getppid", NULL, "tracepoint");
	if (l) {
		CHECK("tracepoint: describe", !strcmp(kiln_link_describe(l), "tracepoint syscalls/sys_enter_getppid") &&
		      kiln_link_kind(l) == KILN_ATTACH_TRACEPOINT, "%s", kiln_link_describe(l));
		counted_then_not(obj, l, 4, "tracepoint", getppids);
	}
	uint32_t k = 0;
	uint64_t me = (uint64_t)getpid();
	kiln_map_update(kiln_object_find_map(obj, "config"), &k, &me, 0);
	if ((l = attach(obj, "count_sys_enter", NULL, "raw_tracepoint"))) {
		CHECK("raw_tracepoint: describe", !strcmp(kiln_link_describe(l), "raw_tracepoint sys_enter"),
		      "%s", kiln_link_describe(l));
		counted_then_not(obj, l, 5, "raw_tracepoint", getppids);
	}
}

static int uprobe_calls;
static void call_target(int n)
{
	for (int i = 0; i < n; i++)
		uprobe_calls += kiln_test_uprobe_target(i) > 0;
}

static void test_uprobes(struct kiln_object *obj)
{
	struct kiln_attach_opts o = { .sz = sizeof(o), .binary = exe, .symbol = "kiln_test_uprobe_target",
				      .pid = getpid() };
	struct kiln_link *u = attach(obj, "count_uprobe", &o, "uprobe");
	struct kiln_link *ur = attach(obj, "count_uretprobe", &o, "uretprobe");
	char want[PATH_MAX + 64];
	if (u && ur) {
		snprintf(want, sizeof(want), "uprobe %s:kiln_test_uprobe_target", exe);
		CHECK("uprobe: describe", !strcmp(kiln_link_describe(u), want), "%s", kiln_link_describe(u));
		uint64_t b6 = hits(obj, 6), b7 = hits(obj, 7);
		call_target(7);
		CHECK("uprobe: counted every call", hits(obj, 6) - b6 == 7, "%llu", (unsigned long long)(hits(obj, 6) - b6));
		CHECK("uretprobe: counted every return", hits(obj, 7) - b7 == 7, "%llu",
		      (unsigned long long)(hits(obj, 7) - b7));
		kiln_link_destroy(u);
		kiln_link_destroy(ur);
		b6 = hits(obj, 6), b7 = hits(obj, 7);
		call_target(3);
		CHECK("uprobe: not counted after destroy", hits(obj, 6) == b6 && hits(obj, 7) == b7, "grew");
	} else {
		kiln_link_destroy(u);
		kiln_link_destroy(ur);
	}
	struct kiln_link *bad = NULL;
	o.symbol = "kiln_no_such_function";
	int err = kiln_prog_attach(kiln_object_find_prog(obj, "count_uprobe"), &o, &bad);
	CHECK("uprobe: unknown symbol", err == -ENOENT && strstr(kiln_errmsg(), "kiln_no_such_function"), "%d %s",
	      err, kiln_errmsg());
	err = kiln_prog_attach(kiln_object_find_prog(obj, "count_uprobe"), NULL, &bad);
	CHECK("uprobe: no binary", err == -EINVAL && strstr(kiln_errmsg(), "binary"), "%d %s", err, kiln_errmsg());

	/* the target in the section, as libbpf writes it: uprobe/BINARY:FUNC */
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/uprobe-section.lisp", tmp);
	FILE *f = fopen(src, "w");
	if (f) {
		fprintf(f, "(defmap hits :type :array :key u32 :value u64 :max-entries 1)\n"
			   "(defprog by-section (:type :uprobe :section \"uprobe/%s:kiln_test_uprobe_target\")\n"
			   "  (incf (getmap hits 0))\n  0)\n", exe);
		fclose(f);
	}
	struct kiln_object *so = open_load(src, NULL);
	CHECK("uprobe section: load", so != NULL, "%s", kiln_errmsg());
	if (!so)
		return;
	struct kiln_link *l = attach(so, "by_section", NULL, "uprobe section");
	if (l) {
		CHECK("uprobe section: describe", !strcmp(kiln_link_describe(l), want), "%s", kiln_link_describe(l));
		call_target(5);
		CHECK("uprobe section: counted", hits(so, 0) == 5, "%llu", (unsigned long long)hits(so, 0));
		kiln_link_destroy(l);
	}
	kiln_object_close(so);
}

static int cg_sock = -1;
static void from_cgroup(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	for (int i = 0; i < n; i++)
		sendto(cg_sock, "kiln", 4, 0, (struct sockaddr *)&a, sizeof(a));
}

static void test_cgroup(struct kiln_object *obj)
{
	if (!cg2_find(&cg)) {
		CHECK("cgroup: a cgroup v2 hierarchy", false, "none mounted and mounting one failed: %s", strerror(errno));
		return;
	}
	sweep_stale();
	snprintf(cg_dir, sizeof(cg_dir), "%s/kiln-test-object-%d", cg.mount, getpid());
	if (mkdir(cg_dir, 0755) && errno != EEXIST) {
		CHECK("cgroup: mkdir", false, "%s: %s", cg_dir, strerror(errno));
		cg_dir[0] = 0;
		return;
	}
	struct kiln_attach_opts o = { .sz = sizeof(o), .cgroup = cg_dir };
	struct kiln_link *l = attach(obj, "count_egress", &o, "cgroup");
	if (!l)
		return;
	char want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "cgroup_skb/egress on %s", cg_dir);
	CHECK("cgroup: describe", !strcmp(kiln_link_describe(l), want), "%s", kiln_link_describe(l));
	/* the socket belongs to the cgroup it was made in */
	int err = cg2_move_self(cg_dir);
	CHECK("cgroup: move into it", !err, "%s", strerror(-err));
	cg_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = cg2_move_self(cg.home);
	CHECK("cgroup: move back", !err, "%s: %s", cg.home, strerror(-err));
	counted_then_not(obj, l, 8, "cgroup", from_cgroup);
	close(cg_sock);
	struct kiln_link *bad = NULL;
	o.cgroup = NULL;
	err = kiln_prog_attach(kiln_object_find_prog(obj, "count_egress"), &o, &bad);
	CHECK("cgroup: needs a cgroup", err == -EINVAL && strstr(kiln_errmsg(), "cgroup"), "%d %s", err, kiln_errmsg());
}

static void test_fentry(const char *dir)
{
	char path[PATH_MAX], lockdown[128] = "";
	snprintf(path, sizeof(path), "%s/tests/lib/obj-fentry.lisp", dir);
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	if (f) {
		char line[128], *b, *e;
		if (fgets(line, sizeof(line), f) && (b = strchr(line, '[')) && (e = strchr(b, ']')))
			snprintf(lockdown, sizeof(lockdown), "%.*s", (int)(e - b - 1), b + 1);
		fclose(f);
	}
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	CHECK("fentry: open", !err, "%s", kiln_errmsg());
	if (err)
		return;
	err = kiln_object_load(obj);
	if (err == -EPERM) {
		CHECK("fentry: refusal names the program", strstr(kiln_errmsg(), "count_nanosleep") != NULL, "%s",
		      kiln_errmsg());
		printf("SKIP fentry: attach: the kernel refuses fentry programs at load (lockdown: %s): %s\n",
		       lockdown[0] ? lockdown : "unknown", strerror(EPERM));
	} else if (err) {
		CHECK("fentry: load", false, "%d %s", err, kiln_errmsg());
	} else {
		struct kiln_link *l = attach(obj, "count_nanosleep", NULL, "fentry");
		if (l) {
			CHECK("fentry: describe", !strcmp(kiln_link_describe(l), "fentry do_nanosleep"), "%s",
			      kiln_link_describe(l));
			nanosleep(&(struct timespec){ 0, 1000 }, NULL);
			CHECK("fentry: counted", hits(obj, 0) > 0, "0");
			kiln_link_destroy(l);
		}
	}
	kiln_object_close(obj);
}

static void test_link_pin(struct kiln_object *obj)
{
	if (!pin_dir[0])
		return;
	char pin[PATH_MAX];
	snprintf(pin, sizeof(pin), "%s/links/deeper/tp", pin_dir);
	struct kiln_link *l = attach(obj, "count_getppid", NULL, "link pin");
	if (!l)
		return;
	int err = kiln_link_pin(l, pin);
	CHECK("link pin: pin (making the directories)", !err, "%s", kiln_errmsg());
	err = kiln_link_pin(l, pin);
	CHECK("link pin: twice is -EBUSY", err == -EBUSY, "%d", err);
	struct bpf_link_info li = { 0 };
	uint32_t li_len = sizeof(li);
	int lfd = kiln_link_fd(l);
	if (lfd < 0 || bpf_obj_get_info_by_fd(lfd, &li, &li_len))
		li.id = 0;
	kiln_link_destroy(l);
	uint64_t before = hits(obj, 4);
	getppids(5);
	CHECK("link pin: still attached after destroy", hits(obj, 4) >= before + 5, "%llu -> %llu",
	      (unsigned long long)before, (unsigned long long)hits(obj, 4));
	CHECK("link pin: unpin", !unlink(pin), "%s", strerror(errno));
	/* the last reference of a pin goes in a work item: wait (5 s at most) for the link to go */
	int alive = 1;
	for (int i = 0; li.id && alive && i < 500; i++) {
		int fd = bpf_link_get_fd_by_id(li.id);
		alive = fd >= 0;
		if (fd >= 0) {
			close(fd);
			msleep(10);
		}
	}
	CHECK("link pin: the link is gone after the unpin", li.id && !alive, "link id %u", li.id);
	/* its id goes first, the program's detach a moment later in the same work item: wait (5 s
	 * at most) until calls are no longer counted (once detached, nothing counts them) */
	uint64_t after = 0;
	for (int i = 0; i < 250; i++) {
		before = hits(obj, 4);
		getppids(5);
		if ((after = hits(obj, 4)) == before)
			break;
		msleep(20);
	}
	CHECK("link pin: detached by the unpin", after == before, "%llu -> %llu", (unsigned long long)before,
	      (unsigned long long)after);

	/* a pinned link that is detached explicitly goes, pin and all */
	if ((l = attach(obj, "count_getppid", NULL, "link pin then detach"))) {
		kiln_link_pin(l, pin);
		err = kiln_link_detach(l);
		struct stat st;
		CHECK("link pin: detach unpins", !err && stat(pin, &st) && errno == ENOENT, "%d", err);
		before = hits(obj, 4);
		getppids(5);
		CHECK("link pin: detach detaches", hits(obj, 4) == before, "grew");
		kiln_link_destroy(l);
	}
}

/* Links hold their program in the kernel: closing the object leaves them attached. */
static void test_link_outlives_object(const char *src)
{
	struct kiln_object *obj = open_load(src, NULL);
	if (!obj) {
		CHECK("link outlives object: load", false, "%s", kiln_errmsg());
		return;
	}
	struct kiln_link *l = attach(obj, "count_getppid", NULL, "link outlives object");
	int map_fd = dup(kiln_map_fd(kiln_object_find_map(obj, "hits")));
	kiln_object_close(obj);
	uint32_t k = 4;
	uint64_t before = 0, after = 0;
	bpf_map_lookup_elem(map_fd, &k, &before);
	getppids(5);
	bpf_map_lookup_elem(map_fd, &k, &after);
	CHECK("link outlives object: still counting", l && after >= before + 5, "%llu -> %llu",
	      (unsigned long long)before, (unsigned long long)after);
	kiln_link_destroy(l);
	bpf_map_lookup_elem(map_fd, &k, &before);
	getppids(5);
	bpf_map_lookup_elem(map_fd, &k, &after);
	CHECK("link outlives object: destroy detaches", after == before, "%llu -> %llu", (unsigned long long)before,
	      (unsigned long long)after);
	if (map_fd >= 0)
		close(map_fd);
}

static void test_test_run(struct kiln_object *obj)
{
	struct kiln_prog *stamp = kiln_object_find_prog(obj, "xdp_stamp");
	struct kiln_prog *mark = kiln_object_find_prog(obj, "mark_bump");
	if (!stamp || !mark) {
		CHECK("test-run: programs", false, "missing");
		return;
	}
	uint8_t pkt[64], out[128];
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	memset(out, 0, sizeof(out));
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt), .data_out = out,
				   .data_size_out = sizeof(out) };
	int err = kiln_prog_test_run(kiln_prog_fd(stamp), &r);
	CHECK("test-run: XDP_TX", !err && r.retval == XDP_TX, "%d %s retval %u", err, kiln_errmsg(), r.retval);
	CHECK("test-run: data out", r.data_size_out == sizeof(pkt) && out[0] == 0xab && !memcmp(out + 1, pkt + 1, 63),
	      "%u bytes, first %#x", r.data_size_out, out[0]);
	r.repeat = 100;
	r.data_size_out = sizeof(out);
	err = kiln_prog_test_run(kiln_prog_fd(stamp), &r);
	CHECK("test-run: repeat 100 has a duration", !err && r.duration > 0, "%d %u", err, r.duration);
	r.repeat = 1;
	r.data_size_out = 10;
	err = kiln_prog_test_run(kiln_prog_fd(stamp), &r);
	CHECK("test-run: small data_out is -ENOSPC with the size", err == -ENOSPC && r.data_size_out == sizeof(pkt) &&
	      strstr(kiln_errmsg(), "xdp_stamp"), "%d %u %s", err, r.data_size_out, kiln_errmsg());
	uint8_t tiny[4] = { 0 };
	struct kiln_test_run t = { .sz = sizeof(t), .data_in = tiny, .data_size_in = sizeof(tiny) };
	err = kiln_prog_test_run(kiln_prog_fd(stamp), &t);
	CHECK("test-run: a short frame is refused", err == -EINVAL, "%d %u", err, t.retval);

	struct __sk_buff in, ctx_out;
	memset(&in, 0, sizeof(in));
	memset(&ctx_out, 0, sizeof(ctx_out));
	in.mark = 41;
	struct kiln_test_run c = { .sz = sizeof(c), .data_in = pkt, .data_size_in = sizeof(pkt), .ctx_in = &in,
				   .ctx_size_in = sizeof(in), .ctx_out = &ctx_out, .ctx_size_out = sizeof(ctx_out) };
	err = kiln_prog_test_run(kiln_prog_fd(mark), &c);
	CHECK("test-run: skb ctx in and out", !err && c.retval == 0 && ctx_out.mark == 42 &&
	      c.ctx_size_out == sizeof(ctx_out), "%d %s mark %u", err, kiln_errmsg(), ctx_out.mark);
	struct kiln_test_run z = { 0 };
	err = kiln_prog_test_run(kiln_prog_fd(mark), &z);
	CHECK("test-run: sz not set", err == -EINVAL, "%d", err);
	err = kiln_prog_test_run(-1, &r);
	CHECK("test-run: bad fd", err == -EBADF && strstr(kiln_errmsg(), "BPF_PROG_TEST_RUN"), "%d %s", err, kiln_errmsg());
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ROOT"))
		src_root = getenv("ROOT");
	if (getenv("KILN"))
		kiln_bin = getenv("KILN");
	int pid = getpid();
	snprintf(netns, sizeof(netns), "kiln-obj-%d", pid);
	snprintf(veth_a, sizeof(veth_a), "klo%da", pid % 10000000);
	snprintf(veth_b, sizeof(veth_b), "klo%db", pid % 10000000);
	snprintf(addr_a, sizeof(addr_a), "10.%d.%d.1", 100 + pid % 150, (pid / 150) % 64 * 4);
	snprintf(addr_b, sizeof(addr_b), "10.%d.%d.2", 100 + pid % 150, (pid / 150) % 64 * 4);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (geteuid() != 0) {
		printf("FAIL test_object: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	snprintf(tmp, sizeof(tmp), "/tmp/kiln-test-object-%d-XXXXXX", pid);
	if (!mkdtemp(tmp)) {
		printf("FAIL test_object: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	atexit(cleanup);
	/* leftovers of runs that died */
	check_sh("ip netns del %s >/dev/null 2>&1; ip link del %s >/dev/null 2>&1", netns, veth_a);
	sweep_stale();

	/* the objects: kiln's compiler through the binary, clang for the libbpf-style ones */
	char src[PATH_MAX], obj_path[PATH_MAX], clang_ok[PATH_MAX], clang_bad[PATH_MAX];
	snprintf(src, sizeof(src), "%s/tests/lib/obj-counters.lisp", src_root);
	snprintf(obj_path, sizeof(obj_path), "%s/obj-counters.o", tmp);
	int rc = check_sh("'%s' compile '%s' -o '%s'", kiln_bin, src, obj_path);
	CHECK("build: kiln compile obj-counters.lisp", rc == 0, "exit %d (KILN=%s)", rc, kiln_bin);
	snprintf(clang_ok, sizeof(clang_ok), "%s/obj-clang.o", tmp);
	snprintf(clang_bad, sizeof(clang_bad), "%s/obj-clang-rejected.o", tmp);
	const char *cflags = "-O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch 2>/dev/null || echo \"$(uname -m)-linux-gnu\")";
	rc = check_sh("command -v clang >/dev/null && clang %s -c '%s/tests/lib/obj-clang.bpf.c' -o '%s' && "
		"clang %s -c '%s/tests/lib/obj-clang-rejected.bpf.c' -o '%s'", cflags, src_root, clang_ok, cflags,
		src_root, clang_bad);
	CHECK("build: clang -target bpf", rc == 0, "exit %d (is clang installed? `make deps`)", rc);

	if (!access(obj_path, R_OK))
		test_kiln_object(obj_path);
	if (!access(clang_ok, R_OK))
		test_clang_object(clang_ok, clang_bad);
	test_rejected_and_logs(src_root);
	test_pinning(src_root);

	/* the attach tests share one object compiled in memory */
	struct kiln_object *obj = open_load(src, NULL);
	CHECK("attach: open .lisp in memory and load", obj != NULL, "%s", kiln_errmsg());
	if (obj) {
		test_net(obj);
		test_tracing(obj);
		test_uprobes(obj);
		test_cgroup(obj);
		test_link_pin(obj);
		test_test_run(obj);
		kiln_object_close(obj);
	}
	test_link_outlives_object(src);
	test_fentry(src_root);
	struct kiln_attach_opts bad = { 0 };
	struct kiln_link *l = NULL;
	CHECK("attach: NULL program", kiln_prog_attach(NULL, &bad, &l) == -EINVAL, "accepted");

	cleanup();
	tmp[0] = pin_dir[0] = cg_dir[0] = 0;
	int fds_after = check_open_fds();
	CHECK("no fd leaks", fds_after == fds_before, "%d fds before, %d after", fds_before, fds_after);
	return CHECK_DONE();
}
