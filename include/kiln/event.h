/* kiln/event.h — event layouts: the `defevent` / `defstruct` layouts of an object, read from
 * its BTF (kiln-built or clang-built), so a consumer of ring and perf buffer records needs no
 * hand-written struct; field accessors; and decoding of a record to a line of text
 * (`pid=1234 comm=bash`) or JSON (`{"event":"exec_event","pid":1234,"comm":"bash"}`), with
 * stack-id fields symbolized. */
#ifndef KILN_EVENT_H
#define KILN_EVENT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "map.h"
#include "stack.h"

#ifdef __cplusplus
extern "C" {
#endif

struct btf;
struct kiln_object;

/* How a field reads. The kind comes from the field's BTF type: kiln's `:ipv4 :ipv6 :kstack
 * :ustack` field types are the typedefs ipv4_addr, ipv6_addr, kstack_id and ustack_id, which a
 * C object can use too. */
enum kiln_field_kind {
	KILN_FIELD_INT,      /* an integer, enum or bool of 1, 2, 4 or 8 bytes (or a bitfield) */
	KILN_FIELD_CHARS,    /* char[N]: a string up to its first NUL */
	KILN_FIELD_ARRAY,    /* other arrays of integers: count elements of elem_size bytes */
	KILN_FIELD_IPV4,     /* ipv4_addr: an IPv4 address in network byte order */
	KILN_FIELD_IPV6,     /* ipv6_addr: 16 bytes */
	KILN_FIELD_KSTACK,   /* kstack_id: an id in a :stack-trace map (negative: none) */
	KILN_FIELD_USTACK,   /* ustack_id: the same for a user stack */
	KILN_FIELD_STRUCT,   /* a nested struct or union: see sub */
	KILN_FIELD_PTR,      /* a pointer (8 bytes) */
	KILN_FIELD_BYTES,    /* anything else: raw bytes */
};

struct kiln_event;

struct kiln_event_field {
	const char *name;           /* as in BTF: `:comm-len` is "comm_len" */
	enum kiln_field_kind kind;
	uint32_t offset;            /* bytes from the start of the event */
	uint32_t size;              /* bytes (of a bitfield: the bytes its bits span from offset) */
	uint32_t count;             /* array elements (1 for scalars) */
	uint32_t elem_size;         /* bytes of one element (size for scalars) */
	bool is_signed;
	bool is_padding;            /* named pad*, padding*, reserved*, or starting with '_':
				     * left out of decoded output */
	uint32_t bit_offset;        /* bitfields: bits from the start of the event... */
	uint32_t bit_size;          /* ...and width; 0 for whole-byte fields */
	const struct kiln_event *sub;  /* KILN_FIELD_STRUCT: the nested layout */
	const struct btf *btf;      /* the BTF the layout was read from... */
	uint32_t type_id;           /* ...and the field's type in it */
};

/* The layouts of one object's BTF. Layouts are built the first time they are asked for, so
 * calls on one kiln_events are made from one thread at a time; the layouts it returns do not
 * change and may be read from any thread. */
struct kiln_events;

/* From a loaded or opened object (valid while the object is). */
int kiln_events_from_object(const struct kiln_object *obj, struct kiln_events **out);
/* From a file: a kiln source (compiled in memory) or an ELF object with BTF. */
int kiln_events_from_file(const char *path, struct kiln_events **out);
/* From BTF the caller keeps alive, and unchanged (adding a type may move its strings, which
 * the layouts name), as long as the layouts. */
int kiln_events_from_btf(const struct btf *btf, struct kiln_events **out);
void kiln_events_free(struct kiln_events *evs);

/* The struct (or union) named so: "exec-event" finds exec_event too. NULL (kiln_errmsg()
 * says why) when the BTF has none. */
const struct kiln_event *kiln_events_find(struct kiln_events *evs, const char *name);
/* The layout a ring or perf buffer map carries, from the map variable's BTF decl tag
 * `kiln.event:NAME` (kiln writes it for `with-event` and `defmap ... :event NAME`; C objects
 * can put `__attribute__((btf_decl_tag("kiln.event:NAME")))` on the map). NULL if untagged. */
const struct kiln_event *kiln_events_for_map(struct kiln_events *evs, const char *map_name);
/* The only named struct of exactly this size, if there is one (a guess for untagged maps). */
const struct kiln_event *kiln_events_for_size(struct kiln_events *evs, size_t size);

const char *kiln_event_name(const struct kiln_event *ev);
size_t kiln_event_size(const struct kiln_event *ev);
size_t kiln_event_field_count(const struct kiln_event *ev);
const struct kiln_event_field *kiln_event_field(const struct kiln_event *ev, size_t i);
/* By name; "comm-len" finds comm_len. NULL if none. */
const struct kiln_event_field *kiln_event_field_by_name(const struct kiln_event *ev, const char *name);
const char *kiln_field_kind_name(enum kiln_field_kind kind);

/* Accessors on a record (at least offset + size bytes long). An integer field (INT, IPV4,
 * KSTACK, USTACK, PTR; bitfields too) as 64 bits: zero-extended, or sign-extended when signed.
 * -EINVAL for other kinds. */
int kiln_event_field_u64(const struct kiln_event_field *f, const void *data, uint64_t *out);
int kiln_event_field_i64(const struct kiln_event_field *f, const void *data, int64_t *out);
/* A CHARS field copied NUL-terminated into buf (cut at len); returns buf. */
const char *kiln_event_field_str(const struct kiln_event_field *f, const void *data, char *buf, size_t len);
/* The integer field `name` of a record of `size` bytes: -ENOENT if no such field, -EINVAL if
 * it is not an integer, -ERANGE if the record is too short for it. */
int kiln_event_get(const struct kiln_event *ev, const void *data, size_t size, const char *name, uint64_t *out);

struct kiln_event_fmt {
	size_t sz;                  /* sizeof(struct kiln_event_fmt) */
	bool json;                  /* a JSON object; otherwise NAME field=value ... */
	int cpu;                    /* >= 0: add "cpu" (perf buffers know it); 0 is a cpu, so set
				     * -1 when there is none */
	struct kiln_map *stacks;    /* the :stack-trace map stack-id fields point into */
	struct kiln_syms *syms;     /* symbolizer for them (NULL: stacks print as ids) */
	const char *pid_field;      /* whose user stacks (default "pid", then "tgid") */
	int max_frames;             /* frames per stack (default all) */
};

/* One record decoded: text is `NAME field=value ...` with strings quoted only when they need
 * it, IPv4/IPv6 fields as addresses, and each symbolized stack on indented lines after it;
 * JSON is one line, {"event":NAME,["cpu":N,]field:value,...}, char arrays as strings, other
 * arrays as arrays, stacks as arrays of "func+0x1a [module]" (null when the program got no
 * stack, or it cannot be read). Padding fields are left out. A record shorter than the layout
 * decodes the fields it holds, and says "truncated". Returns the length of the whole output
 * (snprintf's convention: it is cut at len, NUL-terminated when len > 0), or -errno. */
int kiln_event_format(const struct kiln_event *ev, const void *data, size_t size,
		      const struct kiln_event_fmt *opts, char *buf, size_t len);
/* The same, written to f followed by a newline. 0 or -errno. */
int kiln_event_print(FILE *f, const struct kiln_event *ev, const void *data, size_t size,
		     const struct kiln_event_fmt *opts);

#ifdef __cplusplus
}
#endif
#endif
