/* test_core.c — kiln's CO-RE reads against clang's BPF_CORE_READ, on the running kernel (as
 * root). Each case of tests/core/ is a kiln program (NAME.lisp) and its clang twin
 * (NAME.bpf.c, built here against a vmlinux.h generated into $BUILD/tests/core/); both are
 * loaded and attached in the same run, write the same indexes of their `results` map and
 * watch only what this test does (the tgid or TCP port in their `target` map):
 *   task, enum, flavour — one forked child (comm set with PR_SET_NAME, pinned to its CPU, its
 *     oom_score_adj and RLIMIT_NOFILE set by the test) calls getppid once;
 *   sock, bitfield — one loopback TCP connect from 127.0.0.2 to 127.0.0.3, the client
 *     socket's options set first;
 *   whistler — Whistler's forms (import-kernel-struct, kernel-load, core-ctx-load, core-load
 *     in tp_btf/task_newtask), attached through both triggers;
 *   swapped — no twin: compiled (--btf, kiln_object_opts.btf_path) against a kernel BTF this
 *     test makes up (task_struct and enum bpf_map_type at other offsets, sizes and values),
 *     read on the same getppid.
 * Every value is printed; clang's is checked against user-space truth (the child's pid, this
 * process's ancestry from /proc, getsockname/getpeername, getsockopt, prlimit, the kernel's
 * BTF read with libbpf), kiln's against clang's and the same truth. Each kiln object is also
 * written by `kiln compile` and checked as other tools see it: `bpftool btf dump file`,
 * libbpf's own open and load with the kernel taking its BTF (loadobj), and the kinds of its
 * .BTF.ext CO-RE records against clang's (core_relos). */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NRES 32
#define DONE 31                          /* written last by every program, with 1 */
#define UNSET 0x5a5a5a5a5a5a5a5aULL      /* what the test fills `results` with first */
#define CHILD_COMM "kiln-core-task"
#define OOM_ADJ 321      /* raising it needs no CAP_SYS_RESOURCE (lowering does) */

static const char *src_root = ".";
static const char *kiln_bin = "./kiln";
static const char *build = "build";
static char dir[2048];                    /* $BUILD/tests/core: vmlinux.h and the objects */
static struct btf *vmlinux;

struct twin {
	const char *cas, *who;           /* "task", "kiln" | "clang" */
	bool ok;                         /* loaded and attached */
	struct kiln_object *obj;
	struct kiln_link *links[4];
	int nlinks;
	uint64_t res[NRES];
};
static struct twin wh[2];                /* whistler: attached through both triggers */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void msleep(int ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000L }, NULL);
}

/* The output of a command (first 64 KiB), "" if it failed to run; *rc its exit status. */
static char *sh_out(int *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *sh_out(int *rc, const char *fmt, ...)
{
	static char buf[65536];
	char cmd[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	buf[0] = 0;
	fflush(stdout);
	FILE *f = popen(cmd, "r");
	*rc = -1;
	if (!f)
		return buf;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	int st = pclose(f);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* ---- the kernel's BTF: the truth for sizes, offsets, ids and enum values ------------------ */

/* Member NAME of the struct or union TYPE_ID, looked for inside anonymous members too (as
 * libbpf does): its bit offset from the start of TYPE_ID and its type. */
static bool btf_member(const struct btf *btf, uint32_t type_id, const char *name, uint32_t *bits, uint32_t *type)
{
	int id = btf__resolve_type(btf, type_id);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || !btf_is_composite(t))
		return false;
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);
		uint32_t off = btf_member_bit_offset(t, i), sub;
		if (n && !strcmp(n, name)) {
			*bits = off;
			*type = m[i].type;
			return true;
		}
		if ((!n || !*n) && btf_member(btf, m[i].type, name, &sub, type)) {
			*bits = off + sub;
			return true;
		}
	}
	return false;
}

/* Byte offset of a dotted member path ("se.nr_migrations") in struct SNAME, -1 if absent. */
static long btf_offset(const struct btf *btf, const char *sname, const char *path)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id <= 0)
		return -1;
	uint32_t type = (uint32_t)id, total = 0, bits;
	char copy[128];
	snprintf(copy, sizeof(copy), "%s", path);
	for (char *save = NULL, *part = strtok_r(copy, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		if (!btf_member(btf, type, part, &bits, &type))
			return -1;
		total += bits;
	}
	return total / 8;
}

static long btf_enum_value(const struct btf *btf, const char *ename, const char *name)
{
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), name))
			return btf_enum(t)[i].val;
	return -1;
}

/* ---- twins -------------------------------------------------------------------------------- */

static void twin_close(struct twin *tw)
{
	for (int i = 0; i < tw->nlinks; i++)
		kiln_link_destroy(tw->links[i]);
	kiln_object_close(tw->obj);
	tw->obj = NULL;
	tw->nlinks = 0;
	tw->ok = false;
}

/* Open (compiling a .lisp, against the kernel BTF at BTF_PATH if not NULL), load and attach
 * every program of PATH. */
