/* ksyms.c — defksym: a kernel symbol the program takes the address of. A typed one is a VAR
 * of the kernel's BTF (only per-CPU variables are there: runqueues, bpf_prog_active), checked
 * at compile time and described in the object's BTF by a projection of the kernel's type, as
 * clang describes `extern const struct rq runqueues __ksym;`. A typeless one is any symbol of
 * /proc/kallsyms (`extern const void NAME __ksym;`), checked there when the compilation is for
 * the running kernel. */
#define _GNU_SOURCE
#include "ksyms.h"
#include "core.h"
#include "defs.h"
#include "diag.h"
#include "kbtf.h"
#include "names.h"
#include "nearest.h"
#include "reader.h"
#include "typespec.h"
#include <bpf/btf.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kl_ksyms {
	KL_VEC(struct kl_ksymdef) v;
	struct kl_names index;
};

static struct kl_ksyms *table(struct kl_comp *c)
{
	if (!c->ksyms)
		c->ksyms = kl_arena_new(c->a, struct kl_ksyms);
	return c->ksyms;
}

struct kl_ksymdef *kl_ksym_lookup(struct kl_comp *c, const char *name, uint32_t *index)
{
	if (!c->ksyms)
		return NULL;
	int64_t i = kl_names_get(&c->ksyms->index, name);
	if (i < 0)
		return NULL;
	if (index)
		*index = (uint32_t)i;
	return &c->ksyms->v.items[i];
}

void kl_ksyms_export(struct kl_comp *c, struct kl_obj *obj)
{
	uint32_t n = c->ksyms ? (uint32_t)c->ksyms->v.len : 0;
	obj->nksyms = n;
	obj->ksyms = kl_arena_array(c->a, struct kl_ksym, n + 1);
	for (uint32_t i = 0; i < n; i++)
		obj->ksyms[i] = c->ksyms->v.items[i].k;
}

/* Does TYPE, as written, name the kernel variable's type kt (a projection)? A struct or union
 * by its kernel name, an integer by its size and sign. */
static int check_type(struct kl_comp *c, const struct kl_node *tn, const char *kname, const struct kl_type *kt)
{
	const char *what = kt->kind == KL_T_STRUCT ? (kt->is_union ? "union" : "struct") : NULL;
	if (kt->kind == KL_T_STRUCT) {
		if (tn->kind == KL_N_SYM) {
			const struct kl_type *t = kl_core_type(c, kl_name(tn), KL_KB_STRUCT, tn->span);
			if (!t)
				return -1;
			if (t == kt || (t->name && kt->name && !strcmp(t->name, kt->name)))
				return 0;
		}
	} else if (kt->kind == KL_T_INT || kt->kind == KL_T_ENUM) {
		const struct kl_type *t = kl_type_parse(c, tn);
		if (!t)
			return -1;
		if ((t->kind == KL_T_INT || t->kind == KL_T_ENUM) && t->size == kt->size && t->is_signed == kt->is_signed)
			return 0;
		return kl_error(c->d, tn->span, "the kernel's '%s' is a %u-byte %s integer%s%s%s; give :type that size and sign",
				kname, kt->size, kt->is_signed ? "signed" : "unsigned", kt->cname || kt->name ? " (" : "",
				kt->cname ? kt->cname : kt->name ? kt->name : "", kt->cname || kt->name ? ")" : "");
	} else {
		return kl_error(c->d, tn->span, "the kernel's '%s' is neither a struct nor an integer; kiln types only "
				"those (take its address with (defksym %s))", kname, kname);
	}
	char written[96];
	kl_node_str(tn, written, sizeof(written));
	return kl_error(c->d, tn->span, "the kernel's '%s' is a %s %s, not %s", kname, what,
			kt->name ? kt->name : "(anonymous)", written);
}

/* A typed kernel symbol: the kernel's BTF VAR called name (its Lisp spelling too), its type
 * projected into the compilation. */
static int typed(struct kl_comp *c, struct kl_node *n, struct kl_node *tn, struct kl_ksymdef *d)
{
	const struct kl_kbtf *k = kl_core_kernel(c, n->items[1]->span);
	if (!k)
		return -1;
	const char *name = kl_name(n->items[1]);
	uint32_t id = kl_kbtf_find(k, name, KL_KB_VAR);
	if (!id) {
		struct kl_nearest nb;
		char hint[400];
		kl_nearest_init(&nb, kl_mangle(c->a, name));
		kl_kbtf_nearest(k, &nb, KL_KB_VAR);
		kl_nearest_hint(&nb, hint, sizeof(hint));
		return kl_error(c->d, n->items[1]->span, "the kernel's BTF has no variable '%s' (in %s; it types only "
				"per-CPU ones: (defksym %s) without :type takes any symbol's address from kallsyms)%s%s",
				name, kl_kbtf_path(k), name, *hint ? "; " : "", hint);
	}
	const struct btf *btf = kl_kbtf_btf(k);
	const struct btf_type *v = btf__type_by_id(btf, id);
	d->k.name = btf__name_by_offset(btf, v->name_off);
	struct kl_type *kt = kl_core_project(c, v->type);
	if (!kt)
		return kl_error(c->d, n->items[1]->span, "the kernel's '%s' has no type kiln can read", d->k.name);
	if (check_type(c, tn, d->k.name, kt))
		return -1;
	d->k.type = kt;
	return 0;
}

