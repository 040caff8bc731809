/* defs.c — what a compilation has defined, by name (defs.h): the tables' name indexes and
 * the lookups. Below the kernel's types (core.c), the types and constant expressions the
 * source spells (typespec.c), the macro expander (expand.c) and the top-level forms
 * (forms.c), which use these; it calls none of them (the lazy prelude through c->lazy). */
#define _GNU_SOURCE
#include "compile.h"
#include "defs.h"
#include "kbtf.h"
#include "names.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

const char *kl_mangle(struct kl_arena *a, const char *name)
{
	char *s = kl_arena_strdup(a, name);
	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return s;
}

struct kl_name_index *kl_name_index(struct kl_comp *c)
{
	if (!c->index)
		c->index = kl_arena_new(c->a, struct kl_name_index);
	return c->index;
}

void kl_const_add(struct kl_comp *c, struct kl_constdef d)
{
	if (c->lazy && c->lazy->loading(c) && kl_names_get(&kl_name_index(c)->consts, d.name) >= 0)
		return;   /* the program's own, defined before the prelude's was needed */
	kl_vec_push(c->a, &c->consts, d);
	kl_names_set(c->a, &kl_name_index(c)->consts, d.name, (uint32_t)(c->consts.len - 1));
}

/* Constants, the user's and the built-in ones (XDP_PASS, xdp_pass), match in any case. */
bool kl_const_lookup(struct kl_comp *c, const char *name, int64_t *out)
{
	int64_t i = c->index ? kl_names_get(&c->index->consts, name) : -1;
	if (i < 0 && c->lazy && c->lazy->need(c, name, KL_LAZY_CONST) > 0)
		i = kl_names_get(&kl_name_index(c)->consts, name);
	if (i >= 0) {
		*out = c->consts.items[i].value;
		return true;
	}
	return kl_constant_find(name, out);
}

#define LOOKUP_NAMED(c, vec, table, name) __extension__ ({                                    \
	int64_t i_ = kl_names_get(&kl_name_index(c)->table, (name));                             \
	i_ < 0 ? NULL : &(c)->vec.items[i_];                                                  \
})

struct kl_mapdef *kl_map_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, maps, maps, name);
}

struct kl_globaldef *kl_global_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, globals, globals, name);
}

struct kl_structdef *kl_struct_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, structs, structs, name);
}

const struct kl_accessor *kl_accessor_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, accessors, accessors, name);
}

struct kl_fundef *kl_fun_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, funs, funs, name);
}

const struct kl_progdef *kl_prog_lookup(struct kl_comp *c, const char *name)
{
	return LOOKUP_NAMED(c, progs, progs, name);
}
