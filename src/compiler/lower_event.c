/* lower_event.c — clj-ebpf's defevent stores (seed 002) as forms over an event pointer:
 * (store-event-field PTR EVENT :field VALUE), (store-event-imm PTR EVENT :field CONSTANT),
 * (store-event-fields PTR EVENT :a VALUE :b VALUE ...) and (zero-event-field PTR EVENT :field).
 * clj-ebpf names registers; kiln takes any expression for the pointer and the values. */
#include "lower_internal.h"
#include <string.h>

/* The field named by node fn of the struct or event named by node en; NULL with an error. */
static const struct kl_field *field_of(struct lw *l, struct kl_node *en, struct kl_node *fn)
{
	if (kl_head(en) && !strcmp(kl_head(en), "quote") && en->nitems == 2)
		en = en->items[1];    /* 'EVENT, as a macro may write it */
	struct kl_structdef *sd = en->kind == KL_N_SYM ? kl_struct_lookup(l->c, en->str) : NULL;
	if (!sd) {
		kl_error(l->c->d, en->span, "'%s' is not a defevent or defstruct", en->kind == KL_N_SYM ? en->str : "this");
		return NULL;
	}
	const struct kl_field *f = fn->kind == KL_N_SYM || fn->kind == KL_N_KEY ? kl_type_field(sd->type, fn->str) : NULL;
	if (!f)
		kl_error(l->c->d, fn->span, "%s has no field '%s'", sd->name, fn->kind == KL_N_KEY || fn->kind == KL_N_SYM
			 ? fn->str : "?");
	return f;
}

static int store_field(struct lw *l, struct val ptr, struct kl_node *en, struct kl_node *fn, struct kl_node *vn,
		       bool imm)
{
	const struct kl_field *f = field_of(l, en, fn);
	if (!f)
		return -1;
	if (f->type->kind != KL_T_INT && f->type->kind != KL_T_PTR)
		return kl_error(l->c->d, fn->span, "field '%s' is not an integer (%u bytes): store into it with memcpy, "
				"or zero it with zero-event-field", f->name, f->type->size);
	struct val v;
	if (kl_lw_lower(l, vn, &v))
		return -1;
	if (imm && v.kind != V_CONST)
		return kl_error(l->c->d, vn->span, "store-event-imm stores a constant; use store-event-field for a value");
	kl_lw_store_at(l, ptr, f->offset, f->type->size, v);
	return 0;
}

static int f_store_event_field(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val p;
	if (kl_lw_arity(l, n, 4, 4) || kl_lw_lower(l, n->items[1], &p))
		return -1;
	*out = cval(0);
	return store_field(l, p, n->items[2], n->items[3], n->items[4], !strcmp(n->items[0]->str, "store-event-imm"));
}

static int f_store_event_fields(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val p;
	if (kl_lw_arity(l, n, 4, UINT32_MAX) || kl_lw_lower(l, n->items[1], &p))
		return -1;
	if ((n->nitems - 3) % 2)
		return kl_error(l->c->d, n->span, "store-event-fields takes :field VALUE pairs after the event");
	*out = cval(0);
	if (p.kind == V_REG && p.is_var)
		p = rval(kl_lw_fresh_copy(l, p));      /* the same pointer for every store */
	for (uint32_t i = 3; i + 1 < n->nitems; i += 2)
		if (store_field(l, p, n->items[2], n->items[i], n->items[i + 1], false))
			return -1;
	return 0;
}

static int f_zero_event_field(struct lw *l, struct kl_node *n, struct val *out)
{
	struct val p;
	if (kl_lw_arity(l, n, 3, 3) || kl_lw_lower(l, n->items[1], &p))
		return -1;
	const struct kl_field *f = field_of(l, n->items[2], n->items[3]);
	if (!f)
		return -1;
	/* the widest stores the field's offset and size allow */
	for (uint32_t off = 0, size = f->type->size; off < size;) {
		uint32_t w = 8;
		while (w > 1 && ((f->offset + off) % w || off + w > size))
			w /= 2;
		kl_lw_store_at(l, p, f->offset + off, w, cval(0));
		off += w;
	}
	*out = cval(0);
	return 0;
}

const struct kl_lw_form kl_lw_event_forms[] = {
	{ "store-event-field", f_store_event_field, "edde" },
	{ "store-event-imm", f_store_event_field, "edde" },
	{ "store-event-fields", f_store_event_fields, "ede" },
	{ "zero-event-field", f_zero_event_field, "edd" },
};
const size_t kl_lw_nevent_forms = sizeof(kl_lw_event_forms) / sizeof(kl_lw_event_forms[0]);