static void twin_open_btf(struct twin *tw, const char *cas, const char *who, const char *path, const char *btf_path)
{
	char name[128];
	struct kiln_object_opts opts = { .sz = sizeof(opts), .btf_path = btf_path };
	memset(tw, 0, sizeof(*tw));
	tw->cas = cas;
	tw->who = who;
	int err = kiln_object_open(path, &opts, &tw->obj);
	snprintf(name, sizeof(name), "core %s: %s object opens%s", cas, who, !strcmp(who, "kiln") ? " (compiles)" : "");
	CHECK(name, !err, "%s", kiln_errmsg());
	if (err)
		return;
	err = kiln_object_load(tw->obj);
	snprintf(name, sizeof(name), "core %s: %s object loads (relocated by libbpf, verified)", cas, who);
	CHECK(name, !err, "%s", kiln_errmsg());
	if (err) {
		const char *log = kiln_errlog();
		size_t n = log ? strlen(log) : 0;
		printf("    verifier log (tail):\n%s\n", log ? log + (n > 3000 ? n - 3000 : 0) : "(none)");
		twin_close(tw);
		return;
	}
	bool btf = kiln_object_prog_count(tw->obj) > 0;
	for (size_t i = 0; i < kiln_object_prog_count(tw->obj); i++) {
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);
		btf = btf && !bpf_obj_get_info_by_fd(kiln_prog_fd(kiln_object_prog(tw->obj, i)), &info, &len) &&
		      info.btf_id && info.nr_func_info && info.nr_line_info;
	}
	snprintf(name, sizeof(name), "core %s: %s programs reached the kernel with their BTF, func and line info", cas, who);
	CHECK(name, btf, "the kernel has no BTF for them (it refused the object's .BTF?)");
	for (size_t i = 0; i < kiln_object_prog_count(tw->obj) && !err && tw->nlinks < 4; i++)
		err = kiln_prog_attach(kiln_object_prog(tw->obj, i), NULL, &tw->links[tw->nlinks++]);
	snprintf(name, sizeof(name), "core %s: %s program attached", cas, who);
	CHECK(name, !err && tw->nlinks > 0, "%s", kiln_errmsg());
	if (err || tw->nlinks == 0) {
		if (err)
			tw->nlinks--;
		twin_close(tw);
		return;
	}
	tw->ok = true;
}

static void twin_open(struct twin *tw, const char *cas, const char *who, const char *path)
{
	twin_open_btf(tw, cas, who, path, NULL);
}

/* target[0] = tgid, target[1] = port, target[2] = this process; every result UNSET. */
static bool twin_arm(struct twin *tw, uint32_t tgid, uint32_t port)
{
	struct kiln_map *t = kiln_object_find_map(tw->obj, "target");
	struct kiln_map *r = kiln_object_find_map(tw->obj, "results");
	uint32_t k0 = 0, k1 = 1, k2 = 2, self = (uint32_t)getpid();
	uint64_t unset = UNSET;
	bool ok = t && r && !kiln_map_update(t, &k0, &tgid, BPF_ANY) && !kiln_map_update(t, &k1, &port, BPF_ANY) &&
		  !kiln_map_update(t, &k2, &self, BPF_ANY);
	for (uint32_t i = 0; ok && i < NRES; i++)
		ok = !kiln_map_update(r, &i, &unset, BPF_ANY);
	if (!ok)
		printf("    %s %s: cannot set its maps: %s\n", tw->cas, tw->who, kiln_errmsg());
	return ok;
}

static void twin_read(struct twin *tw)
{
	struct kiln_map *r = kiln_object_find_map(tw->obj, "results");
	for (uint32_t i = 0; i < NRES; i++)
		if (!r || kiln_map_lookup(r, &i, &tw->res[i]))
			tw->res[i] = UNSET;
}

/* Until every loaded twin wrote results[DONE] = 1, for up to 3 s; false on the deadline. */
static bool twins_wait(struct twin *tws, int n)
{
	double end = mono() + 3;
	for (;;) {
		bool all = true;
		for (int i = 0; i < n; i++) {
			if (!tws[i].ok)
				continue;
			twin_read(&tws[i]);
			all = all && tws[i].res[DONE] == 1;
		}
		if (all || mono() > end)
			return all;
		msleep(5);
	}
}

static const char *show(uint64_t v, char *buf, size_t len)
{
	if (v == UNSET)
		snprintf(buf, len, "(not written)");
	else
		snprintf(buf, len, "%llu (%#llx)", (unsigned long long)v, (unsigned long long)v);
	return buf;
}

/* One value at index I of the twins K (kiln) and C (clang): printed; clang's checked against
 * TRUTH when there is one (else only that it was written), kiln's against clang's and TRUTH. */
static void value(struct twin *k, struct twin *c, int i, const char *what, bool has_truth, uint64_t truth)
{
	char a[64], b[64], t[64], name[192];
	printf("    %s[%d] %-34s kiln=%-28s clang=%-28s truth=%s\n", c->cas, i, what,
	       k->ok ? show(k->res[i], a, sizeof(a)) : "(not loaded)", c->ok ? show(c->res[i], b, sizeof(b)) : "(not loaded)",
	       has_truth ? show(truth, t, sizeof(t)) : "-");
	if (c->ok) {
		snprintf(name, sizeof(name), "core %s: %s: clang %s", c->cas, what, has_truth ? "== truth" : "wrote it");
		CHECK(name, has_truth ? c->res[i] == truth : c->res[i] != UNSET, "clang %s", show(c->res[i], b, sizeof(b)));
	}
	if (k->ok) {
		snprintf(name, sizeof(name), "core %s: %s: kiln == clang%s", c->cas, what, has_truth ? " == truth" : "");
		CHECK(name, c->ok && k->res[i] == c->res[i] && k->res[i] != UNSET && (!has_truth || k->res[i] == truth),
		      "kiln %s, clang %s", show(k->res[i], a, sizeof(a)), show(c->res[i], b, sizeof(b)));
	}
}

/* A value only clang's twin writes (kiln has no form for it): clang against TRUTH, and kiln's
 * results must not hold it (the kiln program does not claim to write that index). */
static void value_clang_only(struct twin *k, struct twin *c, int i, const char *what, uint64_t truth, const char *why)
{
	char b[64], t[64], name[192];
	printf("    %s[%d] %-34s kiln=(%s) clang=%-28s truth=%s\n", c->cas, i, what, why,
	       c->ok ? show(c->res[i], b, sizeof(b)) : "(not loaded)", show(truth, t, sizeof(t)));
	if (c->ok) {
		snprintf(name, sizeof(name), "core %s: %s: clang == truth", c->cas, what);
		CHECK(name, c->res[i] == truth, "clang %s", show(c->res[i], b, sizeof(b)));
	}
	if (k->ok) {
		snprintf(name, sizeof(name), "core %s: %s: the kiln twin leaves it alone", c->cas, what);
		CHECK(name, k->res[i] == UNSET, "kiln wrote %s", show(k->res[i], b, sizeof(b)));
	}
}

