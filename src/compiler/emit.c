/* emit.c — allocated IR to BPF instructions: two-address forms, spilled operands through
 * the scratch registers, parallel moves for call arguments, jump offsets, relocations and
 * one line-info record per source position. */
#include "asm.h"
#include "asm_block.h"
#include "compile.h"
#include "emit.h"
#include "core.h"
#include <string.h>

/* scratch registers for spilled operands of the instruction being emitted */
#define S1 (e->al->scratch[e->idx][0])
#define S2 (e->al->scratch[e->idx][1])

struct em {
	struct kl_comp *c;
	const struct kl_ir_func *f;
	const struct kl_alloc *al;
	KL_VEC(struct bpf_insn) out;
	KL_VEC(struct kl_reloc) relocs;
	KL_VEC(struct kl_line) lines;
	KL_VEC(struct kl_core_reloc) core;
	KL_VEC(uint32_t) fix_insn;     /* jumps to patch */
	KL_VEC(uint32_t) fix_label;
	uint32_t *label_pos;
	uint32_t cur_line, cur_col;
	struct kl_span span;
	uint32_t idx;                  /* IR instruction being emitted */
	uint32_t landing;              /* out.len + 1 where a label stood last (a jump may land there) */
	uint16_t taken;                /* registers src() gave this instruction's operands as held */
};

static void put(struct em *e, struct bpf_insn i)
{
	/* a record where the source position changes, columns too: a verifier rejection then
	 * points at the form, not only at the line (see src/lib/verifier.c) */
	if (e->span.line && (e->span.line != e->cur_line || e->span.col != e->cur_col)) {
		struct kl_line l = { (uint32_t)e->out.len, e->span.line, e->span.col };
		kl_vec_push(e->c->a, &e->lines, l);
		e->cur_line = e->span.line;
		e->cur_col = e->span.col;
	}
	kl_vec_push(e->c->a, &e->out, i);
}

static int reg(struct em *e, kl_vreg v) { return e->al->reg[v]; }
static int16_t spill_off(struct em *e, kl_vreg v) { return (int16_t)e->f->slots[e->al->spill[v]].fp_off; }

static struct bpf_insn *patchable(struct em *e);

/* The register that still holds what the last store put in the 8 bytes at FP + off, or -1:
 * looking back over the straight line emitted since the last label (at most HELD_LOOK
 * instructions), for the store, with no write to that register, no call (r0-r5) and no
 * other store to those bytes after it. Spill slots are only ever written through FP. */
enum { HELD_LOOK = 16 };
static int held(struct em *e, int16_t off)
{
	size_t n = e->out.len, stop = e->landing ? e->landing - 1 : 0;
	uint16_t written = 0;
	for (size_t k = n; k > stop && n - k < HELD_LOOK;) {
		const struct bpf_insn *x = &e->out.items[--k];
		uint8_t cls = BPF_CLASS(x->code);
		if (cls == BPF_STX && x->code == (BPF_STX | BPF_MEM | BPF_DW) && x->dst_reg == KL_FP && x->off == off)
			return written >> x->src_reg & 1 ? -1 : x->src_reg;
		if ((cls == BPF_ST || cls == BPF_STX) && x->dst_reg == KL_FP && x->off > off - 8 && x->off < off + 8)
			return -1;
		if (cls == BPF_JMP || cls == BPF_JMP32) {
			if (BPF_OP(x->code) == BPF_CALL)
				written |= 0x3f;
			else if (BPF_OP(x->code) == BPF_EXIT || BPF_OP(x->code) == BPF_JA)
				return -1;
		} else if (cls == BPF_STX && BPF_MODE(x->code) == BPF_ATOMIC) {
			written |= (uint16_t)(1u << x->src_reg | 1u);   /* a fetch writes src, cmpxchg r0 */
		} else if (cls == BPF_LD && BPF_MODE(x->code) != BPF_IMM) {
			written |= 0x3f;   /* (kiln emits no packet loads of this old kind: they would call) */
		} else if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD) {
			written |= (uint16_t)(1u << x->dst_reg);
		}
	}
	return -1;
}

/* r = v's spill slot: nothing when r still holds what was stored there, a copy when another
 * register does (a spill made a few instructions before), else a load. */
