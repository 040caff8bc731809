/* event_internal.h — event.c's JSON string writer, which the kiln command uses for its own
 * JSON output too, so that every JSON string kiln writes follows one set of rules: UTF-8
 * passes through, quotes, backslashes and control characters are escaped, and bytes that are
 * not UTF-8 become U+FFFD, so the output always parses. */
#ifndef KL_LIB_EVENT_INTERNAL_H
#define KL_LIB_EVENT_INTERNAL_H
#include <stddef.h>

/* s (at most n bytes, up to its first NUL) as a quoted JSON string into buf, with
 * snprintf's convention: the whole length is returned, buf holds what fits, NUL-terminated
 * when len > 0. At most 6 * n + 2 bytes. */
size_t kl_json_string(char *buf, size_t len, const char *s, size_t n);

#endif