/* A value only kiln's twin writes (clang 14 has no builtin for it): kiln against TRUTH, and
 * clang's results must not hold it. */
static void value_kiln_only(struct twin *k, struct twin *c, int i, const char *what, uint64_t truth, const char *why)
{
	char a[64], t[64], name[192];
	printf("    %s[%d] %-34s kiln=%-28s clang=(%s) truth=%s\n", c->cas, i, what,
	       k->ok ? show(k->res[i], a, sizeof(a)) : "(not loaded)", why, show(truth, t, sizeof(t)));
	if (k->ok) {
		snprintf(name, sizeof(name), "core %s: %s: kiln == truth", c->cas, what);
		CHECK(name, k->res[i] == truth, "kiln %s", show(k->res[i], a, sizeof(a)));
	}
	if (c->ok) {
		snprintf(name, sizeof(name), "core %s: %s: the clang twin leaves it alone", c->cas, what);
		CHECK(name, c->res[i] == UNSET, "clang wrote %s", show(c->res[i], a, sizeof(a)));
	}
}

/* Whether MEMBER of struct SNAME is signed, as libbpf's FIELD_SIGNED says: a signed int, or
 * an enum whose BTF says signed; -1 if there is no such member. */
static long btf_signed(const struct btf *btf, const char *sname, const char *member)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	uint32_t bits, type;
	if (id <= 0 || !btf_member(btf, (uint32_t)id, member, &bits, &type))
		return -1;
	int rid = btf__resolve_type(btf, type);
	const struct btf_type *t = rid > 0 ? btf__type_by_id(btf, rid) : NULL;
	if (!t)
		return -1;
	if (btf_is_int(t))
		return (btf_int_encoding(t) & BTF_INT_SIGNED) != 0;
	if (btf_is_any_enum(t))
		return btf_kflag(t);
	return 0;
}

/* Index I holds an id in each twin's own BTF: each against the id of struct NAME there. */
static void value_own_id(struct twin *k, struct twin *c, int i, const char *what, const char *name)
{
	struct twin *tw[2] = { k, c };
	for (int j = 0; j < 2; j++) {
		if (!tw[j]->ok)
			continue;
		const struct btf *b = bpf_object__btf(kiln_object_libbpf(tw[j]->obj));
		int id = b ? btf__find_by_name_kind(b, name, BTF_KIND_STRUCT) : -1;
		char a[64], n[192];
		printf("    %s[%d] %-34s %s=%-28s truth (its own BTF)=%d\n", c->cas, i, what, tw[j]->who,
		       show(tw[j]->res[i], a, sizeof(a)), id);
		snprintf(n, sizeof(n), "core %s: %s: %s == the id in its own BTF", c->cas, what, tw[j]->who);
		CHECK(n, id > 0 && tw[j]->res[i] == (uint64_t)id, "%s, id %d", a, id);
	}
}

/* ---- building: vmlinux.h, the clang twins, the kiln objects as files ---------------------- */

static char *path_in(char *buf, size_t len, const char *cas, const char *suffix)
{
	snprintf(buf, len, "%s/%s%s", dir, cas, suffix);
	return buf;
}

/* The clang twins of CASES, built at once (in parallel): NAME-clang.o, and NAME-clang.log
 * holding clang's exit status and messages. */
static void build_clang(const char *const *cases, size_t n)
{
	char list[512] = "", log[PATH_MAX], name[96];
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), " %s", cases[i]);
	int rc;
	sh_out(&rc, "cd '%s' && inc=/usr/include/$(gcc -print-multiarch 2>/dev/null || echo \"$(uname -m)-linux-gnu\") && "
		    "for c in %s; do { clang -O2 -g -target bpf -I. -I\"$inc\" -c '%s/tests/core/'$c.bpf.c -o $c-clang.o "
		    "> $c-clang.log 2>&1; echo \"exit $?\" >> $c-clang.log; } & done; wait", dir, list, src_root);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(path_in(log, sizeof(log), cases[i], "-clang.log"), "r");
		char text[2048] = "";
		size_t len = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		text[len] = 0;
		if (f)
			fclose(f);
		snprintf(name, sizeof(name), "core %s: clang -target bpf %s.bpf.c", cases[i], cases[i]);
		CHECK(name, !strcmp(text, "exit 0\n"), "%s", text[0] ? text : "no log");
	}
}

/* The lines of a tool's output that say what went wrong (the BTF log's verdict and the line
 * before it, libbpf's errors), for a failure message. */
static const char *excerpt(const char *out)
{
	static char buf[2048];
	size_t n = 0;
	const char *prev = out;
	buf[0] = 0;
	for (const char *l = out; *l && n < sizeof(buf) - 1;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), l);
		if (strstr(line, "Invalid") || strstr(line, "error") || strstr(line, "missing") || strstr(line, "load ")) {
			const char *pe = strchr(prev, '\n');
			if (strstr(line, "Invalid") && pe && prev != l)
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%.*s | ", (int)(pe - prev), prev);
			if (n < sizeof(buf))
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s | ", line);
		}
		prev = l;
		l = e ? e + 1 : l + len;
	}
	return n ? buf : out;
}

/* The kinds line of core_relos for OBJ ("" when the tool failed; *rc its status). */
static char *relo_kinds(const char *obj, int *rc)
{
	static char kinds[2][1024];
	static int which;
	char *out = sh_out(rc, "'%s/tests/core_relos' '%s' 2>&1", build, obj), *line = strstr(out, "kinds");
	char *k = kinds[which++ % 2];
	snprintf(k, sizeof(kinds[0]), "%s", line ? line : out);
	k[strcspn(k, "\n")] = 0;
	return k;
}

static unsigned kiln_kinds;             /* every kind seen in the kiln objects */

