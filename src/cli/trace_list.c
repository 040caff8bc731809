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
#include "compiler/tracefs.h"
#include "trace/binpath.h"
#include "trace/elfsyms.h"
#include "trace/ktypes.h"
#include "trace/probes.h"
#include "trace/usdt.h"
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <string.h>

struct lister {
	const char *search;         /* NULL: everything */
	bool verbose;
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
	for (uint32_t i = 0; i < n; i++)
		if (strncmp(fields[i].name, "common_", 7)) {
			if (fields[i].data_loc)
				fprintf(l->out, "    __data_loc char[] %s;\n", fields[i].name);
			else if (fields[i].count)
				fprintf(l->out, "    char %s[%u];\n", fields[i].name, fields[i].count);
			else
				fprintf(l->out, "    %sint%u %s;\n", fields[i].is_signed ? "" : "u", fields[i].size * 8,
					fields[i].name);
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
		struct kt_karg *args, ret;
		uint32_t na;
		if (kt_kfunc_args(l->a, names[i], &args, &na, &ret, msg, sizeof(msg)))
			continue;
		for (uint32_t k = 0; k < na; k++) {
			const struct kt_type *t = &args[k].type;
			if (t->tname)
				fprintf(l->out, "    struct %s * %s;\n", t->tname, args[k].name ? args[k].name : "?");
			else if (args[k].ok)
				fprintf(l->out, "    %sint%u %s;\n", t->is_signed ? "" : "u", t->size * 8, args[k].name ? args[k].name : "?");
			else
				fprintf(l->out, "    (by value) %s;\n", args[k].name ? args[k].name : "?");
		}
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

/* The FILE of a search PROVIDER:FILE:REST (found as a uprobe's is), and REST; NULL when the
 * search names no file. */
static const char *search_file(struct lister *l, const char **rest, char *msg, size_t len)
{
	const char *s = l->search ? strchr(l->search, ':') : NULL;
	const char *e = s ? strchr(s + 1, ':') : NULL;
	const char *path = NULL;
	if (!e)
		return NULL;   /* no file named: nothing to list (bpftrace lists none either) */
	*rest = e + 1;
	if (kt_find_binary(l->a, kl_arena_strndup(l->a, s + 1, (size_t)(e - s - 1)), &path, msg, len))
		fprintf(stderr, "kiln trace: %s\n", msg);
	return path;
}

/* usdt:FILE:GLOB: the USDT probes of FILE, as usdt:FILE:PROVIDER:NAME. */
static int list_usdt(struct lister *l, const char *provider)
{
	char msg[1024];
	const char *rest, *path = search_file(l, &rest, msg, sizeof(msg));
	struct kt_usdt *u;
	uint32_t n;
	if (!path)
		return 0;
	if (kt_elf_usdt(l->a, path, &u, &n, msg, sizeof(msg))) {
		fprintf(stderr, "kiln trace: %s\n", msg);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		char pn[512];
		snprintf(pn, sizeof(pn), "%s:%s", u[i].provider, u[i].name);
		if (!fnmatch(rest, pn, 0) || !fnmatch(rest, u[i].name, 0))
			fprintf(l->out, "%s:%s:%s\n", provider, path, pn);
	}
	return 0;
}

/* uprobe:FILE:GLOB: the functions of FILE (a path, a library by name, a program in $PATH). */
static int list_uprobes(struct lister *l, const char *provider)
{
	char msg[1024];
	const char *e, *path = search_file(l, &e, msg, sizeof(msg));
	struct kt_esym *syms;
	uint32_t n;
	if (!path)
		return 0;
	if (kt_elf_funcs(l->a, path, &syms, &n, msg, sizeof(msg))) {
		fprintf(stderr, "kiln trace: %s\n", msg);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!fnmatch(e, syms[i].name, 0))
			fprintf(l->out, "%s:%s:%s\n", provider, path, syms[i].name);
	return 0;
}

static const struct {
	const char *provider;
	int (*list)(struct lister *, const char *);
	bool by_default;            /* listed by a bare -l (kretprobe and the like only when asked) */
} lists[] = {
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

int trace_list(const char *search, bool verbose)
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
	struct lister l = { search, verbose, &a, stdout };
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
		if (prov ? fnmatch(prov, lists[i].provider, 0) != 0 : !lists[i].by_default)
			continue;
		rc = lists[i].list(&l, lists[i].provider);
	}
	kl_arena_free(&a);
	return rc;
}
