/* opt.c — IR passes, each one small: unreachable code after jumps and returns, dead code
 * and branch threading (at every level: the verifier needs them), then constant offsets
 * folded into loads and stores, byte swaps moved into compared constants, copies into
 * variables coalesced, and equal constant returns merged. */
#include "opt.h"
#include <linux/bpf.h>
#include <string.h>

static bool pure(uint8_t op)
{
	return op == IR_MOVI || op == IR_MOV || op == IR_ALU || op == IR_ALU32 || op == IR_NEG ||
	       op == IR_END || op == IR_LOAD || op == IR_ADDR || op == IR_LDMAP || op == IR_LDFUNC;
}

static void count_uses(const struct kl_ir_ins *i, uint32_t *uses, int delta)
{
	struct kl_ir_operands u;
	kl_ir_operands(i, &u);
	for (uint32_t k = 0; k < u.nuses; k++)
		uses[u.uses[k]] += (uint32_t)delta;
}

/* Remove pure instructions whose result nobody reads, until none is left. */
static void pass_dce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		count_uses(&f->ins[i], uses, 1);
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = f->nins; i-- > 0;) {
			struct kl_ir_ins *in = &f->ins[i];
			if (pure(in->op) && in->d && !uses[in->d]) {
				count_uses(in, uses, -1);
				in->op = IR_LABEL;   /* a label nobody jumps to is a no-op */
				in->label = 0;
				changed = true;
			}
		}
	}
}

/* Where each vreg is defined: how many times, and the instruction of the last one. */
static void find_defs(struct kl_arena *a, const struct kl_ir_func *f, uint32_t **defs, uint32_t **def_at)
{
	*defs = kl_arena_array(a, uint32_t, f->nvregs);
	*def_at = kl_arena_array(a, uint32_t, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].d && f->ins[i].op != IR_LABEL) {
			(*defs)[f->ins[i].d]++;
			(*def_at)[f->ins[i].d] = i;
		}
}

/* `t = ...; x = t` with t read only there becomes `x = ...`: variables updated in place
 * (incf, setf of a computed value) cost one instruction, not three. */
static void pass_coalesce(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs), *defs, *def_at;
	find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++)
		count_uses(&f->ins[i], uses, 1);
	for (uint32_t i = 1; i < f->nins; i++) {
		struct kl_ir_ins *mv = &f->ins[i], *def = &f->ins[i - 1];
		if (mv->op != IR_MOV || mv->a == mv->d || def->d != mv->a || def->op == IR_LABEL ||
		    def->op == IR_ENTRY || uses[mv->a] != 1 || defs[mv->a] != 1)
			continue;
		/* two-address ALU: the result must not overwrite its second operand first */
		if (def->op == IR_ALU && !def->has_imm && def->b == mv->d)
			continue;
		def->d = mv->d;
		mv->op = IR_LABEL;
		mv->label = 0;
	}
}

/* `p = q + K` used as the base of loads, stores and further `+ K2`: those use q with the
 * offset folded in, so `ip = data + 14; (load u8 ip 9)` is one load at data + 23 and p
 * usually dies. Only single-definition vregs: their value is the same at every use. */
static void pass_fold_offsets(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *in = &f->ins[i];
		bool mem = in->op == IR_LOAD || in->op == IR_STORE || in->op == IR_XADD;
		bool add = in->op == IR_ALU && in->alu == BPF_ADD && in->has_imm;
		kl_vreg p = in->a;
		if ((!mem && !add) || !p || defs[p] != 1 || in->core)
			continue;
		const struct kl_ir_ins *def = &f->ins[def_at[p]];
		if (def->core || def->op != IR_ALU || def->alu != BPF_ADD || !def->has_imm || !def->a || defs[def->a] != 1 ||
		    def_at[p] >= i)
			continue;
		int64_t k = (mem ? in->off : in->imm) + def->imm;
		if (mem ? (k < INT16_MIN || k > INT16_MAX) : (k < INT32_MIN || k > INT32_MAX))
			continue;
		in->a = def->a;
		if (mem)
			in->off = (int32_t)k;
		else
			in->imm = k;
	}
}

/* `x = ntohs(load16 p); if x == K` becomes `if load16 p == htons(K)`: the swap moves into
 * the constant. Equality only (byte order does not keep < and >), and only when x is read
 * by that test alone and comes straight from a load of the swap's width. */
