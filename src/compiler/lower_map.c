/* lower_map.c — maps and helper calls: a map argument, keys and values (integers spilled to
 * the stack at the map's sizes, wider ones by address), getmap, map-lookup, map-update and
 * remmap with their -ptr forms, incf of a map entry in place, and the calls of helpers
 * (optional flags, sized structs) and of the program's defuns. */
#include "lower_internal.h"
#include <linux/bpf.h>
#include <string.h>

/* ---- maps ---- */

/* Queue, stack and bloom-filter maps have no keys: the keyed forms say what to use. */
static int keyless(struct lw *l, struct kl_node *mn, struct kl_mapdef *m)
{
	return kl_error(l->c->d, mn->span, "map '%s' is a :%s map, without keys: use map-push, map-pop and "
			"map-peek", m->name, m->mt->keyword);
}

struct kl_mapdef *kl_lw_map_arg(struct lw *l, struct kl_node *n)
{
	/* a variable bound to an inner map (map-lookup in an array- or hash-of-maps): its
	 * template's shape, the map itself in the variable's register */
	struct binding *b = n->kind == KL_N_SYM ? kl_lw_find_var(l, n->str) : NULL;
	if (b && b->v.inner) {
		b->used = true;
		struct kl_mapdef *t = &l->c->maps.items[b->v.inner - 1], *m = kl_arena_new(l->c->a, struct kl_mapdef);
		*m = *t;
		t->used = true;
		m->inner_reg = kl_lw_reg_of(l, b->v);
		return m;
	}
	struct kl_mapdef *m = n->kind == KL_N_SYM ? kl_map_lookup(l->c, n->str) : NULL;
	if (!m) {
		char buf[128];
		kl_node_str(n, buf, sizeof(buf));
		kl_error(l->c->d, n->span, "unknown map '%s'", buf);
	}
	return m;
}

kl_vreg kl_lw_map_ref(struct lw *l, struct kl_mapdef *m)
{
	if (m->inner_reg)
		return m->inner_reg;
	m->used = true;
	struct kl_ir_ins *i = emit(l, IR_LDMAP);
	i->imm = m - l->c->maps.items;
	i->d = vreg(l);
	return i->d;
}

/* A key or value argument: integers go to the stack at the map's size, wider ones are
 * pointers. The address is taken only when the call is made, to keep registers free. */
struct mop {
	uint32_t slot;               /* 0: v is a pointer */
	struct val v;
};

/* The -ptr forms (map-lookup-ptr, map-update-ptr, map-delete-ptr) take keys and values by
 * address whatever they look like. */
static bool ptr_form(const struct kl_node *n)
{
	const char *h = kl_head(n);
	size_t k = h ? strlen(h) : 0;
	return k > 4 && !strcmp(h + k - 4, "-ptr");
}

static int map_operand(struct lw *l, struct kl_node *n, uint32_t size, bool by_ptr, struct mop *out)
{
	if (kl_lw_lower(l, n, &out->v))
		return -1;
	/* a wide key given as a computed value is taken as its address (a pointer this pass
	 * cannot see as one, a defun argument say); a constant is stored, zero-extended */
	bool ptr = by_ptr || out->v.is_ptr || (size > 8 && out->v.kind == V_REG);
	out->slot = ptr ? 0 : kl_lw_spill_value(l, out->v, size);
	return 0;
}

static kl_vreg mop_reg(struct lw *l, struct mop m)
{
	return m.slot ? kl_lw_slot_addr(l, m.slot) : kl_lw_reg_of(l, m.v);
}

kl_vreg kl_lw_map_value_ptr(struct lw *l, struct kl_node *n, uint32_t size, bool *err)
{
	struct mop v;
	*err = map_operand(l, n, size, false, &v) != 0;
	return *err ? 0 : mop_reg(l, v);
}

static int lookup_ptr(struct lw *l, struct kl_node *mn, struct kl_node *kn, bool by_ptr, struct kl_mapdef **mp,
		      kl_vreg *out, struct mop *keyp)
{

	struct kl_mapdef *m = kl_lw_map_arg(l, mn);
	if (!m)
		return -1;
	if (m->mt->no_key_value)
		return kl_error(l->c->d, mn->span, "map '%s' is a :%s map; it has no elements to look up",
				m->name, m->mt->keyword);
	if (m->mt->no_key)
		return keyless(l, mn, m);
	struct mop key;
	if (map_operand(l, kn, m->key_size, by_ptr, &key))
		return -1;
	kl_vreg args[2];
	args[0] = kl_lw_map_ref(l, m);
	args[1] = mop_reg(l, key);
	*out = kl_lw_call(l, BPF_FUNC_map_lookup_elem, args, 2);
	*mp = m;
	if (keyp)
		*keyp = key;
	return 0;
}

static int f_map_lookup(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	if (kl_lw_arity(l, n, 2, 2) || lookup_ptr(l, n->items[1], n->items[2], ptr_form(n), &m, &p, NULL))
		return -1;
	*out = pval(p);
	if (m->m.inner >= 0) {          /* a map of maps: the inner map, usable as one */
		out->is_ptr = false;
		out->inner = m->m.inner + 1;
	}
	return 0;
}

