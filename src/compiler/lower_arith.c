/* lower_arith.c — the arithmetic operators (+ - * / mod rem, the logical and shift ones:
 * a chain folded step by step with lower_ir.c's kl_lw_arith2), lognot, cast to an integer
 * type, and the byte-order swaps (ntohs, htonl, bswap64...). */
#include "lower_internal.h"
#include "nearest.h"
#include <linux/bpf.h>
#include <string.h>

static int f_arith(struct lw *l, struct kl_node *n, struct val *out)
{
	const struct arith_op *op = kl_lw_find_arith(n->items[0]->str);
	bool binary = op->alu == BPF_DIV || op->alu == BPF_MOD || op->alu == BPF_LSH ||
		      op->alu == BPF_RSH || op->alu == BPF_ARSH;
	if (kl_lw_arity(l, n, binary ? 2 : (op->alu == BPF_SUB ? 1 : 0), binary ? 2 : UINT32_MAX))
		return -1;
	if (n->nitems == 1) {
		*out = cval(op->alu == BPF_MUL ? 1 : op->alu == BPF_AND ? -1 : 0);
		return 0;
	}
	struct val acc;
	if (kl_lw_lower(l, n->items[1], &acc))
		return -1;
	if (n->nitems == 2) {
		if (op->alu == BPF_SUB) {
			if (acc.kind == V_CONST) {
				*out = cval(kl_fold(BPF_SUB, 0, acc.c));
				return 0;
			}
			struct kl_ir_ins *i = emit(l, IR_NEG);
			i->a = acc.r;
			i->d = vreg(l);
			*out = rval(i->d);
			return 0;
		}
		*out = acc;
		return 0;
	}
	for (uint32_t k = 2; k < n->nitems; k++) {
		struct val b;
		if (kl_lw_lower(l, n->items[k], &b))
			return -1;
		/* pointer plus or minus an integer is still a pointer */
		bool ptr = (op->alu == BPF_ADD && (acc.is_ptr || b.is_ptr)) || (op->alu == BPF_SUB && acc.is_ptr && !b.is_ptr);
		/* p + K keeps track of p's alignment, for memset and memcpy */
		uint8_t mis = acc.is_ptr && b.kind == V_CONST && (op->alu == BPF_ADD || op->alu == BPF_SUB)
				      ? (uint8_t)((acc.misalign + (op->alu == BPF_ADD ? b.c : -b.c)) & 7)
				      : b.is_ptr && acc.kind == V_CONST ? (uint8_t)((b.misalign + acc.c) & 7) : 0;
		acc = kl_lw_arith2(l, op, acc, b);
		acc.is_ptr = ptr;
		acc.misalign = ptr ? mis : 0;
	}
	if (acc.is_var)
		acc = rval(kl_lw_fresh_copy(l, acc));
	*out = acc;
	return 0;
}

static int f_lognot(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], out))
		return -1;
	if (out->kind == V_CONST)
		out->c = ~out->c;
	else
		*out = rval(kl_lw_alu(l, BPF_XOR, *out, cval(-1)));
	return 0;
}

static int f_cast(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	struct kl_type *t = n->items[1]->kind == KL_N_SYM ? kl_type_builtin(n->items[1]->str) : NULL;
	if (!t || t->kind != KL_T_INT)
		return kl_lw_err_form(l, n->items[1], "%s needs an integer type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "cast");
	if (kl_lw_lower(l, n->items[2], out))
		return -1;
	*out = kl_lw_truncate(l, *out, t->size, t->is_signed);
	return 0;
}

struct swap_op { const char *name; uint8_t bits; };
static const struct swap_op swap_ops[] = {
	{ "ntohs", 16 }, { "htons", 16 }, { "ntohl", 32 }, { "htonl", 32 }, { "bswap16", 16 },
	{ "bswap32", 32 }, { "bswap64", 64 }, { "ntohll", 64 }, { "htonll", 64 }, { "be64toh", 64 },
};

static int f_swap(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], out))
		return -1;
	uint8_t bits = 64;
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		if (!strcmp(swap_ops[i].name, n->items[0]->str))
			bits = swap_ops[i].bits;
	if (out->kind == V_CONST) {
		out->c = (int64_t)kl_bswap((uint64_t)out->c, bits);
		return 0;
	}
	struct kl_ir_ins *i = emit(l, IR_END);
	i->size = bits;
	i->a = out->r;
	i->d = vreg(l);
	*out = rval(i->d);
	return 0;
}

int kl_lw_arith_op(struct lw *l, struct kl_node *n, struct val *out)
{
	const char *h = n->items[0]->str;
	if (kl_lw_find_arith(h))
		return f_arith(l, n, out);
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		if (!strcmp(swap_ops[i].name, h))
			return f_swap(l, n, out);
	return 1;
}

void kl_lw_swap_names(struct kl_nearest *nb)
{
	for (size_t i = 0; i < sizeof(swap_ops) / sizeof(swap_ops[0]); i++)
		kl_nearest_add(nb, swap_ops[i].name);
}

const struct kl_lw_form kl_lw_arith_forms[] = {
	{ "lognot", f_lognot, "e" }, { "cast", f_cast, "de" },
};
const size_t kl_lw_narith_forms = sizeof(kl_lw_arith_forms) / sizeof(kl_lw_arith_forms[0]);
