/* passes.h — the IR optimizer's passes, one per file under src/compiler/opt/, and what they
 * share (util.c). Private to the optimizer: opt.c's table runs them (opt.h). A pass turns
 * the instructions it removes into no-op labels (label 0); opt.c compacts after each. */
#ifndef KL_OPT_PASSES_H
#define KL_OPT_PASSES_H
#include "compiler/ir.h"

void kl_pass_unreachable(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_dce(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_thread(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_swap_cmp(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_jmp32(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_forward(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_sums(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_bounds_first(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_copies(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_nonnull(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_coalesce(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_merge_returns(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_branch_over_jump(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_propagate(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_sccp(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_gvn(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_dse(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_reassoc(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_adce(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_bits(struct kl_arena *a, struct kl_ir_func *f);
struct kl_opt_config;
/* (runs sccp, unreachable, adce and dce in its trials, through opt.c's kl_opt_run) */
int kl_pass_unroll_fold(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg);
void kl_pass_select(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_rotate(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_triangle(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_thread_const(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_merge_checks(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_idle_exit(struct kl_arena *a, struct kl_ir_func *f);
void kl_pass_strength(struct kl_arena *a, struct kl_ir_func *f);

/* An instruction with no effect but its result (dead when nobody reads that). */
bool kl_opt_pure(uint8_t op);
/* How many jumps and branches go to each label of f. */
uint32_t *kl_opt_label_refs(struct kl_arena *a, const struct kl_ir_func *f);
/* Whether instruction in reads vreg v; whether it sets v; whether one of instructions
 * [from, to) of f sets v. */
bool kl_opt_reads(const struct kl_ir_ins *in, kl_vreg v);
bool kl_opt_defines(const struct kl_ir_ins *in, kl_vreg v);
bool kl_opt_set_between(const struct kl_ir_func *f, kl_vreg v, uint32_t from, uint32_t to);
/* Adds delta to uses[v] for each vreg instruction i reads. */
void kl_opt_count_uses(const struct kl_ir_ins *i, uint32_t *uses, int delta);
/* Where each vreg is defined: how many times, and the instruction of the last one. */
void kl_opt_find_defs(struct kl_arena *a, const struct kl_ir_func *f, uint32_t **defs, uint32_t **def_at);
struct kl_ssa;
/* The SSA form of f into s (ssa.h); false when f has no blocks (nothing to do). */
bool kl_opt_ssa(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s);
/* Per vreg of f: the stack slot (+ 1) it holds an address in, when it is set once, by an
 * ADDR or as such a vreg + K; 0 for the others; in *off_of (if asked), the offset into the
 * slot. defs: kl_opt_find_defs'. */
uint32_t *kl_opt_slot_bases(struct kl_arena *a, const struct kl_ir_func *f, const uint32_t *defs, int64_t **off_of);
/* Whether br is a packet bounds check (lowering's KL_BOUNDS_END_A/B) that jumps when the
 * pointer is past the end. */
bool kl_opt_jumps_out(const struct kl_ir_ins *br);
/* Where a load, store or atomic reaches the stack: its slot and offset, directly or through
 * a slot's address (slot_of and off_of: kl_opt_slot_bases'); false when its base is another
 * pointer. */
bool kl_opt_slot_access(const struct kl_ir_ins *in, const uint32_t *slot_of, const int64_t *off_of, uint32_t *slot,
			int64_t *off);
/* Whether in reads v, a slot's address, only as the base of a load, store or atomic (*reads:
 * whether that access reads the slot) or to add a constant to it (into a vreg slot_of
 * follows); false: the address goes
 * elsewhere (a call, a stored value, other arithmetic), where anything may read the slot. */
bool kl_opt_slot_use(const struct kl_ir_ins *in, kl_vreg v, const uint32_t *slot_of, bool *reads);
/* Per SSA value of s: how many reads it has (phi arguments count; branches only if asked). */
uint32_t *kl_opt_value_uses(struct kl_arena *a, const struct kl_ssa *s, bool branches);
/* How many low bits each SSA value of s can have set (64: any); kl_opt_width: of value v. */
uint8_t *kl_opt_widths(struct kl_arena *a, const struct kl_ssa *s);
uint8_t kl_opt_width(const struct kl_ssa *s, const uint8_t *w, uint32_t v);
/* The SSA form of f into s and its values' widths; NULL when f has no blocks. */
const uint8_t *kl_opt_ssa_widths(struct kl_arena *a, const struct kl_ir_func *f, struct kl_ssa *s);
/* The no-op labels the passes leave (label 0) taken out. */
void kl_opt_compact(struct kl_ir_func *f);
/* A label instruction inserted at position at (the later instructions move up one). */
void kl_opt_insert_label(struct kl_arena *a, struct kl_ir_func *f, uint32_t at, uint32_t label);
#endif
