/* lower_data.c — lowering the forms over data: memory (load, store, stack buffers), the
 * program's context, maps, places (setf, incf, decf), calls of helpers and defuns, and the
 * built-ins made of them (atomic-add, tail-call, memset, memcpy, with-event...). lower.c
 * dispatches to them through kl_lw_data_forms. */
#include "lower_internal.h"
#include "forms.h"
#include "expand.h"
#include "tracefs.h"
#include <ctype.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>

/* ---- memory ---- */

/* The base register of an access at base + *off; an offset beyond the instruction's 16 bits
 * is added to the base first (and *off becomes 0). */
static kl_vreg access_base(struct lw *l, struct val base, int64_t *off)
{
	kl_vreg rb = kl_lw_reg_of(l, base);
	if (*off < INT16_MIN || *off > INT16_MAX) {
		rb = kl_lw_alu(l, BPF_ADD, rval(rb), cval(*off));
		*off = 0;
	}
	return rb;
}

/* d = *(size *)(base + off), with sign extension for signed types. */
static struct val load_at(struct lw *l, struct val base, int64_t off, const struct kl_type *t)
{
	kl_vreg rb = access_base(l, base, &off);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = rb;
	i->off = (int32_t)off;
	i->size = (uint8_t)(t->kind == KL_T_INT ? t->size : 8);
	i->d = vreg(l);
	struct val v = rval(i->d);
	v.is_ptr = t->kind == KL_T_PTR;
	if (t->kind == KL_T_INT && t->is_signed && t->size < 8)
		v = kl_lw_truncate(l, v, t->size, true);
	return v;
}

/* *(size *)(base or stack slot + off) = v; a constant that fits 32 bits is the immediate. */
static void store_to(struct lw *l, kl_vreg base, uint32_t slot, int32_t off, uint32_t size, struct val v)
{
	kl_vreg rv = v.kind == V_CONST && fits32(v.c) ? 0 : kl_lw_reg_of(l, v);
	struct kl_ir_ins *i = emit(l, IR_STORE);
	i->a = base;
	i->slot = slot;
	i->off = off;
	i->size = (uint8_t)size;
	if (rv) {
		i->b = rv;
	} else {
		i->has_imm = true;
		i->imm = v.c;
	}
}

static void store_at(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v)
{
	kl_vreg rb = access_base(l, base, &off);
	store_to(l, rb, 0, (int32_t)off, size, v);
}

void kl_lw_store(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v)
{
	store_at(l, base, off, size, v);
}

/* Zero bytes [from, size) of a stack slot with the widest aligned stores. */
static void zero_slot(struct lw *l, uint32_t s, uint32_t from, uint32_t size)
{
	for (uint32_t off = from; off < size;) {
		uint32_t w = 8;
		while (w > 1 && (off % w || off + w > size))
			w /= 2;
		store_to(l, 0, s, (int32_t)off, w, cval(0));
		off += w;
	}
}

/* Store v into a fresh stack slot of `size` bytes (the rest zeroed) and return the slot. */
static uint32_t spill_value(struct lw *l, struct val v, uint32_t size)
{
	uint32_t s = kl_lw_slot(l, size, size >= 8 ? 8 : size);
	l->f->slots[s].temp = true;
	uint32_t first = size >= 8 ? 8 : size;
	if (first == 3 || first == 5 || first == 6 || first == 7) {
		zero_slot(l, s, 0, size);
		first = first >= 4 ? 4 : 2;
	}
	store_to(l, 0, s, 0, first, v);
	if (size > 8)
		zero_slot(l, s, 8, size);
	return s;
}

kl_vreg kl_lw_slot_addr(struct lw *l, uint32_t s)
{
	struct kl_ir_ins *i = emit(l, IR_ADDR);
	i->slot = s;
	i->d = vreg(l);
	return i->d;
}

