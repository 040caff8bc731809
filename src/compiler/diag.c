/* diag.c — recording and printing compile errors with their place in the source. */
#include "diag.h"
#include <stdarg.h>
#include <string.h>

int kl_error(struct kl_diag *d, struct kl_span span, const char *fmt, ...)
{
	if (d->nerrors++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
		va_end(ap);
		d->span = span;
	}
	return -1;
}

const char *kl_source_line(const struct kl_source *src, uint32_t line, size_t *len)
{
	const char *p = src->text, *end = src->text + src->len;
	for (uint32_t l = 1; l < line && p < end; p++)
		if (*p == '\n')
			l++;
	const char *e = p;
	while (e < end && *e != '\n')
		e++;
	*len = (size_t)(e - p);
	return p;
}

void kl_diag_print(const struct kl_diag *d, FILE *out)
{
	if (!d->nerrors)
		return;
	const struct kl_span *s = &d->span;
	if (!s->src) {
		fprintf(out, "kiln: error: %s\n", d->msg);
		return;
	}
	fprintf(out, "%s:%u:%u: error: %s\n", s->src->path, s->line, s->col, d->msg);
	size_t len;
	const char *line = kl_source_line(s->src, s->line, &len);
	if (!len)
		return;
	fprintf(out, "  %.*s\n  ", (int)len, line);
	for (uint32_t i = 1; i < s->col && i <= len; i++)
		fputc(line[i - 1] == '\t' ? '\t' : ' ', out);
	fputs("^\n", out);
}
