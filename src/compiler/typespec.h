/* typespec.h — a type or a constant as the source spells it (typespec.c). */
#ifndef KL_TYPESPEC_H
#define KL_TYPESPEC_H
#include <stdint.h>

struct kl_comp;
struct kl_node;
struct kl_type;

/* A type named by a node: u32, a defstruct name, (array T N), (* T). NULL with an error. */
struct kl_type *kl_type_parse(struct kl_comp *c, const struct kl_node *n);
/* A constant expression: integers, constants, + - * / mod logand logior logxor << >> >>>
 * lognot, sizeof, offsetof and the event-field forms. 0, or -1 with an error at n. */
int kl_const_eval(struct kl_comp *c, const struct kl_node *n, int64_t *out);

#endif
