/* btf_struct_ops.c — the BTF of .struct_ops (struct_ops.h): per defstruct-ops a STRUCT named
 * as the kernel's (tcp_congestion_ops), of the kernel's size, holding the members it sets at
 * the kernel's offsets (a function pointer a PTR to a FUNC_PROTO, which is what libbpf checks
 * before it takes a relocation there), a VAR of it, and the DATASEC .struct_ops listing them.
 * libbpf finds each kernel member again by name and copies the members' bytes into the
 * kernel's struct. */
#include "btf_internal.h"
#include "struct_ops.h"
#include <errno.h>
#include <stdlib.h>

/* PTR -> FUNC_PROTO returning void, made once: every function pointer member's type. */
static int func_ptr_id(struct bb *b, int *memo)
{
	if (*memo > 0)
		return *memo;
	int proto = bb_check(b, btf__add_func_proto(b->btf, 0), "struct_ops FUNC_PROTO");
	int ptr = proto < 0 ? proto : bb_check(b, btf__add_ptr(b->btf, proto), "struct_ops PTR");
	if (ptr > 0)
		*memo = ptr;
	return ptr;
}

static int add_one(struct bb *b, const struct kl_sops *s, int *fptr)
{
	int *ids = calloc(s->nmembers + 1, sizeof(*ids));
	if (!ids)
		return bb_fail(b, ENOMEM, "out of memory");
	int err = 0;
	for (uint32_t i = 0; i < s->nmembers && err >= 0; i++)   /* the members' types first */
		err = ids[i] = s->members[i].kind == KL_SOPS_PROG ? func_ptr_id(b, fptr)
								  : bb_type_id(b, s->members[i].type);
	int st = err < 0 ? err : bb_check(b, btf__add_struct(b->btf, s->type, s->size), "struct_ops STRUCT");
	for (uint32_t i = 0; i < s->nmembers && st > 0 && err >= 0; i++)
		err = bb_check(b, btf__add_field(b->btf, s->members[i].name, ids[i], s->members[i].off * 8, 0),
			       "struct_ops member");
	free(ids);
	if (st < 0 || err < 0)
		return st < 0 ? st : err;
	return bb_check(b, btf__add_var(b->btf, s->var, BTF_VAR_GLOBAL_ALLOCATED, st), "struct_ops VAR");
}

int bb_add_struct_ops(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	if (!obj->nsops)
		return 0;
	int *vars = calloc(obj->nsops, sizeof(*vars)), fptr = 0, err = 0;
	if (!vars)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nsops && err >= 0; i++)
		err = vars[i] = add_one(b, &obj->sops[i], &fptr);
	if (err >= 0)
		err = bb_check(b, btf__add_datasec(b->btf, ".struct_ops", obj->sops_size), "DATASEC .struct_ops");
	for (uint32_t i = 0; i < obj->nsops && err >= 0; i++)
		err = bb_check(b, btf__add_datasec_var_info(b->btf, vars[i], obj->sops[i].off, obj->sops[i].size),
			       ".struct_ops entry");
	free(vars);
	return err < 0 ? err : 0;
}
