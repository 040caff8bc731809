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
