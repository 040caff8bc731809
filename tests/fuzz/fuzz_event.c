/* fuzz_event.c — libFuzzer harness for the event decoder (src/lib/event.c): layouts read from
 * BTF, and records decoded to text and JSON. The input is a BTF blob and a record:
 *
 *     u32 n (little-endian) | n bytes of BTF | the record (the rest)
 *
 * (n larger than what follows takes all of it, with an empty record). Every named struct and
 * union of the BTF, the struct the record's size guesses, and the layout each variable's
 * kiln.event tag names are decoded, checking what event.h promises: the length returned is
 * the length written when it fits, a short buffer holds a prefix of the same text, and the
 * accessors read only within a record long enough for the field. */
#include "kiln/event.h"
#include <bpf/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TYPES 256   /* layouts tried per input, to keep an iteration quick */

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_event: %s\n", what);
		abort();
	}
}

static void decode(const struct kiln_event *ev, const uint8_t *rec, size_t rlen)
{
	static char big[1 << 16];
	char small[13];
	for (int json = 0; json < 2; json++) {
		struct kiln_event_fmt fmt = { .sz = sizeof(fmt), .json = json, .cpu = json ? 3 : -1 };
		int n = kiln_event_format(ev, rec, rlen, &fmt, big, sizeof(big));
		if (n < 0)
			continue;
		if ((size_t)n < sizeof(big))
			check(strlen(big) == (size_t)n, "the length returned is not the length written");
		int m = kiln_event_format(ev, rec, rlen, &fmt, small, sizeof(small));
		check(m == n, "a short buffer changed the length returned");
		check(strlen(small) < sizeof(small) && !strncmp(big, small, strlen(small)),
		      "a short buffer does not hold a prefix of the text");
		kiln_event_print(sink(), ev, rec, rlen, &fmt);
	}
	for (size_t i = 0; i < kiln_event_field_count(ev); i++) {
		const struct kiln_event_field *f = kiln_event_field(ev, i);
		check(f != NULL, "a field index below the count has no field");
		uint64_t v;
		char s[32];
		kiln_event_get(ev, rec, rlen, f->name, &v);
		if ((size_t)f->offset + f->size > rlen)
			continue;
		kiln_event_field_u64(f, rec, &v);
		if (f->kind == KILN_FIELD_CHARS)
			kiln_event_field_str(f, rec, s, sizeof(s));
		check(kiln_event_field_by_name(ev, f->name) != NULL, "a field is not found by its name");
	}
	kiln_field_kind_name((enum kiln_field_kind)rlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	uint32_t n;
	memcpy(&n, data, 4);
	if (n > size - 4)
		n = (uint32_t)(size - 4);
	size_t rlen = size - 4 - n;
	struct btf *btf = btf__new(data + 4, n);
	if (!btf)
		return 0;
	/* the record in a buffer of its exact size, so that a read past it is caught */
	uint8_t *rec = malloc(rlen ? rlen : 1);
	struct kiln_events *evs = NULL;
	if (!rec || kiln_events_from_btf(btf, &evs)) {
		free(rec);
		btf__free(btf);
		return 0;
	}
	memcpy(rec, data + 4 + n, rlen);
	uint32_t ntypes = btf__type_cnt(btf), tried = 0;
	for (uint32_t id = 1; id < ntypes && tried < MAX_TYPES; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (!name || !*name)
			continue;
		const struct kiln_event *ev = NULL;
		if (btf_is_composite(t))
			ev = kiln_events_find(evs, name);
		else if (btf_is_var(t))
			ev = kiln_events_for_map(evs, name);
		else
			continue;
		tried++;
		if (ev)
			decode(ev, rec, rlen);
	}
	const struct kiln_event *ev = kiln_events_for_size(evs, rlen);
	if (ev)
		decode(ev, rec, rlen);
	kiln_events_free(evs);
	btf__free(btf);
	free(rec);
	return 0;
}
