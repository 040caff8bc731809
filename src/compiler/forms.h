/* forms.h — forms.c, the collect stage: the top-level forms of a source (defmap, defstruct,
 * defun, defprog, defconst, ...) gathered into the compilation's tables before lowering. */
#ifndef KL_FORMS_H
#define KL_FORMS_H
#include <stdint.h>

struct kl_comp;
struct kl_node;

/* Collect nforms top-level forms into c's tables; -1 with the error in c->d. */
int kl_forms_collect(struct kl_comp *c, struct kl_node **forms, uint32_t nforms);
/* After collecting: a NAME-drops counter map for every ring buffer with-event writes to. */
int kl_add_drop_counters(struct kl_comp *c);
/* After lowering: a warning for each defmap no program or function uses (none in a file of
 * maps only; a map-in-map's :inner-map template counts as used). */
void kl_warn_unused_maps(struct kl_comp *c);

#endif
