/* trace_listv.c — the arguments `kiln trace -lv` prints under a probe, in bpftrace 0.17's
 * shape ("    TYPE NAME" a line): a kernel function's parameters and its return value
 * ("    TYPE retval") as libbpf's btf_dump writes their declarations, and a user function's
 * parameters from the file's DWARF (libdw), named the way bpftrace names them ("int* n",
 * "struct Foo* foo1", "char** argv"). A file without DWARF prints none. */
#define _GNU_SOURCE
#include "trace_listv.h"
#include "compiler/kbtf.h"
#include <bpf/btf.h>
#include <errno.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- kernel functions: BTF ---- */

struct decl {
	char text[256];
	size_t len;
};

static void decl_printf(void *ctx, const char *fmt, va_list args)
{
	struct decl *d = ctx;
	if (d->len < sizeof(d->text))
		d->len += (size_t)vsnprintf(d->text + d->len, sizeof(d->text) - d->len, fmt, args);
	if (d->len >= sizeof(d->text))
		d->len = sizeof(d->text) - 1;
}

/* One declaration of type id, then " name". */
static void btf_line(FILE *out, struct btf_dump *dump, struct decl *d, uint32_t id, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	d->len = 0;
	d->text[0] = 0;
	if (!btf_dump__emit_type_decl(dump, id, &o))
		fprintf(out, "    %s %s\n", d->text, name);
}

void trace_kfunc_params(FILE *out, const char *func)
{
	char err[256];
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	const struct btf *btf = k ? kl_kbtf_btf(k) : NULL;
	int id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -1;
	const struct btf_type *fn = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return;
	struct decl d = { 0 };
	struct btf_dump *dump = btf_dump__new(btf, decl_printf, &d, NULL);
	if (!dump)
		return;
	const struct btf_param *p = btf_params(proto);
	for (uint16_t i = 0; i < btf_vlen(proto); i++)
		btf_line(out, dump, &d, p[i].type, btf__name_by_offset(btf, p[i].name_off));
	if (proto->type)
		btf_line(out, dump, &d, proto->type, "retval");
	btf_dump__free(dump);
}

/* ---- user functions: DWARF ---- */

struct dw_fn {
	const char *name;
	Dwarf_Die die;
};

struct trace_dw {
	int fd;
	Dwarf *dw;
	struct dw_fn *fns;
	size_t n, cap;
};

static int fn_cmp(const void *x, const void *y)
{
	return strcmp(((const struct dw_fn *)x)->name, ((const struct dw_fn *)y)->name);
}

/* The defined functions of one compile unit's top level. */
static void cu_funcs(struct trace_dw *t, Dwarf_Die *cu)
{
	Dwarf_Die c;
	if (dwarf_child(cu, &c))
		return;
	do {
		bool decl = false;
		Dwarf_Attribute at;
		const char *name = dwarf_diename(&c);
		if (dwarf_attr(&c, DW_AT_declaration, &at))
			dwarf_formflag(&at, &decl);
		if (dwarf_tag(&c) != DW_TAG_subprogram || !name || decl)
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			struct dw_fn *f = realloc(t->fns, cap * sizeof(*f));
			if (!f)
				return;
			t->fns = f;
			t->cap = cap;
		}
		t->fns[t->n++] = (struct dw_fn){ name, c };
	} while (dwarf_siblingof(&c, &c) == 0);
}

struct trace_dw *trace_dw_open(const char *path)
{
	struct trace_dw *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	t->dw = t->fd >= 0 ? dwarf_begin(t->fd, DWARF_C_READ) : NULL;
	if (!t->dw) {
		trace_dw_close(t);
		return NULL;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(t->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(t->dw, off + hsize, &cu))
			cu_funcs(t, &cu);
		off = next;
	}
	if (t->n > 1)
		qsort(t->fns, t->n, sizeof(*t->fns), fn_cmp);
	return t;
}

