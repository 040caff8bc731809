/* forms.c — the top-level forms: defconstant, defmap, defstruct, defevent, defun and defprog
 * are checked and recorded here (their tables and constant expressions are defs.c's). */
#define _GNU_SOURCE
#include "compile.h"
#include "forms.h"
#include "defs.h"
#include "core.h"
#include "kbtf.h"
#include "ksyms.h"
#include "expand.h"
#include "names.h"
#include "prelude.h"
#include "struct_ops.h"
#include "tracefs.h"
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int form_error(struct kl_comp *c, const struct kl_node *n, const char *what)
{
	char buf[160];
	kl_node_str(n, buf, sizeof(buf));
	return kl_error(c->d, n->span, "%s: %s", what, buf);
}

/* name is taken by a definition spelled old at `at`: defined twice, or spelled differently in
 * case only. Common Lisp's reader would make the two one symbol; kiln's keeps each spelling for
 * the object, so it cannot pick one: it names both. */
static int case_clash(struct kl_comp *c, struct kl_span sp, const char *what, const char *name,
		      const char *old, struct kl_span at)
{
	return kl_error(c->d, sp, "%s '%s' differs only in case from '%s' at %s:%u:%u; names match without "
			"regard to case (as Common Lisp reads them), so rename one", what, name, old,
			at.src ? at.src->path : "?", at.line, at.col);
}

static int taken(struct kl_comp *c, const struct kl_node *n, const char *what, const char *old,
		 struct kl_span at)
{
	const char *name = kl_name(n);
	if (!strcmp(old, name))
		return kl_error(c->d, n->span, "%s '%s' is defined twice", what, name);
	return case_clash(c, n->span, what, name, old, at);
}

#define PUSH_NAMED(c, vec, table, x) do {                                                     \
	kl_vec_push((c)->a, &(c)->vec, (x));                                                  \
	kl_names_put((c)->a, &kl_name_index(c)->table, (c)->vec.items[(c)->vec.len - 1].name,   \
		     (uint32_t)((c)->vec.len - 1));                                           \
} while (0)

/* ---- defmap ---- */

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* defmap's options: what follows each keyword (NULL: not given). */
struct map_opts {
	const struct kl_node *type, *key_size, *value_size, *key, *value, *max_entries, *map_flags,
		*pinning, *inner_map, *value_type, *event, *display;
};

#define MAP_OPTION(name, field) { name, offsetof(struct map_opts, field) }
static const struct { const char *name; size_t at; } map_options[] = {
	MAP_OPTION("type", type), MAP_OPTION("key-size", key_size), MAP_OPTION("value-size", value_size),
	MAP_OPTION("key", key), MAP_OPTION("value", value), MAP_OPTION("max-entries", max_entries),
	MAP_OPTION("map-flags", map_flags), MAP_OPTION("pinning", pinning),
	MAP_OPTION("inner-map", inner_map), MAP_OPTION("value-type", value_type),
	MAP_OPTION("event", event), MAP_OPTION("display", display),
};
#undef MAP_OPTION

/* A BTF DATASEC's vlen, its variable count, is 16 bits; the drop counters of ring buffers
 * are maps too. */
#define MAX_MAPS 32767

/* :display :log2-hist (the map's key is (log2 x), its value a u64 count) or :display
 * (:linear-hist LO HI STEP) (the key (x - LO) / STEP, from HI on one bucket): how `kiln run`
 * draws the map, as bpftrace's hist() and lhist(). */
static int map_display(struct kl_comp *c, struct kl_mapdef *md, const struct kl_node *d)
{
	const struct kl_type *k = md->m.key, *v = md->m.value;
	bool counts = k && v && k->kind == KL_T_INT && k->size <= 8 && v->kind == KL_T_INT && v->size == 8;
	if (kl_is_key(d, "log2-hist")) {
		md->m.display = "log2-hist";
	} else if (d->kind == KL_N_LIST && d->nitems == 4 && kl_is_key(d->items[0], "linear-hist")) {
		int64_t lo, hi, step;
		if (kl_const_eval(c, d->items[1], &lo) || kl_const_eval(c, d->items[2], &hi) ||
		    kl_const_eval(c, d->items[3], &step))
			return -1;
		if (step <= 0 || hi <= lo || (hi - lo) / step > 1000)
			return form_error(c, d, ":linear-hist needs LO < HI, STEP > 0 and at most 1000 buckets");
		char buf[80];
		snprintf(buf, sizeof(buf), "linear-hist:%lld:%lld:%lld", (long long)lo, (long long)hi, (long long)step);
		md->m.display = kl_arena_strdup(c->a, buf);
	} else {
		return form_error(c, d, ":display must be :log2-hist or (:linear-hist LO HI STEP)");
	}
	if (!counts)
		return form_error(c, d, ":display draws a histogram: the map needs an integer :key (the bucket) "
				  "and a u64 :value (its count)");
	return 0;
}