/* The name's third field in a /proc/kallsyms line ("ADDR T NAME [module]"), cut in place. */
static char *kallsyms_name(char *line)
{
	char *p = strchr(line, ' ');
	p = p ? strchr(p + 1, ' ') : NULL;
	if (!p)
		return NULL;
	p++;
	p[strcspn(p, " \t\n")] = '\0';
	return p;
}

/* A typeless symbol must be in /proc/kallsyms when the compilation is for the running kernel
 * (no --btf, no kernel-btf); elsewhere (or where the file cannot be read) it is not checked.
 * Found as written, else without regard to case (SCHEDULE is schedule, as Common Lisp reads
 * names): *name becomes the kernel's spelling. */
static int check_kallsyms(struct kl_comp *c, const struct kl_node *at, const char **name)
{
	if (c->btf_path || c->opts.btf_path)
		return 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	struct kl_nearest nb;
	kl_nearest_init(&nb, *name);
	size_t want = strlen(*name), cap = 0;
	char *line = NULL;
	const char *folded = NULL;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *s = kallsyms_name(line);
		if (!s)
			continue;
		size_t len = strlen(s);
		if (!strcmp(s, *name))
			found = true;
		else if (!folded && !strcasecmp(s, *name))
			folded = kl_arena_strdup(c->a, s);
		else if (len + 4 >= want && len <= want + 4)
			kl_nearest_add(&nb, s);
	}
	free(line);
	fclose(f);
	if (found || folded) {
		*name = found ? *name : folded;
		return 0;
	}
	char hint[400];
	kl_nearest_hint(&nb, hint, sizeof(hint));
	return kl_error(c->d, at->span, "the kernel has no symbol '%s' (not in /proc/kallsyms)%s%s", *name,
			*hint ? "; " : "", hint);
}

static struct kl_ksymdef *push(struct kl_comp *c, struct kl_ksymdef d, uint32_t *index)
{
	struct kl_ksyms *t = table(c);
	kl_vec_push(c->a, &t->v, d);
	*index = (uint32_t)(t->v.len - 1);
	kl_names_put(c->a, &t->index, t->v.items[*index].name, *index);
	return &t->v.items[*index];
}

struct kl_ksymdef *kl_ksym_by_btf_id(struct kl_comp *c, int64_t id, struct kl_span sp, uint32_t *index)
{
	const struct kl_kbtf *k = kl_core_kernel(c, sp);
	if (!k)
		return NULL;
	const struct btf *btf = kl_kbtf_btf(k);
	const struct btf_type *v = id > 0 && id < btf__type_cnt(btf) ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	if (!v || !btf_is_var(v)) {
		const char *tn = v ? btf__name_by_offset(btf, v->name_off) : "";
		const char *what = !v ? "is no type" : *tn ? kl_arena_printf(c->a, "('%s') is not a variable", tn)
						     : "is not a variable";
		kl_error(c->d, sp, "the kernel's BTF type %lld %s (in %s): ld-btf-id takes a VAR's id; or name the "
			 "variable with (defksym NAME :type TYPE)", (long long)id, what, kl_kbtf_path(k));
		return NULL;
	}
	const char *name = btf__name_by_offset(btf, v->name_off);
	struct kl_ksymdef *d = kl_ksym_lookup(c, name, index);
	if (d && (!d->k.type || strcmp(d->k.name, name))) {
		kl_error(c->d, sp, "ld-btf-id %lld is the kernel's '%s', which '%s' (%s:%u:%u) names otherwise", (long long)id,
			 name, d->name, d->span.src ? d->span.src->path : "?", d->span.line, d->span.col);
		return NULL;
	}
	if (d)
		return d;
	struct kl_type *kt = kl_core_project(c, v->type);
	if (!kt) {
		kl_error(c->d, sp, "the kernel's '%s' has no type kiln can read", name);
		return NULL;
	}
	return push(c, (struct kl_ksymdef){ .name = name, .span = sp, .k = { name, kt } }, index);
}

int kl_ksym_define(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return kl_error(c->d, n->span, "defksym names a kernel symbol: (defksym runqueues :type rq) or "
				"(defksym NAME) for its address alone");
	struct kl_node *tn = NULL;
	for (uint32_t i = 2; i < n->nitems; i += 2) {
		if (n->items[i]->kind != KL_N_KEY || strcmp(n->items[i]->str, "type") || i + 1 >= n->nitems || tn)
			return kl_error(c->d, n->items[i]->span, "defksym takes a name and :type TYPE: (defksym NAME "
					"[:type TYPE])");
		tn = n->items[i + 1];
	}
	const char *name = kl_name(n->items[1]);
	struct kl_ksymdef *old = kl_ksym_lookup(c, name, NULL);
	if (old)
		return kl_error(c->d, n->items[1]->span, "kernel symbol '%s' is defined twice (first at %s:%u:%u)", name,
				old->span.src ? old->span.src->path : "?", old->span.line, old->span.col);
	int64_t dummy;
	if (kl_const_lookup(c, name, &dummy) || kl_map_lookup(c, name) || kl_global_lookup(c, name))
		return kl_error(c->d, n->items[1]->span, "'%s' is a %s already; a kernel symbol needs a name of its own",
				name, kl_map_lookup(c, name) ? "map" : kl_global_lookup(c, name) ? "global variable" : "constant");
	struct kl_ksymdef d = { .name = name, .span = n->items[1]->span };
	d.k.name = kl_mangle(c->a, name);
	if (tn ? typed(c, n, tn, &d) : check_kallsyms(c, n->items[1], &d.k.name))
		return -1;
	uint32_t index;
	push(c, d, &index);
	return 0;
}
