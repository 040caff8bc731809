/* gen_spans.h — where each piece of kiln trace's generated code came from in the bpftrace
 * script, and the generated forms as reader nodes carrying those script spans (so compile
 * and verifier errors, and the object's line info, point into the .bt script). */
#ifndef KT_GEN_SPANS_H
#define KT_GEN_SPANS_H
#include "compiler/reader.h"
#include <stddef.h>

/* From byte off of the generated text on, the code is the script's construct at span. */
struct kt_mark {
	size_t off;
	struct kl_span span;
};

struct kt_marks {
	KL_VEC(struct kt_mark) v;   /* by offset, never decreasing */
	struct kl_span cur;         /* the construct being written */
};

/* The code written from off on comes from the construct at `at`: returns the span it
 * replaces, for kt_span_leave. */
struct kl_span kt_span_enter(struct kl_arena *a, struct kt_marks *m, size_t off, struct kl_span at);
/* Back to prev (what kt_span_enter returned) from off on. */
void kt_span_leave(struct kl_arena *a, struct kt_marks *m, size_t off, struct kl_span prev);

/* The top-level forms of text (generated code, named gen_path), each node's span the script
 * span marked last at or before where the node starts (`first` before the first mark). 0, or
 * -1 with an error in d, also at the script (a reader's limit: where the code passed it). */
int kt_spans_read(struct kl_arena *a, struct kl_diag *d, const char *gen_path, const char *text, size_t len,
		  const struct kt_marks *m, struct kl_span first, struct kl_node ***forms, uint32_t *nforms);
#endif
