/* ir.h — kiln's intermediate representation: a linear list of instructions over unlimited
 * virtual registers per function, close to BPF (two operands or an immediate, explicit
 * stack slots, helper calls), so register allocation and emission stay simple. */
#ifndef KL_IR_H
#define KL_IR_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "diag.h"
#include <stdio.h>

typedef uint32_t kl_vreg;        /* 0 means "none" */
struct kl_asm_block;

enum kl_ir_op {
	IR_MOVI,    /* d = imm (any 64-bit value) */
	IR_MOV,     /* d = a */
	IR_ALU,     /* d = a <alu> (b or imm);  alu is BPF_ADD, BPF_SUB, ... BPF_ARSH */
	IR_ALU32,   /* d = (u32)(a <alu> (b or imm)), zero-extended: only BPF_MOV (truncate) */
	IR_NEG,     /* d = -a */
	IR_END,     /* d = byte swap of a: size 16/32/64 (to big endian from the LE host) */
	IR_LOAD,    /* d = *(size *)(base + off), zero-extended */
	IR_STORE,   /* *(size *)(base + off) = b or imm */
	IR_XADD,    /* lock *(size *)(base + off) += b */
	IR_ADDR,    /* d = address of stack slot `slot` + off */
	IR_LDMAP,   /* d = the map `imm` (ld_imm64 with a map relocation) */
	IR_CALL,    /* d = helper imm(args...) */
	IR_CALLF,   /* d = subprogram imm(args...) */
	IR_JMP,     /* goto label */
	IR_BR,      /* if (a <cond> b or imm) goto label; cond is BPF_JEQ, BPF_JGT, ... */
	IR_LABEL,   /* label: */
	IR_RET,     /* return a (or imm) */
	IR_ENTRY,   /* d = incoming argument `imm` (0..4: r1..r5) at function entry */
	IR_LDFUNC,  /* d = the address of subprogram `imm`, a callback (ld_imm64 BPF_PSEUDO_FUNC) */
	IR_LDDATA,  /* d = the address of global variable `imm` (ld_imm64 with a data relocation:
		     * libbpf makes it BPF_PSEUDO_MAP_VALUE into .rodata, .data or .bss); imm < 0:
		     * of kernel symbol -imm - 1 (defksym: a relocation against its extern) */
	IR_ASM,     /* d = the raw instructions of asmb run on args (asm_block.h): opaque, with
		     * effects on any memory and on the registers asmb->clobbers */
};

struct kl_ir_ins {
	uint8_t op;
	uint8_t alu;          /* ALU: BPF_ADD...; BR: BPF_JEQ... */
	uint8_t size;         /* LOAD/STORE/XADD: 1, 2, 4, 8; END: 16, 32, 64 */
	bool has_imm;         /* second operand is imm instead of b */
	kl_vreg d, a, b;
	int64_t imm;
	int32_t off;
	uint32_t slot;        /* stack slot (1-based) for ADDR, or as base of LOAD/STORE when a==0 */
	uint32_t label;
	uint8_t nargs;
	uint8_t bounds;       /* lowering's marks: a BR that is a packet bounds check, with the
			       * packet's end its first operand (KL_BOUNDS_END_A) or its second
			       * (KL_BOUNDS_END_B); a LOAD of the context's packet pointer, never 0
			       * (KL_PKT_POINTER); 0 neither */
	kl_vreg args[5];
	uint32_t core;        /* MOVI, ALU add with imm, LOAD: the imm (off for LOAD) is a CO-RE
			       * relocated value, record core - 1 of core.c; never folded */
	const struct kl_asm_block *asmb;   /* ASM: its block */
	struct kl_span span;
};

enum { KL_BOUNDS_END_A = 1, KL_BOUNDS_END_B = 2, KL_PKT_POINTER = 4 };

struct kl_slot {
	uint32_t size, align;
	int32_t fp_off;       /* negative offset from r10, assigned by the frame layout */
	bool temp;            /* only live between the instructions that name it (a map key or
				* value, a spill), so slots whose lives do not overlap share bytes */
	uint32_t first, last; /* for temp slots: instruction range, filled by the allocator */
};

