/* error.c — kiln_errmsg()/kiln_errlog(): the last failure of this thread, kept like errno (the
 * one piece of per-thread state in libkiln), and libbpf's warnings captured instead of printed. */
#include "kiln/error.h"
#include "fail.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char errmsg[1024];
static _Thread_local char *errlog;
static _Thread_local char captured[8192];
static _Thread_local size_t captured_len;

const char *kiln_errmsg(void)
{
	return errmsg;
}

const char *kiln_errlog(void)
{
	return errlog ? errlog : "";
}

static int record(int err, bool with_errno, const char *fmt, va_list ap)
{
	if (err < 0)
		err = -err;
	if (!err)
		err = EINVAL;
	int n = vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	if (with_errno && n >= 0 && (size_t)n < sizeof(errmsg))
		snprintf(errmsg + n, sizeof(errmsg) - (size_t)n, ": %s", strerror(err));
	free(errlog);
	errlog = NULL;
	return -err;
}

int kl_fail(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = record(err, true, fmt, ap);
	va_end(ap);
	return r;
}

int kl_fail_msg(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = record(err, false, fmt, ap);
	va_end(ap);
	return r;
}

void kl_fail_log(const char *log, size_t len)
{
	free(errlog);
	errlog = malloc(len + 1);
	if (errlog) {
		memcpy(errlog, log, len);
		errlog[len] = 0;
	}
}

static int capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || captured_len >= sizeof(captured) - 1)
		return 0;
	int n = vsnprintf(captured + captured_len, sizeof(captured) - captured_len, fmt, ap);
	if (n > 0)
		captured_len += (size_t)n;
	if (captured_len >= sizeof(captured))
		captured_len = sizeof(captured) - 1;
	return 0;
}

static void install_once(void)
{
	libbpf_set_print(capture);
}

void kl_libbpf_capture_install(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_once);
}

void kl_libbpf_capture_reset(void)
{
	captured_len = 0;
	captured[0] = 0;
}

const char *kl_libbpf_captured(void)
{
	return captured;
}