static int mem_type(struct lw *l, struct kl_node *n, struct kl_type **t)
{
	*t = n->kind == KL_N_SYM || n->kind == KL_N_KEY ? kl_type_builtin(n->str) : NULL;
	if (!*t)
		return kl_lw_err_form(l, n, "%s needs a scalar type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "load/store");
	return 0;
}

/* PTR and OFFSET: a constant offset folds into the instruction. */
static int address(struct lw *l, struct kl_node *pn, struct kl_node *on, struct val *base, int64_t *off)
{
	struct val o;
	if (kl_lw_lower(l, pn, base) || (on && kl_lw_lower(l, on, &o)))
		return -1;
	*off = 0;
	if (!on)
		return 0;
	if (o.kind == V_CONST)
		*off = o.c;
	else
		*base = rval(kl_lw_alu(l, BPF_ADD, *base, o));
	return 0;
}

static int f_load(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_type *t;
	struct val base;
	int64_t off;
	if (kl_lw_arity(l, n, 2, 3) || mem_type(l, n->items[1], &t) ||
	    address(l, n->items[2], n->nitems == 4 ? n->items[3] : NULL, &base, &off))
		return -1;
	*out = load_at(l, base, off, t);
	return 0;
}

static int f_store(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_type *t;
	struct val base, v;
	int64_t off;
	if (kl_lw_arity(l, n, 4, 4) || mem_type(l, n->items[1], &t) ||
	    address(l, n->items[2], n->items[3], &base, &off) || kl_lw_lower(l, n->items[4], &v))
		return -1;
	store_at(l, base, off, t->size, v);
	*out = cval(0);
	return 0;
}

/* A zeroed stack buffer, 8-byte aligned: (stack-buffer SIZE), (make-stack BUF SIZE),
 * (struct-alloc SIZE) and (make-S). */
static int stack_alloc(struct lw *l, struct kl_node *at, int64_t size, struct val *out)
{
	if (size <= 0 || size > 512)
		return kl_error(l->c->d, at->span, "stack buffer of %lld bytes in '%s' does not fit the 512-byte BPF stack",
				(long long)size, l->f->name);
	uint32_t s = kl_lw_slot(l, (uint32_t)size, 8);
	zero_slot(l, s, 0, (uint32_t)size);
	*out = pval(kl_lw_slot_addr(l, s));
	return 0;
}

static int f_stack_buffer(struct lw *l, struct kl_node *n, struct val *out)
{
	int64_t size;
	if (kl_lw_arity(l, n, 1, !strcmp(n->items[0]->str, "struct-alloc") ? 1 : 2) ||
	    kl_const_eval(l->c, n->items[n->nitems - 1], &size))
		return -1;
	return stack_alloc(l, n->items[n->nitems - 1], size, out);
}

/* A tracepoint's field, from its format file in tracefs: offset, size, signedness. */
static int tracepoint_field(struct lw *l, struct kl_node *fn, const char *name, struct kl_field *out, bool *sign)
{
	const char *tp = strchr(l->section, '/');
	char path[512];
	struct kl_tp_field *fs;
	uint32_t nf;
	if (!tp)
		return kl_error(l->c->d, fn->span, "section '%s' names no tracepoint", l->section);
	if (kl_tracepoint_format(l->c->a, tp + 1, &fs, &nf, path, sizeof(path)))
		return kl_error(l->c->d, fn->span, "%s", path);
	char msg[2048];
	const struct kl_tp_field *f = kl_tracepoint_field(fs, nf, tp + 1, name, KL_TPF_COMMON, msg, sizeof(msg));
	if (!f)
		return kl_error(l->c->d, fn->span, "%s", msg);
	if (f->count || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return kl_error(l->c->d, fn->span, "tracepoint '%s' has no scalar field '%s' (see %s)", tp + 1, name, path);
	if (f->offset < 8)
		return kl_error(l->c->d, fn->span, "tracepoint field '%s' is one of the common fields the kernel "
				"does not let BPF programs read; use (get-current-pid-tgid) and friends", name);
	out->offset = f->offset;
	out->type = kl_type_sized(l->c->a, f->size);
	*sign = f->is_signed && f->size < 8;
	return 0;
}

/* Where (ctx ...) reads or writes: (ctx FIELD), (ctx FIELD INDEX) for an array field such
 * as remote-ip6 (the row "remote-ip6-2"), or (ctx TYPE OFFSET), Whistler's raw form. */
struct ctx_ref {
	int32_t off;
	struct kl_type type;
	const struct kl_ctx_field *cf;     /* NULL for a raw offset or a tracepoint field */
};

static int ctx_resolve(struct lw *l, struct kl_node *n, uint32_t nargs, struct ctx_ref *out)
{
	struct kl_node **a = n->items + 1;
	memset(out, 0, sizeof(*out));
	if (!l->pt)
		return kl_error(l->c->d, n->span, "(ctx ...) is only available in a defprog; pass ctx to the function");
	const struct kl_type *raw = a[0]->kind == KL_N_SYM ? kl_type_builtin(a[0]->str) : NULL;
	if (raw && raw->kind == KL_T_INT) {
		int64_t off;
		if (nargs != 2)
			return kl_lw_err_form(l, n, "%s takes TYPE OFFSET: %s", "(ctx TYPE OFFSET)");
		if (kl_const_eval(l->c, a[1], &off))
			return -1;
		if (off < 0 || off > 4096 || off % raw->size)
			return kl_error(l->c->d, a[1]->span, "context offset %lld is not an aligned offset for a %s",
					(long long)off, raw->name);
		out->off = (int32_t)off;
		out->type = *raw;
		/* a raw read of data/data-end is the same pointer as by name */
		if (l->pt->ctx_fields)
			out->cf = kl_ctx_field_at(l->pt->ctx_fields, (uint16_t)off, raw->size);
		return 0;
	}
	const char *name = a[0]->kind == KL_N_SYM || a[0]->kind == KL_N_KEY ? a[0]->str : "";
	if (nargs == 2) {
		int64_t idx;
		if (kl_const_eval(l->c, a[1], &idx))
			return -1;
		name = kl_arena_printf(l->c->a, "%s-%lld", name, (long long)idx);
	} else if (nargs != 1) {
		return kl_lw_err_form(l, n, "%s takes FIELD, FIELD INDEX or TYPE OFFSET: %s", "ctx");
	}
	if (l->pt->prog_type == BPF_PROG_TYPE_TRACEPOINT) {
		struct kl_field tf = { 0 };
		bool sign = false;
		if (tracepoint_field(l, a[0], name, &tf, &sign))
			return -1;
		out->off = (int32_t)tf.offset;
		out->type = *tf.type;
		out->type.is_signed = sign;
		return 0;
	}
	const struct kl_ctx_field *cf = l->pt->ctx_fields ? kl_ctx_field_find(l->pt->ctx_fields, name) : NULL;
	if (!cf) {
		if (!l->pt->ctx_fields)
			return kl_error(l->c->d, a[0]->span, "a :%s program has no context fields by name; "
					"use (ctx TYPE OFFSET)", l->pt->keyword);
		return kl_error(l->c->d, a[0]->span, "unknown context field '%s' for a :%s program (struct %s: %s)",
				name, l->pt->keyword, l->pt->ctx_fields, kl_ctx_field_names(l->c->a, l->pt->ctx_fields));
	}
	out->cf = cf;
	out->off = cf->offset;
	out->type = *kl_type_sized(l->c->a, cf->size);
	return 0;
}

/* (ctx FIELD), (ctx FIELD INDEX), (ctx TYPE OFFSET) */
static int f_ctx(struct lw *l, struct kl_node *n, struct val *out)
{
	struct ctx_ref r;
	if (kl_lw_arity(l, n, 1, 2) || ctx_resolve(l, n, n->nitems - 1, &r))
		return -1;
	*out = load_at(l, rval(l->ctx), r.off, &r.type);
	out->is_ptr = r.cf && r.cf->is_pointer;
	out->pkt_end = out->is_ptr && strstr(r.cf->name, "data-end");
	if (out->is_ptr && l->f->nins && l->f->ins[l->f->nins - 1].op == IR_LOAD)
		l->f->ins[l->f->nins - 1].bounds = KL_PKT_POINTER;   /* opt/nonnull.c: never 0 */
	return 0;
}

/* (ctx-load TYPE OFFSET): Whistler's older spelling of (ctx TYPE OFFSET) */
static int f_ctx_load(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	return f_ctx(l, n, out);
}

/* (setf (ctx ...) V) */
static int ctx_store(struct lw *l, struct kl_node *p, struct val v)
{
	struct ctx_ref r;
	if (kl_lw_arity(l, p, 1, 2) || ctx_resolve(l, p, p->nitems - 1, &r))
		return -1;
	if (r.cf && !r.cf->writable)
		return kl_error(l->c->d, p->span, "context field '%s' cannot be written in a :%s program",
				r.cf->name, l->pt->keyword);
	store_at(l, rval(l->ctx), r.off, r.type.size, v);
	return 0;
}

/* (ctx-store TYPE OFFSET V) */
static int f_ctx_store(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val v;
	if (kl_lw_arity(l, n, 3, 3) || kl_lw_lower(l, n->items[3], &v))
		return -1;
	struct kl_node place = *n;
	place.nitems = 3;
	*out = cval(0);
	return ctx_store(l, &place, v);
}

/* (ctx-ptr): the context pointer itself, for helpers that take it */
static int f_ctx_ptr(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	if (!l->pt)
		return kl_error(l->c->d, n->span, "(ctx-ptr) is only available in a defprog; pass ctx to the function");
	*out = pval(l->ctx);
	return 0;
}

/* (pass-action): the return value that lets a packet through in this program type. The
 * packet library returns it when a packet is too short for the headers it parses. */
static int f_pass_action(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	const struct kl_prog_kind *k = l->pt ? kl_prog_kind_facts(l->pt->prog_type) : NULL;
	if (k && k->has_pass) {
		*out = cval(k->pass);
		return 0;
	}
	return kl_error(l->c->d, n->span, "(pass-action) needs a packet program (xdp, tc, socket-filter, cgroup-skb); "
			"this is %s", l->pt ? l->pt->keyword : "a defun");
}

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
	out->slot = ptr ? 0 : spill_value(l, out->v, size);
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

kl_vreg kl_lw_call(struct lw *l, uint32_t helper, kl_vreg *args, uint32_t nargs)
{
	struct kl_ir_ins *i = emit(l, IR_CALL);
	i->imm = helper;
	i->nargs = (uint8_t)nargs;
	for (uint32_t k = 0; k < nargs; k++)
		i->args[k] = args[k];
	i->d = vreg(l);
	return i->d;
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
static int map_update(struct lw *l, struct kl_mapdef *m, struct kl_node *kn, struct kl_node *vn,
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
		value.slot = ptr ? 0 : spill_value(l, *vv, m->value_size);
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
	return map_update(l, m, n->items[2], n->items[3], NULL, flags, ptr_form(n), out);
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

/* ---- places: setf, incf, decf ---- */

/* incf/decf/atomic add on (getmap M K): add in place when present, insert when a hash map
 * lacks the key. */
static int getmap_add(struct lw *l, struct kl_node *place_n, struct val delta, struct val *out)
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
		struct mop value = { spill_value(l, delta, m->value_size), delta };
		update_call(l, m, key, value, cval(BPF_NOEXIST));
	} else {
		place(l, lnull);
	}
	place(l, lend);
	*out = cval(0);
	return 0;
}

static int assign(struct lw *l, struct kl_node *p, struct val *v, const char *what);
static int field_ref(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *base, int64_t *off,
		     const struct kl_type **t);

static int f_setf(struct lw *l, struct kl_node *n, struct val *out)
{
	if ((n->nitems - 1) % 2 || n->nitems < 3)
		return kl_lw_err_form(l, n, "%s takes PLACE VALUE pairs: %s", n->items[0]->str);
	*out = cval(0);
	for (uint32_t i = 1; i + 1 < n->nitems; i += 2) {
		struct val v;
		if (kl_lw_lower(l, n->items[i + 1], &v) || assign(l, n->items[i], &v, n->items[0]->str))
			return -1;
		*out = v;
	}
	if (out->is_var)
		*out = rval(kl_lw_fresh_copy(l, *out));
	return 0;
}

static int f_incdec(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 2))
		return -1;
	bool dec = !strcmp(n->items[0]->str, "decf");
	struct val delta = cval(1), cur;
	if (n->nitems == 3 && kl_lw_lower(l, n->items[2], &delta))
		return -1;
	struct kl_node *p = n->items[1];
	if (kl_head(p) && !strcmp(kl_head(p), "getmap")) {
		if (dec)
			delta = delta.kind == V_CONST ? cval(kl_fold(BPF_SUB, 0, delta.c)) : kl_lw_arith2(l, kl_lw_find_arith("-"), cval(0), delta);
		return getmap_add(l, p, delta, out);
	}
	if (kl_lw_lower(l, p, &cur))   /* the place's current value */
		return -1;
	struct val nv = kl_lw_arith2(l, kl_lw_find_arith(dec ? "-" : "+"), cur, delta);
	if (assign(l, p, &nv, n->items[0]->str))
		return -1;
	*out = nv.is_var ? rval(kl_lw_fresh_copy(l, nv)) : nv;
	return 0;
}