static uint32_t value_width(const struct kl_mapdef *m)
{
	uint32_t s = m->value_size;
	return s >= 8 ? 8 : s >= 4 ? 4 : s >= 2 ? 2 : 1;
}

static int f_getmap(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	if (kl_lw_arity(l, n, 2, 2) || lookup_ptr(l, n->items[1], n->items[2], false, &m, &p, NULL))
		return -1;
	/* a map of structs gives the value's address, for the struct's accessors */
	if (m->m.value && m->m.value->kind == KL_T_STRUCT) {
		*out = pval(p);
		return 0;
	}
	kl_vreg r = vreg(l);
	uint32_t lnull = label(l), lend = label(l);
	kl_lw_branch(l, BPF_JEQ, rval(p), cval(0), lnull);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = p;
	i->size = (uint8_t)value_width(m);
	i->d = r;
	jump(l, lend);
	place(l, lnull);
	kl_lw_move_to(l, r, cval(0));
	place(l, lend);
	*out = rval(r);
	return 0;
}

static kl_vreg update_call(struct lw *l, struct kl_mapdef *m, struct mop key, struct mop value, struct val flags)
{
	kl_vreg args[4];
	args[0] = kl_lw_map_ref(l, m);
	args[1] = mop_reg(l, key);
	args[2] = mop_reg(l, value);
	args[3] = kl_lw_reg_of(l, flags);
	return kl_lw_call(l, BPF_FUNC_map_update_elem, args, 4);
}

/* Update with VALUE from the node vn, or the integer *vv. */
int kl_lw_map_update(struct lw *l, struct kl_mapdef *m, struct kl_node *kn, struct kl_node *vn,
		      struct val *vv, struct val flags, bool by_ptr, struct val *out)
{
	struct mop key, value;
	if (m->mt->no_key)
		return keyless(l, kn, m);
	if (map_operand(l, kn, m->key_size, by_ptr, &key))
		return -1;
	if (vn) {
		if (map_operand(l, vn, m->value_size, by_ptr, &value))
			return -1;
	} else {
		value.v = *vv;
		/* (setf (getmap M K) p) of a struct-valued map copies the struct p points at */
		bool ptr = vv->is_ptr || (m->value_size > 8 && vv->kind == V_REG);
		value.slot = ptr ? 0 : kl_lw_spill_value(l, *vv, m->value_size);
	}
	*out = rval(update_call(l, m, key, value, flags));
	return 0;
}

static int f_map_update(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 3, 4))
		return -1;
	struct kl_mapdef *m = kl_lw_map_arg(l, n->items[1]);
	struct val flags = cval(BPF_ANY);
	if (!m)
		return -1;
	if (m->mt->no_key_value)
		return kl_error(l->c->d, n->items[1]->span, "map '%s' is a :%s map; use its own helpers",
				m->name, m->mt->keyword);
	if (m->mt->no_key)
		return keyless(l, n->items[1], m);
	if (n->nitems == 5 && kl_lw_lower(l, n->items[4], &flags))
		return -1;
	return kl_lw_map_update(l, m, n->items[2], n->items[3], NULL, flags, ptr_form(n), out);
}

static int f_remmap(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	struct kl_mapdef *m = kl_lw_map_arg(l, n->items[1]);
	struct mop key;
	if (m && m->mt->no_key)
		return keyless(l, n->items[1], m);
	if (!m || map_operand(l, n->items[2], m->key_size, ptr_form(n), &key))
		return -1;
	kl_vreg args[2];
	args[0] = kl_lw_map_ref(l, m);
	args[1] = mop_reg(l, key);
	*out = rval(kl_lw_call(l, BPF_FUNC_map_delete_elem, args, 2));
	return 0;
}

/* incf/decf/atomic add on (getmap M K): add in place when present, insert when a hash map
 * lacks the key. */
int kl_lw_getmap_add(struct lw *l, struct kl_node *place_n, struct val delta, struct val *out)
{
	struct kl_mapdef *m;
	kl_vreg p;
	struct mop key;
	if (kl_lw_arity(l, place_n, 2, 2) || lookup_ptr(l, place_n->items[1], place_n->items[2], false, &m, &p, &key))
		return -1;
	uint32_t lnull = label(l), lend = label(l);
	uint32_t w = value_width(m);
	kl_lw_branch(l, BPF_JEQ, rval(p), cval(0), lnull);
	if (!m->mt->percpu && (w == 8 || w == 4)) {
		kl_vreg d = kl_lw_reg_of(l, delta);
		struct kl_ir_ins *i = emit(l, IR_XADD);
		i->a = p;
		i->b = d;
		i->size = (uint8_t)w;
	} else {
		struct kl_ir_ins *i = emit(l, IR_LOAD);
		i->a = p;
		i->size = (uint8_t)w;
		i->d = vreg(l);
		kl_vreg sum = kl_lw_alu(l, BPF_ADD, rval(i->d), delta);
		struct kl_ir_ins *s = emit(l, IR_STORE);
		s->a = p;
		s->b = sum;
		s->size = (uint8_t)w;
	}
	/* an array has every key below max-entries and no other: nothing to insert */
	bool array = m->mt->array;
	if (!array) {
		jump(l, lend);
		place(l, lnull);
		struct mop value = { kl_lw_spill_value(l, delta, m->value_size), delta };
		update_call(l, m, key, value, cval(BPF_NOEXIST));
	} else {
		place(l, lnull);
	}
	place(l, lend);
	*out = cval(0);
	return 0;
}

