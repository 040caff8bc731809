/* kiln/value.h — the one printer of a value typed by BTF: what `kiln map` and `kiln run` show
 * of map entries, what kiln_map_format_kv and the event decoder (kiln/event.h) write, as text
 * for people or JSON for programs. */
#ifndef KILN_VALUE_H
#define KILN_VALUE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct btf;
struct kiln_events;

/* Two spellings of one value, each kept as its users have always read it; one walk over the
 * BTF type prints both, by the rules of the style's row (lib/value.c). */
enum kiln_value_style {
	/* `kiln map`'s: {a: 1, b: [1, 2], s: "text"} / {"a":1,"b":[1,2],"s":"text"}; bool as
	 * true/false, enums signed, a char array that is not printable text and a byte array of
	 * more than 16 as 0x hex, arrays of anything as arrays, anonymous members and (in text)
	 * members named padding* left out, bitfields unsigned, an integer of more than 8 bytes
	 * and a pointer as 0x hex; a value whose BTF type is not of its size (or no type) as an
	 * integer when it is 1, 2, 4 or 8 bytes, else 0x hex. */
	KILN_VALUE_C,
	/* the event decoder's: a struct as {a=1 b=[1 2] s=text} / {"a":1,"b":[1,2],"s":"text"}
	 * (kiln/event.h says how each field kind reads): arrays of integers as arrays, other
	 * arrays as 0x hex, anonymous members' members as the struct's, padding (_*, pad*,
	 * reserved*) left out, stack ids symbolized where a record's are. Needs the layouts of
	 * the same BTF. A value without a type (type_id 0 or no layouts) is 0x hex. */
	KILN_VALUE_FIELDS,
};

struct kiln_value_fmt {
	size_t sz;                      /* sizeof(struct kiln_value_fmt) */
	bool json;
	enum kiln_value_style style;
	struct kiln_events *layouts;    /* KILN_VALUE_FIELDS: layouts of btf (kiln_events_from_btf) */
};

/* The size bytes at data as BTF type type_id of btf (for KILN_VALUE_FIELDS btf may be NULL:
 * the layouts' own). snprintf's convention: returns the whole length, buf holds what fits,
 * NUL-terminated when len > 0; or a negative errno (KILN_VALUE_FIELDS only: a type the
 * layouts cannot read, or -ERANGE when size is short of it; kiln_errmsg() says why). */
int kiln_value_format(const struct btf *btf, uint32_t type_id, const void *data, size_t size,
		      const struct kiln_value_fmt *fmt, char *buf, size_t len);
/* The same written to out (no newline). 0 or a negative errno. */
int kiln_value_print(FILE *out, const struct btf *btf, uint32_t type_id, const void *data, size_t size,
		     const struct kiln_value_fmt *fmt);

/* One field of a layout (kiln/event.h) of a record of size bytes, in the KILN_VALUE_FIELDS
 * spelling, as decoding the record writes it (a stack-id field as its number): what the
 * metrics exporter labels a series with. snprintf's convention, or -ERANGE when the record
 * does not hold the field. */
struct kiln_event_field;
int kiln_value_format_field(const struct kiln_event_field *f, const void *record, size_t size, bool json,
			    char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
