/* diag.c — recording and printing compile errors with their place in the source. */
#include "diag.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Bytes of source text as printed in a diagnostic: control bytes (ESC, NUL, CR...) and DEL
 * as \xHH, so the source cannot drive the terminal; tabs kept (the caret line copies them).
 * Returns how many columns byte c takes. */
static int put_safe(FILE *out, unsigned char c)
{
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return fprintf(out, "\\x%02x", c);
	fputc(c, out);
	return 1;
}

#define EXCERPT 160   /* bytes of a long source line shown around the error's column */

void kl_warn(struct kl_diag *d, struct kl_span span, const char *fmt, ...)
{
	if (d->nwarnings++ >= KL_MAX_WARNINGS)
		return;
	struct kl_warning *w = &d->warnings[d->nwarnings - 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	w->span = span;
}

static void print_at(const struct kl_span *s, const char *kind, const char *msg, FILE *out);

void kl_diag_print(const struct kl_diag *d, FILE *out)
{
	if (d->nerrors)
		print_at(&d->span, "error", d->msg, out);
}

void kl_diag_print_warnings(const struct kl_diag *d, FILE *out)
{
	/* in source order (an inner scope closes, and warns, before the outer one) */
	int n = d->nwarnings < KL_MAX_WARNINGS ? d->nwarnings : KL_MAX_WARNINGS, order[KL_MAX_WARNINGS];
	for (int i = 0; i < n; i++) {
		const struct kl_span *s = &d->warnings[i].span;
		int j = i;
		for (; j > 0; j--) {
			const struct kl_span *t = &d->warnings[order[j - 1]].span;
			if (t->line < s->line || (t->line == s->line && t->col <= s->col))
				break;
			order[j] = order[j - 1];
		}
		order[j] = i;
	}
	for (int i = 0; i < n; i++)
		print_at(&d->warnings[order[i]].span, "warning", d->warnings[order[i]].msg, out);
	if (d->nwarnings > KL_MAX_WARNINGS)
		fprintf(out, "kiln: %d more warnings\n", d->nwarnings - KL_MAX_WARNINGS);
}

static void print_at(const struct kl_span *s, const char *kind, const char *msg, FILE *out)
{
	if (s->src)
		fprintf(out, "%s:%u:%u: %s: ", s->src->path, s->line, s->col, kind);
	else
		fprintf(out, "kiln: %s: ", kind);
	for (const char *m = msg; *m; m++)   /* messages quote source text */
		put_safe(out, (unsigned char)*m);
	fputc('\n', out);
	if (!s->src)
		return;
	size_t len;
	const char *line = kl_source_line(s->src, s->line, &len);
	if (!len)
		return;
	/* a long line is shown around the column, so an error prints a few lines, not megabytes */
	size_t from = 0, to = len;
	if (len > EXCERPT) {
		size_t at = s->col > 0 ? s->col - 1 : 0;
		from = at > EXCERPT / 2 ? at - EXCERPT / 2 : 0;
		to = from + EXCERPT < len ? from + EXCERPT : len;
	}
	fputs(from ? "  ..." : "  ", out);
	for (size_t i = from; i < to; i++)
		put_safe(out, (unsigned char)line[i]);
	fputs(to < len ? "...\n  " : "\n  ", out);
	if (from)
		fputs("   ", out);
	for (uint32_t i = (uint32_t)from + 1; i < s->col && i <= len; i++) {
		unsigned char c = (unsigned char)line[i - 1];
		int w = c == '\t' ? 1 : (c < 0x20 || c == 0x7f) ? 4 : 1;
		for (int k = 0; k < w; k++)
			fputc(c == '\t' ? '\t' : ' ', out);
	}
	fputs("^\n", out);
}

size_t kl_max_input(void)
{
	const char *e = getenv("KILN_MAX_INPUT");
	if (e && *e) {
		char *end;
		errno = 0;
		unsigned long long mb = strtoull(e, &end, 10);
		if (!errno && !*end && mb > 0 && mb <= (SIZE_MAX >> 21))
			return (size_t)mb << 20;
	}
	return (size_t)KL_MAX_INPUT_MB << 20;
}

const char *kl_read_strerror(int err)
{
	static _Thread_local char buf[128];
	if (err != EFBIG)
		return strerror(err);
	snprintf(buf, sizeof(buf), "larger than kiln's input limit of %zu MB (set KILN_MAX_INPUT to a number of MB to raise it)",
		 kl_max_input() >> 20);
	return buf;
}

char *kl_read_fd(int fd, size_t *len)
{
	/* Capped while reading, not by stat: a pipe, /dev/zero or stdin has no size to ask. A
	 * regular file larger than the cap fails before a byte is read. */
	size_t limit = kl_max_input(), cap = 8192, n = 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t at = lseek(fd, 0, SEEK_CUR);
		off_t left = st.st_size - (at > 0 ? at : 0);
		if (left > 0 && (uint64_t)left > limit) {
			errno = EFBIG;
			return NULL;
		}
		if (left > 0)
			cap = (size_t)left + 2;
	}
	char *buf = malloc(cap);
	for (ssize_t r; buf;) {
		if (n + 1 >= cap) {
			if (n > limit) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			size_t ncap = cap * 2 < limit + 2 ? cap * 2 : limit + 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = errno;
			free(buf);
			errno = err;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	if (n > limit) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *kl_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *text = NULL;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		errno = EISDIR;
	else
		text = kl_read_fd(fd, len);
	int err = errno;
	close(fd);
	errno = err;
	return text;
}

void kl_diag_expansion_note(struct kl_diag *d, const char *macro, struct kl_span call)
{
	size_t len = strlen(d->msg);
	char named[128];
	snprintf(named, sizeof(named), "'%s'", macro);
	if (!call.src || d->nerrors != 1 || strstr(d->msg, named))
		return;
	snprintf(d->msg + len, sizeof(d->msg) - len, " (in the expansion of macro %s at %s:%u:%u)", named,
		 call.src->path, call.line, call.col);
}
