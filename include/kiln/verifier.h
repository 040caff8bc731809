/* kiln/verifier.h — a verifier rejection in the program's own terms: the verifier's final
 * message, the instruction it stopped at, the source file:line:col that instruction came
 * from (from the object's .BTF.ext line info), that source line, the last states of the
 * failing path, and a hint for the common causes. */
#ifndef KILN_VERIFIER_H
#define KILN_VERIFIER_H
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every string is "" rather than NULL when unknown. */
struct kiln_verifier_error {
	const char *prog;      /* the rejected program */
	const char *message;   /* the verifier's final message: "R1 offset is outside of the packet" */
	const char *detail;    /* the lines it printed between the instruction and the message */
	long insn;             /* index of the failing instruction in the loaded program; -1: unknown */
	const char *insn_text; /* as the verifier printed it: "(61) r0 = *(u32 *)(r1 +20)" */
	const char *file;      /* where that instruction came from */
	unsigned line, col;    /* 1-based; 0: unknown (col is 0 for line info without columns) */
	const char *source;    /* the text of that source line */
	const char *cause;     /* a short name of the cause: "packet-bounds", "map-null", ... */
	const char *hint;      /* what usually fixes it */
	const char *excerpt;   /* the log lines before the message: the failing path's last steps */
};

/* Analyse a verifier log alone (file:line then comes from the log's "; ... @ FILE:LINE"
 * lines, without a column). prog may be NULL. Free with kiln_verifier_error_free(). */
int kiln_verifier_explain(const char *log, const char *prog, struct kiln_verifier_error **out);
void kiln_verifier_error_free(struct kiln_verifier_error *e);

/* The cause (and its hint) the table gives for a verifier message: "" if none. */
const char *kiln_verifier_cause(const char *message, const char **hint);

/* Print it as kiln's CLI does: "FILE:LINE:COL: the verifier refused this: MESSAGE", the
 * source line with a caret under the column, the instruction, the hint, and (with
 * excerpt) the log lines before the message. */
void kiln_verifier_error_print(const struct kiln_verifier_error *e, FILE *out, int excerpt);

#ifdef __cplusplus
}
#endif
#endif
