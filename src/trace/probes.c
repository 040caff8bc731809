/* probes.c — attach points to targets (probes.h): one row per probe kind. Kernel functions
 * (kprobe, kretprobe, kfunc, kretfunc wildcards) come from the kernel's BTF FUNC names, not
 * from tracefs' available_filter_functions, which lockdown keeps unreadable here; a user
 * file's functions from its ELF symbols; tracepoints from tracefs' available_events; raw
 * tracepoints from BTF's btf_trace_NAME typedefs. */
#define _GNU_SOURCE
#include "trace/probes.h"
#include "compiler/tracefs.h"
#include "trace/binpath.h"
#include "trace/elfsyms.h"
#include "trace/ktypes.h"
#include "trace/parser.h"
#include "trace/usdt.h"
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *kt_tracefs(void)
{
	return kl_tracefs_root_or_default();   /* mounted if missing and we may (mounts.c) */
}

struct pr {
	struct kl_arena *a;
	struct kl_diag *d;
	const struct kt_attach *ap;
	uint32_t pi;
	struct kt_targets *out;
	struct kt_proc proc;        /* -p's or -c's process */
};

static int fail(struct pr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct pr *r, const char *fmt, ...)
{
	char msg[2048];
	va_list va;
	va_start(va, fmt);
	vsnprintf(msg, sizeof(msg), fmt, va);
	va_end(va);
	return kl_error(r->d, r->ap->span, "%s", msg);
}

static bool has_wild(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

static int add(struct pr *r, struct kt_target t)
{
	t.probe_index = r->pi;
	kl_vec_push(r->a, r->out, t);   /* BPFTRACE_MAX_PROBES is checked on the total (trace_env.c) */
	return 0;
}

/* The parts after the provider: how many were written (target, func, extra). */
static int nparts(const struct kt_attach *ap)
{
	return ap->extra ? 3 : ap->func ? 2 : ap->target ? 1 : 0;
}

/* bpftrace's wording for a wrong number of parts, with kiln's hint of the syntax. */
static int wrong_parts(struct pr *r, int want, const char *syntax)
{
	return fail(r, "%s probe type requires %d argument%s (%s)", r->ap->provider, want, want == 1 ? "" : "s",
		    syntax);
}

/* "NAME+OFFSET" (or "NAME"): the name into *name, the offset into *off. -1 when OFFSET is
 * not a number. */
static int split_offset(struct pr *r, const char *s, const char **name, uint64_t *off, bool *has_off)
{
	const char *plus = strchr(s, '+');
	*off = 0;
	*has_off = plus != NULL;
	*name = plus ? kl_arena_strndup(r->a, s, (size_t)(plus - s)) : s;
	if (!plus)
		return 0;
	char *end;
	errno = 0;
	*off = strtoull(plus + 1, &end, 0);
	if (!plus[1] || *end || errno)
		return fail(r, "%s: the offset '%s' is not a number", r->ap->text, plus + 1);
	return 0;
}

/* ---- BEGIN, END, tracepoint, interval, profile ---- */

static int special(struct pr *r, enum kt_pkind kind)
{
	if (r->ap->target)
		return fail(r, "%s takes no target", r->ap->provider);
	return add(r, (struct kt_target){ .kind = kind, .probe = r->ap->provider });
}

/* tracepoint:CAT:NAME with wildcards: every CAT:NAME tracefs lists that matches. */
static int tracepoint(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	if (nparts(ap) != 2)
		return wrong_parts(r, 2, "tracepoint:CATEGORY:NAME");
	if (!has_wild(ap->target) && !has_wild(ap->func)) {
		char event[512], msg[1024];
		snprintf(event, sizeof(event), "%s/%s", ap->target, ap->func);
		if (kl_tracepoint_check(event, msg, sizeof(msg)) < 0)
			return fail(r, "%s", msg);
		return add(r, (struct kt_target){ .kind = kind, .event = kl_arena_strdup(r->a, event),
			.probe = kl_arena_printf(r->a, "tracepoint:%s:%s", ap->target, ap->func) });
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/available_events", kt_tracefs());
	FILE *f = fopen(path, "r");
	if (!f)
		return fail(r, "cannot read %s to expand the wildcard", path);
	char line[512];
	size_t before = r->out->len;
	int err = 0;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (fnmatch(ap->target, line, 0) || fnmatch(ap->func, colon + 1, 0))
			continue;
		*colon = '/';      /* the one check, as for a name written out (tracefs.h) */
		if (!kl_tracepoint_name_ok(line))
			continue;
		*colon = 0;
		err = add(r, (struct kt_target){ .kind = kind, .event = kl_arena_printf(r->a, "%s/%s", line, colon + 1),
			.probe = kl_arena_printf(r->a, "tracepoint:%s:%s", line, colon + 1) });
	}
	fclose(f);
	if (!err && r->out->len == before)
		return fail(r, "no tracepoint matches %s", ap->text);
	return err;
}

/* interval:s:N, interval:ms:N, ... and profile:hz:N, ... */
static int timed(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull }, { "hz", 0 },
	};
	const char *unit = ap->target, *num = ap->func;
	char *end = NULL;
	unsigned long long n = num ? strtoull(num, &end, 10) : 0;
	if (!unit || !num || *end || !n || ap->extra)
		return fail(r, "%s: expected PROVIDER:UNIT:COUNT (s, ms, us or hz, and a positive count)", ap->text);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit)) {
			struct kt_target t = { .kind = kind, .probe = kl_arena_printf(r->a, "%s:%s:%llu", ap->provider, unit, n) };
			if (units[i].ns)
				t.period_ns = units[i].ns * n;
			else if (kind == KP_INTERVAL)
				t.period_ns = 1000000000ull / n;
			else
				t.freq = n;
			return add(r, t);
		}
	return fail(r, "%s: the unit must be s, ms, us or hz", ap->text);
}