static void pass_swap_cmp(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *defs, *def_at;
	uint32_t *uses = kl_arena_array(a, uint32_t, f->nvregs);
	find_defs(a, f, &defs, &def_at);
	for (uint32_t i = 0; i < f->nins; i++)
		count_uses(&f->ins[i], uses, 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i];
		if (br->op != IR_BR || !br->has_imm || (br->alu != BPF_JEQ && br->alu != BPF_JNE))
			continue;
		kl_vreg x = br->a;
		if (!x || defs[x] != 1 || uses[x] != 1)
			continue;
		const struct kl_ir_ins *sw = &f->ins[def_at[x]];
		if (sw->op != IR_END || (sw->size != 16 && sw->size != 32) || !sw->a || defs[sw->a] != 1)
			continue;
		const struct kl_ir_ins *ld = &f->ins[def_at[sw->a]];
		if (ld->op != IR_LOAD || ld->size * 8 != sw->size)
			continue;
		uint64_t k = (uint64_t)br->imm, mask = sw->size == 16 ? 0xffff : 0xffffffff;
		if (k > mask || kl_bswap(k, sw->size) > INT32_MAX)
			continue;
		br->a = sw->a;
		br->imm = (int64_t)kl_bswap(k, sw->size);
	}
}

/* Drop instructions no path from the entry reaches (the verifier rejects them): what
 * follows a return, the arm of an `if` whose condition folded to a constant, ... */
static void pass_unreachable(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *at = kl_arena_array(a, uint32_t, f->nlabels + 2);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_LABEL && f->ins[i].label)
			at[f->ins[i].label] = i;
	bool *live = kl_arena_array(a, bool, f->nins + 1);
	uint32_t *stack = kl_arena_array(a, uint32_t, f->nins + 1);
	uint32_t sp = 0;
	if (f->nins)
		stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		while (i < f->nins && !live[i]) {
			live[i] = true;
			const struct kl_ir_ins *in = &f->ins[i];
			if (in->op == IR_JMP || in->op == IR_BR) {
				uint32_t t = at[in->label];
				if (!live[t])
					stack[sp++] = t;
			}
			if (in->op == IR_JMP || in->op == IR_RET)
				break;
			i++;
		}
	}
	for (uint32_t i = 0; i < f->nins; i++)
		if (!live[i]) {
			f->ins[i].op = IR_LABEL;
			f->ins[i].label = 0;
		}
}

/* Branch threading: `if a < 5 goto L ... L: if a < 9 goto M` — when the first branch is
 * taken the second one's outcome is known, so the first can go straight to M (or past the
 * second branch). Besides saving a jump, this matters to the verifier, which does not carry
 * "a != 6" from one test to the next: (when (and (= p 6) short) (return)) (when (= p 6) read)
 * is only accepted once the second test on the path where p != 6 is gone. */
static unsigned rel_mask(uint8_t cond, int *family)
{
	/* which of a<b, a==b, a>b make the branch jump; family 1 unsigned, 2 signed, 0 either */
	static const struct { uint8_t cond; unsigned mask; int family; } rel[] = {
		{ BPF_JEQ, 2, 0 }, { BPF_JNE, 5, 0 }, { BPF_JLT, 1, 1 }, { BPF_JLE, 3, 1 }, { BPF_JGT, 4, 1 },
		{ BPF_JGE, 6, 1 }, { BPF_JSLT, 1, 2 }, { BPF_JSLE, 3, 2 }, { BPF_JSGT, 4, 2 }, { BPF_JSGE, 6, 2 },
	};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if (rel[i].cond == cond) {
			*family = rel[i].family;
			return rel[i].mask;
		}
	return 0;
}

static void insert_label(struct kl_arena *a, struct kl_ir_func *f, uint32_t at, uint32_t label)
{
	if (f->nins == f->cap) {
		uint32_t nc = f->cap * 2 + 8;
		f->ins = kl_arena_grow(a, f->ins, f->cap * sizeof(*f->ins), nc * sizeof(*f->ins));
		f->cap = nc;
	}
	memmove(&f->ins[at + 1], &f->ins[at], (f->nins - at) * sizeof(*f->ins));
	memset(&f->ins[at], 0, sizeof(*f->ins));
	f->ins[at].op = IR_LABEL;
	f->ins[at].label = label;
	f->ins[at].span = f->ins[at > 0 ? at - 1 : at + 1].span;
	f->nins++;
}