/* The set of kinds in a kinds line, without the counts, as a bit mask. */
static unsigned kind_set(const char *line)
{
	static const char *const names[] = { "field_byte_offset", "field_byte_size", "field_exists", "field_signed",
		"field_lshift_u64", "field_rshift_u64", "type_id_local", "type_id_target", "type_exists", "type_size",
		"enumval_exists", "enumval_value", "type_matches" };
	unsigned set = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char key[40];
		snprintf(key, sizeof(key), " %s=", names[i]);
		if (strstr(line, key))
			set |= 1u << i;
	}
	return set;
}

/* `kiln compile` writes the object; bpftool, libbpf and core_relos read it. */
static void kiln_file_checks(const char *cas)
{
	char obj[PATH_MAX], name[128];
	int rc;
	char *out = sh_out(&rc, "'%s' compile '%s/tests/core/%s.lisp' -o '%s' 2>&1", kiln_bin, src_root, cas,
			   path_in(obj, sizeof(obj), cas, "-kiln.o"));
	snprintf(name, sizeof(name), "core %s: kiln compile %s.lisp", cas, cas);
	CHECK(name, rc == 0, "exit %d: %.2000s", rc, out);
	if (rc != 0)
		return;
	out = sh_out(&rc, "bpftool btf dump file '%s' 2>&1", obj);
	snprintf(name, sizeof(name), "core %s: bpftool btf dump file accepts the kiln object", cas);
	CHECK(name, rc == 0 && strstr(out, "STRUCT"), "exit %d: %.1000s", rc, out);

	/* libbpf loads it as any libbpf user would; the kernel must take its BTF too (libbpf
	 * drops a .BTF the kernel refuses and loads the programs without it) */
	char cobj[PATH_MAX];
	out = sh_out(&rc, "'%s/tests/loadobj' '%s' 2>&1", build, obj);
	snprintf(name, sizeof(name), "core %s: libbpf loads the kiln object, the kernel takes its BTF, func and line info", cas);
	CHECK(name, rc == 0, "exit %d: %.2000s", rc, excerpt(out));
	out = sh_out(&rc, "'%s/tests/loadobj' '%s' 2>&1", build, path_in(cobj, sizeof(cobj), cas, "-clang.o"));
	snprintf(name, sizeof(name), "core %s: libbpf loads the clang object, the kernel takes its BTF, func and line info", cas);
	CHECK(name, rc == 0, "exit %d: %.2000s", rc, excerpt(out));

	int rk, rc2;
	char *kk = relo_kinds(obj, &rk);
	char *ck = relo_kinds(path_in(cobj, sizeof(cobj), cas, "-clang.o"), &rc2);
	printf("    %s .BTF.ext CO-RE records: kiln: %s\n    %s .BTF.ext CO-RE records: clang: %s\n", cas, kk, cas, ck);
	snprintf(name, sizeof(name), "core %s: kiln's .BTF.ext CO-RE records are well formed, of clang's kinds", cas);
	/* type_matches aside: clang 14 cannot write it, kiln's enum case does */
	CHECK(name, rk == 0 && rc2 == 0 && kind_set(kk) && (kind_set(kk) & 0xfffu) == kind_set(ck), "kiln '%s', clang '%s'",
	      kk, ck);
	if (rk == 0)
		kiln_kinds |= kind_set(kk);
}

/* The flavour's local layout: tgid at the offset the source gave it, not the kernel's. */
static void flavour_layout(const char *suffix, long want_local, long kernel)
{
	char obj[PATH_MAX], name[128];
	struct btf *b = btf__parse(path_in(obj, sizeof(obj), "flavour", suffix), NULL);
	long off = b ? btf_offset(b, "task_struct___mine", "tgid") : -2;
	snprintf(name, sizeof(name), "core flavour: %s's task_struct___mine has tgid at its own offset %ld, not the kernel's %ld",
		 suffix + 1, want_local, kernel);
	CHECK(name, off == want_local && off != kernel, "local offset %ld", off);
	btf__free(b);
}

/* ---- a kernel BTF of the test's making, for swapped.lisp ---------------------------------- */

/* task_struct { task_struct *real_parent @0; char comm[16] @8; int tgid @24; int pid @28; }
 * (64 bytes) and enum bpf_map_type { UNSPEC = 0, RINGBUF = 99 }: nothing like the kernel's. */
static bool write_swapped_btf(const char *path)
{
	struct btf *b = btf__new_empty();
	int i_int = b ? btf__add_int(b, "int", 4, BTF_INT_SIGNED) : -1;
	int i_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	int arr = btf__add_array(b, i_int, i_char, 16);
	int ptr = btf__add_ptr(b, arr + 2);                     /* the struct, added next */
	int st = btf__add_struct(b, "task_struct", 64);
	bool ok = i_int > 0 && i_char > 0 && arr > 0 && ptr == arr + 1 && st == arr + 2 &&
		  !btf__add_field(b, "real_parent", ptr, 0, 0) && !btf__add_field(b, "comm", arr, 64, 0) &&
		  !btf__add_field(b, "tgid", i_int, 192, 0) && !btf__add_field(b, "pid", i_int, 224, 0) &&
		  btf__add_enum(b, "bpf_map_type", 4) > 0 && !btf__add_enum_value(b, "BPF_MAP_TYPE_UNSPEC", 0) &&
		  !btf__add_enum_value(b, "BPF_MAP_TYPE_RINGBUF", 99);
	uint32_t size = 0;
	const void *raw = ok ? btf__raw_data(b, &size) : NULL;
	FILE *f = raw ? fopen(path, "w") : NULL;
	ok = f && fwrite(raw, 1, size, f) == size;
	if (f)
		ok = !fclose(f) && ok;
	btf__free(b);
	return ok;
}

/* The made-up BTF written, and `kiln compile --btf` of swapped.lisp against it: the object's
 * BTF must hold the made-up layout. *btfp is the BTF's path, for kiln_object_opts.btf_path. */
