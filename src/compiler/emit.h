/* emit.h — emit.c: allocated IR to BPF instructions, relocations and line info. */
#ifndef KL_EMIT_H
#define KL_EMIT_H

struct kl_comp;
struct kl_ir_func;
struct kl_alloc;
struct kl_func;

int kl_emit(struct kl_comp *c, struct kl_ir_func *f, const struct kl_alloc *al, struct kl_func *out);

#endif
