/* core.h — kernel types in one compilation: projections of the kernel's BTF types (a local
 * struct of the same name and size holding only the members the program touches), local
 * (:preserve-access-index) structs, and the CO-RE relocations that point at them. */
#ifndef KL_CORE_H
#define KL_CORE_H
#include "compile.h"

struct kl_core_use {
	const struct kl_type *type;
	uint32_t *access;
	uint32_t naccess;
	uint32_t kind;          /* enum bpf_core_relo_kind */
};

/* A type for CO-RE by name: a local (:preserve-access-index) defstruct, else a kernel struct,
 * union or enum (typedefs resolved) read from the kernel's BTF. NULL with an error at sp
 * naming the nearest kernel types. kinds: KL_KB_STRUCT, KL_KB_ENUM or both. */
struct kl_type *kl_core_type(struct kl_comp *c, const char *name, int kinds, struct kl_span sp);
/* The same, but NULL without an error when the kernel has no such type (an error only when
 * its BTF cannot be read). */
struct kl_type *kl_core_type_try(struct kl_comp *c, const char *name, int kinds, struct kl_span sp);
/* The index of member `name` of st (a struct or union for CO-RE); a projection gains it from
 * the kernel's type, looked up through anonymous members. -1 with an error naming the nearest
 * members. */
int kl_core_member(struct kl_comp *c, struct kl_type *st, const char *name, struct kl_span sp, uint32_t *idx);
/* The index of enumerator `name` of enum et (added to the projection). -1 with an error. */
int kl_core_enumval(struct kl_comp *c, struct kl_type *et, const char *name, struct kl_span sp, uint32_t *idx);
/* Record a relocation of `kind` on access (copied); the value for kl_ir_ins.core. */
uint32_t kl_core_reloc(struct kl_comp *c, const struct kl_type *type, const uint32_t *access,
		       uint32_t naccess, uint32_t kind);
const struct kl_core_use *kl_core_get(const struct kl_comp *c, uint32_t core);
/* The local value of a field relocation, computed on the local types as libbpf does (the
 * instruction must carry it: libbpf checks it before patching). bitoff: from the access's
 * root; f: the last member (NULL for an array element of type t). */
int64_t kl_core_field_value(uint32_t kind, uint32_t bitoff, const struct kl_field *f, const struct kl_type *t);
/* The kernel BTF this compilation uses, opened on first need. NULL with an error at sp. */
const struct kl_kbtf *kl_core_kernel(struct kl_comp *c, struct kl_span sp);
/* After lowering: each projection's members sorted by offset (the kernel refuses a struct's
 * members out of order) and every recorded access renumbered to match. O(n log n). */
void kl_core_finish(struct kl_comp *c);
/* Has this compilation read kernel BTF yet? */
bool kl_core_kernel_opened(const struct kl_comp *c);
/* The names of every named member of kernel struct st (inside anonymous ones too). */
uint32_t kl_core_member_names(struct kl_comp *c, const struct kl_type *st, const char ***out);
/* The projection of kernel type id (modifiers and typedefs skipped); NULL for void. */
struct kl_type *kl_core_project(struct kl_comp *c, uint32_t kid);

/* import-kernel-struct's accessors: (STRUCT-FIELD p) reads FIELD of kernel struct STRUCT;
 * a NULL field makes (as-STRUCT p), a cast. */
struct kl_kaccessor {
	const char *name;
	const char *st;         /* the struct's C name */
	const char *field;      /* the field's C name; NULL: the cast */
	const char *lisp;       /* the struct's name as import-kernel-struct was given it */
};
void kl_core_add_accessor(struct kl_comp *c, const char *name, const char *st, const char *field,
			  const char *lisp);
const struct kl_kaccessor *kl_core_find_accessor(const struct kl_comp *c, const char *name);

#endif
