/* btf_build.c — the .BTF and .BTF.ext sections of one kiln object, laid out as clang -g does:
 * the object checked (names usable as C identifiers, none twice), its functions placed in
 * code sections, then .BTF's types (btf.c) and .BTF.ext's records (btf_ext.c) built over one
 * struct bb. This file sits above both; btf_ext.c uses btf.c's type ids, never the reverse. */
#include "btf_internal.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Code sections in file order: .text (subprograms) first, then each program section as
 * it first appears. Functions sharing a section follow one another in obj order. This is
 * where text_off and sec are decided (elf.c places the code by them); b->by_sec lists the
 * functions section by section, from b->sec_start[s]. Section names are found by a hash,
 * so a thousand programs each in its own section stay linear. */
static int layout(struct bb *b, const char ***secs_out, uint32_t *nsecs_out)
{
	const struct kl_obj *obj = b->obj;
	uint32_t n = obj->nfuncs, cap = 16;
	while (cap < 2 * (n + 1))
		cap *= 2;
	const char **secs = calloc(n + 1, sizeof(*secs));
	uint32_t *ends = calloc(n + 1, sizeof(*ends)), *slot = calloc(cap, sizeof(*slot));
	b->by_sec = calloc(n + 1, sizeof(*b->by_sec));
	b->sec_start = calloc(n + 2, sizeof(*b->sec_start));
	uint32_t nsecs = 0;
	if (!secs || !ends || !slot || !b->by_sec || !b->sec_start) {
		free(secs);
		free(ends);
		free(slot);
		return bb_fail(b, ENOMEM, "out of memory");
	}
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < n; i++) {
			struct kl_func *f = &obj->funcs[i];
			const char *name = f->section ? f->section : ".text";
			if ((pass == 0) != !f->section)
				continue;
			uint32_t h = 2166136261u;
			for (const char *p = name; *p; p++)
				h = (h ^ (unsigned char)*p) * 16777619u;
			uint32_t k = h & (cap - 1);
			while (slot[k] && strcmp(secs[slot[k] - 1], name))
				k = (k + 1) & (cap - 1);
			if (!slot[k]) {
				secs[nsecs++] = name;
				slot[k] = nsecs;
			}
			f->sec = slot[k] - 1;
			f->text_off = ends[f->sec];
			ends[f->sec] += f->ninsns * 8;
			b->sec_start[f->sec + 1]++;
		}
	}
	for (uint32_t s = 0; s < nsecs; s++)
		b->sec_start[s + 1] += b->sec_start[s];
	memcpy(ends, b->sec_start, nsecs * sizeof(*ends));
	for (uint32_t i = 0; i < n; i++)
		b->by_sec[ends[obj->funcs[i].sec]++] = i;
	free(ends);
	free(slot);
	*secs_out = secs;
	*nsecs_out = nsecs;
	return 0;
}

