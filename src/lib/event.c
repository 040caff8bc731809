/* event.c — event layouts read from an object's BTF and field accessors. A record decoded to
 * a text or JSON line is value.c's (kiln_event_format, kiln_event_print), above this file. A
 * layout is built the first time a struct is asked for and kept with the others of its BTF. */
#define _GNU_SOURCE
#include "kiln/event.h"
#include "kiln/object.h"
#include "event_internal.h"
#include "fail.h"
#include "utf8.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING 8
#define MAX_WEIGHT (1 << 16)   /* fields of a layout, nested layouts' fields counted in */

struct kiln_events {
	const struct btf *btf;
	struct kiln_object *owned;      /* kiln_events_from_file's object */
	struct kiln_event *list;
};

/* ---- building layouts from BTF --------------------------------------------------------- */

const char *const kl_event_padding[] = { "_", "pad", "reserved", NULL };

static bool padding(const char *name)
{
	for (const char *const *h = kl_event_padding; *h; h++)
		if (!strncmp(name, *h, strlen(*h)))
			return true;
	return false;
}

static const struct {
	const char *name;
	enum kiln_field_kind kind;
} typedef_kinds[] = {
	{ "ipv4_addr", KILN_FIELD_IPV4 },
	{ "ipv6_addr", KILN_FIELD_IPV6 },
	{ "kstack_id", KILN_FIELD_KSTACK },
	{ "ustack_id", KILN_FIELD_USTACK },
};

static const char *const kind_names[] = {
	[KILN_FIELD_INT] = "int",       [KILN_FIELD_CHARS] = "chars", [KILN_FIELD_ARRAY] = "array",
	[KILN_FIELD_IPV4] = "ipv4",     [KILN_FIELD_IPV6] = "ipv6",   [KILN_FIELD_KSTACK] = "kstack",
	[KILN_FIELD_USTACK] = "ustack", [KILN_FIELD_STRUCT] = "struct", [KILN_FIELD_PTR] = "ptr",
	[KILN_FIELD_BYTES] = "bytes",
};

