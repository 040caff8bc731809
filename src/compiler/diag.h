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

/* Every input file kiln reads (sources, objects) is capped at KL_MAX_INPUT_MB megabytes, or
 * at $KILN_MAX_INPUT megabytes when that is set to a positive number: kl_max_input() bytes. */
#define KL_MAX_INPUT_MB 64
size_t kl_max_input(void);
/* All of fd from where it stands, NUL-terminated (malloc'd; *len without the NUL), or NULL
 * with errno set: EFBIG past kl_max_input() bytes, found while reading (a pipe or a device
 * has no size to stat), or before reading for a regular file. */
char *kl_read_fd(int fd, size_t *len);
/* A whole file the same way (a source's text); EISDIR for a directory. */
char *kl_read_file(const char *path, size_t *len);
/* strerror(err), except that EFBIG from the two above says what the limit is and how to
 * raise it. */
const char *kl_read_strerror(int err);

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
/* After the first error, made inside the expansion of a call of macro at span call: the
 * message gets " (in the expansion of macro 'M' at FILE:LINE:COL)" unless it names M already
 * (or call has no source). The expand stage and lowering add it. */
void kl_diag_expansion_note(struct kl_diag *d, const char *macro, struct kl_span call);
/* "file:line:col: error: msg", the source line, and a caret under the column. */
void kl_diag_print(const struct kl_diag *d, FILE *out);
/* The warnings the same way ("warning:"), in the order they were found. */
void kl_diag_print_warnings(const struct kl_diag *d, FILE *out);
/* Text of line `line` (1-based) of src, without its newline; length in *len. */
const char *kl_source_line(const struct kl_source *src, uint32_t line, size_t *len);

#endif