/* ---- kernel functions: kprobe, kretprobe, kfunc, kretfunc ---- */

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The kernel's __init functions (kallsyms' text symbols between _sinittext and _einittext),
 * sorted: BTF lists them, but they are gone once the kernel has booted and no probe
 * attaches there, so wildcards leave them out. None when kallsyms hides its addresses. */
static const char **init_funcs(struct kl_arena *a, size_t *n)
{
	*n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return NULL;
	KL_VEC(struct { uint64_t addr; const char *name; }) text = { 0 };
	uint64_t lo = 0, hi = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && (type == 't' || type == 'T') &&
		    !strchr(line, '[')) {   /* [module] symbols are never init text of the kernel */
			if (!strcmp(name, "_sinittext"))
				lo = addr;
			else if (!strcmp(name, "_einittext"))
				hi = addr;
			else
				kl_vec_push(a, &text, ((typeof(*text.items)){ addr, kl_arena_strdup(a, name) }));
		}
	fclose(f);
	if (!lo || hi <= lo)
		return NULL;
	const char **out = kl_arena_array(a, const char *, text.len + 1);
	for (size_t i = 0; i < text.len; i++)
		if (text.items[i].addr >= lo && text.items[i].addr < hi)
			out[(*n)++] = text.items[i].name;
	if (*n > 1)
		qsort(out, *n, sizeof(*out), cmp_name);
	return out;
}

int kt_kernel_funcs(struct kl_arena *a, const char *glob, const char ***out, uint32_t *n, char *msg, size_t len)
{
	if (kt_kfuncs(a, glob, out, n, msg, len))
		return -1;
	size_t ninit;
	const char **init = *n ? init_funcs(a, &ninit) : NULL;
	uint32_t k = 0;
	for (uint32_t i = 0; i < *n; i++)
		if (!init || !bsearch(&(*out)[i], init, ninit, sizeof(*init), cmp_name))
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}

/* func (maybe a wildcard) as kernel functions, each through mk. A wildcard matching nothing
 * adds nothing; an exact name is taken as written (a kprobe may name a function BTF lacks). */
