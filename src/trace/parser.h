/* parser.h — bpftrace 0.17's grammar, by recursive descent, into the tree of ast.h. */
#ifndef KT_PARSER_H
#define KT_PARSER_H
#include "trace/ast.h"

/* Parse src into *out (allocated from a). 0, or -1 with the first error in d
 * ("syntax error: ..." at its line:col). */
int kt_parse(const struct kl_source *src, struct kl_arena *a, struct kl_diag *d, struct kt_program *out);

/* ap->text split at ':' (outside quotes, which go) into provider, target, func and extra,
 * the provider's one- and two-letter aliases spelled out. */
void kt_attach_split(struct kl_arena *a, struct kt_attach *ap);

#endif