static void fill(struct em *e, uint8_t r, kl_vreg v)
{
	int16_t off = spill_off(e, v);
	int h = held(e, off);
	if (h == r)
		return;
	put(e, h >= 0 ? kl_mov(r, (uint8_t)h) : kl_ldx(8, r, KL_FP, off));
}

/* A register holding v: its own, one still holding its spill slot's value, or `scratch`
 * loaded from the slot. */
static uint8_t src(struct em *e, kl_vreg v, uint8_t scratch)
{
	int r = reg(e, v);
	if (r >= 0)
		return (uint8_t)r;
	int h = held(e, spill_off(e, v));
	if (h >= 0) {
		e->taken |= (uint16_t)(1u << h);
		return (uint8_t)h;
	}
	/* an operand read before took the other scratch, held: then its own is free */
	if (e->taken >> scratch & 1)
		scratch = scratch == S1 ? S2 : S1;
	fill(e, scratch, v);
	return scratch;
}

/* Where to compute v: its register or the first scratch. */
static uint8_t dst(struct em *e, kl_vreg v) { return reg(e, v) >= 0 ? (uint8_t)reg(e, v) : S1; }

static void finish(struct em *e, kl_vreg v, uint8_t r)
{
	if (reg(e, v) == KL_REG_SPILLED)
		put(e, kl_stx(8, KL_FP, r, spill_off(e, v)));
}

/* Put v's value into register r (r is about to be overwritten). */
static void fetch_into(struct em *e, uint8_t r, kl_vreg v)
{
	int rv = reg(e, v);
	if (rv == KL_REG_SPILLED)
		fill(e, r, v);
	else if (rv != r)
		put(e, kl_mov(r, (uint8_t)rv));
}

static void load_imm(struct em *e, uint8_t r, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX) {
		put(e, kl_alu64_imm(BPF_MOV, r, (int32_t)v));
	} else if (v >= 0 && v <= UINT32_MAX) {
		put(e, kl_alu32_imm(BPF_MOV, r, (int32_t)(uint32_t)v));  /* zero-extends */
	} else {
		put(e, kl_ld64_lo(r, (uint64_t)v));
		put(e, kl_ld64_hi((uint64_t)v));
	}
}

/* Moves src[k] -> dst[k] as if all at once; a cycle goes through a free register of temps. */
static void parallel_move_via(struct em *e, int8_t *srcs, int8_t *dsts, uint32_t n, uint16_t temps)
{
	bool done[10] = { 0 };
	for (uint32_t left = n; left;) {
		bool progress = false;
		for (uint32_t k = 0; k < n; k++) {
			if (done[k])
				continue;
			if (srcs[k] == dsts[k]) {
				done[k] = true;
				left--;
				progress = true;
				continue;
			}
			bool blocked = false;
			for (uint32_t j = 0; j < n; j++)
				if (!done[j] && j != k && srcs[j] == dsts[k])
					blocked = true;
			if (blocked)
				continue;
			put(e, kl_mov((uint8_t)dsts[k], (uint8_t)srcs[k]));
			done[k] = true;
			left--;
			progress = true;
		}
		if (progress)
			continue;
		/* every pending move waits on another: break the cycle through a temporary */
		uint32_t k = 0;
		while (done[k])
			k++;
		int t = 0;
		for (; t < 10; t++) {
			bool busy = !(temps >> t & 1);
			for (uint32_t j = 0; j < n; j++)
				if (!done[j] && srcs[j] == t)
					busy = true;
			if (!busy)
				break;
		}
		int8_t old = srcs[k];
		put(e, kl_mov((uint8_t)t, (uint8_t)old));
		for (uint32_t j = 0; j < n; j++)
			if (!done[j] && srcs[j] == old)
				srcs[j] = (int8_t)t;
	}
}

/* A cycle through r0-r5, which a call changes anyway. */
static void parallel_move(struct em *e, int8_t *srcs, int8_t *dsts, uint32_t n)
{
	parallel_move_via(e, srcs, dsts, n, 0x3f);
}

/* Arguments into r1..rn: register moves first, then loads of spilled ones. */
static void place_args(struct em *e, const kl_vreg *args, uint32_t nargs)
{
	int8_t s[5], d[5];
	uint32_t n = 0;
	for (uint32_t k = 0; k < nargs; k++)
		if (reg(e, args[k]) >= 0) {
			s[n] = (int8_t)reg(e, args[k]);
			d[n++] = (int8_t)(k + 1);
		}
	parallel_move(e, s, d, n);
	for (uint32_t k = 0; k < nargs; k++)
		if (reg(e, args[k]) < 0)
			put(e, kl_ldx(8, (uint8_t)(k + 1), KL_FP, spill_off(e, args[k])));
}