void trace_dw_close(struct trace_dw *t)
{
	if (!t)
		return;
	if (t->dw)
		dwarf_end(t->dw);
	if (t->fd >= 0)
		close(t->fd);
	free(t->fns);
	free(t);
}

/* The name bpftrace gives a DWARF type: a base type or typedef by its name, a struct, union
 * or enum with its keyword, a pointer as its target's name and "*", const
 * with "const " before, volatile and restrict looked through (depth-limited: DWARF's type chains are short but a bad file loops). */
static void type_name(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die inner;
	bool has_inner = dwarf_attr(die, DW_AT_type, &at) && dwarf_formref_die(&at, &inner);
	const char *name = dwarf_diename(die);
	switch (depth > 16 ? -1 : dwarf_tag(die)) {
	case DW_TAG_pointer_type: {
		char sub[200] = "void";
		if (has_inner)
			type_name(&inner, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s*", sub);
		return;
	}
	case DW_TAG_const_type: {
		char sub[200] = "void";
		if (has_inner)
			type_name(&inner, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "const %s", sub);
		return;
	}
	case DW_TAG_volatile_type: case DW_TAG_restrict_type:
		if (has_inner)
			type_name(&inner, buf, len, depth + 1);
		else
			snprintf(buf, len, "void");
		return;
	case DW_TAG_structure_type: snprintf(buf, len, "struct %s", name ? name : ""); return;
	case DW_TAG_union_type: snprintf(buf, len, "union %s", name ? name : ""); return;
	case DW_TAG_enumeration_type: snprintf(buf, len, "enum %s", name ? name : ""); return;
	default: snprintf(buf, len, "%s", name ? name : "?"); return;
	}
}

void trace_dw_params(struct trace_dw *t, FILE *out, const char *func)
{
	struct dw_fn key = { .name = func };
	struct dw_fn *f = t ? bsearch(&key, t->fns, t->n, sizeof(*t->fns), fn_cmp) : NULL;
	Dwarf_Die c;
	if (!f || dwarf_child(&f->die, &c))
		return;
	do {
		Dwarf_Attribute at;
		Dwarf_Die type;
		const char *name = dwarf_diename(&c);
		if (dwarf_tag(&c) != DW_TAG_formal_parameter || !name)
			continue;
		char tn[256] = "void";
		if (dwarf_attr(&c, DW_AT_type, &at) && dwarf_formref_die(&at, &type))
			type_name(&type, tn, sizeof(tn), 0);
		fprintf(out, "    %s %s\n", tn, name);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* ---- -l -p PID: the process's files ---- */

static bool seen(const char **files, size_t n, const char *f)
{
	for (size_t i = 0; i < n; i++)   /* a process maps tens of files: a scan is fine */
		if (!strcmp(files[i], f))
			return true;
	return false;
}

int trace_pid_files(struct kl_arena *a, pid_t pid, bool mapped, const char ***files, size_t *n, char *msg, size_t len)
{
	char path[64], exe[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t k = readlink(path, exe, sizeof(exe) - 1);
	if (k <= 0) {
		snprintf(msg, len, "pid %d: cannot read %s: %s", (int)pid, path, strerror(errno));
		return -1;
	}
	exe[k] = 0;
	KL_VEC(const char *) out = { 0 };
	kl_vec_push(a, &out, kl_arena_printf(a, "/proc/%d/root%s", (int)pid, exe));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = mapped ? fopen(path, "r") : NULL;
	char line[4096 + 128];
	while (f && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');   /* "addr perms off dev inode   /path" */
		if (!file || strstr(line, " (deleted)"))
			continue;
		file[strcspn(file, "\n")] = 0;
		const char *full = kl_arena_printf(a, "/proc/%d/root%s", (int)pid, file);
		if (!seen(out.items, out.len, full))
			kl_vec_push(a, &out, full);
	}
	if (f)
		fclose(f);
	*files = out.items;
	*n = out.len;
	return 0;
}