/* Store v into the place p; `what` names the form (setf, incf, decf) in errors. */
/* The form's value becomes what was stored (a typed variable's truncated value). */
static int assign(struct lw *l, struct kl_node *p, struct val *vp, const char *what)
{
	struct val v = *vp;
	if (p->kind == KL_N_SYM) {
		struct binding *b = kl_lw_find_var(l, p->str);
		if (!b && kl_lw_is_arg(l, p->str))
			return kl_error(l->c->d, p->span, "cannot assign '%s': a program's arguments are read-only "
					"(bind a copy with let)", p->str);
		if (!b)
			return kl_error(l->c->d, p->span, "cannot assign '%s': it is not a variable", p->str);
		if (!b->mutable)
			return kl_error(l->c->d, p->span, "internal: variable '%s' was not marked mutable", p->str);
		if (b->type && b->type->kind == KL_T_INT && b->type->size < 8)
			*vp = v = kl_lw_truncate(l, v, b->type->size, b->type->is_signed);
		kl_lw_move_to(l, b->v.r, v);
		return 0;
	}
	const char *h = kl_head(p);
	if (h && !strcmp(h, "getmap")) {
		if (kl_lw_arity(l, p, 2, 2))
			return -1;
		struct kl_mapdef *m = kl_lw_map_arg(l, p->items[1]);
		struct val r;
		if (!m)
			return -1;
		return map_update(l, m, p->items[2], NULL, &v, cval(BPF_ANY), false, &r);
	}
	if (h && !strcmp(h, "load")) {
		struct kl_type *t;
		struct val base;
		int64_t off;
		if (kl_lw_arity(l, p, 2, 3) || mem_type(l, p->items[1], &t) ||
		    address(l, p->items[2], p->nitems == 4 ? p->items[3] : NULL, &base, &off))
			return -1;
		store_at(l, base, off, t->size, v);
		return 0;
	}
	if (h && !strcmp(h, "ctx"))
		return ctx_store(l, p, v);
	const struct kl_accessor *acc = h ? kl_accessor_lookup(l->c, h) : NULL;
	if (acc) {
		struct val base;
		int64_t off;
		const struct kl_type *t;
		if (field_ref(l, p, acc, &base, &off, &t))
			return -1;
		if (t->kind != KL_T_INT && t->kind != KL_T_PTR)
			return kl_error(l->c->d, p->span, "field '%s' is not a scalar; assign its elements: (setf (%s p INDEX) v)",
					acc->field->name, acc->name);
		store_at(l, base, off, t->size, v);
		return 0;
	}
	return kl_lw_err_form(l, p, "%s: not a place (a variable, (getmap M K), (load ...), (ctx F) or a struct accessor): %s",
			what);
}