/* Base register and offset of a memory operand: a stack slot or a pointer register. */
static uint8_t mem_base(struct em *e, const struct kl_ir_ins *i, int16_t *off, uint8_t scratch)
{
	if (!i->a) {
		*off = (int16_t)(e->f->slots[i->slot].fp_off + i->off);
		return KL_FP;
	}
	*off = (int16_t)i->off;
	return src(e, i->a, scratch);
}

static void jump_to(struct em *e, struct bpf_insn j, uint32_t label)
{
	kl_vec_push(e->c->a, &e->fix_insn, (uint32_t)e->out.len);
	kl_vec_push(e->c->a, &e->fix_label, label);
	put(e, j);
}

/* Is `label` reached by falling through from instruction i (only labels in between)? */
static bool falls_to(const struct kl_ir_func *f, uint32_t i, uint32_t label)
{
	for (uint32_t j = i + 1; j < f->nins && f->ins[j].op == IR_LABEL; j++)
		if (f->ins[j].label == label)
			return true;
	return false;
}

/* The next instruction put carries IR instruction i's CO-RE relocation. */
static void core_here(struct em *e, const struct kl_ir_ins *i)
{
	if (!i->core)
		return;
	const struct kl_core_use *u = kl_core_get(e->c, i->core);
	struct kl_core_reloc r = { (uint32_t)e->out.len, u->type, u->access, u->naccess, u->kind };
	kl_vec_push(e->c->a, &e->core, r);
}

/* The last instruction emitted, when a peephole may change it: not where a jump may land
 * after it (on what would replace the next one), nor one a CO-RE relocation names. */
static struct bpf_insn *patchable(struct em *e)
{
	size_t n = e->out.len;
	if (!n || e->landing == n + 1 || (e->core.len && e->core.items[e->core.len - 1].insn == n - 1))
		return NULL;
	return &e->out.items[n - 1];
}

/* A peephole on the emitted code: `rd = rd OP x; wd = wd` (an operation, then its result's
 * low 32 bits: a u32 cast) is `wd = wd OP x`, the 32-bit ALU doing both, for the operations
 * whose low 32 bits depend only on their operands' (add, sub, mul, and, or, xor, a left
 * shift by less than 32). */
static bool narrowed(struct em *e, uint8_t rd, kl_vreg a)
{
	struct bpf_insn *last = patchable(e);
	if (!last || reg(e, a) != rd)
		return false;
	uint8_t op = BPF_OP(last->code);
	if (BPF_CLASS(last->code) != BPF_ALU64 || last->dst_reg != rd ||
	    !(op == BPF_ADD || op == BPF_SUB || op == BPF_MUL || op == BPF_AND || op == BPF_OR || op == BPF_XOR ||
	      (op == BPF_LSH && BPF_SRC(last->code) == BPF_K && last->imm >= 0 && last->imm < 32)))
		return false;
	last->code = (uint8_t)(BPF_ALU | op | BPF_SRC(last->code));
	return true;
}

/* A peephole on the emitted code: `rX = ...; r0 = rX; exit`. Nothing reads rX after the
 * exit, so an instruction that only writes rX (a move, a load) writes r0 instead; and after
 * `rX = r0` the value is in r0 already (merge-returns' `v = K; ... return v`). */
static bool returned_in_place(struct em *e, kl_vreg v)
{
	struct bpf_insn *last = patchable(e);
	int rx = reg(e, v);
	if (!last || rx <= 0 || last->dst_reg != rx)
		return false;
	size_t n = e->out.len;
	uint8_t cls = BPF_CLASS(last->code);
	bool mov = (cls == BPF_ALU64 || cls == BPF_ALU) && BPF_OP(last->code) == BPF_MOV && last->off == 0;
	if (mov && BPF_SRC(last->code) == BPF_X && last->src_reg == 0)
		return cls == BPF_ALU64;   /* rX = r0: r0 holds it (a 32-bit move would have cut it) */
	if (!(mov || (cls == BPF_LDX && BPF_MODE(last->code) == BPF_MEM)) ||
	    (n >= 2 && e->out.items[n - 2].code == (BPF_LD | BPF_DW | BPF_IMM)))
		return false;
	last->dst_reg = 0;
	return true;
}

