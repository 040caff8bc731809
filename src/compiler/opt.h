/* opt.h — the IR optimizer: named passes run in order at -O1 and above. */
#ifndef KL_OPT_H
#define KL_OPT_H
#include "ir.h"

void kl_opt(struct kl_arena *a, struct kl_ir_func *f, int level);

#endif