/* The :keyword value pairs after the name, each into its field of o. */
static int map_read_opts(struct kl_comp *c, const struct kl_node *n, struct map_opts *o)
{
	const size_t nopts = sizeof(map_options) / sizeof(map_options[0]);
	memset(o, 0, sizeof(*o));
	if ((n->nitems - 2) % 2)
		return form_error(c, n, "defmap options come in :keyword value pairs");
	for (uint32_t i = 2; i + 1 < n->nitems; i += 2) {
		struct kl_node *k = n->items[i];
		size_t j;
		for (j = 0; k->kind == KL_N_KEY && j < nopts; j++)
			if (!strcmp(map_options[j].name, k->str))
				break;
		if (k->kind != KL_N_KEY || j == nopts) {
			char buf[64];
			kl_node_str(k, buf, sizeof(buf));
			return kl_error(c->d, k->span, "unknown defmap option '%s' (expected :type, :key, :value, "
					":key-size, :value-size, :value-type, :max-entries, :map-flags, :pinning, :inner-map, :event or :display)", buf);
		}
		const struct kl_node **slot = (const struct kl_node **)((char *)o + map_options[j].at);
		if (*slot)
			return kl_error(c->d, k->span, "defmap option ':%s' given twice", map_options[j].name);
		*slot = n->items[i + 1];
	}
	if (o->value_type) {   /* Whistler's :value-type STRUCT is :value STRUCT */
		if (o->value)
			return kl_error(c->d, o->value_type->span, "give :value or :value-type, not both");
		o->value = o->value_type;
	}
	return 0;
}

/* :type, then :max-entries, :map-flags and :pinning. */
static int map_kind(struct kl_comp *c, const struct kl_node *n, const struct map_opts *o, struct kl_mapdef *md)
{
	const struct kl_node *tn = o->type, *me = o->max_entries, *pin = o->pinning;
	if (!tn)
		return kl_error(c->d, n->span, "defmap '%s' needs :type", md->name);
	if (tn->kind != KL_N_KEY || !(md->mt = kl_map_type_find(tn->str))) {
		char buf[64];
		kl_node_str(tn, buf, sizeof(buf));
		return kl_error(c->d, tn->span, "unknown map type '%s' (expected :hash, :array, :percpu-hash, "
				":percpu-array, :ringbuf, :prog-array, :lpm-trie, :lru-hash, ...)", buf);
	}
	/* a perf-event array without :max-entries gets one slot per possible cpu from the loader;
	 * local storage has none (an element per task, socket or inode, as long as it lives) */
	const char *storage = md->mt->storage_per;
	if (!me && !md->mt->slots_per_cpu && !storage)
		return kl_error(c->d, n->span, "defmap '%s' needs :max-entries", md->name);
	int64_t v = 0;
	if (me && kl_const_eval(c, me, &v))
		return -1;
	if (me && storage && v)
		return kl_error(c->d, me->span, "a :%s map has no :max-entries (it holds one value per %s, as "
				"long as that lives): remove it", md->mt->keyword, storage);
	if (me && !storage && (v <= 0 || v > UINT32_MAX))
		return kl_error(c->d, me->span, ":max-entries %lld is out of range", (long long)v);
	md->m.max_entries = (uint32_t)v;
	if (o->map_flags) {
		if (kl_const_eval(c, o->map_flags, &v))
			return -1;
		md->m.map_flags = (uint32_t)v;
	}
	if (pin) {
		if (kl_is_key(pin, "by-name"))
			md->m.pinning = 1;
		else if (!kl_is_key(pin, "none"))
			return form_error(c, pin, ":pinning must be :by-name or :none");
	}
	md->m.type = md->mt->map_type;
	md->m.sizes_only = md->mt->sizes_only;
	return 0;
}

/* A map with neither key nor value (a ring buffer): no key or value options, and a ring
 * buffer's size in whole pages. */
static int map_no_key_value(struct kl_comp *c, const struct map_opts *o, struct kl_mapdef *md)
{
	/* Whistler writes :key-size 0 :value-size 0 on a ring buffer: zero sizes say nothing */
	const struct kl_node *ks = o->key_size, *vs = o->value_size;
	int64_t z = 0;
	if (ks && !kl_const_eval(c, ks, &z) && !z)
		ks = NULL;
	if (vs && !kl_const_eval(c, vs, &z) && !z)
		vs = NULL;
	if (c->d->nerrors)
		return -1;
	const struct kl_node *bad = ks ? ks : vs ? vs : o->key ? o->key : o->value;
	if (bad)
		return kl_error(c->d, bad->span, "a :%s map has no key or value; remove :key/:value options",
				md->mt->keyword);
	if (md->mt->map_type == BPF_MAP_TYPE_RINGBUF &&
	    (!is_pow2(md->m.max_entries) || md->m.max_entries % 4096))
		return kl_error(c->d, o->max_entries->span, "ringbuf :max-entries %u must be a power of two and a "
				"multiple of the page size (4096)", md->m.max_entries);
	return 0;
}

/* The key (i 0) or the value (i 1): its type and size from :key/:value and :key-size/
 * :value-size, which must agree with each other and with what the map type requires. */
