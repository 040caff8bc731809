/* lower_builtin.c — the built-in forms made of memory, maps and helper calls: constant
 * forms (sizeof, offsetof, event sizes), atomic-add, tail-call, stack-addr, log2, memset,
 * memcpy, ash, and with-event / discard-event over a ring buffer. */
#include "lower_internal.h"
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>

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
	if (tn && kl_lw_mem_type(l, tn, &t))
		return -1;
	uint32_t size = t ? t->size : 8;
	if (size != 4 && size != 8)
		return kl_lw_err_form(l, n, "%s works on u32 or u64: %s", "atomic-add");
	struct val base, v;
	int64_t off;
	if (kl_lw_address(l, pn, on, &base, &off) || kl_lw_lower(l, vn, &v))
		return -1;
	if (off % size)
		return kl_error(l->c->d, on->span, "atomic-add offset %lld is not a multiple of %u", (long long)off, size);
	kl_vreg rv = kl_lw_reg_of(l, v), rb = kl_lw_access_base(l, base, &off);
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
	kl_lw_store_to(l, 0, s, 0, 8, v);
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
		kl_lw_store_at(l, rval(rb), off + at, w, v);
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
		struct val v = kl_lw_load_at(l, rval(rs), soff + at, kl_type_sized(l->c->a, w));
		kl_lw_store_at(l, rval(rd), doff + at, w, v);
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

const struct kl_lw_form kl_lw_builtin_forms[] = {
	{ "with-event", f_with_event, "de" }, { "discard-event", f_discard_event, "d" },
	{ "sizeof", f_const_form, "d" }, { "offsetof", f_const_form, "d" },
	{ "event-size", f_const_form, "d" }, { "event-field-offset", f_const_form, "d" },
	{ "event-field-size", f_const_form, "d" }, { "event-fields", f_const_form, "d" },
	{ "event-field-type", f_const_form, "d" }, { "atomic-add", f_atomic_add, "e" },
	{ "tail-call", f_tail_call, "e" }, { "stack-addr", f_stack_addr, "e" }, { "log2", f_log2, "e" },
	{ "memset", f_memset, "eded" }, { "memcpy", f_memcpy, "ededd" }, { "ash", f_ash, "ed" },
};
const size_t kl_lw_nbuiltin_forms = sizeof(kl_lw_builtin_forms) / sizeof(kl_lw_builtin_forms[0]);
