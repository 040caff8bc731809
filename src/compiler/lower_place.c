/* lower_place.c — places and struct accessors: setf, setq, incf and decf of a variable, a
 * struct field, a map entry, a context field or a load, and the accessors defstruct makes
 * ((S-FIELD p), (S-FIELD-ptr p), (make-S)). */
#include "lower_internal.h"
#include <linux/bpf.h>
#include <string.h>

/* ---- places: setf, incf, decf ---- */

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
	struct kl_globaldef *g = p->kind == KL_N_SYM && !kl_lw_find_var(l, p->str) ? kl_global_lookup(l->c, p->str) : NULL;
	if (g) {
		if (dec)
			delta = delta.kind == V_CONST ? cval(kl_fold(BPF_SUB, 0, delta.c)) : kl_lw_arith2(l, kl_lw_find_arith("-"), cval(0), delta);
		return kl_lw_global_add(l, g, p, delta, out);
	}
	if (kl_head(p) && !strcmp(kl_head(p), "getmap")) {
		if (dec)
			delta = delta.kind == V_CONST ? cval(kl_fold(BPF_SUB, 0, delta.c)) : kl_lw_arith2(l, kl_lw_find_arith("-"), cval(0), delta);
		return kl_lw_getmap_add(l, p, delta, out);
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
		struct kl_globaldef *g = b ? NULL : kl_global_lookup(l->c, p->str);
		if (g)
			return kl_lw_global_store(l, g, p, vp);
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
		return kl_lw_map_update(l, m, p->items[2], NULL, &v, cval(BPF_ANY), false, &r);
	}
	if (h && !strcmp(h, "load")) {
		struct kl_type *t;
		struct val base;
		int64_t off;
		if (kl_lw_arity(l, p, 2, 3) || kl_lw_mem_type(l, p->items[1], &t) ||
		    kl_lw_address(l, p->items[2], p->nitems == 4 ? p->items[3] : NULL, &base, &off))
			return -1;
		kl_lw_store_at(l, base, off, t->size, v);
		return 0;
	}
	if (h && !strcmp(h, "ctx"))
		return kl_lw_ctx_store(l, p, v);
	if (h && !strcmp(h, "->"))
		return kl_lw_arrow_store(l, p, v);
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
		kl_lw_store_at(l, base, off, t->size, v);
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
	return kl_lw_stack_alloc(l, n, sd->type->size, out);
}

int kl_lw_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out)
{
	struct val base;
	int64_t off;
	const struct kl_type *t;
	if (field_ref(l, n, acc, &base, &off, &t))
		return -1;
	if (t->kind == KL_T_INT || t->kind == KL_T_PTR) {
		*out = kl_lw_load_at(l, base, off, t);
		return 0;
	}
	/* arrays and nested structs (an element of an array of structs too): the address */
	*out = ptr_plus(l, base, off);
	return 0;
}

const struct kl_lw_form kl_lw_place_forms[] = {
	{ "setf", f_setf, "P" }, { "setq", f_setf, "P" }, { "incf", f_incdec, "e" },
	{ "decf", f_incdec, "e" },
};
const size_t kl_lw_nplace_forms = sizeof(kl_lw_place_forms) / sizeof(kl_lw_place_forms[0]);