static int map_side(struct kl_comp *c, const struct kl_node *n, const struct kl_node *sz,
		    const struct kl_node *ty, int i, struct kl_mapdef *md)
{
	static const char *const what[2] = { "key", "value" };
	struct kl_type *type = NULL;
	uint32_t size = 0;
	if (ty) {
		if (!(type = kl_type_parse(c, ty)))
			return -1;
		size = type->size;
	}
	if (sz) {
		int64_t v;
		if (kl_const_eval(c, sz, &v))
			return -1;
		if (v <= 0 || v > 65536)
			return kl_error(c->d, sz->span, ":%s-size %lld is out of range", what[i], (long long)v);
		if (type && (uint32_t)v != size)
			return kl_error(c->d, sz->span, ":%s-size %lld does not match the size %u of :%s",
					what[i], (long long)v, size, what[i]);
		size = (uint32_t)v;
	}
	uint32_t need = i ? md->mt->value_size : md->mt->key_size;
	if (!size && need)
		size = need;
	if (!size)
		return kl_error(c->d, n->span, "defmap '%s' needs :%s or :%s-size", md->name, what[i], what[i]);
	if (need && size != need)
		return kl_error(c->d, (sz ? sz : ty)->span,
				"a :%s map's %s is %u bytes, not %u", md->mt->keyword, what[i], need, size);
	if (!type)
		type = kl_type_sized(c->a, size);
	*(i ? &md->value_size : &md->key_size) = size;
	*(i ? &md->m.value : &md->m.key) = type;
	return 0;
}

/* The key and the value of a map that has them (a queue, stack or bloom filter has a value
 * only). */
static int map_key_value(struct kl_comp *c, const struct kl_node *n, const struct map_opts *o,
			 struct kl_mapdef *md)
{
	if (md->mt->no_key) {
		/* queue, stack, bloom-filter: values only; Whistler writes :key-size 0 */
		int64_t k0 = -1;
		if (o->key || (o->key_size && (kl_const_eval(c, o->key_size, &k0) || k0 != 0)))
			return kl_error(c->d, (o->key ? o->key : o->key_size)->span, "a :%s map has values and "
					"no key; remove :key/:key-size", md->mt->keyword);
	} else if (map_side(c, n, o->key_size, o->key, 0, md)) {
		return -1;
	}
	return map_side(c, n, o->value_size, o->value, 1, md);
}

/* The flags a map type requires, :inner-map, :event and :display. */
static int map_extras(struct kl_comp *c, const struct kl_node *n, const struct map_opts *o,
		      struct kl_mapdef *md)
{
	const struct kl_map_type *mt = md->mt;
	if (mt->storage_per)   /* task, sk, inode and cgrp storage: the kernel insists on no preallocation */
		md->m.map_flags |= mt->required_flags;
	if (mt->required_flags && (md->m.map_flags & mt->required_flags) != mt->required_flags)
		return kl_error(c->d, o->map_flags ? o->map_flags->span : n->span,
				"a :%s map needs :map-flags %u (BPF_F_NO_PREALLOC)", mt->keyword, mt->required_flags);
	if (o->inner_map) {
		const struct kl_node *inner = o->inner_map;
		struct kl_mapdef *im = inner->kind == KL_N_SYM ? kl_map_lookup(c, inner->str) : NULL;
		if (!im)
			return form_error(c, inner, ":inner-map must name a map defined before");
		md->m.inner = (int)(im - c->maps.items);
	} else if (mt->needs_inner) {
		return kl_error(c->d, n->span, "a :%s map needs :inner-map NAME (a map to use as the template)",
				mt->keyword);
	}
	if (o->event) {
		if (!mt->events)
			return kl_error(c->d, o->event->span, ":event is for :ringbuf and :perf-event-array maps, "
					"whose records it describes");
		struct kl_structdef *sd = o->event->kind == KL_N_SYM ? kl_struct_lookup(c, o->event->str) : NULL;
		if (!sd)
			return form_error(c, o->event, ":event must name a defevent or defstruct defined before");
		md->m.event = sd->type;
	}
	return o->display ? map_display(c, md, o->display) : 0;
}

static int do_defmap(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return form_error(c, n, "defmap needs a name: (defmap NAME :type T :max-entries N ...)");
	const char *name = kl_name(n->items[1]);
	const struct kl_mapdef *old = kl_map_lookup(c, name);
	if (old)
		return taken(c, n->items[1], "map", old->name, old->span);
	if (c->maps.len >= MAX_MAPS)   /* each is a variable of BTF's .maps section */
		return kl_error(c->d, n->span, "more than %d maps; BTF's .maps section lists at most that many",
				MAX_MAPS);
	struct kl_mapdef md = { .name = name, .span = n->span };
	md.m.name = kl_mangle(c->a, name);
	md.m.inner = -1;
	/* a name longer than the kernel's 15 characters is fine: libbpf and kiln's loader give the
	 * kernel its first 15, and everything else (BTF, pins) uses the whole name; say so */
	if (strlen(md.m.name) > 15)
		kl_warn(c->d, n->items[1]->span, "map name '%s' is %zu characters: the kernel keeps the first 15 "
			"('%.15s', what bpftool and `kiln map list` show); kiln, libbpf and pins use the whole name",
			name, strlen(md.m.name), md.m.name);
	struct map_opts o;
	if (map_read_opts(c, n, &o) || map_kind(c, n, &o, &md))
		return -1;
	if (md.mt->no_key_value ? map_no_key_value(c, &o, &md) : map_key_value(c, n, &o, &md))
		return -1;
	if (map_extras(c, n, &o, &md))
		return -1;
	PUSH_NAMED(c, maps, maps, md);
	return 0;
}

/* ---- defparameter, defvar: global data ---- */

/* The most bytes one data section may hold (its map's one value). */
#define MAX_DATA_SECTION ((uint32_t)1 << 24)

