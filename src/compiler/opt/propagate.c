/* propagate.c — a pass of the IR optimizer (opt.c runs it): constants and copies
 * propagated. A vreg defined once, by `v = K` (K a 32-bit signed value, not a CO-RE
 * relocated one), is K at every use that can take an immediate: the second operand of an
 * ALU operation, a branch (either side: `if K < x` is `if x > K`), a store's value, a copy,
 * a return. A vreg defined once by `v = u`, u itself defined once, is u wherever v is read.
 * Inlined calls leave both behind (an argument moved into a parameter), as do lets of
 * constants. `K OP x` of a commutative OP is `x OP K`; an ALU operation that keeps its
 * operand (+ 0, * 1, & -1, ...) is a copy of it, and * 0 or & 0 is 0; (y + K1) - (y + K2) is
 * K1 - K2. What is no longer read, dce removes. */
#include "compiler/opt/passes.h"
#include <linux/bpf.h>

/* x + 0, x - 0, x | 0, x ^ 0, shifts by 0, x * 1, x & -1: a copy of x; x * 0, x & 0: 0
 * (what a constant that came from elsewhere leaves: a field of a zeroed struct forwarded) */
static void identity(struct kl_ir_ins *in)
{
	if (in->op != IR_ALU || !in->has_imm || in->core || !in->a)
		return;
	uint8_t o = in->alu;
	int64_t k = in->imm;
	bool copy = (k == 0 && (o == BPF_ADD || o == BPF_SUB || o == BPF_OR || o == BPF_XOR || o == BPF_LSH ||
				o == BPF_RSH || o == BPF_ARSH)) ||
		    (k == 1 && o == BPF_MUL) || (k == -1 && o == BPF_AND);
	bool zero = k == 0 && (o == BPF_MUL || o == BPF_AND);
	if (!copy && !zero)
		return;
	in->op = copy ? IR_MOV : IR_MOVI;
	in->alu = 0;
	in->has_imm = false;
	in->imm = 0;
	if (zero)
		in->a = 0;
}

/* v as y + K: the y and K of its one definition `y + K` (y itself defined once), or v + 0 */
static kl_vreg plus_k(const struct kl_ir_func *f, const uint32_t *defs, const uint32_t *def_at, kl_vreg v,
		      uint32_t i, int64_t *k)
{
	*k = 0;
	const struct kl_ir_ins *d = defs[v] == 1 && def_at[v] < i ? &f->ins[def_at[v]] : NULL;
	if (d && d->op == IR_ALU && d->alu == BPF_ADD && d->has_imm && !d->core && d->a && defs[d->a] == 1) {
		*k = d->imm;
		return d->a;
	}
	return v;
}

void kl_pass_propagate(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	kl_opt_find_defs(a, f, &defs, &def_at);
	/* what each single-definition vreg is: a constant (is_k) or a copy of another */
	bool *is_k = kl_arena_array(a, bool, f->nvregs);
	int64_t *k = kl_arena_array(a, int64_t, f->nvregs);
	kl_vreg *copy_of = kl_arena_array(a, kl_vreg, f->nvregs);
	for (kl_vreg v = 1; v < f->nvregs; v++) {
		if (defs[v] != 1)
			continue;
		const struct kl_ir_ins *d = &f->ins[def_at[v]];
		if (d->op == IR_MOVI && !d->core && d->imm >= INT32_MIN && d->imm <= INT32_MAX) {
			is_k[v] = true;
			k[v] = d->imm;
		} else if (d->op == IR_MOV && d->a && d->a != v && defs[d->a] == 1 && def_at[d->a] < def_at[v]) {
			copy_of[v] = d->a;
		}
	}
	/* copies of copies: to the first (the chain is acyclic: each points at an earlier def) */
	for (kl_vreg v = 1; v < f->nvregs; v++)
		while (copy_of[v] && copy_of[copy_of[v]])
			copy_of[v] = copy_of[copy_of[v]];
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		/* every read of a copy reads the original (the def is before the use: one def) */
#define COPY(x) do { if ((x) && copy_of[(x)] && def_at[(x)] < i) (x) = copy_of[(x)]; } while (0)
		if (in->op != IR_LABEL && in->op != IR_ENTRY) {
			if (!(in->op == IR_MOVI || in->op == IR_ADDR || in->op == IR_LDMAP || in->op == IR_LDFUNC || in->op == IR_LDDATA))
				COPY(in->a);
			if (!in->has_imm)
				COPY(in->b);
			for (uint32_t j = 0; j < in->nargs; j++)
				COPY(in->args[j]);
		}
#undef COPY
		/* the operand that becomes the immediate: b of an ALU, branch or store; a of a copy
		 * (then a constant) or a return */
		bool k_b = in->op == IR_ALU || in->op == IR_BR || in->op == IR_STORE;
		bool k_a = in->op == IR_MOV || in->op == IR_RET;
		if (in->op == IR_BR && !in->has_imm && in->a && is_k[in->a] && in->b && !is_k[in->b] &&
		    kl_cond_swap(in->alu) && def_at[in->a] < i) {   /* K < x: x > K */
			in->alu = kl_cond_swap(in->alu);
			kl_vreg t = in->a;
			in->a = in->b;
			in->b = t;
		}
		bool comm = in->op == IR_ALU && !in->core && (in->alu == BPF_ADD || in->alu == BPF_MUL || in->alu == BPF_AND ||
							       in->alu == BPF_OR || in->alu == BPF_XOR);
		if (comm && !in->has_imm && in->a && is_k[in->a] && in->b && !is_k[in->b] && def_at[in->a] < i) {
			kl_vreg t = in->a;   /* K + x: x + K */
			in->a = in->b;
			in->b = t;
		}
		int64_t ka, kb;   /* (y + K1) - (y + K2): K1 - K2 (a field's distance from its struct) */
		if (in->op == IR_ALU && in->alu == BPF_SUB && !in->has_imm && in->a && in->b && !in->core &&
		    defs[in->a] == 1 && defs[in->b] == 1 && def_at[in->a] < i && def_at[in->b] < i &&
		    plus_k(f, defs, def_at, in->a, i, &ka) == plus_k(f, defs, def_at, in->b, i, &kb)) {
			in->op = IR_MOVI;
			in->alu = 0;
			in->imm = ka - kb;
			in->a = in->b = 0;
			continue;
		}
		kl_vreg *x = k_b ? &in->b : k_a ? &in->a : NULL;
		if (x && !in->has_imm && *x && is_k[*x] && def_at[*x] < i) {
			in->imm = k[*x];
			in->has_imm = true;
			*x = 0;
			if (in->op == IR_MOV)
				in->op = IR_MOVI;
		}
		identity(in);
	}
}