static int kernel_funcs(struct pr *r, const char *func, int (*mk)(struct pr *, const char *, void *), void *arg)
{
	if (!has_wild(func))
		return mk(r, func, arg);
	const char **names;
	uint32_t n;
	char msg[512];
	if (kt_kernel_funcs(r->a, func, &names, &n, msg, sizeof(msg)))
		return fail(r, "%s: expanding the wildcard: %s", r->ap->text, msg);
	for (uint32_t i = 0; i < n; i++)
		if (mk(r, names[i], arg))
			return -1;
	return 0;
}

struct kprobe_arg {
	enum kt_pkind kind;
	uint64_t off;
	bool has_off;
};

/* Kernel functions a kretprobe would lock the machine up on (spin locks the return
 * trampoline itself takes, not marked notrace): refused before anything attaches, in
 * bpftrace 0.17's words, whether named or reached through a wildcard. */
static const char *const banned_kretprobes[] = {
	"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore", "queued_spin_lock_slowpath",
};

static int mk_kprobe(struct pr *r, const char *func, void *arg)
{
	const struct kprobe_arg *k = arg;
	const char *p = r->ap->provider;
	for (size_t i = 0; k->kind == KP_KRETPROBE && i < sizeof(banned_kretprobes) / sizeof(banned_kretprobes[0]); i++)
		if (!strcmp(func, banned_kretprobes[i]))
			return fail(r, "kretprobe:%s can't be used as it might lock up your system.", func);
	return add(r, (struct kt_target){ .kind = k->kind, .event = func, .offset = k->off,
		.probe = k->has_off ? kl_arena_printf(r->a, "%s:%s+%llu", p, func, (unsigned long long)k->off)
				    : kl_arena_printf(r->a, "%s:%s", p, func) });
}

static int kprobe(struct pr *r, enum kt_pkind kind)
{
	if (nparts(r->ap) != 1)
		return wrong_parts(r, 1, kind == KP_KPROBE ? "kprobe:FUNCTION[+OFFSET]" : "kretprobe:FUNCTION");
	struct kprobe_arg k = { .kind = kind };
	const char *func;
	if (split_offset(r, r->ap->target, &func, &k.off, &k.has_off))
		return -1;
	if (k.has_off && kind == KP_KRETPROBE)
		return fail(r, "%s: a kretprobe takes no offset", r->ap->text);
	if (k.has_off && has_wild(func))
		return fail(r, "%s: an offset needs one function, not a wildcard", r->ap->text);
	if (!*func)
		return wrong_parts(r, 1, "kprobe:FUNCTION[+OFFSET]");
	return kernel_funcs(r, func, mk_kprobe, &k);
}

static int mk_kfunc(struct pr *r, const char *func, void *arg)
{
	enum kt_pkind kind = *(enum kt_pkind *)arg;
	struct kt_karg *args, ret;
	uint32_t n;
	char msg[1024];
	if (kt_kfunc_args(r->a, func, &args, &n, &ret, msg, sizeof(msg)))
		return fail(r, "%s: %s", r->ap->text, msg);
	return add(r, (struct kt_target){ .kind = kind, .event = func,
		.probe = kl_arena_printf(r->a, "%s:%s", r->ap->provider, func) });
}

/* kfunc[:MODULE]:FUNCTION; only the kernel's own functions (MODULE vmlinux) have BTF here. */
static int kfunc(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	const char *syntax = kind == KP_KFUNC ? "kfunc[:vmlinux]:FUNCTION" : "kretfunc[:vmlinux]:FUNCTION";
	if (nparts(ap) != 1 && nparts(ap) != 2)
		return wrong_parts(r, 1, syntax);
	const char *func = nparts(ap) == 2 ? ap->func : ap->target;
	if (nparts(ap) == 2 && fnmatch(ap->target, "vmlinux", 0))
		return fail(r, "%s: kiln trace reads only the kernel's own BTF (vmlinux), not module %s's", ap->text,
			    ap->target);
	return kernel_funcs(r, func, mk_kfunc, &kind);
}