/* Does v fit an integer type t (either signedness's bit pattern for a full-width one)? */
static bool fits(const struct kl_type *t, int64_t v)
{
	if (t->size >= 8)
		return true;
	int bits = (int)t->size * 8;
	int64_t lo = t->is_signed ? -((int64_t)1 << (bits - 1)) : -((int64_t)1 << (bits - 1));
	int64_t hi = t->is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
	return v >= lo && v <= hi;
}

/* (defparameter NAME [INIT] [:type T]): a setting in .rodata, fixed before load (C's const
 * volatile); (defvar NAME [INIT] [:type T]): data the programs change, in .data, or .bss when
 * INIT is 0. T defaults to u64; INIT, a constant expression, to 0 (the only one a struct or
 * array takes). */
static int do_defglobal(struct kl_comp *c, struct kl_node *n)
{
	bool param = !strcmp(kl_head(n), "defparameter");
	const char *form = param ? "defparameter" : "defvar";
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return kl_error(c->d, n->span, "%s needs a name: (%s NAME INIT :type TYPE)", form, form);
	const char *name = kl_name(n->items[1]);
	const struct kl_globaldef *old = kl_global_lookup(c, name);
	if (old)
		return taken(c, n->items[1], "global variable", old->name, old->span);
	int64_t dummy;
	if (kl_const_lookup(c, name, &dummy) || kl_map_lookup(c, name))
		return kl_error(c->d, n->items[1]->span, "'%s' is a %s already; a global variable needs a name of its own",
				name, kl_map_lookup(c, name) ? "map" : "constant");
	uint32_t i = 2;
	struct kl_node *init = NULL, *type = NULL;
	if (i < n->nitems && n->items[i]->kind != KL_N_KEY)
		init = n->items[i++];
	for (; i < n->nitems; i += 2) {
		if (n->items[i]->kind != KL_N_KEY || strcmp(n->items[i]->str, "type") || i + 1 >= n->nitems || type)
			return kl_error(c->d, n->items[i]->span, "%s takes a name, a value and :type TYPE: (%s NAME INIT :type TYPE)",
					form, form);
		type = n->items[i + 1];
	}
	struct kl_type *t = type ? kl_type_parse(c, type) : kl_type_builtin("u64");
	if (!t)
		return -1;
	if (t->kind == KL_T_PTR)
		return kl_error(c->d, type->span, "a global variable cannot hold a pointer; give it an integer, array or struct type");
	int64_t v = 0;
	if (init && kl_const_eval(c, init, &v))
		return -1;
	bool scalar = t->kind == KL_T_INT || t->kind == KL_T_ENUM;
	if (v && !scalar)
		return kl_error(c->d, init->span, "%s global starts at 0; only an integer one takes another value",
				t->kind == KL_T_ARRAY ? "an array" : "a struct");
	if (scalar && !fits(t, v))
		return kl_error(c->d, init->span, "%lld does not fit %s's type (%u bytes, %s)", (long long)v, name,
				t->size, t->is_signed ? "signed" : "unsigned");
	struct kl_globaldef g = { .name = name, .span = n->items[1]->span };
	g.g.name = kl_mangle(c->a, name);
	g.g.type = t;
	g.g.sec = param ? KL_DATA_RODATA : v ? KL_DATA_DATA : KL_DATA_BSS;
	g.g.init = v;
	uint32_t align = t->align ? t->align : 1, *size = &c->data_size[g.g.sec];
	g.g.off = (*size + align - 1) / align * align;
	if ((uint64_t)g.g.off + t->size > MAX_DATA_SECTION)
		return kl_error(c->d, n->span, "global data past %u bytes in one section; keep large buffers in a map",
				MAX_DATA_SECTION);
	*size = g.g.off + t->size;
	PUSH_NAMED(c, globals, globals, g);
	return 0;
}

/* A ring buffer that with-event writes to gets a counter of the records it could not take,
 * NAME-drops (an :array of one u64), incremented when a reserve fails; readers report it.
 * Found by looking for (with-event (VAR EVENT RING) ...) in the program's forms as written. */
static void find_event_rings(struct kl_comp *c, const struct kl_node *n, int depth)
{
	if (n->kind != KL_N_LIST || depth > 256)
		return;
	const char *h = kl_head(n);
	if (h && !strcmp(h, "with-event") && n->nitems >= 2 && n->items[1]->kind == KL_N_LIST &&
	    n->items[1]->nitems == 3 && n->items[1]->items[2]->kind == KL_N_SYM) {
		struct kl_mapdef *m = kl_map_lookup(c, n->items[1]->items[2]->str);
		if (m && m->m.type == BPF_MAP_TYPE_RINGBUF)
			m->count_drops = true;
	}
	for (uint32_t i = 0; i < n->nitems; i++)
		find_event_rings(c, n->items[i], depth + 1);
}