static bool make_swapped(char *btfp, size_t len)
{
	char in[PATH_MAX], obj[PATH_MAX], name[128];
	bool ok = write_swapped_btf(path_in(btfp, len, "swapped", ".btf"));
	CHECK("core swapped: a made-up kernel BTF written with libbpf", ok, "%s", strerror(errno));
	if (!ok)
		return false;
	snprintf(in, sizeof(in), "%s/tests/core/swapped.lisp", src_root);
	int rc;
	char *out = sh_out(&rc, "'%s' compile --btf '%s' '%s' -o '%s' 2>&1", kiln_bin, btfp, in,
			   path_in(obj, sizeof(obj), "swapped", "-kiln.o"));
	CHECK("core swapped: kiln compile --btf the made-up BTF", rc == 0, "exit %d: %.2000s", rc, out);
	struct btf *b = rc == 0 ? btf__parse(obj, NULL) : NULL;
	int id = b ? btf__find_by_name_kind(b, "task_struct", BTF_KIND_STRUCT) : -1;
	long size = id > 0 ? btf__resolve_size(b, id) : -1, tgid = b ? btf_offset(b, "task_struct", "tgid") : -1;
	snprintf(name, sizeof(name), "core swapped: the object's task_struct is the made-up one (64 bytes, tgid at 24)");
	CHECK(name, size == 64 && tgid == 24, "size %ld, tgid at %ld", size, tgid);
	btf__free(b);
	return true;
}

/* ---- the getppid cases: task, enum, flavour ----------------------------------------------- */

struct child {
	pid_t pid;
	int go, done;
};

static struct child child_start(void)
{
	int to[2], from[2];
	struct child c = { -1, -1, -1 };
	if (pipe(to) || pipe(from))
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		close(to[1]);
		close(from[0]);
		prctl(PR_SET_NAME, CHILD_COMM);
		/* pinned where it runs: se.nr_migrations cannot change behind the test's back */
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		int ok = sched_setaffinity(0, sizeof(set), &set) == 0, n;
		if (write(from[1], &ok, sizeof(ok)) != sizeof(ok))
			_exit(1);
		if (read(to[0], &n, sizeof(n)) == sizeof(n)) {
			syscall(SYS_getppid);
			if (write(from[1], &n, sizeof(n)) != sizeof(n))
				_exit(1);
		}
		while (read(to[0], &n, sizeof(n)) > 0) {
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	c.go = to[1];
	c.done = from[0];
	return c;
}

static bool read_within(int fd, int *v, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && read(fd, v, sizeof(*v)) == sizeof(*v);
}

static void child_stop(struct child *c)
{
	if (c->pid <= 0)
		return;
	close(c->go);
	close(c->done);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

/* PID's parent from /proc/PID/stat (after the last ')', the state, then the ppid). */
static long proc_ppid(long pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	long ppid = -1;
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return ppid;
}

static long long proc_sched(long pid, const char *key)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%ld/sched", pid);
	FILE *f = fopen(path, "r");
	long long v = -1;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			char *colon = strchr(line, ':');
			if (colon)
				v = atoll(colon + 1);
		}
	if (f)
		fclose(f);
	return v;
}

static uint64_t comm_word(int half)
{
	char comm[16] = CHILD_COMM;      /* the kernel pads the rest of comm with NULs */
	_Static_assert(sizeof(CHILD_COMM) <= 16, "a comm is 15 characters and a NUL");
	uint64_t w;
	memcpy(&w, comm + 8 * half, 8);
	return w;
}

