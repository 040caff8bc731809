/* globals.c — an object's global variables (kiln's defparameter and defvar, C's globals):
 * libbpf's .rodata, .data and .bss maps, whose one value is the section, described by its BTF
 * DATASEC. Before load, a variable is set by name from text, parsed through its BTF type as map
 * keys and values are (map_parse.c): what `kiln run --set NAME=VALUE` and a skeleton's settings
 * do. A name matches with dashes or underscores alike (target-pid is target_pid). */
#include "kiln/object.h"
#include "kiln/event.h"
#include "fail.h"
#include "event_internal.h"
#include "map_internal.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The data section maps' variables, found by name: the map, the field and its section's layout
 * owner (evs, freed by the caller). 0, or -ENOENT with *names the ones there are. */
struct found {
	struct bpf_map *map;
	const struct kiln_event_field *f;
};

static bool is_data_map(const struct bpf_map *m)
{
	return bpf_map__is_internal(m) && bpf_map__type(m) == BPF_MAP_TYPE_ARRAY && bpf_map__btf_value_type_id(m);
}

/* name's variable in obj's data sections into *out; names: those there are, for the message */
static int find_var(struct bpf_object *bo, struct kiln_events *evs, const char *name, struct found *out,
		    char *names, size_t len)
{
	size_t at = 0;
	names[0] = 0;
	struct bpf_map *m;
	bpf_object__for_each_map(m, bo) {
		if (!is_data_map(m))
			continue;
		struct kiln_event_field sec;
		if (kl_event_classify(evs, bpf_map__btf_value_type_id(m), &sec) || sec.kind != KILN_FIELD_STRUCT)
			continue;
		const struct kiln_event_field *f = kiln_event_field_by_name(sec.sub, name);
		if (f) {
			*out = (struct found){ m, f };
			return 0;
		}
		for (size_t i = 0; i < kiln_event_field_count(sec.sub) && at < len; i++) {
			int n = snprintf(names + at, len - at, "%s%s", at ? ", " : "", kiln_event_field(sec.sub, i)->name);
			at += n > 0 ? (size_t)n : 0;
		}
	}
	return -ENOENT;
}

int kiln_object_set_global(struct kiln_object *obj, const char *name, const char *text)
{
	struct bpf_object *bo = kiln_object_libbpf(obj);
	struct btf *btf = bo ? bpf_object__btf(bo) : NULL;
	if (!btf)
		return kl_fail_msg(-ENOENT, "setting '%s': object '%s' has no BTF, so no global variables", name,
				   kiln_object_name(obj));
	struct kiln_events *evs;
	int err = kiln_events_from_btf(btf, &evs);
	if (err)
		return err;
	struct found v;
	char names[512], what[160];
	err = find_var(bo, evs, name, &v, names, sizeof(names));
	if (err) {
		err = kl_fail_msg(-ENOENT, "setting '%s': object '%s' has no such global variable (%s%s)", name,
				  kiln_object_name(obj), names[0] ? "its globals: " : "it has none", names);
	} else if (bpf_map__fd(v.map) >= 0) {
		err = kl_fail_msg(-EBUSY, "setting '%s': the object is loaded already; settings are made before load",
				  name);
	} else {
		/* a copy changed and given back (libbpf 1.1 hands the initial value out read-only) */
		size_t size = 0;
		const void *now = bpf_map__initial_value(v.map, &size);
		uint8_t *data = now && size ? malloc(size) : NULL;
		snprintf(what, sizeof(what), "setting '%s'", name);
		if (!data || (size_t)v.f->offset + v.f->size > size) {
			err = kl_fail_msg(data ? -EINVAL : -ENOMEM, "setting '%s': its section %s holds %zu bytes, short of it",
					  name, bpf_map__name(v.map), size);
		} else {
			memcpy(data, now, size);
			err = kl_parse_field(v.f, what, text, data);
			if (!err && (err = bpf_map__set_initial_value(v.map, data, size)))
				err = kl_fail(err, "setting '%s'", name);
		}
		free(data);
	}
	kiln_events_free(evs);
	return err;
}
