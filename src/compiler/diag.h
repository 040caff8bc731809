/* diag.h — sources, source positions and compile errors as values. Every reader node carries a span;
 * the first error of a compilation is kept with its span and printed chibicc-style. */
#ifndef KL_DIAG_H
#define KL_DIAG_H
#include <stdint.h>
#include <stdio.h>

struct kl_source {
	const char *path;
	const char *text;
	size_t len;
};

/* All of fd from where it stands, NUL-terminated (malloc'd; *len without the NUL), or NULL
 * with errno set. */
char *kl_read_fd(int fd, size_t *len);
/* A whole file the same way (a source's text); EISDIR for a directory. */
char *kl_read_file(const char *path, size_t *len);

struct kl_span {
	const struct kl_source *src;
	uint32_t line, col;         /* 1-based */
};

struct kl_warning {
	struct kl_span span;
	char msg[256];
};

struct kl_diag {
	int nerrors;
	int err;                    /* an errno when the failure was not the source's: ENOMEM */
	struct kl_span span;
	char msg[512];
	int nwarnings;              /* all of them; the first KL_MAX_WARNINGS are kept */
	struct kl_warning warnings[16];
};
#define KL_MAX_WARNINGS 16

/* Record an error (the first one wins) and return -1 so callers can `return kl_error(...)`. */
int kl_error(struct kl_diag *d, struct kl_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Record a warning: printed like an error, but the compilation goes on. */
void kl_warn(struct kl_diag *d, struct kl_span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "file:line:col: error: msg", the source line, and a caret under the column. */
void kl_diag_print(const struct kl_diag *d, FILE *out);
/* The warnings the same way ("warning:"), in the order they were found. */
void kl_diag_print_warnings(const struct kl_diag *d, FILE *out);
/* Text of line `line` (1-based) of src, without its newline; length in *len. */
const char *kl_source_line(const struct kl_source *src, uint32_t line, size_t *len);

#endif