int kl_add_drop_counters(struct kl_comp *c)
{
	for (size_t i = 0; i < c->progs.len; i++)
		find_event_rings(c, c->progs.items[i].form, 0);
	for (size_t i = 0; i < c->funs.len; i++)
		find_event_rings(c, c->funs.items[i].form, 0);
	size_t n = c->maps.len;
	for (size_t i = 0; i < n; i++) {
		if (!c->maps.items[i].count_drops)
			continue;
		const char *name = kl_arena_printf(c->a, "%s-drops", c->maps.items[i].name);
		if (kl_map_lookup(c, name))
			continue;   /* the user's own */
		struct kl_mapdef md = { .name = name, .span = c->maps.items[i].span,
					.mt = kl_map_type_find("array"), .key_size = 4, .value_size = 8,
					.used = true };   /* kiln's own: never warned about */
		md.m.name = kl_mangle(c->a, name);
		md.m.type = md.mt->map_type;
		md.m.key = kl_type_builtin("u32");
		md.m.value = kl_type_builtin("u64");
		md.m.max_entries = 1;
		md.m.inner = -1;
		PUSH_NAMED(c, maps, maps, md);
	}
	return 0;
}

void kl_warn_unused_maps(struct kl_comp *c)
{
	if (!c->progs.len)
		return;      /* a file of maps only defines them for others to use */
	for (size_t i = 0; i < c->maps.len; i++) {
		int inner = c->maps.items[i].m.inner;
		if (inner >= 0 && (size_t)inner < c->maps.len)
			c->maps.items[inner].used = true;
	}
	for (size_t i = 0; i < c->maps.len; i++) {
		const struct kl_mapdef *m = &c->maps.items[i];
		if (!m->used && m->span.src == c->src)
			kl_warn(c->d, m->span, "map '%s' is defined but no program uses it", m->name);
	}
}

/* ---- defstruct / defevent ---- */

static int add_struct(struct kl_comp *c, struct kl_node *n, struct kl_type *st, bool event)
{
	kl_type_layout(st);
	struct kl_structdef sd = { st->name, n->items[1]->span, st, event };
	PUSH_NAMED(c, structs, structs, sd);
	for (uint32_t i = 0; i < st->nfields; i++) {
		struct kl_accessor acc = { kl_arena_printf(c->a, "%s-%s", st->name, st->fields[i].name), st,
					   &st->fields[i] };
		PUSH_NAMED(c, accessors, accessors, acc);
	}
	return 0;
}

/* BTF's vlen, the member count of a struct or union, is 16 bits. */
#define MAX_MEMBERS 65535

/* A new struct type named by (FORM NAME [OPTIONS] MEMBER...), the members from items[first],
 * its fields still to fill; NULL with an error when the name is missing or taken, or when it
 * has more members than BTF can say. */
static struct kl_type *new_struct(struct kl_comp *c, struct kl_node *n, uint32_t first, const char *form)
{
	if (n->nitems < first + 1 || n->items[1]->kind != KL_N_SYM) {
		kl_error(c->d, n->span, "%s needs a name and at least one member", form);
		return NULL;
	}
	const char *name = kl_name(n->items[1]);
	if (n->nitems - first > MAX_MEMBERS) {
		kl_error(c->d, n->items[first + MAX_MEMBERS]->span, "%s %s has %u members; BTF allows at most %d",
			 form, name, n->nitems - first, MAX_MEMBERS);
		return NULL;
	}
	const struct kl_structdef *old = kl_struct_lookup(c, name);
	if (old || kl_type_builtin(n->items[1]->str)) {
		taken(c, n->items[1], "type", old ? old->name : name, old ? old->span : n->span);
		return NULL;
	}
	struct kl_type *st = kl_arena_new(c->a, struct kl_type);
	st->kind = KL_T_STRUCT;
	st->name = name;
	st->nfields = n->nitems - first;
	st->fields = kl_arena_array(c->a, struct kl_field, st->nfields);
	return st;
}

static int by_name_then_index(const void *a, const void *b, void *fields)
{
	const struct kl_field *f = fields;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcasecmp(f[x].name, f[y].name);   /* names match in any case */
	return r ? r : (x > y) - (x < y);
}

/* The index of the first field whose name an earlier field has, or -1: sorted by name, not
 * compared pairwise, so that 65,535 fields take milliseconds, not seconds. */
static int first_duplicate(struct kl_comp *c, const struct kl_type *st)
{
	uint32_t n = st->nfields, *ix = kl_arena_array(c->a, uint32_t, n ? n : 1);
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), by_name_then_index, st->fields);
	int first = -1;
	for (uint32_t i = 1; i < n; i++)
		if (!strcasecmp(st->fields[ix[i]].name, st->fields[ix[i - 1]].name) &&
		    strcasecmp(i > 1 ? st->fields[ix[i - 2]].name : "", st->fields[ix[i]].name) &&
		    (first < 0 || ix[i] < (uint32_t)first))
			first = (int)ix[i];
	return first;
}

/* (defstruct NAME (:preserve-access-index) FIELD...): a local view of a kernel type for CO-RE. */
static bool core_option(const struct kl_node *n)
{
	if (n->nitems < 3 || n->items[2]->kind != KL_N_LIST || n->items[2]->nitems != 1)
		return false;
	const struct kl_node *o = n->items[2]->items[0];
	return o->kind == KL_N_KEY && !strcmp(o->str, "preserve-access-index");
}