/* One function per IR operation, found through the table below; `i` is f->ins[idx]. A
 * defining operation whose result the allocator found dead (KL_REG_DEAD) emits nothing. */
typedef void emit_fn(struct em *e, uint32_t idx, const struct kl_ir_ins *i);

static void em_movi(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	core_here(e, i);
	if (i->core && i->size == 8) {       /* a relocated 64-bit value: ld_imm64 */
		put(e, kl_ld64_lo(rd, (uint64_t)i->imm));
		put(e, kl_ld64_hi((uint64_t)i->imm));
	} else if (i->core) {
		put(e, kl_alu64_imm(BPF_MOV, rd, (int32_t)i->imm));
	} else {
		load_imm(e, rd, i->imm);
	}
	finish(e, i->d, rd);
}

static void em_mov(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	if (reg(e, i->d) == KL_REG_SPILLED && reg(e, i->a) >= 0) {
		put(e, kl_stx(8, KL_FP, (uint8_t)reg(e, i->a), spill_off(e, i->d)));
		return;
	}
	uint8_t rd = dst(e, i->d);
	fetch_into(e, rd, i->a);
	finish(e, i->d, rd);
}

static void em_alu(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	fetch_into(e, rd, i->a);
	core_here(e, i);
	if (i->has_imm)
		put(e, kl_alu64_imm(i->alu, rd, (int32_t)i->imm));
	else
		put(e, kl_alu64_reg(i->alu, rd, src(e, i->b, S2)));
	finish(e, i->d, rd);
}

static void em_alu32(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	if (!narrowed(e, rd, i->a))
		put(e, kl_alu32_reg(BPF_MOV, rd, src(e, i->a, S2)));
	finish(e, i->d, rd);
}

static void em_unary(struct em *e, uint32_t idx, const struct kl_ir_ins *i)   /* NEG, END */
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	fetch_into(e, rd, i->a);
	put(e, i->op == IR_NEG ? kl_neg(rd) : kl_to_be(rd, i->size));
	finish(e, i->d, rd);
}

static void em_load(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	int16_t off;
	uint8_t ra = mem_base(e, i, &off, S2);
	uint8_t rd = dst(e, i->d);
	core_here(e, i);
	put(e, kl_ldx(i->size, rd, ra, off));
	finish(e, i->d, rd);
}

static void em_store(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	int16_t off;
	uint8_t ra = mem_base(e, i, &off, S2);
	core_here(e, i);   /* a store through a BTF pointer: its offset relocated */
	if (i->has_imm)
		put(e, kl_st(i->size, ra, off, (int32_t)i->imm));
	else
		put(e, kl_stx(i->size, ra, src(e, i->b, S1), off));
}

static void em_xadd(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	int16_t off;
	uint8_t ra = mem_base(e, i, &off, S2);
	put(e, kl_xadd(i->size, ra, src(e, i->b, S1), off));
}

static void em_addr(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	put(e, kl_mov(rd, KL_FP));
	put(e, kl_alu64_imm(BPF_ADD, rd, e->f->slots[i->slot].fp_off + i->off));
	finish(e, i->d, rd);
}

/* LDMAP, LDFUNC, LDDATA: an ld_imm64 the loader fills in, through a relocation */
static void em_ld64(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t rd = dst(e, i->d);
	bool fn = i->op == IR_LDFUNC;
	struct kl_reloc r = { (uint32_t)e->out.len,
			      fn ? KL_RELOC_FUNC : i->op == IR_LDDATA ? KL_RELOC_DATA : KL_RELOC_MAP, (uint32_t)i->imm };
	if (i->op == IR_LDDATA && i->imm < 0)
		r.kind = KL_RELOC_KSYM, r.target = (uint32_t)(-i->imm - 1);
	kl_vec_push(e->c->a, &e->relocs, r);
	struct bpf_insn lo = kl_ld64_lo(rd, 0);
	if (fn)
		lo.src_reg = BPF_PSEUDO_FUNC;
	put(e, lo);
	put(e, kl_ld64_hi(0));
	finish(e, i->d, rd);
}

