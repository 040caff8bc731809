/* trace_fmt.h — printf's formats compiled once per site (trace_fmt.c): the flood path of
 * `kiln trace`. A format whose conversions are all integers (%d %u %x %ld %llu %p %c ..., with
 * any flags, width and precision) becomes literal runs and conversions, and a record of it
 * is written straight into a byte buffer with no FILE and no parsing; any other format
 * (%s, %r, a string argument) has no compiled form and goes through trace_printf. The text
 * is the same byte for byte. */
#ifndef KL_CLI_TRACE_FMT_H
#define KL_CLI_TRACE_FMT_H
#include "trace/gen.h"
#include <stddef.h>
#include <stdint.h>

struct trace_fmt;

/* printf's conversion at *fp (its '%'), as bpftrace's printf reads one: %[flags][width]
 * [.precision] copied into spec (its k bytes, at most 28), the length modifiers counted (l, z,
 * j, t as longs; h as shorts, hh twice), and the conversion character (0 at the format's end);
 * *fp past it. */
struct trace_conv {
	size_t k;
	int longs, shorts;
	char conv;
};
void trace_fmt_spec(const char **fp, char *spec, struct trace_conv *c);

/* site's format compiled, or NULL when it has no compiled form (or out of memory). */
struct trace_fmt *trace_fmt_compile(const struct kt_site *site);
void trace_fmt_free(struct trace_fmt *f);
/* The most bytes a record's text can take. */
size_t trace_fmt_bound(const struct trace_fmt *f);
/* rec's text into dst (trace_fmt_bound bytes at least): its length, or (size_t)-1 when rec is
 * shorter than the arguments (trace_printf then prints what it can). */
size_t trace_fmt_put(const struct trace_fmt *f, const uint8_t *rec, size_t size, char *dst);

#endif
