/* fail.h — libkiln's private way to fail: record a one-line message (and optionally a log)
 * for kiln_errmsg()/kiln_errlog() in this thread, and return the negative errno. */
#ifndef KL_LIB_FAIL_H
#define KL_LIB_FAIL_H
#include <stddef.h>

/* "<what>: <strerror(err)>"; err may be given positive or negative. Returns -|err|. */
int kl_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a message that is complete as given (no errno text appended). */
int kl_fail_msg(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Attach a log (verifier or libbpf output) to the failure just recorded. */
void kl_fail_log(const char *log, size_t len);

/* libbpf's warnings during kiln's own libbpf calls, captured (not printed) for the error
 * message; the host's print callback keeps getting every other message (see error.c).
 * KL_LIBBPF(call) runs a libbpf call (or a kiln function making several) with this thread's
 * capture on, starting from an empty capture; kl_libbpf_captured() is what it caught, until
 * the next KL_LIBBPF of this thread (a nested one starts it afresh, as the step that failed
 * is the last one). */
void kl_libbpf_capture_install(void);
void kl_libbpf_capture_begin(void);
void kl_libbpf_capture_end(void);
const char *kl_libbpf_captured(void);
#define KL_LIBBPF(call) __extension__ ({                                    \
	kl_libbpf_capture_begin();                                          \
	__typeof__(call) kl_libbpf_r_ = (call);                             \
	kl_libbpf_capture_end();                                            \
	kl_libbpf_r_;                                                       \
})

#endif