const char *kiln_field_kind_name(enum kiln_field_kind kind)
{
	return (unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "?";
}

static struct kiln_event *layout_of(struct kiln_events *evs, uint32_t id, int depth);
static bool is_integer(const struct kiln_event_field *f);

/* Skip const/volatile/restrict (and typedefs unless they name one of kiln's kinds). NULL for
 * a chain longer than MAX_RESOLVE: a loop (a typedef of itself) or no sane BTF. */
#define MAX_RESOLVE 32
static const struct btf_type *resolve(const struct btf *btf, uint32_t *id, enum kiln_field_kind *special)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	for (int steps = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); steps++) {
		if (steps == MAX_RESOLVE)
			return NULL;
		if (btf_is_typedef(t) && special) {
			const char *n = btf__name_by_offset(btf, t->name_off);
			for (size_t i = 0; n && i < sizeof(typedef_kinds) / sizeof(typedef_kinds[0]); i++)
				if (!strcmp(n, typedef_kinds[i].name))
					*special = typedef_kinds[i].kind;
		}
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static bool is_char(const struct btf *btf, const struct btf_type *t)
{
	if (!btf_is_int(t) || t->size != 1)
		return false;
	const char *n = btf__name_by_offset(btf, t->name_off);
	return (btf_int_encoding(t) & BTF_INT_CHAR) || (n && !strcmp(n, "char"));
}

static int add_field(struct kiln_event *ev, const struct kiln_event_field *f)
{
	ev->weight += 1 + (f->sub ? f->sub->weight : 0);
	if (ev->weight > MAX_WEIGHT)
		return -E2BIG;
	if (ev->nfields == ev->cap) {
		size_t cap = ev->cap ? ev->cap * 2 : 8;
		struct kiln_event_field *nf = realloc(ev->fields, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		ev->fields = nf;
		ev->cap = cap;
	}
	ev->fields[ev->nfields++] = *f;
	return 0;
}

/* A field of BTF type tid at bit offset bits (a bitfield of bsz bits, 0 for none) into f,
 * whose name the caller has set: its kind, size and layout. */
static int classify(struct kiln_events *evs, uint32_t tid, uint32_t bits, uint32_t bsz, int depth,
		    struct kiln_event_field *f)
{
	const struct btf *btf = evs->btf;
	enum kiln_field_kind kind = KILN_FIELD_BYTES, sk = KILN_FIELD_BYTES;
	f->btf = btf;
	f->type_id = tid;
	const struct btf_type *mt = resolve(btf, &tid, &sk);
	if (!mt)
		return -EINVAL;
	bool special = sk != KILN_FIELD_BYTES;   /* one of kiln's typedefs */
	f->offset = bits / 8;
	f->count = 1;
	if (bsz || bits % 8) {
		f->bit_offset = bits;
		f->bit_size = bsz ? bsz : (uint32_t)btf__resolve_size(btf, tid) * 8;
	}
	long long size = btf__resolve_size(btf, tid);
	if (size < 0)
		return (int)size;
	f->size = f->elem_size = (uint32_t)size;
	if (btf_is_int(mt) || btf_is_any_enum(mt)) {
		kind = KILN_FIELD_INT;
		f->is_signed = btf_is_int(mt) ? !!(btf_int_encoding(mt) & BTF_INT_SIGNED) : btf_kflag(mt);
		if (bsz)
			f->size = f->elem_size = (bsz + 7) / 8;
	} else if (btf_is_ptr(mt)) {
		kind = KILN_FIELD_PTR;
	} else if (btf_is_array(mt)) {
		const struct btf_array *a = btf_array(mt);
		uint32_t eid = a->type;
		const struct btf_type *et = resolve(btf, &eid, NULL);
		f->count = a->nelems;
		if (et && is_char(btf, et))
			kind = KILN_FIELD_CHARS, f->elem_size = 1;
		else if (et && (btf_is_int(et) || btf_is_any_enum(et)) && a->nelems && size / a->nelems) {
			/* (an array of zero-size elements stays raw bytes, none to print) */
			kind = KILN_FIELD_ARRAY;
			f->elem_size = (uint32_t)(size / a->nelems);
			f->is_signed = btf_is_int(et) ? !!(btf_int_encoding(et) & BTF_INT_SIGNED) : btf_kflag(et);
		}
	} else if (btf_is_composite(mt) || btf_is_datasec(mt)) {
		if (depth >= MAX_NESTING)
			return -ELOOP;
		kind = KILN_FIELD_STRUCT;
		f->sub = layout_of(evs, tid, depth + 1);
		if (!f->sub)
			return -errno;
	}
	if (special && ((sk == KILN_FIELD_IPV6 && f->size == 16) || (sk != KILN_FIELD_IPV6 && f->size == 4)))
		kind = sk;
	f->kind = kind;
	/* an integer not starting on a byte boundary is read from the bytes its bits span,
	 * one more than its own size when they cross one */
	if (f->bit_size && is_integer(f))
		f->size = f->elem_size = (f->bit_offset % 8 + f->bit_size + 7) / 8;
	return 0;
}

/* The variables of data section `t` (.rodata, .data, .bss) as fields of ev, by their names. */
static int add_vars(struct kiln_events *evs, struct kiln_event *ev, const struct btf_type *t, int depth)
{
	const struct btf *btf = evs->btf;
	const struct btf_var_secinfo *v = btf_var_secinfos(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);
		if (!var || !btf_is_var(var))
			return -EINVAL;
		const char *name = btf__name_by_offset(btf, var->name_off);
		struct kiln_event_field f = { .name = name ? name : "" };
		int err = classify(evs, var->type, v->offset * 8, 0, depth, &f);
		if (!err)
			err = add_field(ev, &f);
		if (err)
			return err;
	}
	return 0;
}

/* The members of struct/union `t` at bit offset `base` into ev; anonymous struct and union
 * members are flattened into it, as C reads them. A data section's are its variables. */
static int add_members(struct kiln_events *evs, struct kiln_event *ev, const struct btf_type *t,
		       uint32_t base, int depth)
{
	const struct btf *btf = evs->btf;
	if (btf_is_datasec(t))
		return add_vars(evs, ev, t, depth);
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t tid = m->type, bits = base + btf_member_bit_offset(t, i);
		const struct btf_type *mt = resolve(btf, &tid, NULL);
		if (!mt)
			return -EINVAL;
		const char *name = btf__name_by_offset(btf, m->name_off);
		if ((!name || !*name) && btf_is_composite(mt)) {
			if (depth >= MAX_NESTING)
				return -ELOOP;
			int err = add_members(evs, ev, mt, bits, depth + 1);
			if (err)
				return err;
			continue;
		}
		struct kiln_event_field f = { .name = name ? name : "" };
		f.is_padding = padding(f.name);
		int err = classify(evs, m->type, bits, btf_member_bitfield_size(t, i), depth, &f);
		if (!err)
			err = add_field(ev, &f);
		if (err)
			return err;
	}
	return 0;
}

static bool same_name(const char *a, const char *b);