/* ---- calls ---- */

/* Helpers whose last argument is a flags word that may be left out (0), as Whistler allows:
 * (ringbuf-reserve MAP SIZE), (ringbuf-submit P). */
static const uint32_t flags_optional[] = {
	BPF_FUNC_ringbuf_reserve, BPF_FUNC_ringbuf_submit, BPF_FUNC_ringbuf_discard, BPF_FUNC_ringbuf_output,
};

/* The struct a size argument names, as in (ringbuf-output MAP P (sizeof EVENT) 0): NULL for
 * any other size. */
static struct kl_type *sized_struct(struct lw *l, const struct kl_node *n)
{
	if (n->kind != KL_N_LIST || n->nitems != 2 || n->items[0]->kind != KL_N_SYM ||
	    (strcmp(n->items[0]->str, "sizeof") && strcmp(n->items[0]->str, "event-size")))
		return NULL;
	struct kl_type *t = kl_type_parse(l->c, n->items[1]);
	return t && t->kind == KL_T_STRUCT ? t : NULL;
}

/* The size argument of the helpers that send a record through a buffer map, so that the map
 * is described (kiln.event decl tag) by the struct the size names. */
static const struct {
	uint32_t helper;
	uint32_t size_arg;
} record_size_args[] = {
	{ BPF_FUNC_ringbuf_output, 2 },
	{ BPF_FUNC_perf_event_output, 4 },
};

int kl_lw_helper(struct lw *l, struct kl_node *n, const struct kl_helper *h, struct val *out)
{
	uint32_t nargs = n->nitems - 1, min = kl_helper_min_args(h);
	bool pad = false;
	for (size_t i = 0; i < sizeof(flags_optional) / sizeof(flags_optional[0]); i++)
		if (flags_optional[i] == h->id && nargs == (uint32_t)h->nargs - 1) {
			min = nargs;
			pad = true;
		}
	if (kl_lw_arity(l, n, min, h->nargs))
		return -1;
	kl_vreg args[5];
	struct kl_mapdef *map = NULL;
	for (uint32_t k = 0; k < nargs; k++) {
		struct kl_node *a = n->items[k + 1];
		if (h->args[k] == KL_ARG_MAP) {
			struct kl_mapdef *m = map = kl_lw_map_arg(l, a);
			if (!m)
				return -1;
			args[k] = kl_lw_map_ref(l, m);
			continue;
		}
		struct val v;
		if (kl_lw_lower(l, a, &v))
			return -1;
		args[k] = kl_lw_reg_of(l, v);
	}
	if (pad)
		args[nargs++] = kl_lw_reg_of(l, cval(0));
	for (size_t i = 0; map && !map->m.event && i < sizeof(record_size_args) / sizeof(record_size_args[0]); i++)
		if (record_size_args[i].helper == h->id && record_size_args[i].size_arg < n->nitems - 1u)
			map->m.event = sized_struct(l, n->items[record_size_args[i].size_arg + 1]);
	*out = rval(kl_lw_call(l, h->id, args, nargs));
	out->is_ptr = h->ret_ptr;
	return 0;
}

int kl_lw_funcall(struct lw *l, struct kl_node *n, struct kl_fundef *fd, struct val *out)
{
	if (kl_lw_arity(l, n, fd->nparams, fd->nparams))
		return -1;
	kl_vreg args[5];
	for (uint32_t k = 0; k < fd->nparams; k++) {
		struct val v;
		if (kl_lw_lower(l, n->items[k + 1], &v))
			return -1;
		args[k] = kl_lw_reg_of(l, v);
	}
	struct kl_ir_ins *i = emit(l, IR_CALLF);
	i->imm = fd - l->c->funs.items;
	i->nargs = (uint8_t)fd->nparams;
	memcpy(i->args, args, sizeof(kl_vreg) * fd->nparams);
	i->d = vreg(l);
	*out = rval(i->d);
	return 0;
}

const struct kl_lw_form kl_lw_map_forms[] = {
	{ "getmap", f_getmap, "de" }, { "map-lookup", f_map_lookup, "de" },
	{ "map-update", f_map_update, "de" }, { "remmap", f_remmap, "de" },
	{ "map-delete", f_remmap, "de" }, { "delmap", f_remmap, "de" },
	{ "map-lookup-ptr", f_map_lookup, "de" }, { "map-update-ptr", f_map_update, "de" },
	{ "map-delete-ptr", f_remmap, "de" },
};
const size_t kl_lw_nmap_forms = sizeof(kl_lw_map_forms) / sizeof(kl_lw_map_forms[0]);
