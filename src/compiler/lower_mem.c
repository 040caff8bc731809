/* lower_mem.c — memory and the program's context: loads and stores at an address (the
 * helpers the other form files use for struct fields, map values and events), stack
 * buffers, and the context forms (ctx, ctx-load, ctx-store, ctx-ptr, pass-action) with the
 * context's fields and tracepoint fields looked up by name. */
#include "lower_internal.h"
#include "tracefs.h"
#include <ctype.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
#include <string.h>

/* ---- memory ---- */

/* The base register of an access at base + *off; an offset beyond the instruction's 16 bits
 * is added to the base first (and *off becomes 0). */
kl_vreg kl_lw_access_base(struct lw *l, struct val base, int64_t *off)
{
	kl_vreg rb = kl_lw_reg_of(l, base);
	if (*off < INT16_MIN || *off > INT16_MAX) {
		rb = kl_lw_alu(l, BPF_ADD, rval(rb), cval(*off));
		*off = 0;
	}
	return rb;
}

/* d = *(size *)(base + off), with sign extension for signed types. */
struct val kl_lw_load_at(struct lw *l, struct val base, int64_t off, const struct kl_type *t)
{
	kl_vreg rb = kl_lw_access_base(l, base, &off);
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
void kl_lw_store_to(struct lw *l, kl_vreg base, uint32_t slot, int32_t off, uint32_t size, struct val v)
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

void kl_lw_store_at(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v)
{
	kl_vreg rb = kl_lw_access_base(l, base, &off);
	kl_lw_store_to(l, rb, 0, (int32_t)off, size, v);
}

/* ---- global variables (defparameter, defvar) ---- */

/* g's address: an ld_imm64 that libbpf points into its data section's map */
static struct val global_addr(struct lw *l, struct kl_globaldef *g)
{
	g->used = true;
	struct kl_ir_ins *i = emit(l, IR_LDDATA);
	i->imm = g - l->c->globals.items;
	i->d = vreg(l);
	struct val v = pval(i->d);
	v.misalign = (uint8_t)(g->g.off % 8);
	return v;
}

/* The value of global g read by name: an integer's value, an array's or struct's address */
struct val kl_lw_global_read(struct lw *l, struct kl_globaldef *g)
{
	struct val a = global_addr(l, g);
	const struct kl_type *t = g->g.type;
	return t->kind == KL_T_INT || t->kind == KL_T_ENUM ? kl_lw_load_at(l, a, 0, t) : a;
}

/* (setf g v): a defvar's integer stored (truncated to its size); the stored value in *v */
int kl_lw_global_store(struct lw *l, struct kl_globaldef *g, const struct kl_node *at, struct val *v)
{
	const struct kl_type *t = g->g.type;
	if (g->g.sec == KL_DATA_RODATA)
		return kl_error(l->c->d, at->span, "cannot assign '%s': a defparameter is read-only in programs (set "
				"it before load: kiln run --set %s=VALUE; or make it a defvar)", g->name, g->name);
	if (t->kind != KL_T_INT && t->kind != KL_T_ENUM)
		return kl_error(l->c->d, at->span, "cannot assign '%s': it is an %s; assign its elements through its address",
				g->name, t->kind == KL_T_ARRAY ? "array" : "struct");
	/* the store takes the low bytes as they are; the form's value is the truncated one (gone
	 * when nothing reads it) */
	kl_lw_store_at(l, global_addr(l, g), 0, t->size, *v);
	if (t->size < 8)
		*v = kl_lw_truncate(l, *v, t->size, t->is_signed);
	return 0;
}

/* (incf g delta): an atomic add for a 4- or 8-byte defvar (its value 0, as getmap's), a load,
 * add and store for a narrower one (its value the new one) */
int kl_lw_global_add(struct lw *l, struct kl_globaldef *g, const struct kl_node *at, struct val delta,
		     struct val *out)
{
	const struct kl_type *t = g->g.type;
	if (g->g.sec == KL_DATA_RODATA || (t->kind != KL_T_INT && t->kind != KL_T_ENUM)) {
		struct val v = cval(0);
		return kl_lw_global_store(l, g, at, &v);   /* the error */
	}
	if (t->size == 4 || t->size == 8) {
		struct val a = global_addr(l, g);
		kl_vreg d = kl_lw_reg_of(l, delta);
		struct kl_ir_ins *i = emit(l, IR_XADD);
		i->a = a.r;
		i->b = d;
		i->size = (uint8_t)t->size;
		*out = cval(0);
		return 0;
	}
	/* the low bytes of the sum do not depend on the sign: loaded as they are, extended only
	 * in the form's value */
	struct val a = global_addr(l, g);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = a.r;
	i->size = (uint8_t)t->size;
	i->d = vreg(l);
	struct val sum = kl_lw_arith2(l, kl_lw_find_arith("+"), rval(i->d), delta);
	if (kl_lw_global_store(l, g, at, &sum))
		return -1;
	*out = sum;
	return 0;
}

/* Zero bytes [from, size) of a stack slot with the widest aligned stores. */
static void zero_slot(struct lw *l, uint32_t s, uint32_t from, uint32_t size)
{
	for (uint32_t off = from; off < size;) {
		uint32_t w = 8;
		while (w > 1 && (off % w || off + w > size))
			w /= 2;
		kl_lw_store_to(l, 0, s, (int32_t)off, w, cval(0));
		off += w;
	}
}

/* Store v into a fresh stack slot of `size` bytes (the rest zeroed) and return the slot. */
uint32_t kl_lw_spill_value(struct lw *l, struct val v, uint32_t size)
{
	uint32_t s = kl_lw_slot(l, size, size >= 8 ? 8 : size);
	l->f->slots[s].temp = true;
	uint32_t first = size >= 8 ? 8 : size;
	if (first == 3 || first == 5 || first == 6 || first == 7) {
		zero_slot(l, s, 0, size);
		first = first >= 4 ? 4 : 2;
	}
	kl_lw_store_to(l, 0, s, 0, first, v);
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

int kl_lw_mem_type(struct lw *l, struct kl_node *n, struct kl_type **t)
{
	*t = n->kind == KL_N_SYM || n->kind == KL_N_KEY ? kl_type_builtin(n->str) : NULL;
	if (!*t)
		return kl_lw_err_form(l, n, "%s needs a scalar type (u8 u16 u32 u64 i8 i16 i32 i64): %s", "load/store");
	return 0;
}

/* PTR and OFFSET: a constant offset folds into the instruction. */
int kl_lw_address(struct lw *l, struct kl_node *pn, struct kl_node *on, struct val *base, int64_t *off)
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
	if (kl_lw_arity(l, n, 2, 3) || kl_lw_mem_type(l, n->items[1], &t) ||
	    kl_lw_address(l, n->items[2], n->nitems == 4 ? n->items[3] : NULL, &base, &off))
		return -1;
	*out = kl_lw_load_at(l, base, off, t);
	return 0;
}

static int f_store(struct lw *l, struct kl_node *n, struct val *out)
{
	struct kl_type *t;
	struct val base, v;
	int64_t off;
	if (kl_lw_arity(l, n, 4, 4) || kl_lw_mem_type(l, n->items[1], &t) ||
	    kl_lw_address(l, n->items[2], n->items[3], &base, &off) || kl_lw_lower(l, n->items[4], &v))
		return -1;
	kl_lw_store_at(l, base, off, t->size, v);
	*out = cval(0);
	return 0;
}

/* A zeroed stack buffer, 8-byte aligned: (stack-buffer SIZE), (make-stack BUF SIZE),
 * (struct-alloc SIZE) and (make-S). */
int kl_lw_stack_alloc(struct lw *l, struct kl_node *at, int64_t size, struct val *out)
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
	return kl_lw_stack_alloc(l, n->items[n->nitems - 1], size, out);
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
	*out = kl_lw_load_at(l, rval(l->ctx), r.off, &r.type);
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
int kl_lw_ctx_store(struct lw *l, struct kl_node *p, struct val v)
{
	struct ctx_ref r;
	if (kl_lw_arity(l, p, 1, 2) || ctx_resolve(l, p, p->nitems - 1, &r))
		return -1;
	if (r.cf && !r.cf->writable)
		return kl_error(l->c->d, p->span, "context field '%s' cannot be written in a :%s program",
				r.cf->name, l->pt->keyword);
	kl_lw_store_at(l, rval(l->ctx), r.off, r.type.size, v);
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
	return kl_lw_ctx_store(l, &place, v);
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

const struct kl_lw_form kl_lw_mem_forms[] = {
	{ "load", f_load, "de" }, { "store", f_store, "de" }, { "ctx", f_ctx, "d" },
	{ "stack-buffer", f_stack_buffer, "d" }, { "make-stack", f_stack_buffer, "d" },
	{ "struct-alloc", f_stack_buffer, "d" }, { "ctx-load", f_ctx_load, "d" },
	{ "ctx-store", f_ctx_store, "dde" }, { "ctx-ptr", f_ctx_ptr, "d" },
	{ "pass-action", f_pass_action, "d" },
};
const size_t kl_lw_nmem_forms = sizeof(kl_lw_mem_forms) / sizeof(kl_lw_mem_forms[0]);