static void test_getppid_cases(void)
{
	static const char *const cases[] = { "task", "enum", "flavour" };
	struct twin tw[7];
	char path[PATH_MAX];
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/tests/core/%s.lisp", src_root, cases[i]);
		twin_open(&tw[2 * i], cases[i], "kiln", path);
		twin_open(&tw[2 * i + 1], cases[i], "clang", path_in(path, sizeof(path), cases[i], "-clang.o"));
	}
	char btfp[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/core/swapped.lisp", src_root);
	if (make_swapped(btfp, sizeof(btfp)))
		twin_open_btf(&tw[6], "swapped", "kiln", path, btfp);
	else
		memset(&tw[6], 0, sizeof(tw[6]));
	/* whistler's tp_btf program sees the child's creation: armed (target[2]) before the fork */
	for (int i = 0; i < 2; i++)
		if (wh[i].ok)
			twin_arm(&wh[i], 0, 0);
	struct child c = child_start();
	int ready = 0, n = 1;
	bool started = c.pid > 0 && read_within(c.done, &ready, 5000) && ready == 1;
	CHECK("core: a child, pinned to its CPU", started, "pid %d ready %d", c.pid, ready);
	char oom[64];
	snprintf(oom, sizeof(oom), "/proc/%d/oom_score_adj", c.pid);
	FILE *f = started ? fopen(oom, "w") : NULL;
	bool oom_set = f && fprintf(f, "%d\n", OOM_ADJ) > 0;
	if (f)
		oom_set = !fclose(f) && oom_set;
	CHECK("core: the child's oom_score_adj set to 321", oom_set, "%s", strerror(errno));
	struct rlimit lim = { 0 };
	bool lim_set = started && !prlimit(c.pid, RLIMIT_NOFILE, NULL, &lim) && lim.rlim_max >= 777;
	lim.rlim_cur = 777;
	lim_set = lim_set && !prlimit(c.pid, RLIMIT_NOFILE, &lim, NULL) && !prlimit(c.pid, RLIMIT_NOFILE, NULL, &lim) &&
		  lim.rlim_cur == 777;
	CHECK("core: the child's RLIMIT_NOFILE soft limit set to 777", lim_set, "%s", strerror(errno));
	bool armed = started;
	for (int i = 0; i < 7; i++)
		if (tw[i].ok)
			armed = twin_arm(&tw[i], (uint32_t)c.pid, 0) && armed;
	/* whistler: the tgid only, its results from the fork kept */
	uint32_t k0 = 0, cpid = (uint32_t)c.pid;
	for (int i = 0; i < 2; i++)
		if (wh[i].ok)
			armed = !kiln_map_update(kiln_object_find_map(wh[i].obj, "target"), &k0, &cpid, BPF_ANY) && armed;
	bool called = armed && write(c.go, &n, sizeof(n)) == sizeof(n) && read_within(c.done, &n, 5000);
	CHECK("core: the child called getppid", called, "armed %d", armed);
	bool all = called && twins_wait(tw, 7) && twins_wait(wh, 2);
	CHECK("core: every loaded twin saw the child's getppid within 3 s", all, "%s", "no");
	/* the child is blocked on its pipe now: what /proc says cannot change under us */
	long long migrations = proc_sched(c.pid, "se.nr_migrations");
	long me = getpid(), parent = getppid(), grandparent = proc_ppid(parent);
	uint64_t pid = (uint64_t)c.pid;

	struct twin *k = &tw[0], *cl = &tw[1];
	printf("  task: child %d, test %ld, its parent %ld, grandparent %ld\n", c.pid, me, parent, grandparent);
	value(k, cl, 0, "task->tgid", true, pid);
	value(k, cl, 1, "task->pid", true, pid);
	value(k, cl, 2, "task->real_parent->tgid", true, (uint64_t)me);
	value(k, cl, 3, "real_parent->real_parent->tgid", true, (uint64_t)parent);
	value(k, cl, 4, "real_parent x3 ->tgid", grandparent > 0, (uint64_t)grandparent);
	value(k, cl, 5, "task->se.nr_migrations", migrations >= 0, (uint64_t)migrations);
	value(k, cl, 6, "core-read-str comm: length", true, strlen(CHILD_COMM) + 1);
	value(k, cl, 7, "core-read-str comm: bytes 0-7", true, comm_word(0));
	value(k, cl, 8, "core-read-str comm: bytes 8-15", true, comm_word(1));
	value(k, cl, 9, "core-read-into comm: result", true, 0);
	value(k, cl, 10, "core-read-into comm: bytes 0-7", true, comm_word(0));
	value(k, cl, 11, "core-read-into comm: bytes 8-15", true, comm_word(1));
	value(k, cl, 12, "task->signal->oom_score_adj (s16)", true, OOM_ADJ);
	value(k, cl, 13, "task->group_leader->pid", true, pid);
	char exe[PATH_MAX] = "", want[16] = "";
	ssize_t n_exe = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n_exe > 0 ? n_exe : 0] = 0;
	snprintf(want, sizeof(want), "%.15s", strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe);
	uint64_t w0, w1;
	memcpy(&w0, want, 8);
	memcpy(&w1, want + 8, 8);
	value(k, cl, 14, "mm->exe_file->...d_name.name: length", n_exe > 0, strlen(want) + 1);
	value(k, cl, 15, "mm->exe_file->...d_name.name: 0-7", n_exe > 0, w0);
	value(k, cl, 16, "mm->exe_file->...d_name.name: 8-15", n_exe > 0, w1);
	value(k, cl, 17, "signal->rlim[NOFILE].rlim_cur", lim_set, lim.rlim_cur);
	value(k, cl, 18, "core-read-into signal->rlim[NOFILE]", true, 0);
	value(k, cl, 19, "  its rlim_cur", lim_set, lim.rlim_cur);
	value(k, cl, 20, "  its rlim_max", lim_set, lim.rlim_max);
	value(k, cl, 21, "comm[3] (an index)", true, (uint64_t)(int64_t)CHILD_COMM[3]);

	k = &tw[2], cl = &tw[3];
	int tid = btf__find_by_name_kind(vmlinux, "task_struct", BTF_KIND_STRUCT);
	long ringbuf = btf_enum_value(vmlinux, "bpf_map_type", "BPF_MAP_TYPE_RINGBUF");
	CHECK("core enum: the kernel's BTF says BPF_MAP_TYPE_RINGBUF is 27, as the uapi header",
	      ringbuf == BPF_MAP_TYPE_RINGBUF && ringbuf == 27, "%ld", ringbuf);
	printf("  enum: kernel BTF: task_struct id %d size %lld, tgid at %ld\n", tid,
	       (long long)btf__resolve_size(vmlinux, tid), btf_offset(vmlinux, "task_struct", "tgid"));
	value(k, cl, 0, "enum bpf_map_type RINGBUF value", true, (uint64_t)ringbuf);
	value(k, cl, 1, "enum bpf_map_type RINGBUF exists", true, 1);
	value_clang_only(k, cl, 2, "flavour enum: no such value exists", 0, "no local enums");
	value_clang_only(k, cl, 3, "flavour enum: RINGBUF___mine value", (uint64_t)ringbuf, "no local enums");
	value(k, cl, 4, "type task_struct exists", true, 1);
	value(k, cl, 5, "type no_such_struct___mine exists", true, 0);
	value(k, cl, 6, "type task_struct size", tid > 0, (uint64_t)btf__resolve_size(vmlinux, tid));
	value(k, cl, 7, "field task_struct.tgid exists", true, 1);
	value(k, cl, 8, "field ___fake.no_such_field exists", true, 0);
	value(k, cl, 9, "field task_struct.comm size", true, 16);
	value(k, cl, 10, "field task_struct.tgid offset", true, (uint64_t)btf_offset(vmlinux, "task_struct", "tgid"));
	value(k, cl, 11, "type task_struct kernel id", tid > 0, (uint64_t)tid);
	value(k, cl, 12, "field se.nr_migrations offset", true,
	      (uint64_t)btf_offset(vmlinux, "task_struct", "se.nr_migrations"));
	value(k, cl, 13, "field ___fake.tgid exists", true, 1);
	value_own_id(k, cl, 14, "type task_struct local id", "task_struct");
	long s_tgid = btf_signed(vmlinux, "task_struct", "tgid"), s_flags = btf_signed(vmlinux, "task_struct", "flags");
	value(k, cl, 15, "field task_struct.tgid signed", s_tgid >= 0, (uint64_t)s_tgid);
	value(k, cl, 16, "field task_struct.flags signed", s_flags >= 0, (uint64_t)s_flags);
	/* a projection of the kernel's own task_struct (tgid, comm, se, flags) has its shape */
	value_kiln_only(k, cl, 17, "type task_struct matches", 1, "clang 14: no type_matches");
	value_kiln_only(k, cl, 18, "type ___mism (pid u64) matches", 0, "clang 14: no type_matches");
	value_kiln_only(k, cl, 19, "type no_such_struct___mine matches", 0, "clang 14: no type_matches");

	k = &tw[4], cl = &tw[5];
	value(k, cl, 0, "___mine->tgid", true, pid);
	value(k, cl, 1, "___mine->pid", true, pid);
	value(k, cl, 2, "___mine->real_parent->tgid", true, (uint64_t)me);
	value(k, cl, 3, "___mine->real_parent x2 ->tgid", true, (uint64_t)parent);
	value(k, cl, 4, "field ___mine.tgid offset (kernel's)", true,
	      (uint64_t)btf_offset(vmlinux, "task_struct", "tgid"));

	k = &wh[0], cl = &wh[1];
	value(k, cl, 0, "task-struct-tgid", true, pid);
	value(k, cl, 1, "task-struct-pid", true, pid);
	value(k, cl, 2, "(task-struct-tgid (task-struct-real-parent))", true, (uint64_t)me);
	value(k, cl, 3, "+task-struct-size+ / sizeof", tid > 0, (uint64_t)btf__resolve_size(vmlinux, tid));
	value(k, cl, 4, "kernel-load u32 at tgid's offset", true, pid);
	value(k, cl, 5, "probe-read-kernel-str task-struct-comm", true, strlen(CHILD_COMM) + 1);
	value(k, cl, 6, "comm bytes 0-7", true, comm_word(0));
	value(k, cl, 7, "comm bytes 8-15", true, comm_word(1));
	value(k, cl, 8, "task-struct-pid (as-task-struct x)", true, pid);
	value(k, cl, 20, "tp_btf: core-load task_struct pid", true, pid);
	value(k, cl, 21, "tp_btf: core-load task_struct tgid", true, pid);
	value(k, cl, 22, "tp_btf: core-load real_parent", false, 0);
	value(k, cl, 23, "tp_btf: task_newtask seen", true, 1);

	k = &tw[6];
	if (k->ok) {
		const struct { int i; const char *what; uint64_t truth; } sw[] = {
			{ 0, "task->tgid", pid }, { 1, "task->pid", pid }, { 2, "task->real_parent->tgid", (uint64_t)me },
			{ 3, "core-read-str comm: length", strlen(CHILD_COMM) + 1 }, { 4, "comm bytes 0-7", comm_word(0) },
			{ 5, "comm bytes 8-15", comm_word(1) }, { 6, "enum RINGBUF (99 in the BTF)", (uint64_t)ringbuf },
			{ 7, "type task_struct size (64 in the BTF)", (uint64_t)btf__resolve_size(vmlinux, tid) },
			{ 8, "field tgid offset (24 in the BTF)", (uint64_t)btf_offset(vmlinux, "task_struct", "tgid") },
			{ 9, "field comm exists", 1 },
		};
		for (size_t j = 0; j < sizeof(sw) / sizeof(sw[0]); j++) {
			char a[64], t[64], name[160];
			printf("    swapped[%d] %-38s kiln=%-28s truth=%s\n", sw[j].i, sw[j].what,
			       show(k->res[sw[j].i], a, sizeof(a)), show(sw[j].truth, t, sizeof(t)));
			snprintf(name, sizeof(name), "core swapped: %s: kiln == truth", sw[j].what);
			CHECK(name, k->res[sw[j].i] == sw[j].truth, "kiln %s", a);
		}
	}

	child_stop(&c);
	for (int i = 0; i < 7; i++)
		twin_close(&tw[i]);
}

