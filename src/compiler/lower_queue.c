/* lower_queue.c — the maps that hold values without keys: queues and stacks (push, pop, peek)
 * and bloom filters (push adds, peek asks). A popped or peeked element is copied to the stack
 * and the form gives its address, or 0 when the map is empty, so it reads like a lookup:
 * (when-let ((p (map-pop q))) (load u32 p 0)). */
#include "lower_internal.h"
#include <linux/bpf.h>

/* The map a form names (its first argument): one with values and no keys. */
static struct kl_mapdef *keyless_map(struct lw *l, struct kl_node *form)
{
	struct kl_node *n = form->items[1];
	struct kl_mapdef *m = kl_lw_map_arg(l, n);
	if (m && !m->mt->no_key) {
		kl_error(l->c->d, n->span, "%s works on :queue, :stack and :bloom-filter maps; '%s' is a :%s map",
			 form->items[0]->str, m->name, m->mt->keyword);
		return NULL;
	}
	return m;
}

/* (map-push M VALUE [FLAGS]): 0, or a negative errno (-E2BIG when a queue is full and FLAGS
 * is not BPF_EXIST, which overwrites the oldest element). */
static int f_map_push(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 3))
		return -1;
	struct kl_mapdef *m = keyless_map(l, n);
	if (!m)
		return -1;
	bool err;
	kl_vreg value = kl_lw_map_value_ptr(l, n->items[2], m->value_size, &err);
	struct val flags = cval(0);
	if (err || (n->nitems == 4 && kl_lw_lower(l, n->items[3], &flags)))
		return -1;
	kl_vreg args[3] = { kl_lw_map_ref(l, m), value, kl_lw_reg_of(l, flags) };
	*out = rval(kl_lw_call(l, BPF_FUNC_map_push_elem, args, 3));
	return 0;
}

/* d = yes when helper result r is 0, else no: what the forms give from a helper's status */
static kl_vreg on_success(struct lw *l, kl_vreg r, struct val yes, struct val no)
{
	kl_vreg d = vreg(l);
	uint32_t lfail = label(l), lend = label(l);
	kl_lw_branch(l, BPF_JNE, rval(r), cval(0), lfail);
	kl_lw_move_to(l, d, yes);
	jump(l, lend);
	place(l, lfail);
	kl_lw_move_to(l, d, no);
	place(l, lend);
	return d;
}

/* pop or peek into a fresh stack copy: its address, or 0 when there was nothing */
static int take(struct lw *l, struct kl_node *n, uint32_t helper, struct val *out)
{
	struct kl_mapdef *m = keyless_map(l, n);
	if (!m)
		return -1;
	kl_vreg p = kl_lw_slot_addr(l, kl_lw_slot(l, m->value_size, 8));
	kl_vreg args[2] = { kl_lw_map_ref(l, m), p };
	*out = pval(on_success(l, kl_lw_call(l, helper, args, 2), rval(p), cval(0)));
	return 0;
}

static int f_map_pop(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	return take(l, n, BPF_FUNC_map_pop_elem, out);
}

/* (map-peek Q): the next element's address, or 0. (map-peek BLOOM VALUE): 1 when VALUE may
 * have been pushed, 0 when it certainly was not. */
static int f_map_peek(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 2))
		return -1;
	if (n->nitems == 2)
		return take(l, n, BPF_FUNC_map_peek_elem, out);
	struct kl_mapdef *m = keyless_map(l, n);
	if (!m)
		return -1;
	if (m->m.type != BPF_MAP_TYPE_BLOOM_FILTER)
		return kl_error(l->c->d, n->items[2]->span, "(map-peek M VALUE) asks a :bloom-filter; '%s' is a "
				":%s map, peeked with (map-peek M)", m->name, m->mt->keyword);
	bool err;
	kl_vreg value = kl_lw_map_value_ptr(l, n->items[2], m->value_size, &err);
	if (err)
		return -1;
	kl_vreg args[2] = { kl_lw_map_ref(l, m), value };
	*out = rval(on_success(l, kl_lw_call(l, BPF_FUNC_map_peek_elem, args, 2), cval(1), cval(0)));
	return 0;
}

const struct kl_lw_form kl_lw_queue_forms[] = {
	{ "map-push", f_map_push, "de" }, { "map-pop", f_map_pop, "de" }, { "map-peek", f_map_peek, "de" },
};
const size_t kl_lw_nqueue_forms = sizeof(kl_lw_queue_forms) / sizeof(kl_lw_queue_forms[0]);
