/* lower_ksym.c — kernel symbols (defksym) in programs: the name is the symbol's address, an
 * ld_imm64 against its extern (IR_LDDATA with imm -1 - index), which libbpf makes
 * BPF_PSEUDO_BTF_ID for a typed one (a per-CPU variable's: what bpf_per_cpu_ptr and
 * bpf_this_cpu_ptr take) or the kallsyms address for a typeless one; and (per-cpu-ptr SYM CPU)
 * and (this-cpu-ptr SYM), which on a typed symbol give a pointer the verifier knows by the
 * kernel's BTF (PTR_TO_BTF_ID for a struct: -> loads its fields directly; read-only memory of
 * the variable's size for an integer: load reads it). */
#include "lower_internal.h"
#include "ksyms.h"

enum { H_PER_CPU_PTR = 153, H_THIS_CPU_PTR = 154 };

struct val kl_lw_ksym_read(struct lw *l, struct kl_ksymdef *k, uint32_t index)
{
	struct kl_ir_ins *i = emit(l, IR_LDDATA);
	i->imm = -1 - (int64_t)index;
	i->d = vreg(l);
	struct val v = rval(i->d);
	v.is_ptr = k->k.type != NULL;
	return v;
}

/* Whistler's (ld-btf-id ID), n: the typed kernel symbol of the kernel's BTF VAR ID (a
 * constant), relocated by libbpf by its name where Whistler bakes the id in. */
static int btf_id_ksym(struct lw *l, struct kl_node *n, struct kl_ksymdef **k, uint32_t *index)
{
	struct val id;
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], &id))
		return -1;
	if (id.kind != V_CONST)
		return kl_error(l->c->d, n->items[1]->span, "ld-btf-id takes a constant, a kernel BTF id");
	*k = kl_ksym_by_btf_id(l->c, id.c, n->items[1]->span, index);
	return *k ? 0 : -1;
}

static int f_ld_btf_id(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_ksymdef *k;
	uint32_t index;
	if (btf_id_ksym(l, n, &k, &index))
		return -1;
	*out = kl_lw_ksym_read(l, k, index);
	return 0;
}

/* (per-cpu-ptr SYM CPU), (this-cpu-ptr SYM): the helper's call; on a typed kernel symbol
 * named directly (or by ld-btf-id), its result typed (per-cpu-ptr's may be NULL: test it
 * before reading through it, as in C). Any other first argument is passed as it is, untyped. */
static int cpu_ptr(struct lw *l, struct kl_node *n, struct val *out, bool this_cpu)
{
	uint32_t nargs = this_cpu ? 1 : 2, index = 0;
	if (kl_lw_arity(l, n, nargs, nargs))
		return -1;
	struct kl_node *sn = n->items[1];
	struct kl_ksymdef *k = NULL;
	if (sn->kind == KL_N_SYM && !kl_lw_find_var(l, sn->str))
		k = kl_ksym_lookup(l->c, sn->str, &index);
	else if (kl_head(sn) && !strcmp(kl_head(sn), "ld-btf-id") && btf_id_ksym(l, sn, &k, &index))
		return -1;
	if (k && !k->k.type)
		return kl_error(l->c->d, sn->span, "'%s' is a typeless kernel symbol (an address from kallsyms); %s takes a "
				"typed per-CPU one: (defksym %s :type TYPE)", k->name, kl_head(n), k->name);
	struct val p, cpu;
	if (k)
		p = kl_lw_ksym_read(l, k, index);
	else if (kl_lw_lower(l, sn, &p))
		return -1;
	if (!this_cpu && kl_lw_lower(l, n->items[2], &cpu))
		return -1;
	kl_vreg args[2] = { kl_lw_reg_of(l, p), this_cpu ? 0 : kl_lw_reg_of(l, cpu) };
	*out = rval(kl_lw_call(l, this_cpu ? H_THIS_CPU_PTR : H_PER_CPU_PTR, args, nargs));
	out->is_ptr = true;   /* as the helper's row says */
	if (k && k->k.type->kind == KL_T_STRUCT && k->k.type->name) {
		out->kt = k->k.type->name;
		out->trusted = true;
	}
	return 0;
}

static int f_per_cpu_ptr(struct lw *l, struct kl_node *n, struct val *out) { return cpu_ptr(l, n, out, false); }
static int f_this_cpu_ptr(struct lw *l, struct kl_node *n, struct val *out) { return cpu_ptr(l, n, out, true); }

const struct kl_lw_form kl_lw_ksym_forms[] = {
	{ "per-cpu-ptr", f_per_cpu_ptr, "ee" },
	{ "this-cpu-ptr", f_this_cpu_ptr, "e" },
	{ "ld-btf-id", f_ld_btf_id, "e" },
};
const size_t kl_lw_nksym_forms = sizeof(kl_lw_ksym_forms) / sizeof(kl_lw_ksym_forms[0]);
