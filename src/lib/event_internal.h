/* event_internal.h — what event.c lends the rest of libkiln: a layout's insides, which the
 * printer (value.c) walks, and the reading of one BTF type as a field, which the printer and
 * the parser of typed keys and values (map_parse.c) go by. */
#ifndef KL_LIB_EVENT_INTERNAL_H
#define KL_LIB_EVENT_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A layout: its fields in order, anonymous members' flattened into it (what the accessors and
 * the parser go by; the printer walks the BTF type itself). */
struct kiln_event {
	struct kiln_event *next;
	uint32_t type_id;
	char *name;
	uint32_t size;
	size_t nfields, cap;
	size_t weight;                  /* fields, with those of nested layouts: the work of
					 * decoding a record, bounded by MAX_WEIGHT */
	struct kiln_event_field *fields;
	const struct btf *btf;          /* the BTF it was read from, which the printer walks */
	const struct kiln_event_field *pid;   /* the default pid field ("pid", else "tgid") */
	/* how the printer walks a record (KILN_VALUE_FIELDS): the printer's to make, on the first
	 * record decoded, once (compare-and-swap), never changed after; freed with the layout
	 * by plan_free, which the printer sets with it (so this file calls nothing above it) */
	struct kl_value_plan *plan;
	void (*plan_free)(struct kl_value_plan *);
	bool plan_failed;               /* out of memory making it: records take the walk */
};

/* The names a layout's padding members start with ("_", "pad", "reserved"): decoded records
 * leave them out (the printer's KILN_VALUE_FIELDS style hides them by this list). */
extern const char *const kl_event_padding[];

/* The bits bits (1 to 64) from bit `bit` of p, little-endian as the programs stored them. */
static inline uint64_t kl_load_bits(const uint8_t *p, uint32_t bit, uint32_t bits)
{
	uint32_t shift = bit % 8, n = (shift + bits + 7) / 8;
	unsigned __int128 all = 0;
	memcpy(&all, p + bit / 8, n > 16 ? 16 : n);
	uint64_t v = (uint64_t)(all >> shift);
	return bits < 64 ? v & ((1ull << bits) - 1) : v;
}

/* v's low `bits` bits as a signed number (0 or 64 and more: v itself). */
static inline int64_t kl_sign_extend(uint64_t v, uint32_t bits)
{
	if (bits >= 64 || !bits)
		return (int64_t)v;
	unsigned shift = 64 - bits;
	return (int64_t)(v << shift) >> shift;
}

/* BTF type type_id read as the decoder reads a field (kind, size, signedness, nested layout),
 * at offset 0: what kiln_map_parse_key/_value write values by (map_parse.c). 0 or -errno. */
struct kiln_event_field;
int kl_event_classify(struct kiln_events *evs, uint32_t type_id, struct kiln_event_field *f);

#endif