static void em_call(struct em *e, uint32_t idx, const struct kl_ir_ins *i)   /* CALL, CALLF */
{
	bool dead = i->d && reg(e, i->d) == KL_REG_DEAD;
	for (uint32_t k = e->al->save_at[idx]; k < e->al->save_at[idx + 1]; k++)   /* live across it in r0-r5 */
		if (e->al->save_store[k])
			put(e, kl_stx(8, KL_FP, (uint8_t)reg(e, e->al->save_vreg[k]), spill_off(e, e->al->save_vreg[k])));
	place_args(e, i->args, i->nargs);
	if (i->op == IR_CALLF) {
		struct kl_reloc r = { (uint32_t)e->out.len, KL_RELOC_CALL, (uint32_t)i->imm };
		kl_vec_push(e->c->a, &e->relocs, r);
		put(e, kl_call_local());
	} else {
		put(e, kl_call_helper((int32_t)i->imm));
	}
	if (!dead && i->d) {
		if (reg(e, i->d) == KL_REG_SPILLED)
			put(e, kl_stx(8, KL_FP, 0, spill_off(e, i->d)));
		else if (reg(e, i->d) != 0)
			put(e, kl_mov((uint8_t)reg(e, i->d), 0));
	}
	for (uint32_t k = e->al->save_at[idx]; k < e->al->save_at[idx + 1]; k++)
		put(e, kl_ldx(8, (uint8_t)reg(e, e->al->save_vreg[k]), KL_FP, spill_off(e, e->al->save_vreg[k])));
}

/* An asm block: its inputs into their registers (moves, a cycle through a register it changes
 * that is no input, then the spilled ones loaded), its instructions exactly as written, each
 * at its own source position, and its output taken from its register. Nothing after it looks
 * back into it (a landing): its jumps may skip any of its instructions. */
static void em_asm(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	const struct kl_asm_block *b = i->asmb;
	int8_t s[5], d[5];
	uint32_t n = 0;
	uint16_t inputs = 0;
	for (uint32_t k = 0; k < i->nargs; k++) {
		inputs |= (uint16_t)(1u << b->in_reg[k]);
		if (reg(e, i->args[k]) >= 0) {
			s[n] = (int8_t)reg(e, i->args[k]);
			d[n++] = (int8_t)b->in_reg[k];
		}
	}
	parallel_move_via(e, s, d, n, (uint16_t)(b->clobbers & ~inputs));
	for (uint32_t k = 0; k < i->nargs; k++)
		if (reg(e, i->args[k]) < 0)
			put(e, kl_ldx(8, b->in_reg[k], KL_FP, spill_off(e, i->args[k])));
	struct kl_span at = e->span;
	e->landing = (uint32_t)e->out.len + 1;
	for (uint32_t k = 0; k < b->ninsns; k++) {
		e->span = b->spans[k];
		put(e, b->insns[k]);
	}
	e->span = at;
	e->landing = (uint32_t)e->out.len + 1;
	if (i->d && reg(e, i->d) == KL_REG_SPILLED)
		put(e, kl_stx(8, KL_FP, (uint8_t)b->out_reg, spill_off(e, i->d)));
	else if (i->d && reg(e, i->d) >= 0 && reg(e, i->d) != b->out_reg)
		put(e, kl_mov((uint8_t)reg(e, i->d), (uint8_t)b->out_reg));
}

static void em_jmp(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	if (!falls_to(e->f, idx, i->label))
		jump_to(e, kl_ja(), i->label);
}

static void em_br(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	uint8_t ra = src(e, i->a, S1);
	struct bpf_insn j = i->has_imm ? kl_jmp_imm(i->alu, ra, (int32_t)i->imm)
				       : kl_jmp_reg(i->alu, ra, src(e, i->b, S2));
	if (i->size == 4)   /* opt/jmp32.c's: the low 32 bits compared */
		j.code = (uint8_t)((j.code & ~0x07) | BPF_JMP32);
	jump_to(e, j, i->label);
}

static void em_label(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	e->label_pos[i->label] = (uint32_t)e->out.len;
	e->landing = (uint32_t)e->out.len + 1;
}

static void em_ret(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)idx;
	if (i->has_imm || !i->a)
		load_imm(e, 0, i->has_imm ? i->imm : 0);
	else if (!returned_in_place(e, i->a))
		fetch_into(e, 0, i->a);
	put(e, kl_exit());
}

