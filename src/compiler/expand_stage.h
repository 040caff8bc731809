/* expand_stage.h — macro expansion as a stage of its own: after collection (forms.c), before
 * lowering (lower.c). See expand_stage.c. */
#ifndef KL_EXPAND_STAGE_H
#define KL_EXPAND_STAGE_H

struct kl_comp;

/* Expand every macro call lowering will read as code, in every defun's and defprog's body:
 * each call's expansion is left on the call node (kl_node.expansion). 0, or -1 with the
 * first error in c->d. */
int kl_expand_program(struct kl_comp *c);

#endif
