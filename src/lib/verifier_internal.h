/* verifier_internal.h — the verifier log's analysis as object.c uses it on a rejection. */
#ifndef KL_LIB_VERIFIER_INTERNAL_H
#define KL_LIB_VERIFIER_INTERNAL_H
#include "kiln/verifier.h"
#include <stddef.h>

struct bpf_program;
/* kiln_verifier_explain() of the rejected program bp's log, with the source position (and
 * its column) refined from the object's ELF image (its .BTF.ext line info), when there is
 * one, mapping instructions of subprograms libbpf appended back to .text. */
int kl_verifier_analyze(const char *log, const struct bpf_program *bp, const void *image, size_t size,
			struct kiln_verifier_error **out);

#endif