/* The address and type of (S-FIELD p) or, for an array field, (S-FIELD p INDEX): a constant
 * index folds into the offset, a computed one is scaled and added (the verifier checks it). */
static int field_ref(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *base, int64_t *off,
		     const struct kl_type **t)
{
	const struct kl_field *f = acc->field;
	bool array = f->type->kind == KL_T_ARRAY;
	if (kl_lw_arity(l, n, 1, array ? 2 : 1) || kl_lw_lower(l, n->items[1], base))
		return -1;
	*off = f->offset;
	*t = f->type;
	if (n->nitems == 3) {
		struct val ix;
		if (kl_lw_lower(l, n->items[2], &ix))
			return -1;
		*t = f->type->elem;
		if (ix.kind == V_CONST) {
			if (ix.c < 0 || (uint64_t)ix.c >= f->type->count)
				return kl_error(l->c->d, n->items[2]->span, "index %lld is outside %s (%u elements)",
						(long long)ix.c, acc->name, f->type->count);
			*off += ix.c * (*t)->size;
		} else {
			struct val scaled = kl_lw_arith2(l, kl_lw_find_arith("*"), ix, cval((*t)->size));
			*base = rval(kl_lw_alu(l, BPF_ADD, *base, scaled));
		}
	}
	return 0;
}