/* ---- user functions: uprobe, uretprobe ---- */

struct ufile {
	const char *path;
	struct kt_esym *syms;
	uint32_t n;
};

static int load_syms(struct pr *r, struct ufile *f)
{
	char msg[1024];
	if (f->syms || !f->path)
		return 0;
	if (kt_elf_funcs(r->a, f->path, &f->syms, &f->n, msg, sizeof(msg)))
		return fail(r, "%s: %s", r->ap->text, msg);
	return 0;
}

static int mk_uprobe(struct pr *r, enum kt_pkind kind, const char *path, const char *func, uint64_t off, bool has_off)
{
	const char *p = r->ap->provider;
	return add(r, (struct kt_target){ .kind = kind, .event = func, .binary = path, .offset = off,
		.probe = has_off ? kl_arena_printf(r->a, "%s:%s:%s+%llu", p, path, func, (unsigned long long)off)
				 : kl_arena_printf(r->a, "%s:%s:%s", p, path, func) });
}

/* A uprobe's or usdt's file as kt_find_binary finds it, or else, with -p, the same path in
 * the process's root (the path under /proc/PID/root: its own mount namespace's file), as bpftrace does. */
static int find_file(struct pr *r, const char *name, const char **path)
{
	char msg[1024];
	if (!kt_find_binary(r->a, name, path, msg, sizeof(msg)))
		return 0;
	if (r->proc.root && name[0] == '/') {
		const char *in = kl_arena_printf(r->a, "%s%s", r->proc.root, name);
		if (!access(in, R_OK)) {
			*path = in;
			return 0;
		}
	}
	return fail(r, "%s", msg);
}

/* One file's FUNC, FUNC+OFFSET, ADDRESS or wildcard. */
static int uprobe_in(struct pr *r, enum kt_pkind kind, const char *path, const char *spec)
{
	struct ufile f = { .path = path };
	const char *func;
	uint64_t off;
	bool has_off;
	if (isdigit((unsigned char)spec[0])) {   /* an address in the file: the function holding it */
		char *end;
		errno = 0;
		uint64_t addr = strtoull(spec, &end, 0);
		if (*end || errno)
			return fail(r, "%s: '%s' is neither a function nor an address", r->ap->text, spec);
		if (load_syms(r, &f))
			return -1;
		const struct kt_esym *s = kt_elf_at(f.syms, f.n, addr);
		if (!s)
			return fail(r, "Could not resolve address: %s:%#llx", path, (unsigned long long)addr);
		return mk_uprobe(r, kind, path, s->name, addr - s->addr, addr != s->addr);
	}
	if (split_offset(r, spec, &func, &off, &has_off))
		return -1;
	if (has_off && kind == KP_URETPROBE)
		return fail(r, "%s: a uretprobe takes no offset", r->ap->text);
	if (has_off && has_wild(func))
		return fail(r, "%s: an offset needs one function, not a wildcard", r->ap->text);
	if (load_syms(r, &f))
		return -1;
	/* a function the file lacks is dropped, neither attached nor counted, as bpftrace 0.17
	 * drops it (sslsnoop.bt names libcrypto functions a stripped libcrypto does not export);
	 * libkiln finds the others' offsets at attach */
	if (!has_wild(func) && !has_off) {
		if (mk_uprobe(r, kind, path, func, 0, false))
			return -1;
		r->out->items[r->out->len - 1].absent = !kt_elf_find(f.syms, f.n, func);
		return 0;
	}
	if (has_off) {
		const struct kt_esym *s = kt_elf_find(f.syms, f.n, func);
		if (!s)
			return fail(r, "%s: no function %s in %s", r->ap->text, func, path);
		if (s->size && off >= s->size)
			return fail(r, "Offset outside the function bounds ('%s' size is %llu)", func, (unsigned long long)s->size);
		return mk_uprobe(r, kind, path, func, off, true);
	}
	for (uint32_t i = 0; i < f.n; i++)
		if (!fnmatch(func, f.syms[i].name, 0) && mk_uprobe(r, kind, path, f.syms[i].name, 0, false))
			return -1;
	return 0;
}

