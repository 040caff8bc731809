/* defs.h — what a compilation has defined, by name: constants (the program's, then the
 * built-in ones), maps, structs and their accessors, functions and programs; the types the
 * source names are typespec.h's. forms.c records definitions, expand.c and lower read them;
 * this module uses neither. */
#ifndef KL_DEFS_H
#define KL_DEFS_H
#include <stdbool.h>
#include <stdint.h>

#include "names.h"

struct kl_comp;
struct kl_arena;
struct kl_node;
struct kl_constdef;

/* Each table's entries by name (names.h): the vectors are only ever pushed to (forms.c). */
struct kl_name_index {
	struct kl_names maps, structs, accessors, funs, progs, globals;
	struct kl_names consts;   /* the last definition of each name */
};

/* The name index of c's tables (names.h), made at the first use. */
struct kl_name_index *kl_name_index(struct kl_comp *c);
/* Records a defconstant (the last definition of a name wins; while the prelude loads, the
 * program's own comes first). */
void kl_const_add(struct kl_comp *c, struct kl_constdef d);
/* Constants, the user's and the built-in ones (XDP_PASS, xdp_pass), match in any case. */
bool kl_const_lookup(struct kl_comp *c, const char *name, int64_t *out);
struct kl_mapdef *kl_map_lookup(struct kl_comp *c, const char *name);
struct kl_globaldef *kl_global_lookup(struct kl_comp *c, const char *name);
struct kl_structdef *kl_struct_lookup(struct kl_comp *c, const char *name);
const struct kl_accessor *kl_accessor_lookup(struct kl_comp *c, const char *name);
struct kl_fundef *kl_fun_lookup(struct kl_comp *c, const char *name);
const struct kl_progdef *kl_prog_lookup(struct kl_comp *c, const char *name);
/* Names for the ELF and BTF: '-' and other non-identifier characters become '_'. */
const char *kl_mangle(struct kl_arena *a, const char *name);
#endif