static void pass_thread(struct kl_arena *a, struct kl_ir_func *f)
{
	/* a round ends early only when a label was inserted (positions moved); a bound on the
	 * rounds keeps a cycle of branches to each other from spinning */
	for (uint32_t round = 0; round <= f->nins; round++) {
		bool changed = false;
		uint32_t *at = kl_arena_array(a, uint32_t, f->nlabels + 2);
		for (uint32_t i = 0; i < f->nins; i++)
			if (f->ins[i].op == IR_LABEL && f->ins[i].label)
				at[f->ins[i].label] = i;
		for (uint32_t i = 0; i < f->nins; i++) {
			struct kl_ir_ins *b1 = &f->ins[i];
			if (b1->op != IR_BR)
				continue;
			uint32_t t = at[b1->label];
			while (t < f->nins && f->ins[t].op == IR_LABEL)
				t++;
			if (t >= f->nins || t == i || f->ins[t].op != IR_BR)
				continue;
			const struct kl_ir_ins *b2 = &f->ins[t];
			if (b2->a != b1->a || b2->has_imm != b1->has_imm ||
			    (b1->has_imm ? b2->imm != b1->imm : b2->b != b1->b))
				continue;
			int f1 = 0, f2 = 0;
			unsigned m1 = rel_mask(b1->alu, &f1), m2 = rel_mask(b2->alu, &f2);
			if (!m1 || !m2 || (f1 && f2 && f1 != f2))
				continue;
			if (!(m1 & ~m2) && b1->label != b2->label) {      /* taken implies taken */
				b1->label = b2->label;
				changed = true;
			} else if (!(m1 & m2)) {                          /* taken implies not taken */
				uint32_t l = ++f->nlabels;
				b1->label = l;
				insert_label(a, f, t + 1, l);
				changed = true;
				break;
			}
		}
		if (!changed)
			return;
	}
}

/* `return K` in several places: all but the last become jumps to it (a jump is one
 * instruction, `r0 = K; exit` two). */
static void pass_merge_returns(struct kl_arena *a, struct kl_ir_func *f)
{
	for (uint32_t i = f->nins; i-- > 0;) {
		struct kl_ir_ins *last = &f->ins[i];
		if (last->op != IR_RET || !last->has_imm)
			continue;
		int64_t k = last->imm;
		uint32_t label = 0;
		for (uint32_t j = 0; j < i; j++) {
			struct kl_ir_ins *r = &f->ins[j];
			if (r->op != IR_RET || !r->has_imm || r->imm != k)
				continue;
			if (!label) {
				label = ++f->nlabels;
				insert_label(a, f, i, label);   /* shifts the last return to i + 1 */
				r = &f->ins[j];
				i++;
			}
			r->op = IR_JMP;
			r->has_imm = false;
			r->label = label;
		}
	}
}

/* `if C goto L1; goto L2; L1:` is `if !C goto L2`. */
static void pass_branch_over_jump(struct kl_ir_func *f)
{
	for (uint32_t i = 0; i + 2 < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i], *j = &f->ins[i + 1];
		if (br->op != IR_BR || j->op != IR_JMP)
			continue;
		bool lands = false;
		for (uint32_t k = i + 2; k < f->nins && f->ins[k].op == IR_LABEL && !lands; k++)
			lands = f->ins[k].label == br->label;
		uint8_t c = kl_cond_invert(br->alu);
		if (!lands || !c)
			continue;
		br->alu = c;
		br->label = j->label;
		j->op = IR_LABEL;
		j->label = 0;
	}
}

/* Compact away the no-op labels left by the passes. */
static void compact(struct kl_ir_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (!(f->ins[i].op == IR_LABEL && f->ins[i].label == 0))
			f->ins[n++] = f->ins[i];
	f->nins = n;
}

void kl_opt(struct kl_arena *a, struct kl_ir_func *f, int level)
{
	/* not optimisations: the kernel refuses unreachable instructions, and the verifier needs
	 * threading to follow a test repeated on one value (threading looks past no instruction,
	 * so the dead ones go first) — these run at -O0 too */
	pass_unreachable(a, f);
	compact(f);
	pass_dce(a, f);
	compact(f);
	pass_thread(a, f);
	pass_unreachable(a, f);
	compact(f);
	if (level <= 0)
		return;
	pass_fold_offsets(a, f);
	pass_swap_cmp(a, f);
	pass_dce(a, f);
	compact(f);
	pass_coalesce(a, f);
	compact(f);
	pass_merge_returns(a, f);
	pass_branch_over_jump(f);
	compact(f);
}