/* The pointer base + off, knowing its alignment. */
static struct val ptr_plus(struct lw *l, struct val base, int64_t off)
{
	struct val p = off ? pval(kl_lw_alu(l, BPF_ADD, base, cval(off))) : base;
	p.is_ptr = true;
	p.misalign = (uint8_t)((base.misalign + off) & 7);
	return p;
}

/* (S-FIELD-ptr p): the address of a field, to hand to a helper */
int kl_lw_field_ptr(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out)
{
	struct val base;
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], &base))
		return -1;
	*out = ptr_plus(l, base, acc->field->offset);
	return 0;
}

int kl_lw_make_struct(struct lw *l, struct kl_node *n, struct kl_structdef *sd, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	return stack_alloc(l, n, sd->type->size, out);
}

int kl_lw_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out)
{
	struct val base;
	int64_t off;
	const struct kl_type *t;
	if (field_ref(l, n, acc, &base, &off, &t))
		return -1;
	if (t->kind == KL_T_INT || t->kind == KL_T_PTR) {
		*out = load_at(l, base, off, t);
		return 0;
	}
	/* arrays and nested structs (an element of an array of structs too): the address */
	*out = ptr_plus(l, base, off);
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

static int f_const_form(struct lw *l, struct kl_node *n, struct val *out)
{
	int64_t v;
	if (kl_const_eval(l->c, n, &v))
		return -1;
	*out = cval(v);
	return 0;
}

/* (atomic-add PTR OFFSET VALUE [TYPE]), Whistler's form: lock *(TYPE *)(PTR + OFFSET) += VALUE,
 * TYPE u64 by default. kiln's shorter (atomic-add PTR VALUE [TYPE]) is also accepted: a third
 * argument that names a type marks that form. */
static int f_atomic_add(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 4))
		return -1;
	bool whistler = n->nitems == 5 || (n->nitems == 4 && !kl_type_builtin(n->items[3]->kind == KL_N_SYM ?
										   n->items[3]->str : ""));
	struct kl_node *pn = n->items[1], *on = whistler ? n->items[2] : NULL;
	struct kl_node *vn = n->items[whistler ? 3 : 2];
	struct kl_node *tn = n->nitems == (whistler ? 5u : 4u) ? n->items[n->nitems - 1] : NULL;
	struct kl_type *t = NULL;
	if (tn && mem_type(l, tn, &t))
		return -1;
	uint32_t size = t ? t->size : 8;
	if (size != 4 && size != 8)
		return kl_lw_err_form(l, n, "%s works on u32 or u64: %s", "atomic-add");
	struct val base, v;
	int64_t off;
	if (address(l, pn, on, &base, &off) || kl_lw_lower(l, vn, &v))
		return -1;
	if (off % size)
		return kl_error(l->c->d, on->span, "atomic-add offset %lld is not a multiple of %u", (long long)off, size);
	kl_vreg rv = kl_lw_reg_of(l, v), rb = access_base(l, base, &off);
	struct kl_ir_ins *i = emit(l, IR_XADD);
	i->a = rb;
	i->off = (int32_t)off;
	i->b = rv;
	i->size = (uint8_t)size;
	*out = cval(0);
	return 0;
}