static int do_defstruct(struct kl_comp *c, struct kl_node *n, bool event)
{
	bool core = !event && core_option(n);    /* the option list is not a member */
	struct kl_type *st = new_struct(c, n, 2 + core, event ? "defevent" : "defstruct");
	if (!st)
		return -1;
	/* a view of a kernel type: CO-RE matches it and its members to the kernel's by name, and
	 * the kernel's C names are in lower case (as Whistler, which folds every name, gives them) */
	if (core)
		st->name = n->items[1]->str;
	const char *name = st->name;
	st->packed = event;
	st->core = core;
	c->defining = st;
	for (uint32_t i = 0; i < st->nfields; i++) {
		struct kl_node *f = n->items[i + 2 + core];
		/* defstruct: (FIELD TYPE); defevent: [:field :type] or [:field :type count] */
		bool ok = f->kind == KL_N_LIST && (f->nitems == 2 || (event && f->nitems == 3)) &&
			  (f->items[0]->kind == KL_N_SYM || f->items[0]->kind == KL_N_KEY);
		if (!ok)
			return kl_error(c->d, f->span, event ? "defevent field must be [:name :type] or [:name :type count]"
							     : "defstruct field must be (NAME TYPE)");
		const char *fname = core ? f->items[0]->str : kl_name(f->items[0]);
		struct kl_type *t = kl_type_parse(c, f->items[1]);
		if (!t) {
			c->defining = NULL;
			return -1;
		}
		if (f->nitems == 3) {
			int64_t cnt;
			if (kl_const_eval(c, f->items[2], &cnt))
				return -1;
			if (cnt <= 0 || cnt > 65536)
				return kl_error(c->d, f->items[2]->span, "field count %lld is out of range", (long long)cnt);
			t = kl_type_array(c->a, t, (uint32_t)cnt);
		}
		st->fields[i].name = fname;
		st->fields[i].type = t;
	}
	c->defining = NULL;
	int dup = first_duplicate(c, st);
	if (dup >= 0) {
		int k = 0;   /* the earlier one: the same name, perhaps spelled in another case */
		while (strcasecmp(st->fields[k].name, st->fields[dup].name))
			k++;
		const struct kl_node *at = n->items[k + 2 + core];
		if (strcmp(st->fields[k].name, st->fields[dup].name))
			return case_clash(c, n->items[dup + 2 + core]->span, kl_arena_printf(c->a, "%s's field", name),
					  st->fields[dup].name, st->fields[k].name, at->span);
		return kl_error(c->d, n->items[dup + 2 + core]->span, "field '%s' appears twice in %s",
				st->fields[dup].name, name);
	}
	return add_struct(c, n, st, event);
}

/* X of (quote X), else NULL */
static struct kl_node *quoted(struct kl_node *n)
{
	const char *h = kl_head(n);
	return h && !strcmp(h, "quote") && n->nitems == 2 ? n->items[1] : NULL;
}

/* (make-event-def 'NAME '(SPEC ...)) written at the top level (clj-ebpf's, as a macro may
 * expand into and kiln run's host side hands on from an eval-when): the defevent it makes.
 * Inside eval-when and macros it is the Lisp function of expand.c. */
static int do_make_event_def(struct kl_comp *c, struct kl_node *n)
{
	struct kl_node *name = n->nitems == 3 ? quoted(n->items[1]) : NULL;
	struct kl_node *specs = n->nitems == 3 ? quoted(n->items[2]) : NULL;
	if (!name || name->kind != KL_N_SYM || !specs || specs->kind != KL_N_LIST || !specs->nitems)
		return kl_error(c->d, n->span, "make-event-def at the top level takes a quoted name and a quoted "
				"list of field specs: (make-event-def 'NAME '([:field :type] ...))");
	struct kl_node *ev = kl_arena_new(c->a, struct kl_node);
	*ev = *n;
	ev->nitems = specs->nitems + 2;
	ev->items = kl_arena_array(c->a, struct kl_node *, ev->nitems);
	ev->items[0] = n->items[0];
	ev->items[1] = name;
	memcpy(ev->items + 2, specs->items, sizeof(*specs->items) * specs->nitems);
	return do_defstruct(c, ev, true);
}

/* (defunion NAME MEMBER...): MEMBER is a defstruct name (Whistler's form: the union of
 * existing structs) or a field (FIELD TYPE). Every member is at offset 0; (make-NAME) is a
 * buffer the size of the largest, and (NAME-MEMBER p) gives a member (a struct member's
 * address, for its own accessors). */
static int do_defunion(struct kl_comp *c, struct kl_node *n)
{
	struct kl_type *st = new_struct(c, n, 2, "defunion");
	if (!st)
		return -1;
	const char *name = st->name;
	st->is_union = true;
	for (uint32_t i = 0; i < st->nfields; i++) {
		struct kl_node *f = n->items[i + 2];
		bool named = f->kind == KL_N_LIST && f->nitems == 2 && f->items[0]->kind == KL_N_SYM;
		if (f->kind != KL_N_SYM && !named)
			return kl_error(c->d, f->span, "defunion member must be a defstruct name or (NAME TYPE)");
		struct kl_type *t = kl_type_parse(c, named ? f->items[1] : f);
		if (!t)
			return -1;
		st->fields[i].name = kl_name(named ? f->items[0] : f);
		st->fields[i].type = t;
		for (uint32_t k = 0; k < i; k++)
			if (!strcasecmp(st->fields[k].name, st->fields[i].name))
				return kl_error(c->d, f->span, "member '%s' appears twice in %s", st->fields[i].name, name);
	}
	return add_struct(c, n, st, false);
}

/* ---- defun / defprog ---- */

