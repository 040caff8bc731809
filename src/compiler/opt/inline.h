/* inline.h — opt/inline.c: defuns inlined into their callers, before the pass pipeline. */
#ifndef KL_OPT_INLINE_H
#define KL_OPT_INLINE_H
#include <stdint.h>

struct kl_arena;
struct kl_ir_func;

/* Defuns inlined into their callers (opt/inline.c): fns are every function, the first nfuns
 * of them defuns (an IR_CALLF's imm is its callee's index). From -O1, unless -fno-inline. */
void kl_inline(struct kl_arena *a, struct kl_ir_func **fns, uint32_t nfuns, uint32_t nall);

#endif