/* (tail-call MAP INDEX): jump to the program at INDEX of a :prog-array map with this
 * program's context; when the slot is empty execution goes on after the form. The helper's
 * own three-argument form (tail-call CTX MAP INDEX) works too. */
static int f_tail_call(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 3))
		return -1;
	bool own = n->nitems == 3;
	if (l->outer)   /* lower_loop.c then lowers the dotimes as a loop */
		return kl_lw_err_form(l, n, "%s is refused in a bpf_loop callback: %s", "tail-call");
	struct kl_mapdef *m = kl_lw_map_arg(l, n->items[own ? 1 : 2]);
	if (!m)
		return -1;
	if (m->m.type != BPF_MAP_TYPE_PROG_ARRAY)
		return kl_error(l->c->d, n->items[own ? 1 : 2]->span, "tail-call needs a :prog-array map; '%s' is a :%s map",
				m->name, m->mt->keyword);
	if (own && !l->pt)
		return kl_error(l->c->d, n->span, "(tail-call MAP INDEX) needs the program's context: in a defun "
				"write (tail-call ctx MAP INDEX)");
	struct val c = pval(l->ctx), ix;
	if ((!own && kl_lw_lower(l, n->items[1], &c)) || kl_lw_lower(l, n->items[own ? 2 : 3], &ix))
		return -1;
	kl_vreg args[3];
	args[0] = kl_lw_reg_of(l, c);
	args[1] = kl_lw_map_ref(l, m);
	args[2] = kl_lw_reg_of(l, ix);
	*out = rval(kl_lw_call(l, BPF_FUNC_tail_call, args, 3));
	return 0;
}

/* (stack-addr VAR): the address of a stack copy of VAR's current value (8 bytes), for
 * helpers that want a pointer to a scalar. Variables live in registers: a write through the
 * pointer does not change VAR. */
static int f_stack_addr(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	struct val v;
	if (kl_lw_lower(l, n->items[1], &v))
		return -1;
	/* a slot of its own, not a temporary: the pointer may be kept and used much later */
	uint32_t s = kl_lw_slot(l, 8, 8);
	store_to(l, 0, s, 0, 8, v);
	*out = pval(kl_lw_slot_addr(l, s));
	return 0;
}

/* (log2 X): floor(log2(X)) over 64 bits, 0 for 0 and 1 — a binary search of six steps */
static int f_log2(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val x;
	if (kl_lw_arity(l, n, 1, 1) || kl_lw_lower(l, n->items[1], &x))
		return -1;
	if (x.kind == V_CONST) {
		*out = cval(x.c ? 63 - __builtin_clzll((uint64_t)x.c) : 0);
		return 0;
	}
	kl_vreg w = kl_lw_fresh_copy(l, x), r = vreg(l);
	kl_lw_move_to(l, r, cval(0));
	for (int sh = 32; sh >= 1; sh /= 2) {
		uint32_t skip = label(l);
		if (sh == 32)   /* 2^32 does not fit an immediate: test the high half instead */
			kl_lw_branch(l, BPF_JEQ, rval(kl_lw_alu(l, BPF_RSH, rval(w), cval(32))), cval(0), skip);
		else
			kl_lw_branch(l, BPF_JLT, rval(w), cval((int64_t)1 << sh), skip);
		kl_lw_alu_in_place(l, BPF_RSH, w, sh);
		kl_lw_alu_in_place(l, BPF_ADD, r, sh);
		place(l, skip);
	}
	*out = rval(r);
	return 0;
}

/* The widest access (8, 4, 2, 1 bytes) at offsets a and b that stays within n bytes and keeps
 * both aligned: a and b count from 8-aligned addresses (a pointer's misalign is added in), as
 * the verifier wants aligned stack accesses. */
static uint32_t widest(int64_t a, int64_t b, int64_t n)
{
	uint32_t w = 8;
	while (w > 1 && ((a % w) || (b % w) || n < w))
		w /= 2;
	return w;
}

static int const_arg(struct lw *l, struct kl_node *n, const char *what, int64_t lo, int64_t hi, int64_t *v)
{
	if (kl_const_eval(l->c, n, v))
		return -1;
	if (*v < lo || *v > hi)
		return kl_error(l->c->d, n->span, "%s %lld is out of range %lld..%lld", what, (long long)*v,
				(long long)lo, (long long)hi);
	return 0;
}

/* (memset PTR OFFSET VALUE NBYTES): NBYTES bytes of VALUE's low byte from PTR + OFFSET, with
 * the widest stores; OFFSET and NBYTES are constants. */
