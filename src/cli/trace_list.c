/* trace_list.c — `kiln trace -l [SEARCH]` and `-lv`: the probes kiln trace can name, as
 * bpftrace lists them (`provider:...` a line). Tracepoints come from tracefs (with -v their
 * fields), raw tracepoints from BTF's btf_trace_NAME typedefs, kprobes and kfuncs from the
 * kernel's BTF FUNC names less the __init ones (tracefs' available_filter_functions is
 * unreadable under lockdown; this is the list kernel-function wildcards expand to),
 * software and hardware events from their tables, a file's functions for `uprobe:FILE:*`
 * and its USDT probes for `usdt:FILE:*`. SEARCH is an fnmatch glob over the whole line or
 * the part after the provider. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include "trace_listv.h"
#include "compiler/tracefs.h"
#include "trace/binpath.h"
#include "trace/elfsyms.h"
#include "trace/ktypes.h"
#include "trace/probes.h"
#include "trace/usdt.h"
#include <ctype.h>
#include <glob.h>
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const char *line, *args;    /* args: -v's lines under it ("" when none) */
};

struct lister {
	const char *search;         /* NULL: everything */
	bool verbose;
	pid_t pid;                  /* -p: that process's files for uprobe and usdt (0: none) */
	KL_VEC(struct entry) got;   /* a file list's lines, printed sorted (each_file) */
	struct kl_arena *a;
	FILE *out;
};

/* Print provider:rest when the search takes it (the whole line, or rest alone). */
static bool show(struct lister *l, const char *provider, const char *rest)
{
	char line[1024];
	snprintf(line, sizeof(line), "%s:%s", provider, rest);
	if (l->search && fnmatch(l->search, line, 0) && fnmatch(l->search, rest, 0))
		return false;
	fprintf(l->out, "%s\n", line);
	return true;
}

static void tp_fields(struct lister *l, const char *cat, const char *name)
{
	char event[520], msg[512];
	snprintf(event, sizeof(event), "%s/%s", cat, name);
	struct kl_tp_field *fields;
	uint32_t n;
	if (kl_tracepoint_format(l->a, event, &fields, &n, msg, sizeof(msg)))
		return;
	for (uint32_t i = 0; i < n; i++)   /* the format's declarations, as bpftrace prints them */
		if (strncmp(fields[i].name, "common_", 7)) {
			if (fields[i].count && !fields[i].data_loc)
				fprintf(l->out, "    %s %s[%u]\n", fields[i].ctype, fields[i].name, fields[i].count);
			else
				fprintf(l->out, "    %s %s\n", fields[i].ctype, fields[i].name);
		}
}

static int list_tracepoints(struct lister *l, const char *provider)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/available_events", kt_tracefs());
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kiln trace: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = ':';
		if (show(l, provider, line) && l->verbose) {
			*colon = 0;
			tp_fields(l, line, colon + 1);
		}
	}
	fclose(f);
	return 0;
}

static int list_raw(struct lister *l, const char *provider)
{
	const char **names;
	uint32_t *nargs, n;
	char msg[512];
	if (kt_raw_tracepoints(l->a, NULL, &names, &nargs, &n, msg, sizeof(msg)))
		return 0;   /* no BTF: nothing to list */
	for (uint32_t i = 0; i < n; i++)
		if (show(l, provider, names[i]) && l->verbose)
			for (uint32_t k = 0; k < nargs[i]; k++)
				fprintf(l->out, "    u64 arg%u;\n", k);
	return 0;
}

static int list_kfuncs(struct lister *l, const char *provider)
{
	const char **names;
	uint32_t n;
	char msg[512];
	if (kt_kernel_funcs(l->a, NULL, &names, &n, msg, sizeof(msg)))
		return 0;
	bool typed = provider[1] == 'f' || provider[4] == 'f';   /* kfunc, kretfunc: args->NAME */
	for (uint32_t i = 0; i < n; i++) {
		if (!show(l, provider, names[i]) || !l->verbose || !typed)
			continue;
		trace_kfunc_params(l->out, names[i]);
	}
	return 0;
}

static int list_perf(struct lister *l, const char *provider)
{
	size_t n;
	const struct kt_perf_event *ev = kt_perf_events(provider, &n);
	for (size_t i = 0; i < n; i++) {
		char rest[64];
		snprintf(rest, sizeof(rest), "%s:", ev[i].name);
		show(l, provider, rest);
	}
	return 0;
}