/* ---- the socket cases: sock, bitfield ----------------------------------------------------- */

static int tcp_socket(const char *addr, uint16_t port, struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, addr, &sa->sin_addr);
	if (fd >= 0 && bind(fd, (struct sockaddr *)sa, sizeof(*sa))) {
		close(fd);
		return -1;
	}
	socklen_t len = sizeof(*sa);
	if (fd >= 0)
		getsockname(fd, (struct sockaddr *)sa, &len);
	return fd;
}

static bool sockopt_ok;                   /* the last sockopt() worked */
static int sockopt(int fd, int level, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);
	sockopt_ok = !getsockopt(fd, level, opt, &v, &len);
	return v;
}

static void test_socket_cases(void)
{
	static const char *const cases[] = { "sock", "bitfield" };
	struct twin tw[4];
	char path[PATH_MAX];
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/tests/core/%s.lisp", src_root, cases[i]);
		twin_open(&tw[2 * i], cases[i], "kiln", path);
		twin_open(&tw[2 * i + 1], cases[i], "clang", path_in(path, sizeof(path), cases[i], "-clang.o"));
	}
	struct sockaddr_in srv, cli, local, peer;
	int lfd = tcp_socket("127.0.0.3", 0, &srv);
	int cfd = tcp_socket("127.0.0.2", 0, &cli);
	int one = 1;
	bool ok = lfd >= 0 && cfd >= 0 && !listen(lfd, 4) &&
		  !setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) &&
		  !setsockopt(cfd, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, &one, sizeof(one)) &&
		  !setsockopt(cfd, IPPROTO_TCP, TCP_INQ, &one, sizeof(one)) &&
		  !setsockopt(cfd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one));
	CHECK("core: loopback sockets (127.0.0.2 -> 127.0.0.3), client options set", ok, "%s", strerror(errno));
	for (int i = 0; i < 4; i++)
		if (tw[i].ok)
			ok = twin_arm(&tw[i], 0, ntohs(srv.sin_port)) && ok;
	for (int i = 0; i < 2; i++)
		if (wh[i].ok)
			ok = twin_arm(&wh[i], 0, ntohs(srv.sin_port)) && ok;
	bool connected = ok && !connect(cfd, (struct sockaddr *)&srv, sizeof(srv));
	CHECK("core: TCP connect over loopback", connected, "%s", strerror(errno));
	socklen_t len = sizeof(local);
	getsockname(cfd, (struct sockaddr *)&local, &len);
	len = sizeof(peer);
	getpeername(cfd, (struct sockaddr *)&peer, &len);
	bool all = connected && twins_wait(tw, 4) && twins_wait(wh, 2);
	CHECK("core: every loaded twin saw the connect within 3 s", all, "%s", "no");
	printf("  sock: client %s:%u -> ", inet_ntoa(local.sin_addr), ntohs(local.sin_port));
	printf("%s:%u\n", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));

	struct twin *k = &tw[0], *c = &tw[1];
	value(k, c, 0, "skc_num (local port, host order)", true, ntohs(local.sin_port));
	value(k, c, 1, "skc_dport (network order)", true, peer.sin_port);
	value(k, c, 2, "skc_rcv_saddr", true, local.sin_addr.s_addr);
	value(k, c, 3, "skc_daddr", true, peer.sin_addr.s_addr);
	value(k, c, 4, "skc_family", true, AF_INET);
	int peek = sockopt(cfd, SOL_SOCKET, SO_PEEK_OFF);   /* -1 until set: an int, sign-extended */
	value(k, c, 5, "sk_peek_off (int, -1)", sockopt_ok, (uint64_t)(int64_t)peek);

	k = &tw[2], c = &tw[3];
	int nodelay = sockopt(cfd, IPPROTO_TCP, TCP_NODELAY);
	/* TCP_NODELAY sets TCP_NAGLE_OFF|TCP_NAGLE_PUSH (1|4) in the 4-bit nonagle: getsockopt
	 * reports its bit 0 */
	value(k, c, 0, "tcp_sock.nonagle (4 bits)", nodelay == 1, 5);
	value(k, c, 1, "tcp_sock.thin_lto", true, (uint64_t)sockopt(cfd, IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS));
	value(k, c, 2, "tcp_sock.recvmsg_inq", true, (uint64_t)sockopt(cfd, IPPROTO_TCP, TCP_INQ));
	value(k, c, 3, "sock.sk_no_check_tx", true, (uint64_t)sockopt(cfd, SOL_SOCKET, SO_NO_CHECK));
	value(k, c, 4, "tcp_sock.repair (neighbour, 0)", true, (uint64_t)sockopt(cfd, IPPROTO_TCP, TCP_REPAIR));
	value(k, c, 5, "tcp_sock.fastopen_connect (0)", true,
	      (uint64_t)sockopt(cfd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT));
	k = &wh[0], c = &wh[1];
	value(k, c, 10, "sock-common-skc-num", true, ntohs(local.sin_port));
	value(k, c, 11, "sock-common-skc-dport", true, peer.sin_port);
	value(k, c, 12, "sock-common-skc-rcv-saddr", true, local.sin_addr.s_addr);
	value(k, c, 13, "sock-common-skc-daddr", true, peer.sin_addr.s_addr);
	value(k, c, 14, "sock-common-skc-family", true, AF_INET);
	value(k, c, 15, "core-ctx-load sport", true, ntohs(local.sin_port));
	value(k, c, 16, "core-ctx-load family", true, AF_INET);
	if (cfd >= 0)
		close(cfd);
	if (lfd >= 0)
		close(lfd);
	for (int i = 0; i < 4; i++)
		twin_close(&tw[i]);
}