struct kl_ir_func {
	const char *name;
	struct kl_ir_ins *ins;
	uint32_t nins, cap;
	void *ins_ext;        /* kl_ir_emit's own array (kl_arena_ext_grow), while ins is it: a
			       * pass that puts another array in ins leaves it to be freed there */
	uint32_t nvregs;      /* vregs are 1..nvregs-1 */
	uint32_t nlabels;
	struct kl_slot *slots; /* index 0 unused */
	uint32_t nslots, slotcap;
	struct kl_span span;
	bool subprog;         /* a defun: its arguments may point into its caller's stack */
	bool loop_body;       /* lower_loop.c's bpf_loop callback: sums and gvn run on it at -O0 too */
	uint32_t key_frame;   /* bytes the frame may grow to with map keys of their own (regalloc.c's
			       * align_keys); 0: none (a defun: its callers are not allocated yet) */
	const bool *known_elems; /* per map (LDMAP's imm): whether the verifier knows the element of
				  * a constant key exists (arrays); NULL: of none */
	uint32_t nmaps;
};

/* After allocation: where each vreg lives. */
/* Where the allocator put a vreg, when not in a register (0..9). */
enum { KL_REG_SPILLED = -1, KL_REG_DEAD = -2 /* defined, never read: its definition is dropped */ };

struct kl_alloc {
	int8_t *reg;          /* per vreg: 0..9, KL_REG_SPILLED or KL_REG_DEAD */
	uint32_t *spill;      /* per vreg: slot when spilled */
	bool spill_mode;      /* r0 and r5 are reserved as scratch registers everywhere */
	uint8_t (*scratch)[2]; /* per instruction: two registers free there, for spilled operands */
	uint32_t frame;       /* bytes of stack used */
	/* vregs in r0-r5 live across a call, saved to their slot (spill[v]) before it and
	 * loaded back after: call i's are save_vreg[save_at[i] .. save_at[i + 1]) */
	uint32_t *save_at;
	kl_vreg *save_vreg;
	bool *save_store;     /* per entry: stored before the call (false: the slot holds it already) */
};

/* Appends an instruction of kind op (zeroed, at span) to f. */
struct kl_ir_ins *kl_ir_emit(struct kl_arena *a, struct kl_ir_func *f, uint8_t op, struct kl_span span);

/* What an instruction reads and writes: every pass enumerates operands through this one. */
struct kl_ir_operands {
	kl_vreg uses[6];
	uint32_t nuses;
	kl_vreg def;          /* 0: none */
};
void kl_ir_operands(const struct kl_ir_ins *i, struct kl_ir_operands *u);
/* The same enumeration as places to rewrite: where each read's vreg is (in kl_ir_operands'
 * order; their number returned) and where the defined one is (*def, NULL if none). */
uint32_t kl_ir_use_ptrs(struct kl_ir_ins *i, kl_vreg *p[6], kl_vreg **def);

/* a <alu> b with the BPF machine's semantics (x/0 = 0, x%0 = x, shift counts masked). */
int64_t kl_fold(uint8_t alu, int64_t a, int64_t b);
/* The condition with its operands swapped (not its negation): a < b is b > a. */
uint8_t kl_cond_swap(uint8_t cond);
/* Whether a COND b holds, as the 64-bit BPF jumps decide it: 1 or 0; -1 for no condition. */
int kl_cond_holds(uint8_t cond, int64_t a, int64_t b);
/* The branch condition that holds exactly when `cond` does not (BPF_JEQ <-> BPF_JNE, ...);
 * 0 for one without an opposite (BPF_JSET). */
uint8_t kl_cond_invert(uint8_t cond);
/* The low `bits` (16, 32, 64) of v with their bytes reversed: ntohs and friends. */
uint64_t kl_bswap(uint64_t v, int bits);

/* Where each label of f stands: label -> its instruction + 1 (0: no such label). */
uint32_t *kl_ir_labels(struct kl_arena *a, const struct kl_ir_func *f);
/* A new stack slot of f (1-based index). */
uint32_t kl_ir_slot(struct kl_arena *a, struct kl_ir_func *f, uint32_t size, uint32_t align);

void kl_ir_dump(const struct kl_ir_func *f, FILE *out);

#endif