/* All entries together: incoming r1..r5 to their homes as one parallel move. */
static void em_entry(struct em *e, uint32_t idx, const struct kl_ir_ins *i)
{
	(void)i;
	const struct kl_ir_func *f = e->f;
	if (idx && f->ins[idx - 1].op == IR_ENTRY)
		return;
	int8_t s[5], d[5];
	uint32_t n = 0;
	for (uint32_t j = idx; j < f->nins && f->ins[j].op == IR_ENTRY; j++) {
		const struct kl_ir_ins *en = &f->ins[j];
		if (reg(e, en->d) == KL_REG_SPILLED)
			put(e, kl_stx(8, KL_FP, (uint8_t)(en->imm + 1), spill_off(e, en->d)));
	}
	for (uint32_t j = idx; j < f->nins && f->ins[j].op == IR_ENTRY; j++) {
		const struct kl_ir_ins *en = &f->ins[j];
		if (reg(e, en->d) >= 0) {
			s[n] = (int8_t)(en->imm + 1);
			d[n++] = (int8_t)reg(e, en->d);
		}
	}
	parallel_move(e, s, d, n);
}

/* Per operation: its emitter, and whether a dead result drops it (calls and stores keep
 * their effects; a call with a dead result is still made). */
static const struct { emit_fn *fn; bool drop_dead; } emitters[] = {
	[IR_MOVI] = { em_movi, true },     [IR_MOV] = { em_mov, true },
	[IR_ALU] = { em_alu, true },       [IR_ALU32] = { em_alu32, true },
	[IR_NEG] = { em_unary, true },     [IR_END] = { em_unary, true },
	[IR_LOAD] = { em_load, true },     [IR_STORE] = { em_store, false },
	[IR_XADD] = { em_xadd, false },    [IR_ADDR] = { em_addr, true },
	[IR_LDMAP] = { em_ld64, true },    [IR_LDFUNC] = { em_ld64, true },
	[IR_LDDATA] = { em_ld64, true },
	[IR_CALL] = { em_call, false },    [IR_CALLF] = { em_call, false },
	[IR_JMP] = { em_jmp, false },      [IR_BR] = { em_br, false },
	[IR_LABEL] = { em_label, false },  [IR_RET] = { em_ret, false },
	[IR_ENTRY] = { em_entry, false },  [IR_ASM] = { em_asm, false },
};

static void emit_ins(struct em *e, uint32_t idx)
{
	const struct kl_ir_ins *i = &e->f->ins[idx];
	e->taken = 0;
	if (i->op >= sizeof(emitters) / sizeof(emitters[0]) || !emitters[i->op].fn)
		return;
	if (emitters[i->op].drop_dead && i->d && reg(e, i->d) == KL_REG_DEAD)
		return;
	emitters[i->op].fn(e, idx, i);
}

int kl_emit(struct kl_comp *c, struct kl_ir_func *f, const struct kl_alloc *al, struct kl_func *out)
{
	struct em e = { .c = c, .f = f, .al = al };
	e.label_pos = kl_arena_array(c->a, uint32_t, f->nlabels + 2);
	for (uint32_t i = 0; i < f->nins; i++) {
		e.span = f->ins[i].span;
		e.idx = i;
		emit_ins(&e, i);
	}
	for (size_t k = 0; k < e.fix_insn.len; k++) {
		int64_t delta = (int64_t)e.label_pos[e.fix_label.items[k]] - (int64_t)e.fix_insn.items[k] - 1;
		if (delta < INT16_MIN || delta > INT16_MAX)
			return kl_error(c->d, f->span, "'%s' is too large: a jump spans %lld instructions", f->name,
					(long long)delta);
		e.out.items[e.fix_insn.items[k]].off = (int16_t)delta;
	}
	if (e.out.len > 1000000)
		return kl_error(c->d, f->span, "'%s' has %zu instructions; the kernel accepts at most 1000000",
				f->name, e.out.len);
	out->insns = e.out.items;
	out->ninsns = (uint32_t)e.out.len;
	out->relocs = e.relocs.items;
	out->nrelocs = (uint32_t)e.relocs.len;
	out->lines = e.lines.items;
	out->nlines = (uint32_t)e.lines.len;
	out->core = e.core.items;
	out->ncore = (uint32_t)e.core.len;
	return 0;
}