/* ------------------------------------------------------------------------------------------- */

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ROOT"))
		src_root = getenv("ROOT");
	if (getenv("KILN"))
		kiln_bin = getenv("KILN");
	if (getenv("BUILD"))
		build = getenv("BUILD");
	if (geteuid() != 0) {
		printf("FAIL test_core: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	double t0 = mono();
	int fds_before = check_open_fds();
	snprintf(dir, sizeof(dir), "%s/tests/core", build);
	int rc;
	sh_out(&rc, "mkdir -p '%s' && bpftool btf dump file /sys/kernel/btf/vmlinux format c > '%s/vmlinux.h.tmp' && "
		    "mv '%s/vmlinux.h.tmp' '%s/vmlinux.h'", dir, dir, dir, dir);
	CHECK("core: vmlinux.h generated by bpftool from /sys/kernel/btf/vmlinux", rc == 0, "exit %d", rc);
	vmlinux = btf__load_vmlinux_btf();
	CHECK("core: the kernel's BTF read by libbpf", vmlinux != NULL, "%s", strerror(errno));
	if (rc != 0 || !vmlinux)
		return CHECK_DONE();
	libbpf_set_print(NULL);

	static const char *const all[] = { "task", "enum", "flavour", "sock", "bitfield", "whistler" };
	build_clang(all, sizeof(all) / sizeof(all[0]));
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		kiln_file_checks(all[i]);
	/* all thirteen kinds libbpf 1.1 relocates */
	CHECK("core: kiln's objects hold every CO-RE relocation kind libbpf 1.1 knows", kiln_kinds == 0x1fffu,
	      "kinds seen: %#x", kiln_kinds);
	long ktgid = btf_offset(vmlinux, "task_struct", "tgid");
	flavour_layout("-clang.o", 20, ktgid);
	char kobj[PATH_MAX];
	if (access(path_in(kobj, sizeof(kobj), "flavour", "-kiln.o"), R_OK) == 0)
		flavour_layout("-kiln.o", 20, ktgid);

	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/tests/core/whistler.lisp", src_root);
	twin_open(&wh[0], "whistler", "kiln", src);
	twin_open(&wh[1], "whistler", "clang", path_in(src, sizeof(src), "whistler", "-clang.o"));
	test_getppid_cases();
	test_socket_cases();
	twin_close(&wh[0]);
	twin_close(&wh[1]);

	btf__free(vmlinux);
	int fds_after = check_open_fds();
	CHECK("core: no fd leaked", fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
	printf("  test_core took %.2f s\n", mono() - t0);
	return CHECK_DONE();
}