static int uprobe(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	if (nparts(ap) != 2 || !*ap->func)
		return wrong_parts(r, 2, kind == KP_UPROBE ? "uprobe:FILE:FUNCTION[+OFFSET] or uprobe:FILE:ADDRESS"
							   : "uretprobe:FILE:FUNCTION");
	if (!has_wild(ap->target)) {
		const char *path;
		if (find_file(r, ap->target, &path))
			return -1;
		return uprobe_in(r, kind, path, ap->func);
	}
	glob_t g;   /* a wildcard in the file: each file it names */
	if (glob(ap->target, 0, NULL, &g))
		return 0;
	int err = 0;
	for (size_t i = 0; !err && i < g.gl_pathc; i++)
		err = uprobe_in(r, kind, kl_arena_strdup(r->a, g.gl_pathv[i]), ap->func);
	globfree(&g);
	return err;
}

/* ---- usdt:FILE:[PROVIDER:]NAME ---- */

static int usdt_in(struct pr *r, const char *path, const char *provider, const char *name)
{
	struct kt_usdt *u;
	uint32_t n;
	char msg[1024];
	if (kt_elf_usdt(r->a, path, &u, &n, msg, sizeof(msg)))
		return fail(r, "%s: %s", r->ap->text, msg);
	size_t before = r->out->len;
	for (uint32_t i = 0; i < n; i++) {
		if ((provider && fnmatch(provider, u[i].provider, 0)) || fnmatch(name, u[i].name, 0))
			continue;
		if (add(r, (struct kt_target){ .kind = KP_USDT, .event = u[i].name, .binary = path, .offset = u[i].offset,
			.sema = u[i].sema, .usdt_args = u[i].args,
			.probe = kl_arena_printf(r->a, "usdt:%s:%s:%s", path, u[i].provider, u[i].name) }))
			return -1;
	}
	if (r->out->len == before && !has_wild(provider) && !has_wild(name))
		return fail(r, "%s: %s has no USDT probe %s%s%s", r->ap->text, path, provider ? provider : "",
			    provider ? ":" : "", name);
	return 0;
}

static int usdt(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	(void)kind;
	if (nparts(ap) != 2 && nparts(ap) != 3)
		return wrong_parts(r, 2, "usdt:FILE:[PROVIDER:]NAME");
	const char *provider = nparts(ap) == 3 ? ap->func : NULL, *name = nparts(ap) == 3 ? ap->extra : ap->func;
	if (!*ap->target)
		return fail(r, "%s: kiln trace needs the file (a process's files with -p are not read yet)", ap->text);
	if (!has_wild(ap->target)) {
		const char *path;
		if (find_file(r, ap->target, &path))
			return -1;
		return usdt_in(r, path, provider, name);
	}
	glob_t g;
	if (glob(ap->target, 0, NULL, &g))
		return 0;
	int err = 0;
	for (size_t i = 0; !err && i < g.gl_pathc; i++)
		err = usdt_in(r, kl_arena_strdup(r->a, g.gl_pathv[i]), provider, name);
	globfree(&g);
	return err;
}

/* ---- rawtracepoint:NAME ---- */

static int rawtracepoint(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	if (nparts(ap) != 1)
		return wrong_parts(r, 1, "rawtracepoint:NAME");
	const char **names;
	uint32_t *nargs, n;
	char msg[512];
	if (kt_raw_tracepoints(r->a, ap->target, &names, &nargs, &n, msg, sizeof(msg)))
		return fail(r, "%s: %s", ap->text, msg);
	if (!n && !has_wild(ap->target))
		return fail(r, "%s: the kernel's BTF has no raw tracepoint %s (no typedef btf_trace_%s)", ap->text,
			    ap->target, ap->target);
	for (uint32_t i = 0; i < n; i++)
		if (add(r, (struct kt_target){ .kind = kind, .event = names[i], .nargs = nargs[i],
			.probe = kl_arena_printf(r->a, "rawtracepoint:%s", names[i]) }))
			return -1;
	return 0;
}

