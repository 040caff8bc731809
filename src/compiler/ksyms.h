/* ksyms.h — kernel symbols (defksym): externs of the object's .ksyms section that libbpf
 * resolves at load, typed through the kernel's BTF (a VAR: the per-CPU runqueues) or typeless
 * through /proc/kallsyms (an address). forms.c collects them, lowering reads them by name,
 * compile.c hands them to the object. */
#ifndef KL_KSYMS_H
#define KL_KSYMS_H
#include "compile.h"

struct kl_ksymdef {
	const char *name;         /* as written */
	struct kl_span span;      /* of the name */
	struct kl_ksym k;         /* what goes into the object */
};

/* (defksym NAME :type TYPE) or (defksym NAME): 0, or -1 with the error in c->d. */
int kl_ksym_define(struct kl_comp *c, struct kl_node *n);
/* The kernel symbol defined as name (any case), or NULL; *index its number (for IR_LDDATA). */
struct kl_ksymdef *kl_ksym_lookup(struct kl_comp *c, const char *name, uint32_t *index);
/* Whistler's (ld-btf-id ID): the kernel's BTF type ID, which must be a VAR, as that variable's
 * typed kernel symbol (made on first use, as if by defksym; *index its number). NULL with an
 * error at sp. */
struct kl_ksymdef *kl_ksym_by_btf_id(struct kl_comp *c, int64_t id, struct kl_span sp, uint32_t *index);
/* Every defksym, in order, into obj->ksyms (arena). */
void kl_ksyms_export(struct kl_comp *c, struct kl_obj *obj);

#endif
