/* trace_herr.c — -k's helper-error records (src/trace/gen_check.c) printed as bpftrace 0.17
 * prints them, on the trace's output: "FILE:LINE:COL-END: WARNING: Failed to HELPER: ERROR (N)"
 * (N alone when it is not negative: a map lookup's 0), the script's line and "~" under the
 * construct; with -f json a {"type": "helper_error", ...} line. The construct's end is found
 * in the script's text: a name with its (...) or [...], balanced, else the one character. */
#define _GNU_SOURCE
#include "trace.h"
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

/* How many characters the construct at s (up to e) covers. */
static size_t extent(const char *s, const char *e)
{
	const char *p = s;
	if (p < e && (*p == '@' || *p == '$' || isalpha((unsigned char)*p) || *p == '_')) {
		p++;
		while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		if (p < e && (*p == '(' || *p == '[')) {
			int depth = 0;
			for (; p < e; p++) {   /* balanced: () and [] alike */
				depth += *p == '(' || *p == '[';
				depth -= *p == ')' || *p == ']';
				if (!depth) {
					p++;
					break;
				}
			}
		}
	}
	return p > s ? (size_t)(p - s) : 1;
}

void trace_helper_error(FILE *out, const struct kt_site *site, bool json, const uint8_t *rec, size_t size)
{
	int64_t rc = 0;
	if (size >= 16)
		memcpy(&rc, rec + 8, 8);
	rc = (int32_t)rc;   /* helpers return an int in a long */
	const struct kl_span *at = &site->span;
	if (json) {
		fprintf(out, "{\"type\": \"helper_error\", \"helper\": \"%s\", \"retcode\": %" PRId64 ", \"line\": %u, "
			"\"col\": %u}\n", site->fmt, rc, at->line, at->col);
		return;
	}
	/* the script's line at->line */
	const char *text = at->src ? at->src->text : NULL, *end = text ? text + at->src->len : NULL, *line = text;
	for (uint32_t l = 1; line && l < at->line && line < end; l++) {
		line = memchr(line, '\n', (size_t)(end - line));
		line = line ? line + 1 : NULL;
	}
	const char *eol = line ? memchr(line, '\n', (size_t)(end - line)) : NULL;
	if (line && !eol)
		eol = end;
	size_t n = line && at->col >= 1 && line + at->col - 1 < eol ? extent(line + at->col - 1, eol) : 1;
	fprintf(out, "%s:%u:%u-%zu: WARNING: Failed to %s: ", at->src && at->src->path ? at->src->path : "stdin", at->line,
		at->col, at->col + n, site->fmt);
	if (rc < 0)
		fprintf(out, "%s (%" PRId64 ")\n", strerror((int)-rc), rc);
	else
		fprintf(out, "%" PRId64 "\n", rc);
	if (!line)
		return;
	fprintf(out, "%.*s\n%*s", (int)(eol - line), line, (int)(at->col - 1), "");
	for (size_t i = 0; i < n; i++)
		fputc('~', out);
	fputc('\n', out);
}
