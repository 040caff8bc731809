/* trace_more.h — the options of bpftrace 0.26's --help that `kiln trace` takes beside 0.17's
 * (trace.c parses those): -B MODE (the output's buffering), -I DIR (where #include finds
 * headers), --no-warnings, --probe-filter REGEX (only the probes it matches attach). */
#ifndef KILN_CLI_TRACE_MORE_H
#define KILN_CLI_TRACE_MORE_H
#include <stdbool.h>
#include <stdio.h>
#include "trace/sema.h"

struct trace_more {
	const char *probe_filter;   /* --probe-filter */
	int buf_mode;               /* -B: 0 unset, else 1 + _IONBF, _IOLBF or _IOFBF */
	bool no_warnings;           /* --no-warnings */
	const char **idirs;         /* -I DIR, in order (the caller frees the array) */
	int nidirs;
};

/* argv[*i] if it is one of these options (its argument taken too: *i moves on): 1, 0 when
 * it is none of them, -1 when it is wrong (said on stderr). */
int trace_more_arg(struct trace_more *m, int argc, char **argv, int *i);
/* --probe-filter: the targets (special probes kept) whose probe name the regular expression
 * matches somewhere; 0, or 1 said (a bad expression, no probe matched). */
int trace_more_filter(const struct trace_more *m, struct kt_sema *s);
/* -B: the output stream's buffering. */
void trace_more_out(const struct trace_more *m, FILE *out);
#endif
