/* error.c — kiln_errmsg()/kiln_errlog(): the last failure of this thread, kept like errno (the
 * one piece of per-thread state in libkiln), and libbpf's warnings during kiln's own libbpf
 * calls captured instead of printed, with the host's print callback kept for the rest. */
#include "kiln/error.h"
#include "fail.h"
#include "text.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char errmsg[1024];
static _Thread_local char *errlog;    /* malloc'd; freed by log_key's destructor at thread exit */
static pthread_key_t log_key;
static pthread_once_t log_key_once = PTHREAD_ONCE_INIT;
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

static void log_key_create(void)
{
	(void)pthread_key_create(&log_key, free);
}

static void set_errlog(char *log)
{
	free(errlog);
	errlog = log;
	pthread_once(&log_key_once, log_key_create);
	(void)pthread_setspecific(log_key, log);
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
	/* names in the message come from objects and the system: no byte of theirs may drive a
	 * terminal or start a line of its own (the message is one line; logs go to errlog) */
	char safe[sizeof(errmsg)];
	kl_text_escape(safe, sizeof(safe), errmsg);
	memcpy(errmsg, safe, strlen(safe) + 1);
	set_errlog(NULL);
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
	char *copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, log, len);
		copy[len] = 0;
	}
	set_errlog(copy);
}

/* libbpf's print callback is one per process and belongs to the host as much as to libkiln.
 * libkiln sets it once (the first time it needs it) to capture() and keeps whatever was
 * there before (the host's callback, or libbpf's default printer) as prev: a message libbpf
 * prints while this thread is inside one of kiln's own libbpf calls (KL_LIBBPF: depth > 0)
 * is kept for kiln_errmsg()/kiln_errlog() and not passed on, as libkiln never prints; every
 * other message goes to prev as it would have without libkiln. A callback the host sets
 * later replaces capture() and is never touched: kiln's messages then simply lose libbpf's
 * text. prev is published once; a message racing the install waits the few instructions
 * until it is. */
static _Thread_local unsigned depth;
static libbpf_print_fn_t prev;
static int prev_ready;

static int capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!depth) {
		while (!__atomic_load_n(&prev_ready, __ATOMIC_ACQUIRE))
			sched_yield();
		return prev ? prev(level, fmt, ap) : 0;
	}
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
	prev = libbpf_set_print(capture);
	__atomic_store_n(&prev_ready, 1, __ATOMIC_RELEASE);
}

void kl_libbpf_capture_install(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install_once);
}

void kl_libbpf_capture_begin(void)
{
	kl_libbpf_capture_install();
	depth++;
	captured_len = 0;
	captured[0] = 0;
}

void kl_libbpf_capture_end(void)
{
	if (depth)
		depth--;
}

const char *kl_libbpf_captured(void)
{
	return captured;
}