/* The pid field: "pid", else "tgid". */
static void find_pid(struct kiln_event *ev)
{
	for (size_t i = 0; i < ev->nfields && !ev->pid; i++)
		if (same_name(ev->fields[i].name, "pid"))
			ev->pid = &ev->fields[i];
	for (size_t i = 0; i < ev->nfields && !ev->pid; i++)
		if (same_name(ev->fields[i].name, "tgid"))
			ev->pid = &ev->fields[i];
}

static void event_free(struct kiln_event *ev)
{
	free(ev->name);
	free(ev->fields);
	if (ev->plan)
		ev->plan_free(ev->plan);
	free(ev);
}

/* The layout of struct/union `id`, built once. NULL with errno set on failure. */
static struct kiln_event *layout_of(struct kiln_events *evs, uint32_t id, int depth)
{
	for (struct kiln_event *ev = evs->list; ev; ev = ev->next)
		if (ev->type_id == id)
			return ev;
	const struct btf_type *t = resolve(evs->btf, &id, NULL);
	if (!t || !(btf_is_composite(t) || btf_is_datasec(t))) {
		errno = EINVAL;
		return NULL;
	}
	for (struct kiln_event *ev = evs->list; ev; ev = ev->next)
		if (ev->type_id == id)
			return ev;
	struct kiln_event *ev = calloc(1, sizeof(*ev));
	const char *n = btf__name_by_offset(evs->btf, t->name_off);
	if (!ev || !(ev->name = strdup(n && *n ? n : "(anon)"))) {
		free(ev);
		errno = ENOMEM;
		return NULL;
	}
	ev->type_id = id;
	ev->btf = evs->btf;
	ev->size = t->size;
	int err = add_members(evs, ev, t, 0, depth);
	if (err) {
		event_free(ev);
		errno = -err;
		return NULL;
	}
	find_pid(ev);
	ev->next = evs->list;
	evs->list = ev;
	return ev;
}

int kiln_events_from_btf(const struct btf *btf, struct kiln_events **out)
{
	*out = NULL;
	if (!btf)
		return kl_fail_msg(EINVAL, "no BTF to read event layouts from");
	struct kiln_events *evs = calloc(1, sizeof(*evs));
	if (!evs)
		return kl_fail(ENOMEM, "event layouts");
	evs->btf = btf;
	*out = evs;
	return 0;
}

int kiln_events_from_object(const struct kiln_object *obj, struct kiln_events **out)
{
	struct btf *btf = bpf_object__btf(kiln_object_libbpf(obj));
	if (!btf) {
		*out = NULL;
		return kl_fail_msg(ENOENT, "object '%s' has no BTF, so no event layouts", kiln_object_name(obj));
	}
	return kiln_events_from_btf(btf, out);
}

int kiln_events_from_file(const char *path, struct kiln_events **out)
{
	struct kiln_object *obj;
	*out = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	if (err)
		return err;
	err = kiln_events_from_object(obj, out);
	if (err)
		kiln_object_close(obj);
	else
		(*out)->owned = obj;
	return err;
}

void kiln_events_free(struct kiln_events *evs)
{
	if (!evs)
		return;
	for (struct kiln_event *ev = evs->list, *next; ev; ev = next) {
		next = ev->next;
		event_free(ev);
	}
	kiln_object_close(evs->owned);
	free(evs);
}

/* Names compare with '-' and '_' the same, so the source's spelling works. A name BTF does
 * not have (NULL) matches none. */
static bool same_name(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

const struct kiln_event *kiln_events_find(struct kiln_events *evs, const char *name)
{
	uint32_t n = btf__type_cnt(evs->btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(evs->btf, id);
		if (btf_is_composite(t) && same_name(btf__name_by_offset(evs->btf, t->name_off), name)) {
			struct kiln_event *ev = layout_of(evs, id, 0);
			if (!ev)
				kl_fail(errno, "reading the layout of '%s' from BTF", name);
			return ev;
		}
	}
	kl_fail_msg(ENOENT, "no struct '%s' in the object's BTF", name);
	return NULL;
}

const struct kiln_event *kiln_events_for_map(struct kiln_events *evs, const char *map_name)
{
	static const char prefix[] = "kiln.event:";
	uint32_t n = btf__type_cnt(evs->btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(evs->btf, id);
		if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1)
			continue;
		const char *tag = btf__name_by_offset(evs->btf, t->name_off);
		const struct btf_type *var = btf__type_by_id(evs->btf, t->type);
		if (!tag || strncmp(tag, prefix, sizeof(prefix) - 1) || !var || !btf_is_var(var) ||
		    !same_name(btf__name_by_offset(evs->btf, var->name_off), map_name))
			continue;
		return kiln_events_find(evs, tag + sizeof(prefix) - 1);
	}
	kl_fail_msg(ENOENT, "map '%s' names no event layout (no kiln.event decl tag)", map_name);
	return NULL;
}