/* ---- software:EVENT[:COUNT], hardware:EVENT[:COUNT] ---- */

static const struct kt_perf_event software[] = {
	{ "alignment-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
	{ "bpf-output", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, 1 },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "cpu-clock", "cpu", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "cpu-migrations", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "dummy", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1 },
	{ "emulation-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
	{ "major-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
	{ "minor-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100 },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "task-clock", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1 },
};
static const struct kt_perf_event hardware[] = {
	{ "backend-stalls", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000 },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100000 },
	{ "branch-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 100000 },
	{ "bus-cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 100000 },
	{ "cache-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1000000 },
	{ "cache-references", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "frontend-stalls", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000 },
	{ "instructions", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
	{ "ref-cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
};

const struct kt_perf_event *kt_perf_events(const char *provider, size_t *n)
{
	if (!strcmp(provider, "software")) {
		*n = sizeof(software) / sizeof(software[0]);
		return software;
	}
	if (!strcmp(provider, "hardware")) {
		*n = sizeof(hardware) / sizeof(hardware[0]);
		return hardware;
	}
	*n = 0;
	return NULL;
}

static int perf_event(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	size_t n;
	const struct kt_perf_event *ev = kt_perf_events(ap->provider, &n);
	if (nparts(ap) != 1 && nparts(ap) != 2)
		return wrong_parts(r, 2, kind == KP_SOFTWARE ? "software:EVENT:COUNT" : "hardware:EVENT:COUNT");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ap->target, ev[i].name) && (!*ev[i].alias || strcmp(ap->target, ev[i].alias)))
			continue;
		uint64_t count = ev[i].count;
		if (ap->func && *ap->func) {
			char *end;
			count = strtoull(ap->func, &end, 0);
			if (*end || !count)
				return fail(r, "%s: the count must be a positive number", ap->text);
		}
		return add(r, (struct kt_target){ .kind = kind, .event = ev[i].name, .perf_type = ev[i].type,
			.perf_config = ev[i].config, .count = count,
			.probe = kl_arena_printf(r->a, "%s:%s:%s", ap->provider, ap->target, ap->func ? ap->func : "") });
	}
	char names[1024] = "";
	for (size_t i = 0, k = 0; i < n && k < sizeof(names); i++)
		k += (size_t)snprintf(names + k, sizeof(names) - k, "%s%s", i ? " " : "", ev[i].name);
	return fail(r, "%s: no %s event '%s' (there are: %s)", ap->text, ap->provider, ap->target ? ap->target : "",
		    names);
}

/* ---- watchpoint:ADDRESS:LENGTH:MODE, watchpoint:FUNCTION+argN:LENGTH:MODE ---- */

/* FUNCTION+argN (a wildcard FUNCTION: each function of -p's or -c's program it names): per
 * function, a uprobe that sends argN's value, and the watchpoint attached there when it does. */
static int watch_funcs(struct pr *r, const struct kt_target *wp)
{
	const struct kt_attach *ap = r->ap;
	const char *plus = strchr(ap->target, '+');
	char *end;
	unsigned long n = plus && !strncmp(plus + 1, "arg", 3) ? strtoul(plus + 4, &end, 10) : 99;
	if (!plus || !plus[4] || *end)
		return fail(r, "%s: expected FUNCTION+argN", ap->text);
	if (n > 5)
		return fail(r, "x86_64 doesn't support arg%lu", n);
	if (!r->proc.binary)
		return fail(r, "-p PID or -c CMD required for watchpoint");
	const char *path, *glob = kl_arena_strndup(r->a, ap->target, (size_t)(plus - ap->target));
	char msg[1024];
	struct ufile f = { 0 };
	if (kt_find_binary(r->a, r->proc.binary, &path, msg, sizeof(msg)))
		return fail(r, "%s", msg);
	f.path = path;
	if (load_syms(r, &f))
		return -1;
	size_t before = r->out->len;
	for (uint32_t i = 0; i < f.n; i++) {
		if (fnmatch(glob, f.syms[i].name, 0))
			continue;
		struct kt_target setup = { .kind = KP_UPROBE, .event = f.syms[i].name, .binary = path, .watch_setup = true,
			.watch_arg = (uint32_t)n, .watch_of = (uint32_t)r->out->len + 1,
			.watch_async = !strcmp(ap->provider, "asyncwatchpoint"),
			.probe = kl_arena_printf(r->a, "uprobe:%s:%s", path, f.syms[i].name) };
		struct kt_target w = *wp;
		w.watch_deferred = true;
		/* bpftrace's `probe`: the program as -c or -p names it, N when not 0 */
		w.probe = kl_arena_printf(r->a, "%s:%s:%s%s:%u:%s", ap->provider, r->proc.binary, f.syms[i].name,
					  n ? kl_arena_printf(r->a, ":%lu", n) : "", wp->bp_len, ap->extra);
		if (add(r, setup) || add(r, w))
			return -1;
	}
	if (r->out->len == before && !has_wild(glob))
		return fail(r, "%s: no function %s in %s", ap->text, glob, path);
	return 0;
}

/* A hardware breakpoint on ADDRESS (the -p/-c process's memory, or the kernel's without
 * either), or on the address FUNCTION's argN holds once it is called (asyncwatchpoint: the
 * process not stopped meanwhile); LENGTH 1, 2, 4 or 8 bytes, MODE a combination of r, w and
 * x, each once, checked as bpftrace 0.17 checks them. */
static int watchpoint(struct pr *r, enum kt_pkind kind)
{
	const struct kt_attach *ap = r->ap;
	if (nparts(ap) != 3)
		return wrong_parts(r, 3, "watchpoint:ADDRESS:LENGTH:MODE");
	char *end;
	errno = 0;
	uint64_t addr = strtoull(ap->target, &end, 0);
	bool func = !isdigit((unsigned char)ap->target[0]);
	if (!func && (*end || errno))
		return fail(r, "%s: '%s' is not an address", ap->text, ap->target);
	if (!func && !strcmp(ap->provider, "asyncwatchpoint"))
		return fail(r, "%s requires a function name", ap->provider);
	if (!func && !addr)
		return fail(r, "watchpoint must be attached to a non-zero address");
	unsigned long len = strtoul(ap->func, &end, 10);
	if (*end || (len != 1 && len != 2 && len != 4 && len != 8))
		return fail(r, "watchpoint length must be one of (1,2,4,8)");
	static const char modes[] = "rwx";
	uint32_t type = 0;
	for (const char *c = ap->extra; *c; c++) {
		const char *m = strchr(modes, *c);
		if (!m || !*c)
			return fail(r, "watchpoint mode must be combination of (r,w,x)");
		if (type & (1u << (m - modes)))
			return fail(r, "watchpoint modes may not be duplicated");
		type |= 1u << (m - modes);   /* r, w, x: HW_BREAKPOINT_R 1, _W 2, _X 4 */
	}
	if (!type)
		return fail(r, "watchpoint mode must be combination of (r,w,x)");
	if (type == 1 || (type & 4 && type != 4))   /* x86's debug registers: w, rw or x alone */
		return fail(r, "invalid watchpoint mode: %s%s%s", type & 1 ? "r" : "", type & 2 ? "w" : "", type & 4 ? "x" : "");
	struct kt_target t = { .kind = kind, .event = "watchpoint", .bp_addr = addr, .bp_len = (uint32_t)len,
		.bp_type = type, .probe = kl_arena_printf(r->a, "%s:%s:%s:%s", ap->provider, ap->target, ap->func, ap->extra) };
	return func ? watch_funcs(r, &t) : add(r, t);
}

bool kt_attach_reversed(enum kt_pkind kind)
{
	static const bool reversed[] = { [KP_UPROBE] = true, [KP_URETPROBE] = true, [KP_USDT] = true, [KP_KPROBE] = true,
		[KP_SOFTWARE] = true, [KP_KFUNC] = true, [KP_WATCHPOINT] = false };
	return (size_t)kind < sizeof(reversed) / sizeof(reversed[0]) && reversed[kind];
}

/* ---- the table ---- */

static int refuse(struct pr *r, enum kt_pkind kind)
{
	(void)kind;
	return fail(r, "%s probes are not supported yet by kiln trace", r->ap->provider);
}

static const struct {
	const char *provider;
	enum kt_pkind kind;
	int (*resolve)(struct pr *, enum kt_pkind);
} kinds[] = {
	{ "BEGIN", KP_BEGIN, special },
	{ "END", KP_END, special },
	{ "tracepoint", KP_TRACEPOINT, tracepoint },
	{ "interval", KP_INTERVAL, timed },
	{ "profile", KP_PROFILE, timed },
	{ "uprobe", KP_UPROBE, uprobe },
	{ "uretprobe", KP_URETPROBE, uprobe },
	{ "kprobe", KP_KPROBE, kprobe },
	{ "kretprobe", KP_KRETPROBE, kprobe },
	{ "kfunc", KP_KFUNC, kfunc },
	{ "kretfunc", KP_KRETFUNC, kfunc },
	{ "fentry", KP_KFUNC, kfunc },
	{ "fexit", KP_KRETFUNC, kfunc },
	{ "rawtracepoint", KP_RAWTRACEPOINT, rawtracepoint },
	{ "software", KP_SOFTWARE, perf_event },
	{ "hardware", KP_HARDWARE, perf_event },
	{ "usdt", KP_USDT, usdt },
	{ "watchpoint", KP_WATCHPOINT, watchpoint },
	{ "asyncwatchpoint", KP_WATCHPOINT, watchpoint },
	{ "iter", KP_BEGIN, refuse },
};

const char *kt_provider_name(enum kt_pkind kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == kind && kinds[i].resolve != refuse)
			return kinds[i].provider;   /* (the first: kfunc before its alias fentry) */
	return "?";
}

/* $1.. in the attach point's text replaced by the positional parameters (`i:ms:$1`,
 * `BEG$1`; "" when missing), as bpftrace does before it reads an attach point; into *sub. */
static int expand_params(struct pr *r, const char *const *params, int nparams, struct kt_attach *sub)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return fail(r, "%s", "out of memory");
	for (const char *s = r->ap->text; *s; s++) {
		char *end;
		long i = *s == '$' && isdigit((unsigned char)s[1]) ? strtol(s + 1, &end, 10) : 0;
		if (!i) {
			fputc(*s, f);
			continue;
		}
		fputs(i <= nparams ? params[i - 1] : "", f);   /* a missing one is "" */
		s = end - 1;
	}
	fclose(f);
	*sub = (struct kt_attach){ .span = r->ap->span, .text = kl_arena_strdup(r->a, text) };
	free(text);
	kt_attach_split(r->a, sub);
	r->ap = sub;
	return 0;
}

int kt_resolve_attach(struct kl_arena *a, struct kl_diag *d, const struct kt_attach *ap, uint32_t pi,
		      const char *const *params, int nparams, struct kt_proc proc, struct kt_targets *out)
{
	struct pr r = { a, d, ap, pi, out, proc };
	struct kt_attach sub;
	if (strchr(ap->text, '$') && expand_params(&r, params, nparams, &sub))
		return -1;
	ap = r.ap;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(ap->provider, kinds[i].provider))
			return kinds[i].resolve(&r, kinds[i].kind);
	return fail(&r, "invalid probe type: %s", ap->provider);
}