static int do_defun(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems < 4 || n->items[1]->kind != KL_N_SYM || n->items[2]->kind != KL_N_LIST)
		return form_error(c, n, "defun needs a name, an argument list and a body: (defun NAME (ARGS...) BODY...)");
	struct kl_node *params = n->items[2];
	if (params->nitems > 5)
		return kl_error(c->d, params->span, "defun '%s' has %u arguments; BPF functions take at most 5",
				n->items[1]->str, params->nitems);
	for (uint32_t i = 0; i < params->nitems; i++)
		if (params->items[i]->kind != KL_N_SYM)
			return form_error(c, params->items[i], "defun argument must be a symbol");
	const struct kl_fundef *old = kl_fun_lookup(c, n->items[1]->str);
	if (old)
		return taken(c, n->items[1], "function", old->name, old->form->items[1]->span);
	struct kl_fundef f = { kl_name(n->items[1]), n, params, params->nitems, 0, 0 };
	PUSH_NAMED(c, funs, funs, f);
	return 0;
}

static int do_defprog(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems < 3 || n->items[1]->kind != KL_N_SYM || n->items[2]->kind != KL_N_LIST)
		return form_error(c, n, "defprog needs a name, options and a body: (defprog NAME (:type :xdp) BODY...)");
	struct kl_progdef p = { .name = kl_name(n->items[1]), .form = n, .body_start = 3 };
	const struct kl_progdef *had = kl_prog_lookup(c, p.name);
	if (had)
		return taken(c, n->items[1], "program", had->name, had->form->items[1]->span);
	struct kl_node *o = n->items[2];
	const struct kl_node *type = NULL, *sec = NULL, *lic = NULL;
	if (o->nitems % 2)
		return form_error(c, o, "defprog options come in :keyword value pairs");
	for (uint32_t i = 0; i + 1 < o->nitems; i += 2) {
		if (kl_is_key(o->items[i], "type"))
			type = o->items[i + 1];
		else if (kl_is_key(o->items[i], "section"))
			sec = o->items[i + 1];
		else if (kl_is_key(o->items[i], "license"))
			lic = o->items[i + 1];
		else
			return form_error(c, o->items[i], "unknown defprog option (expected :type, :section or :license)");
	}
	const char *sec_str = sec && sec->kind == KL_N_STR ? sec->str : NULL;
	bool sec_ok = true;
	if (!type)   /* as in Whistler, a program is XDP unless it says otherwise */
		p.pt = kl_prog_type_resolve("xdp", sec_str, &sec_ok);
	else if (type->kind != KL_N_KEY || !(p.pt = kl_prog_type_resolve(type->str, sec_str, &sec_ok)))
		return form_error(c, type, kl_arena_printf(c->a, "unknown program type (expected %s)",
							   kl_prog_type_names(c->a)));
	if (sec) {
		if (sec->kind != KL_N_STR || !sec->str[0])
			return form_error(c, sec, ":section must be a non-empty string");
		if (!sec_ok)
			return kl_error(c->d, sec->span, "section \"%s\" does not suit a :%s program (expected \"%s...\")",
					sec->str, p.pt->keyword,
					p.pt->section_prefix ? p.pt->section_prefix : p.pt->section);
		p.section = sec->str;
	} else if (p.pt->prog_type == BPF_PROG_TYPE_STRUCT_OPS) {
		p.section = kl_struct_ops_section(c, p.name);
	} else if (!p.pt->section) {
		return kl_error(c->d, o->span, "a :%s program needs :section \"%sTARGET\"", p.pt->keyword,
				p.pt->section_prefix ? p.pt->section_prefix : "");
	} else {
		p.section = p.pt->section;
	}
	if (p.pt->prog_type == BPF_PROG_TYPE_TRACEPOINT && sec && strchr(p.section, '/')) {
		char msg[512];   /* the tracepoint must be one tracefs has (when there is a tracefs) */
		if (kl_tracepoint_check(strchr(p.section, '/') + 1, msg, sizeof(msg)) < 0)
			return kl_error(c->d, sec->span, "%s", msg);
	}
	if (lic) {
		if (lic->kind != KL_N_STR)
			return form_error(c, lic, ":license must be a string");
		if (c->license && strcmp(c->license, lic->str))
			return kl_error(c->d, lic->span, "license \"%s\" differs from \"%s\" given at line %u",
					lic->str, c->license, c->license_span.line);
		c->license = lic->str;
		c->license_span = lic->span;
	}
	PUSH_NAMED(c, progs, progs, p);
	return 0;
}

static int do_defconstant(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems != 3 || n->items[1]->kind != KL_N_SYM)
		return form_error(c, n, "defconstant needs a name and a value: (defconstant NAME EXPR)");
	struct kl_constdef d = { n->items[1]->str, 0 };
	if (kl_const_eval(c, n->items[2], &d.value))
		return -1;
	kl_const_add(c, d);
	return 0;
}

static int do_ignore(struct kl_comp *c, struct kl_node *n) { return 0; }

/* (kernel-btf "FILE"): the kernel BTF this file's kernel types come from (before any use). */
static int do_kernel_btf(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems != 2 || n->items[1]->kind != KL_N_STR)
		return form_error(c, n, "kernel-btf names a BTF file: (kernel-btf \"/path/to/vmlinux\")");
	if (c->core && kl_core_kernel_opened(c))
		return kl_error(c->d, n->span, "kernel-btf must come before the first use of a kernel type");
	c->btf_path = n->items[1]->str;
	c->btf_span = n->items[1]->span;
	return 0;
}