/* The files of a search PROVIDER:FILE:REST, each through one(l, provider, path, rest): FILE
 * found as a uprobe's is, a wildcard FILE each file it names (`uprobe:/usr/lib/x86_64-*-gnu/libc*:mall*`),
 * and with -p the process's files instead (its program for uprobes, every file it maps for
 * usdt, as bpftrace 0.17 lists them; FILE, when given, filters them). REST is "*" when the
 * search stops at the provider (`-l 'usdt:*' -p PID`). */
typedef int (*list_file_fn)(struct lister *, const char *, const char *, const char *);

static int pid_files(struct lister *l, const char *provider, const char *fglob, const char *rest, list_file_fn one)
{
	const char **files;
	size_t n;
	char msg[512];
	if (trace_pid_files(l->a, l->pid, !strcmp(provider, "usdt"), &files, &n, msg, sizeof(msg))) {
		fprintf(stderr, "ERROR: %s\n", msg);
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (!fglob || !fnmatch(fglob, files[i], 0) || !strcmp(fglob, "*"))
			rc = one(l, provider, files[i], rest);
	return rc;
}

static int entry_cmp(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->line, ((const struct entry *)y)->line);
}

static int files_of(struct lister *l, const char *provider, list_file_fn one);

/* The lines of every file the search names, sorted, each once, as bpftrace prints them. */
static int each_file(struct lister *l, const char *provider, list_file_fn one)
{
	l->got.len = 0;
	int rc = files_of(l, provider, one);
	if (l->got.len > 1)
		qsort(l->got.items, l->got.len, sizeof(*l->got.items), entry_cmp);
	for (size_t i = 0; i < l->got.len; i++)
		if (!i || strcmp(l->got.items[i].line, l->got.items[i - 1].line))
			fprintf(l->out, "%s\n%s", l->got.items[i].line, l->got.items[i].args);
	return rc;
}

static void got(struct lister *l, const char *line, const char *args)
{
	kl_vec_push(l->a, &l->got, ((struct entry){ line, args }));
}

static int files_of(struct lister *l, const char *provider, list_file_fn one)
{
	const char *s = l->search ? strchr(l->search, ':') : NULL;
	const char *e = s ? strchr(s + 1, ':') : NULL;
	char msg[1024];
	const char *path = NULL, *fglob = e ? kl_arena_strndup(l->a, s + 1, (size_t)(e - s - 1)) : NULL;
	if (l->pid)
		return pid_files(l, provider, fglob, e ? e + 1 : "*", one);
	if (!e)
		return 0;   /* no file named: nothing to list (bpftrace lists none either) */
	if (strpbrk(fglob, "*?[")) {
		glob_t g;
		int rc = 0;
		if (glob(fglob, 0, NULL, &g))
			return 0;
		for (size_t i = 0; i < g.gl_pathc && !rc; i++)
			rc = one(l, provider, kl_arena_strdup(l->a, g.gl_pathv[i]), e + 1);
		globfree(&g);
		return rc;
	}
	if (kt_find_binary(l->a, fglob, &path, msg, sizeof(msg))) {
		fprintf(stderr, "kiln trace: %s\n", msg);
		return 0;
	}
	return one(l, provider, path, e + 1);
}

/* usdt:FILE:GLOB: the USDT probes of FILE, as usdt:FILE:PROVIDER:NAME. A file of a wildcard
 * or of -p that is not an ELF file is passed over. */
static int usdt_file(struct lister *l, const char *provider, const char *path, const char *rest)
{
	char msg[1024];
	struct kt_usdt *u;
	uint32_t n;
	if (kt_elf_usdt(l->a, path, &u, &n, msg, sizeof(msg))) {
		if (l->pid || strpbrk(l->search, "*?["))
			return 0;
		fprintf(stderr, "kiln trace: %s\n", msg);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pn[512];
		snprintf(pn, sizeof(pn), "%s:%s", u[i].provider, u[i].name);
		if (!fnmatch(rest, pn, 0) || !fnmatch(rest, u[i].name, 0))
			got(l, kl_arena_printf(l->a, "%s:%s:%s", provider, path, pn), "");
	}
	return 0;
}

static int list_usdt(struct lister *l, const char *provider)
{
	return each_file(l, provider, usdt_file);
}

/* uprobe:FILE:GLOB: the functions of FILE (a path, a library by name, a program in $PATH);
 * with -v each one's parameters, where the file's DWARF has them. */
