/* globals.c — an object's global variables (kiln's defparameter and defvar, C's globals):
 * libbpf's .rodata, .data and .bss maps, whose one value is the section, described by its BTF
 * DATASEC. Before load, a variable is set by name from text, parsed through its BTF type as map
 * keys and values are (map_parse.c): what `kiln run --set NAME=VALUE` and a skeleton's settings
 * do. A name matches with dashes or underscores alike (target-pid is target_pid). */
#include "kiln/object.h"
#include "kiln/event.h"
#include "kiln/value.h"
#include "fail.h"
#include "event_internal.h"
#include "map_internal.h"
#include "object_internal.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
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

/* The bytes libbpf keeps for a data section's map: its value rounded up to 8, to a page */
static size_t mapped_size(const struct bpf_map *m)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = ((size_t)bpf_map__value_size(m) + 7) / 8 * 8;
	return (n + page - 1) / page * page;
}

/* After load, m's bytes (bpf_map__initial_value) become the map's own, shared with the kernel
 * (.rodata read-only), as a libbpf skeleton's are: mapped over libbpf's copy, which libbpf
 * unmaps at close whatever is mapped there. Again on a later call: the same mapping. A failure
 * (a kernel without mmapable arrays) leaves the copy. */
static void map_live(struct bpf_map *m, void *p)
{
	if (!(bpf_map__map_flags(m) & BPF_F_MMAPABLE) || bpf_map__fd(m) < 0)
		return;
	int prot = bpf_map__map_flags(m) & BPF_F_RDONLY_PROG ? PROT_READ : PROT_READ | PROT_WRITE;
	mmap(p, mapped_size(m), prot, MAP_SHARED | MAP_FIXED, bpf_map__fd(m), 0);
}

void *kiln_object_global_data(struct kiln_object *obj, const char *section, size_t *size)
{
	struct bpf_object *bo = kiln_object_libbpf(obj);
	struct bpf_map *m;
	if (bo)
		bpf_object__for_each_map(m, bo) {
			struct btf *btf = bpf_object__btf(bo);
			const struct btf_type *t = btf ? btf__type_by_id(btf, bpf_map__btf_value_type_id(m)) : NULL;
			const char *n = t && btf_is_datasec(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
			if (!is_data_map(m) || !n || strcmp(n, section))
				continue;
			size_t sz;
			void *p = (void *)bpf_map__initial_value(m, &sz);
			if (p)
				map_live(m, p);
			if (size)
				*size = sz;
			return p;
		}
	kl_fail_msg(-ENOENT, "object '%s' has no data section %s", kiln_object_name(obj), section);
	return NULL;
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

/* ---- a loaded or pinned object's variables, through its data section's map ---------------- */

/* m's data section layout (owned by m): 0, or -ENOENT (m is no data section: message set), or
 * another negative errno */
static int map_section(struct kiln_map *m, const struct kiln_event **out)
{
	int err = kl_map_need_info(m);
	struct kl_map_extra *x = err ? NULL : kl_map_extra(m);
	if (err || !x || (err = kl_map_load_btf(m, x)))
		return err ? err : -ENOMEM;
	const struct kiln_map_info *info = kiln_map_info(m);
	const struct btf_type *t = x->btf ? btf__type_by_id(x->btf, info->btf_value_type_id) : NULL;
	struct kiln_event_field sec;
	if (!t || !btf_is_datasec(t) || info->type != BPF_MAP_TYPE_ARRAY || info->max_entries != 1 ||
	    kl_event_classify(x->layouts, info->btf_value_type_id, &sec) || sec.kind != KILN_FIELD_STRUCT)
		return kl_fail_msg(-ENOENT, "%s is not a data section (.rodata, .data, .bss) with variables by name",
				   kl_map_label(m));
	*out = sec.sub;
	return 0;
}

/* m's variable name: its field in the map's layouts (owned by m) */
static int map_var(struct kiln_map *m, const char *name, const struct kiln_event_field **out)
{
	const struct kiln_event *sec;
	int err = map_section(m, &sec);
	if (err)
		return err;
	*out = kiln_event_field_by_name(sec, name);
	return *out ? 0 : kl_fail_msg(-ENOENT, "%s has no variable '%s'", kl_map_label(m), name);
}

bool kiln_map_is_data_section(struct kiln_map *m)
{
	const struct kiln_event *sec;
	return !map_section(m, &sec);
}

int kiln_map_get_var(struct kiln_map *m, const char *name, bool json, char *buf, size_t len)
{
	const struct kiln_event_field *f;
	int err = map_var(m, name, &f);
	if (err)
		return err;
	uint32_t key = 0;
	size_t size = kiln_map_value_buf_size(m);
	uint8_t *val = calloc(1, size + 8);
	if (!val)
		return kl_fail(ENOMEM, "reading %s", name);
	err = kiln_map_lookup(m, &key, val);
	if (!err) {
		/* as kiln map prints values: its BTF type in the C style */
		struct kiln_value_fmt fmt = { .sz = sizeof(fmt), .json = json, .style = KILN_VALUE_C };
		int n = kiln_value_format(f->btf, f->type_id, val + f->offset, f->size, &fmt, buf, len);
		err = n < 0 ? kl_fail(n, "printing %s", name) : 0;
	}
	free(val);
	return err;
}

int kiln_map_set_var(struct kiln_map *m, const char *name, const char *text)
{
	const struct kiln_event_field *f;
	int err = map_var(m, name, &f);
	if (err)
		return err;
	uint32_t key = 0;
	uint8_t *val = calloc(1, kiln_map_value_buf_size(m) + 8);
	char what[160];
	if (!val)
		return kl_fail(ENOMEM, "setting %s", name);
	snprintf(what, sizeof(what), "variable '%s'", name);
	if (!(err = kiln_map_lookup(m, &key, val)) && !(err = kl_parse_field(f, what, text, val)) &&
	    (err = kiln_map_update(m, &key, val, BPF_ANY)) && (kiln_map_info(m)->flags & BPF_F_RDONLY_PROG))
		err = kl_fail_msg(err, "variable '%s' is in %s, which is read-only once loaded (a defparameter or a "
				  "const: set it before load, with --set)", name, kl_map_label(m));
	free(val);
	return err;
}
