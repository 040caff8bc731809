/* lower.h — lower.c, the lower stage: a program's or a function's forms to IR (lower.c and
 * the lower_*.c beside it, which share lower_internal.h). */
#ifndef KL_LOWER_H
#define KL_LOWER_H

struct kl_comp;
struct kl_progdef;
struct kl_fundef;

/* The IR of a defprog or a defun; NULL with the error in c->d. */
struct kl_ir_func *kl_lower_prog(struct kl_comp *c, struct kl_progdef *p);
struct kl_ir_func *kl_lower_fun(struct kl_comp *c, struct kl_fundef *f);
/* The shape of special form h (lower_internal.h: which arguments are code), NULL when h is
 * not one (a call: every argument is). The expand stage reads it. */
const char *kl_lower_shape(const char *h);

#endif
