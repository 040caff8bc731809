/* value_internal.h — what value.c lends the rest of libkiln: the output buffer every printer
 * of libkiln writes into (snprintf's convention), its one string writer (kiln's JSON string
 * rules: UTF-8 passes, quotes, backslashes and control characters escaped, bytes that are not
 * UTF-8 as U+FFFD, so the output always parses), the body of a decoded event record, and which
 * member names decoding leaves out. */
#ifndef KL_LIB_VALUE_INTERNAL_H
#define KL_LIB_VALUE_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kiln/value.h"

/* pos counts everything written, buf holds what fits of it. */
struct kl_out {
	char *buf;
	size_t len, pos;
};
void kl_out_put(struct kl_out *o, const char *s, size_t n);
void kl_out_puts(struct kl_out *o, const char *s);
void kl_out_i64(struct kl_out *o, int64_t v);
/* A string of at most n bytes (to its NUL): JSON; in text bare when it can be, else quoted
 * with C escapes (invalid UTF-8 as \xNN). */
void kl_out_string(struct kl_out *o, const char *s, size_t n, bool json);
/* NUL-terminate buf (when len > 0); the whole length, or -EOVERFLOW past INT32_MAX. */
int kl_out_end(struct kl_out *o);

/* A record's fields after the event's name (and cpu), in KILN_VALUE_FIELDS style: each field
 * " name=value" or ",\"name\":value", a short record's "truncated", JSON's closing brace and,
 * in text, each stack-id field's symbolized frames on lines of their own. pid: whose user
 * stacks (pid_known false: none). */
struct kiln_event;
struct kiln_event_fmt;
void kl_value_record(struct kl_out *o, const struct kiln_event *ev, const void *data, size_t size,
		     const struct kiln_event_fmt *fmt, bool pid_known, int pid);

/* A struct's members as the walk prints them in a style, decided once from the BTF (each
 * member's offset, resolved type, array rule, whether it is left out, its keys), so that
 * printing a value of it resolves nothing: an event layout keeps its own. Immutable once
 * made (records are decoded from any thread). NULL when out of memory. */
struct btf;
struct kl_value_plan;
struct kl_value_plan *kl_value_plan_new(const struct btf *btf, uint32_t type_id, enum kiln_value_style style);
void kl_value_plan_free(struct kl_value_plan *pl);

#endif