static int uprobe_file(struct lister *l, const char *provider, const char *path, const char *rest)
{
	char msg[1024];
	struct kt_esym *syms;
	uint32_t n;
	if (kt_elf_funcs(l->a, path, &syms, &n, msg, sizeof(msg))) {
		if (l->pid || strpbrk(l->search, "*?["))
			return 0;
		fprintf(stderr, "kiln trace: %s\n", msg);
		return 1;
	}
	struct trace_dw *dw = l->verbose ? trace_dw_open(path) : NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (fnmatch(rest, syms[i].name, 0))
			continue;
		char *args = NULL;
		size_t len = 0;
		FILE *f = dw ? open_memstream(&args, &len) : NULL;
		if (f) {
			trace_dw_params(dw, f, syms[i].name);
			fclose(f);
		}
		got(l, kl_arena_printf(l->a, "%s:%s:%s", provider, path, syms[i].name),
		    args ? kl_arena_strdup(l->a, args) : "");
		free(args);
	}
	trace_dw_close(dw);
	return 0;
}

static int list_uprobes(struct lister *l, const char *provider)
{
	return each_file(l, provider, uprobe_file);
}

static const struct {
	const char *provider;
	int (*list)(struct lister *, const char *);
	bool by_default;            /* listed by a bare -l (kretprobe and the like only when asked) */
} lists[] = {   /* a wildcard provider (`*:FILE:*`) never names the ret ones, as in bpftrace */
	{ "tracepoint", list_tracepoints, true }, { "rawtracepoint", list_raw, true },
	{ "kprobe", list_kfuncs, true }, { "kretprobe", list_kfuncs, false },
	{ "kfunc", list_kfuncs, true }, { "kretfunc", list_kfuncs, false },
	{ "uprobe", list_uprobes, false }, { "uretprobe", list_uprobes, false }, { "usdt", list_usdt, false },
	{ "software", list_perf, true }, { "hardware", list_perf, true },
};

/* bpftrace reads the search as an attach point: characters no attach point has are errors. */
static bool valid_search(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:*?[]/+@,~!^", *s))
			return false;
	return true;
}

static int list_all(const char *search, bool verbose, pid_t pid);

int trace_list(const char *search, bool verbose, const char *pid_text)
{
	long v = 0;
	if (pid_text) {   /* bpftrace's checks of -p, as a run makes them */
		char *end;
		v = strtol(pid_text, &end, 10);
		if (!*pid_text || *end || v < 1 || v > 4 * 1024 * 1024 || (kill((pid_t)v, 0) && errno == ESRCH)) {
			fprintf(stderr, "ERROR: pid '%s' is not a running process's pid\n", pid_text);
			return 1;
		}
	}
	return list_all(search, verbose, (pid_t)v);
}

static int list_all(const char *search, bool verbose, pid_t pid)
{
	if (search && !valid_search(search)) {
		fprintf(stderr, "ERROR: invalid character in the search expression '%s'\n", search);
		return 1;
	}
	struct kl_arena a = { 0 };
	jmp_buf oom;
	if (setjmp(oom)) {
		kl_arena_free(&a);
		fprintf(stderr, "kiln trace: out of memory\n");
		return 1;
	}
	a.oom = &oom;
	struct lister l = { .search = search, .verbose = verbose, .pid = pid, .a = &a, .out = stdout };
	/* the provider part of the search, when it has one, picks the lists to read */
	const char *colon = search ? strchr(search, ':') : NULL;
	char *prov = colon ? kl_arena_strndup(&a, search, (size_t)(colon - search)) : NULL;
	bool any = false;   /* `-l 'syscalls:sys_enter_open*'` names no provider: the default lists */
	for (size_t i = 0; prov && i < sizeof(lists) / sizeof(lists[0]); i++)
		any = any || !fnmatch(prov, lists[i].provider, 0);
	if (!any)
		prov = NULL;
	int rc = 0;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]) && !rc; i++) {
		bool dflt = pid ? !strcmp(lists[i].provider, "uprobe") || !strcmp(lists[i].provider, "usdt")
				: lists[i].by_default;   /* -p: its uprobes and USDT probes */
		bool ret = strstr(lists[i].provider, "ret") != NULL;
		if (prov ? fnmatch(prov, lists[i].provider, 0) || (ret && strpbrk(prov, "*?[")) : !dflt)
			continue;
		rc = lists[i].list(&l, lists[i].provider);
	}
	kl_arena_free(&a);
	return rc;
}