const struct kiln_event *kiln_events_for_size(struct kiln_events *evs, size_t size)
{
	uint32_t n = btf__type_cnt(evs->btf), found = 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(evs->btf, id);
		const char *name = btf__name_by_offset(evs->btf, t->name_off);
		if (btf_is_struct(t) && t->size == size && name && *name) {
			if (found) {
				kl_fail_msg(ENOTUNIQ, "more than one struct of %zu bytes", size);
				return NULL;
			}
			found = id;
		}
	}
	if (!found) {
		kl_fail_msg(ENOENT, "no struct of %zu bytes", size);
		return NULL;
	}
	struct kiln_event *ev = layout_of(evs, found, 0);
	if (!ev)
		kl_fail(errno, "reading the layout of a %zu-byte struct from BTF", size);
	return ev;
}

const char *kiln_event_name(const struct kiln_event *ev) { return ev->name; }
size_t kiln_event_size(const struct kiln_event *ev) { return ev->size; }
size_t kiln_event_field_count(const struct kiln_event *ev) { return ev->nfields; }

const struct kiln_event_field *kiln_event_field(const struct kiln_event *ev, size_t i)
{
	return i < ev->nfields ? &ev->fields[i] : NULL;
}

const struct kiln_event_field *kiln_event_field_by_name(const struct kiln_event *ev, const char *name)
{
	for (size_t i = 0; i < ev->nfields; i++)
		if (same_name(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

/* ---- accessors ------------------------------------------------------------------------- */

static bool is_integer(const struct kiln_event_field *f)
{
	return f->kind == KILN_FIELD_INT || f->kind == KILN_FIELD_IPV4 || f->kind == KILN_FIELD_KSTACK ||
	       f->kind == KILN_FIELD_USTACK || f->kind == KILN_FIELD_PTR;
}

/* Little-endian loads: the host's order, as the programs stored them. */
static uint64_t load_bits(const struct kiln_event_field *f, const uint8_t *p)
{
	uint64_t v = 0;
	if (!f->bit_size) {
		memcpy(&v, p + f->offset, f->size < 8 ? f->size : 8);
		return v;
	}
	return kl_load_bits(p, f->bit_offset, f->bit_size);
}

static uint32_t field_bits(const struct kiln_event_field *f)
{
	return f->bit_size ? f->bit_size : f->size * 8;
}

int kiln_event_field_u64(const struct kiln_event_field *f, const void *data, uint64_t *out)
{
	if (!is_integer(f))
		return kl_fail_msg(EINVAL, "field '%s' is %s, not an integer", f->name, kiln_field_kind_name(f->kind));
	uint64_t v = load_bits(f, data);
	*out = f->is_signed ? (uint64_t)kl_sign_extend(v, field_bits(f)) : v;
	return 0;
}

int kiln_event_field_i64(const struct kiln_event_field *f, const void *data, int64_t *out)
{
	uint64_t v;
	int err = kiln_event_field_u64(f, data, &v);
	if (!err)
		*out = (int64_t)v;
	return err;
}

const char *kiln_event_field_str(const struct kiln_event_field *f, const void *data, char *buf, size_t len)
{
	if (!len)
		return buf;
	const char *s = (const char *)data + f->offset;
	size_t n = strnlen(s, f->size);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

int kiln_event_get(const struct kiln_event *ev, const void *data, size_t size, const char *name, uint64_t *out)
{
	const struct kiln_event_field *f = kiln_event_field_by_name(ev, name);
	if (!f)
		return kl_fail_msg(ENOENT, "event '%s' has no field '%s'", ev->name, name);
	if ((size_t)f->offset + f->size > size)
		return kl_fail_msg(ERANGE, "a %zu-byte record does not reach field '%s' (bytes %u..%u)", size, name,
				   f->offset, f->offset + f->size);
	return kiln_event_field_u64(f, data, out);
}

int kl_event_classify(struct kiln_events *evs, uint32_t type_id, struct kiln_event_field *f)
{
	*f = (struct kiln_event_field){ .name = "" };
	int err = classify(evs, type_id, 0, 0, 0, f);
	return err ? kl_fail(err, "reading BTF type %u", type_id) : 0;
}
