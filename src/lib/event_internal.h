/* event_internal.h — event.c's JSON string writer, which the kiln command uses for its own
 * JSON output too, so that every JSON string kiln writes follows one set of rules: UTF-8
 * passes through, quotes, backslashes and control characters are escaped, and bytes that are
 * not UTF-8 become U+FFFD, so the output always parses; and its decoder of one BTF-typed
 * value, which map entries are decoded with (map_fmt.c). */
#ifndef KL_LIB_EVENT_INTERNAL_H
#define KL_LIB_EVENT_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* s (at most n bytes, up to its first NUL) as a quoted JSON string into buf, with
 * snprintf's convention: the whole length is returned, buf holds what fits, NUL-terminated
 * when len > 0. At most 6 * n + 2 bytes. */
size_t kl_json_string(char *buf, size_t len, const char *s, size_t n);

/* A value of any BTF type (a struct as {...} with its fields as events decode them, an
 * integer, a char array as a string...) from data (size bytes, at least the type's) as text
 * or JSON, with snprintf's convention; -errno for a type that cannot be read (kiln_errmsg()
 * says why) or data too short (-ERANGE). For kiln_map_format_kv. */
struct kiln_events;
int kl_event_format_type(struct kiln_events *evs, uint32_t type_id, const void *data, size_t size,
			 bool json, char *buf, size_t len);

/* BTF type type_id read as the decoder reads a field (kind, size, signedness, nested layout),
 * at offset 0: what kiln_map_parse_key/_value write values by (map_parse.c). 0 or -errno. */
struct kiln_event_field;
int kl_event_classify(struct kiln_events *evs, uint32_t type_id, struct kiln_event_field *f);

#endif