static int f_memset(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val base, v;
	int64_t off, len;
	if (kl_lw_arity(l, n, 4, 4) || kl_lw_lower(l, n->items[1], &base) ||
	    const_arg(l, n->items[2], "memset offset", 0, 65535, &off) || kl_lw_lower(l, n->items[3], &v) ||
	    const_arg(l, n->items[4], "memset length", 0, 65536, &len))
		return -1;
	if (v.kind == V_CONST) {
		v = cval((int64_t)((uint64_t)(v.c & 0xff) * 0x0101010101010101ULL));
		if (!fits32(v.c))
			v = rval(kl_lw_reg_of(l, v));
	} else {
		/* the constant first, then the low byte: named, not left to the order in which C
		 * evaluates a call's arguments (which gcc changed with an unrelated edit) */
		kl_vreg ones = kl_lw_reg_of(l, cval(0x0101010101010101LL));
		kl_vreg low = kl_lw_alu(l, BPF_AND, v, cval(0xff));
		v = rval(kl_lw_alu(l, BPF_MUL, rval(low), rval(ones)));
	}
	kl_vreg rb = kl_lw_reg_of(l, base);
	for (int64_t at = 0; at < len;) {
		uint32_t w = widest(base.misalign + off + at, 0, len - at);
		store_at(l, rval(rb), off + at, w, v);
		at += w;
	}
	*out = cval(0);
	return 0;
}

/* (memcpy DST DST-OFFSET SRC SRC-OFFSET NBYTES), offsets and NBYTES constants: the widest
 * loads and stores both alignments allow. */
static int f_memcpy(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val dst, src;
	int64_t doff, soff, len;
	if (kl_lw_arity(l, n, 5, 5) || kl_lw_lower(l, n->items[1], &dst) ||
	    const_arg(l, n->items[2], "memcpy offset", 0, 65535, &doff) || kl_lw_lower(l, n->items[3], &src) ||
	    const_arg(l, n->items[4], "memcpy offset", 0, 65535, &soff) ||
	    const_arg(l, n->items[5], "memcpy length", 0, 65536, &len))
		return -1;
	kl_vreg rd = kl_lw_reg_of(l, dst), rs = kl_lw_reg_of(l, src);
	for (int64_t at = 0; at < len;) {
		uint32_t w = widest(dst.misalign + doff + at, src.misalign + soff + at, len - at);
		struct val v = load_at(l, rval(rs), soff + at, kl_type_sized(l->c->a, w));
		store_at(l, rval(rd), doff + at, w, v);
		at += w;
	}
	*out = cval(0);
	return 0;
}

/* (ash X N) with a constant N: X << N, or X >> -N when N is negative (logical, as the
 * values are unsigned) */
static int f_ash(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val x;
	int64_t k;
	if (kl_lw_arity(l, n, 2, 2) || kl_lw_lower(l, n->items[1], &x) || const_arg(l, n->items[2], "ash count", -63, 63, &k))
		return -1;
	*out = kl_lw_arith2(l, kl_lw_find_arith(k < 0 ? ">>" : "<<"), x, cval(k < 0 ? -k : k));
	if (out->is_var)
		*out = rval(kl_lw_fresh_copy(l, *out));
	return 0;
}

/* A form built by the compiler itself, placed where `at` is. */
static struct kl_node *synth(struct lw *l, const struct kl_node *at, enum kl_node_kind kind, const char *str,
			     int64_t ival, uint32_t nitems)
{
	struct kl_node *n = kl_arena_new(l->c->a, struct kl_node);
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->span = at->span;
	n->str = str;
	n->ival = ival;
	n->nitems = nitems;
	n->items = nitems ? kl_arena_array(l->c->a, struct kl_node *, nitems) : NULL;
	return n;
}

/* (with-event (e EVENT RINGBUF) BODY...): reserve a record, run BODY with e pointing at
 * it, submit it. (discard-event) in BODY throws the record away instead. When the ring
 * buffer is full the body is skipped and RINGBUF-drops (made by kl_add_drop_counters)
 * counts the lost record. The ring buffer's records are described as EVENT in the BTF. */