static bool is_identifier(const char *s)
{
	if (!s || !s[0] || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Function and map names are ELF symbols as well as BTF names, and libbpf pairs a map's
 * VAR with its symbol by name; so they are taken as the back end mangled them, and only
 * checked here. */
static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A name two of n records share (each record starts with its const char *name), in *dup, or
 * NULL: sorted, not compared pairwise, so thousands of functions or maps stay fast. */
static int twice(struct bb *b, uint32_t n, const void *records, size_t stride, const char **dup)
{
	*dup = NULL;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	if (!names)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		names[i] = *(const char *const *)(const void *)((const char *)records + i * stride);
	qsort(names, n, sizeof(*names), by_name);
	for (uint32_t i = 1; i < n && !*dup; i++)
		if (!strcmp(names[i], names[i - 1]))
			*dup = names[i];
	free(names);
	return 0;
}

/* A global variable's name, which no map, function or other global may share (they are all
 * ELF symbols): sorted together, globals tagged by a name one past the array's start. */
static int global_clash(struct bb *b, const char **dup)
{
	const struct kl_obj *obj = b->obj;
	uint32_t n = obj->nglobals + obj->nmaps + obj->nfuncs, k = 0;
	*dup = NULL;
	struct named { const char *name; bool global; } *all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nglobals; i++)
		all[k++] = (struct named){ obj->globals[i].name, true };
	for (uint32_t i = 0; i < obj->nmaps; i++)
		all[k++] = (struct named){ obj->maps[i].name, false };
	for (uint32_t i = 0; i < obj->nfuncs; i++)
		all[k++] = (struct named){ obj->funcs[i].name, false };
	qsort(all, n, sizeof(*all), by_name);
	for (uint32_t i = 1; i < n && !*dup; i++)
		if ((all[i].global || all[i - 1].global) && !strcmp(all[i].name, all[i - 1].name))
			*dup = all[i].name;
	free(all);
	return 0;
}

static int check_obj(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	for (uint32_t i = 0; i < obj->nfuncs; i++) {
		const struct kl_func *f = &obj->funcs[i];
		if (!is_identifier(f->name))
			return bb_fail(b, EINVAL, "function #%u: \"%s\" is not a C identifier", i,
				    f->name ? f->name : "");
		if (!f->ninsns || !f->insns)
			return bb_fail(b, EINVAL, "function %s has no instructions", f->name);
		if (f->section && (!f->section[0] || !strcmp(f->section, ".text")))
			return bb_fail(b, EINVAL, "program %s: section \"%s\" is reserved for "
				    "subprograms", f->name, f->section);
	}
	for (uint32_t i = 0; i < obj->nmaps; i++)
		if (!is_identifier(obj->maps[i].name) || !strcmp(obj->maps[i].name, "_license"))
			return bb_fail(b, EINVAL, "map #%u: \"%s\" is not a usable C identifier", i,
				    obj->maps[i].name ? obj->maps[i].name : "");
	/* kiln's mangling maps both `a-b` and `a_b` to a_b; two such symbols would pair
	 * one BTF entry with the other's code or map */
	const char *dup;
	int err = twice(b, obj->nfuncs, obj->funcs, sizeof(*obj->funcs), &dup);
	if (err || dup)
		return err ? err : bb_fail(b, EINVAL, "two functions are named %s", dup);
	err = twice(b, obj->nmaps, obj->maps, sizeof(*obj->maps), &dup);
	if (err || dup)
		return err ? err : bb_fail(b, EINVAL, "two maps are named %s", dup);
	for (uint32_t i = 0; i < obj->nglobals; i++) {
		const struct kl_global *g = &obj->globals[i];
		if (!is_identifier(g->name) || !strcmp(g->name, "_license"))
			return bb_fail(b, EINVAL, "global #%u: \"%s\" is not a usable C identifier", i, g->name ? g->name : "");
		if (g->sec >= KL_NDATA || (uint64_t)g->off + g->type->size > obj->data_size[g->sec])
			return bb_fail(b, EINVAL, "global %s lies outside its section", g->name);
	}
	err = obj->nglobals ? global_clash(b, &dup) : 0;
	if (err || dup)
		return err ? err : bb_fail(b, EINVAL, "a global variable and another definition are both named %s", dup);
	if (!obj->license)
		return bb_fail(b, EINVAL, "object has no license");
	return 0;
}

static int build(struct bb *b, void **btf_out, uint32_t *btf_len, void **ext,
		 uint32_t *ext_len)
{
	const char **secs = NULL;
	uint32_t nsecs = 0;
	int err = check_obj(b);
	err = err ? err : layout(b, &secs, &nsecs);
	err = err ? err : bb_split_lines(b);
	err = err ? err : bb_build_types(b);
	/* .BTF.ext's strings live in .BTF, so it is built before .BTF is taken. */
	err = err ? err : bb_build_ext(b, secs, nsecs, ext, ext_len);
	err = err ? err : bb_take_btf(b, btf_out, btf_len);
	if (err) {
		free(*ext);
		*ext = NULL;
	}
	free(secs);
	return err;
}

int kl_btf_build(const struct kl_obj *obj, void **btf, uint32_t *btf_len,
		 void **ext, uint32_t *ext_len, char *err, size_t errlen)
{
	struct bb b = { .obj = obj, .err = err, .errlen = errlen };
	*btf = *ext = NULL;
	*btf_len = *ext_len = 0;
	b.btf = btf__new_empty();
	if (!b.btf)
		return bb_fail(&b, errno ? errno : ENOMEM, "BTF: cannot create: %s",
			    strerror(errno ? errno : ENOMEM));
	int rc = build(&b, btf, btf_len, ext, ext_len);
	if (!rc && b.nomem) {
		/* a name that could not be made went in as none: not the BTF asked for */
		free(*btf);
		free(*ext);
		*btf = *ext = NULL;
		*btf_len = *ext_len = 0;
		rc = bb_fail(&b, ENOMEM, "out of memory");
	}
	btf__free(b.btf);
	free(b.memo);
	free(b.hash);
	free(b.map_struct);
	free(b.map_size);
	free(b.func_id);
	free(b.by_sec);
	free(b.sec_start);
	free(b.line_at);
	free(b.scratch);
	return rc;
}