/* Whistler's (import-kernel-struct NAME [FIELD...]): (NAME-FIELD p) accessors for the named
 * fields (every named member when none is given), (as-NAME p) and +NAME-size+. kiln's
 * accessors are CO-RE reads, relocated on the kernel the program loads on. */
static int do_import_kernel_struct(struct kl_comp *c, struct kl_node *n)
{
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return form_error(c, n, "import-kernel-struct needs a struct name: (import-kernel-struct task-struct pid tgid)");
	const char *lisp = kl_name(n->items[1]);
	struct kl_type *st = kl_core_type(c, lisp, KL_KB_STRUCT, n->items[1]->span);
	if (!st)
		return -1;
	for (uint32_t i = 2; i < n->nitems; i++) {
		uint32_t idx;
		if (n->items[i]->kind != KL_N_SYM)
			return form_error(c, n->items[i], "expected a field name");
		if (kl_core_member(c, st, kl_name(n->items[i]), n->items[i]->span, &idx))
			return -1;
		kl_core_add_accessor(c, kl_arena_printf(c->a, "%s-%s", lisp, kl_name(n->items[i])), st->name,
				     st->fields[idx].name, lisp);
	}
	if (n->nitems == 2) {
		const char **names;
		uint32_t count = kl_core_member_names(c, st, &names);
		for (uint32_t i = 0; i < count; i++) {
			char *dashed = kl_arena_strdup(c->a, names[i]);
			for (char *p = dashed; *p; p++)
				if (*p == '_')
					*p = '-';
			kl_core_add_accessor(c, kl_arena_printf(c->a, "%s-%s", lisp, dashed), st->name, names[i], lisp);
		}
	}
	kl_core_add_accessor(c, kl_arena_printf(c->a, "as-%s", lisp), st->name, NULL, lisp);
	struct kl_constdef d = { kl_arena_printf(c->a, "+%s-size+", lisp), st->size };
	kl_const_add(c, d);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct kl_comp *, struct kl_node *);
} toplevel[] = {
	{ "defconstant", do_defconstant }, { "defmap", do_defmap }, { "defun", do_defun },
	{ "defprog", do_defprog }, { "in-package", do_ignore }, { "declaim", do_ignore },
	{ "kernel-btf", do_kernel_btf }, { "import-kernel-struct", do_import_kernel_struct },
	{ "defparameter", do_defglobal }, { "defvar", do_defglobal }, { "defksym", kl_ksym_define },
	{ "defstruct-ops", kl_struct_ops_define },
};

/* a kiln top-level form's head (progn left to the Lisp, which runs each form in it) */
static bool is_toplevel(struct kl_comp *c, const char *h)
{
	static const char *const more[] = { "defmacro", "defstruct", "defevent", "defunion" };
	for (size_t k = 0; k < sizeof(toplevel) / sizeof(toplevel[0]); k++)
		if (!strcmp(toplevel[k].name, h))
			return true;
	for (size_t k = 0; k < sizeof(more) / sizeof(more[0]); k++)
		if (!strcmp(more[k], h))
			return true;
	return kl_macro_is(c, h);
}

static const struct kl_toplevel eval_when_top = { is_toplevel, kl_forms_collect };

int kl_forms_collect(struct kl_comp *c, struct kl_node **forms, uint32_t nforms)
{
	c->toplevel = &eval_when_top;
	for (uint32_t i = 0; i < nforms; i++) {
		struct kl_node *n = forms[i];
		const char *h = kl_head(n);
		if (!h)
			return form_error(c, n, "expected a top-level form such as (defprog ...) or (defmap ...)");
		int r = -2;
		if (kl_macro_is(c, h)) {
			/* a macro may expand into one top-level form or a progn of several */
			struct kl_node *x = kl_macro_expand(c, n);
			if (!x)
				return -1;
			c->expansions++;
			if (kl_head(x) && !strcmp(kl_head(x), "progn"))
				r = kl_forms_collect(c, x->items + 1, x->nitems - 1);
			else
				r = kl_forms_collect(c, &x, 1);
			c->expansions--;
		} else if (!strcmp(h, "defmacro"))
			r = kl_macro_define(c, n);
		else if (!strcmp(h, "progn"))
			r = kl_forms_collect(c, n->items + 1, n->nitems - 1);
		else if (!strcmp(h, "eval-when"))
			r = kl_eval_when(c, n, &eval_when_top);
		else if (!strcmp(h, "defstruct"))
			r = do_defstruct(c, n, false);
		else if (!strcmp(h, "defevent"))
			r = do_defstruct(c, n, true);
		else if (!strcmp(h, "make-event-def"))   /* not a form to eval-when: a function there */
			r = do_make_event_def(c, n);
		else if (!strcmp(h, "defunion"))
			r = do_defunion(c, n);
		for (size_t k = 0; r == -2 && k < sizeof(toplevel) / sizeof(toplevel[0]); k++)
			if (!strcmp(toplevel[k].name, h))
				r = toplevel[k].fn(c, n);
		if (r == -2)
			return kl_error(c->d, n->span, "unknown top-level form '%s'", h);
		if (r)
			return -1;
	}
	return 0;
}