static int f_with_event(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	struct kl_node *spec = n->items[1];
	if (spec->kind != KL_N_LIST || spec->nitems != 3 || spec->items[0]->kind != KL_N_SYM)
		return kl_lw_err_form(l, spec, "%s needs (VAR EVENT RINGBUF): %s", "with-event");
	struct kl_type *ev = kl_type_parse(l->c, spec->items[1]);
	if (!ev)
		return -1;
	int64_t size = ev->size;
	struct kl_mapdef *m = kl_lw_map_arg(l, spec->items[2]);
	if (!m)
		return -1;
	if (m->m.type != BPF_MAP_TYPE_RINGBUF)
		return kl_error(l->c->d, spec->items[2]->span, "with-event needs a :ringbuf map; '%s' is a :%s map",
				m->name, m->mt->keyword);
	if (l->nevents == sizeof(l->events) / sizeof(l->events[0]))
		return kl_lw_err_form(l, n, "%s nests too deeply: %s", "with-event");
	if (!m->m.event && ev->kind == KL_T_STRUCT)
		m->m.event = ev;
	const char *drops = m->count_drops ? kl_arena_printf(l->c->a, "%s-drops", m->name) : NULL;
	kl_vreg args[3];
	args[0] = kl_lw_map_ref(l, m);
	args[1] = kl_lw_reg_of(l, cval(size));
	args[2] = kl_lw_reg_of(l, cval(0));
	kl_vreg rec = kl_lw_call(l, BPF_FUNC_ringbuf_reserve, args, 3);
	uint32_t lfull = label(l), ldone = label(l);
	kl_lw_branch(l, BPF_JEQ, rval(rec), cval(0), lfull);
	size_t mark = l->scope.len;
	kl_lw_bind(l, spec->items[0]->str, pval(rec), false);
	l->events[l->nevents].rec = rec;
	l->events[l->nevents++].done = ldone;
	struct val v;
	int err = kl_lw_lower_body(l, n->items + 2, n->nitems - 2, &v);
	l->nevents--;
	if (err)
		return -1;
	l->scope.len = mark;
	args[0] = rec;
	args[1] = kl_lw_reg_of(l, cval(0));
	kl_lw_call(l, BPF_FUNC_ringbuf_submit, args, 2);
	jump(l, ldone);
	place(l, lfull);
	if (drops && kl_map_lookup(l->c, drops)) {
		/* (incf (getmap RING-drops 0)) */
		struct kl_node *get = synth(l, n, KL_N_LIST, NULL, 0, 3);
		get->items[0] = synth(l, n, KL_N_SYM, "getmap", 0, 0);
		get->items[1] = synth(l, n, KL_N_SYM, drops, 0, 0);
		get->items[2] = synth(l, n, KL_N_INT, NULL, 0, 0);
		struct kl_node *inc = synth(l, n, KL_N_LIST, NULL, 0, 2);
		inc->items[0] = synth(l, n, KL_N_SYM, "incf", 0, 0);
		inc->items[1] = get;
		if (kl_lw_lower(l, inc, &v))
			return -1;
	}
	place(l, ldone);
	*out = cval(0);
	return 0;
}

/* (discard-event): inside with-event, throw the record away and leave the with-event. */
static int f_discard_event(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	if (!l->nevents)
		return kl_lw_err_form(l, n, "%s is only meaningful inside with-event: %s", "discard-event");
	kl_vreg args[2] = { l->events[l->nevents - 1].rec, kl_lw_reg_of(l, cval(0)) };
	kl_lw_call(l, BPF_FUNC_ringbuf_discard, args, 2);
	jump(l, l->events[l->nevents - 1].done);
	*out = cval(0);
	return 0;
}

const struct kl_lw_form kl_lw_data_forms[] = {
	{ "with-event", f_with_event, "de" }, { "discard-event", f_discard_event, "d" },
	{ "setf", f_setf, "P" }, { "setq", f_setf, "P" }, { "incf", f_incdec, "e" },
	{ "decf", f_incdec, "e" }, { "load", f_load, "de" }, { "store", f_store, "de" },
	{ "ctx", f_ctx, "d" }, { "getmap", f_getmap, "de" }, { "map-lookup", f_map_lookup, "de" },
	{ "map-update", f_map_update, "de" }, { "remmap", f_remmap, "de" },
	{ "map-delete", f_remmap, "de" }, { "delmap", f_remmap, "de" },
	{ "stack-buffer", f_stack_buffer, "d" }, { "make-stack", f_stack_buffer, "d" },
	{ "sizeof", f_const_form, "d" }, { "offsetof", f_const_form, "d" },
	{ "event-size", f_const_form, "d" }, { "event-field-offset", f_const_form, "d" },
	{ "event-field-size", f_const_form, "d" }, { "atomic-add", f_atomic_add, "e" },
	{ "tail-call", f_tail_call, "e" }, { "stack-addr", f_stack_addr, "e" }, { "log2", f_log2, "e" },
	{ "memset", f_memset, "eded" }, { "memcpy", f_memcpy, "ededd" }, { "ash", f_ash, "ed" },
	{ "struct-alloc", f_stack_buffer, "d" }, { "ctx-load", f_ctx_load, "d" },
	{ "ctx-store", f_ctx_store, "dde" }, { "ctx-ptr", f_ctx_ptr, "d" },
	{ "pass-action", f_pass_action, "d" }, { "map-lookup-ptr", f_map_lookup, "de" },
	{ "map-update-ptr", f_map_update, "de" }, { "map-delete-ptr", f_remmap, "de" },
};
const size_t kl_lw_ndata_forms = sizeof(kl_lw_data_forms) / sizeof(kl_lw_data_forms[0]);
