/* regalloc.h — regalloc.c: register allocation of a function's IR (struct kl_alloc, in ir.h,
 * says where each vreg went). */
#ifndef KL_REGALLOC_H
#define KL_REGALLOC_H

struct kl_arena;
struct kl_diag;
struct kl_ir_func;
struct kl_alloc;

/* Register allocation onto r0-r9 with spills; lays out the stack frame. -1 with an error
 * (512-byte stack limit) in d. */
int kl_regalloc(struct kl_arena *a, struct kl_diag *d, struct kl_ir_func *f, struct kl_alloc *out);

#endif
