/* lower_loop.c — (dotimes (VAR COUNT) BODY...) three ways: unrolled when small, a loop, or,
 * when the verifier would walk a large body many times, a bpf_loop callback (the kernel's
 * own loop, 5.17+) that the verifier checks about once. */
#include "lower_internal.h"
#include "kbtf.h"
#include "opt.h"
#include <linux/bpf.h>
#include <stdio.h>

/* Unrolling (from -O1, unless -fno-unroll): a dotimes of at most UNROLL_COUNT iterations
 * whose body, counted in forms, times the count stays within UNROLL_FORMS, and which does
 * not assign its variable, is its body once per iteration with the variable a constant. The
 * verifier walks every iteration of a loop anyway, state by state; unrolled, each copy is
 * straight-line code it walks once, and the constant index folds into loads and keys. A
 * body of at most UNROLL_SMALL forms (a word added to a checksum) goes to UNROLL_SMALL_FORMS:
 * icmp-reflect's 10-word checksum, 170 -> 107 processed for 9 instructions more (clang
 * unrolls it too). A body that reads its index gets UNROLL_INDEXED_FORMS: the constant
 * index folds into struct offsets and keys, and stores forward to loads (wh-struct's two
 * loops, 401 -> 247 processed for 17 instructions more; clang unrolls them too). A body
 * that does not read it gains only the counter (big-parser's VLAN loop walked more states
 * unrolled). 200 forms made cmp-bounds, a 5x5 nest calling a defun, 1.5x clang's
 * instructions. Nested constant dotimes count once per iteration. */
#define UNROLL_COUNT 16
#define UNROLL_FORMS 96
#define UNROLL_INDEXED_FORMS 150
#define UNROLL_SMALL 12
#define UNROLL_SMALL_FORMS 128

/* The forms of n, up to about cap, a dotimes of a constant count inside n counted once per
 * iteration (as the verifier walks it). */
static uint64_t forms_upto(struct kl_comp *c, const struct kl_node *n, uint64_t cap)
{
	uint64_t k = 1, times = 1;
	const char *h = kl_head(n);
	if (h && !strcmp(h, "dotimes") && n->nitems > 2 && n->items[1]->kind == KL_N_LIST && n->items[1]->nitems == 2) {
		const struct kl_node *cn = n->items[1]->items[1];
		int64_t v = 1;
		if (cn->kind == KL_N_INT)
			v = cn->ival;
		else if (cn->kind == KL_N_SYM)
			kl_const_lookup(c, cn->str, &v);
		times = v > 1 ? (uint64_t)v : 1;
	}
	for (uint32_t i = 0; n->kind == KL_N_LIST && i < n->nitems && k * times <= cap; i++)
		k += forms_upto(c, n->items[i], cap);
	return k * times;
}

/* The forms of the body of dotimes n, each up to about cap (forms_upto). */
static uint64_t body_forms(struct kl_comp *c, const struct kl_node *n, uint64_t cap)
{
	uint64_t forms = 0;
	for (uint32_t i = 2; i < n->nitems; i++)
		forms += forms_upto(c, n->items[i], cap);
	return forms;
}

/* Whether the symbol name appears anywhere in n (shadowing aside: a budget, not a meaning). */
static bool mentions(const struct kl_node *n, const char *name)
{
	if (n->kind == KL_N_SYM)
		return !strcmp(n->str, name);
	for (uint32_t i = 0; n->kind == KL_N_LIST && i < n->nitems; i++)
		if (mentions(n->items[i], name))
			return true;
	return false;
}

static bool unrolls(struct lw *l, struct kl_node *n, int64_t count)
{
	struct kl_opt_config cfg = { .level = l->c->opts.opt_level, .disabled = l->c->opts.no_passes };
	if (!kl_opt_pass_on(&cfg, "unroll") || count > UNROLL_COUNT)
		return false;
	const char *var = n->items[1]->items[0]->str;
	uint64_t forms = body_forms(l->c, n, UNROLL_INDEXED_FORMS), budget = UNROLL_FORMS;
	for (uint32_t i = 2; i < n->nitems; i++)
		if (mentions(n->items[i], var))
			budget = UNROLL_INDEXED_FORMS;
	if (forms <= UNROLL_SMALL)
		budget = UNROLL_SMALL_FORMS;
	if (forms * (uint64_t)count > budget)
		return false;
	struct kl_names set = { 0 };
	kl_lw_assigned(l, n->items + 2, n->nitems - 2, &set);
	return kl_names_get(&set, var) < 0;
}

/* ---- bpf_loop ----
 * A dotimes whose count times its body's forms reaches BPF_LOOP_FORMS (unless -fno-bpf-loop,
 * at every level: without it such a loop can be more than the verifier's million
 * instructions) is lowered as bpf_loop(COUNT, callback, &context, 0). The verifier walks a
 * loop's body once per iteration, a callback's about twice; each iteration becomes a call
 * (which the kernel inlines as a loop of direct calls), so small loops stay loops.
 *
 * The callback is a function of its own, made while the loop is lowered: its arguments are
 * the index and the context, a stack area of the caller's. The variables of the functions
 * around it that the body reads are captured as it names them: each gets 8 bytes of the
 * context, stored before the call, loaded at the callback's entry, and, when the body
 * assigns it, stored at its end and loaded back after the call. Constants need no bytes.
 * The callback first returns 1 (stop) unless index < COUNT, so the verifier knows the index's
 * range as it did in the loop. A body the callback cannot hold ((return), tail-call, a
 * program's arguments, an open with-event, or a pointer it assigns) is lowered as a loop
 * after all: the error that said so is forgotten. */
#define BPF_LOOP_FORMS 16384

static bool kernel_has_bpf_loop(struct kl_comp *c)
{
	if (!c->has_bpf_loop) {
		char err[256];
		const struct kl_kbtf *k = kl_kbtf_open(c->btf_path ? c->btf_path : c->opts.btf_path, err, sizeof(err));
		c->has_bpf_loop = k && kl_kbtf_find(k, "bpf_loop", KL_KB_FUNC) ? 1 : -1;
	}
	return c->has_bpf_loop > 0;
}

/* Whether the dotimes n is one for a callback; set: then, the names its body assigns. */
static bool loop_wanted(struct lw *l, struct kl_node *n, int64_t count, struct kl_names *set)
{
	int p = kl_opt_pass_find("bpf-loop");
	if (count < 2 || (l->c->opts.no_passes >> p & 1))
		return false;
	if (body_forms(l->c, n, BPF_LOOP_FORMS) * (uint64_t)count < BPF_LOOP_FORMS)
		return false;
	kl_lw_assigned(l, n->items + 2, n->nitems - 2, set);
	return kl_names_get(set, n->items[1]->items[0]->str) < 0 && kernel_has_bpf_loop(l->c);
}

static struct kl_ir_ins *mem(struct lw *l, uint8_t op, kl_vreg base, uint32_t slot, int32_t off)
{
	struct kl_ir_ins *i = emit(l, op);
	i->a = base;
	i->slot = base ? 0 : slot;
	i->off = off;
	i->size = 8;
	return i;
}

/* The body as callback cb of l (made and lowered here), the context's bytes in *size; 1 if
 * the body cannot be one. set: the names the body assigns. */
static int lower_callback(struct lw *l, struct lw *cb, struct kl_node *n, int64_t count, const struct kl_names *set,
			  int32_t *size)
{
	struct kl_comp *c = l->c;
	struct kl_ir_func *f = kl_arena_new(c->a, struct kl_ir_func);
	char name[48];
	snprintf(name, sizeof(name), "__kiln_loop_%zu", c->loops.len);
	f->name = kl_arena_strndup(c->a, name, strlen(name));
	f->nvregs = 1;
	f->span = n->span;
	f->subprog = true;
	f->loop_body = true;
	*cb = (struct lw){ .c = c, .f = f, .pt = l->pt, .section = l->section, .targs_tried = true, .span = l->span,
			   .ncalls = l->ncalls, .outer = l, .caps = kl_arena_new(c->a, struct kl_lw_caps) };
	memcpy(cb->calls, l->calls, sizeof(cb->calls));
	kl_vreg ix = 0, ctxp = 0;
	for (int64_t k = 0; k < 2; k++) {
		struct kl_ir_ins *e = emit(cb, IR_ENTRY);
		e->imm = k;
		e->d = vreg(cb);
		*(k ? &ctxp : &ix) = e->d;
	}
	uint32_t first = f->nins;
	if (l->ctx)
		cb->ctx = kl_lw_add_cap(cb, "", NULL, rval(l->ctx))->b.v.r;
	uint32_t stop = label(cb);
	kl_lw_branch(cb, BPF_JGE, rval(ix), cval(count), stop);
	kl_lw_bind(cb, n->items[1]->items[0]->str, rval(ix), false);
	struct val v;
	if (kl_lw_lower_body(cb, n->items + 2, n->nitems - 2, &v))
		return 1;
	/* the context's layout: what the callback reads or assigns, in the order it first named
	 * it. A pointer it assigns stays a loop: the verifier refuses to store a pointer to the
	 * stack into the caller's frame, and kiln cannot always tell that kind of pointer. */
	bool *read = kl_arena_array(c->a, bool, f->nvregs + 1);
	for (uint32_t i = 0; i < f->nins; i++) {
		struct kl_ir_operands u;
		kl_ir_operands(&f->ins[i], &u);
		for (uint32_t k = 0; k < u.nuses; k++)
			read[u.uses[k]] = true;
	}
	*size = 0;
	for (size_t k = 0; k < cb->caps->v.len; k++) {
		struct kl_lw_cap *cp = cb->caps->v.items[k];
		bool assigned = kl_names_get(set, cp->b.name) >= 0;
		if (cp->b.v.kind != V_REG || (!assigned && !read[cp->b.v.r]))
			continue;
		if (assigned && (cp->outer.is_ptr || cp->outer.kt))
			return 1;
		cp->off = *size;
		*size += 8;
		if (assigned)
			mem(cb, IR_STORE, ctxp, 0, cp->off)->b = cp->b.v.r;
	}
	struct kl_ir_ins *r = emit(cb, IR_RET);
	r->has_imm = true;
	place(cb, stop);
	r = emit(cb, IR_RET);
	r->has_imm = true;
	r->imm = 1;
	/* the loads go first: made last, then turned to the front */
	uint32_t end = f->nins;
	for (size_t k = 0; k < cb->caps->v.len; k++) {
		struct kl_lw_cap *cp = cb->caps->v.items[k];
		if (cp->off >= 0)
			mem(cb, IR_LOAD, ctxp, 0, cp->off)->d = cp->b.v.r;
	}
	uint32_t nload = f->nins - end;
	struct kl_ir_ins *tmp = kl_arena_array(c->a, struct kl_ir_ins, nload + 1);
	memcpy(tmp, f->ins + end, nload * sizeof(*tmp));
	memmove(f->ins + first + nload, f->ins + first, (end - first) * sizeof(*tmp));
	memcpy(f->ins + first, tmp, nload * sizeof(*tmp));
	return 0;
}

/* The dotimes n as a bpf_loop call of a callback made of its body; false (nothing emitted,
 * the errors of the trial forgotten) when the body cannot be one. set: what it assigns. */
static bool as_callback(struct lw *l, struct kl_node *n, int64_t count, const struct kl_names *set)
{
	struct kl_comp *c = l->c;
	struct kl_diag saved = *c->d;
	struct lw cb;
	int32_t size;
	if (lower_callback(l, &cb, n, count, set, &size)) {
		*c->d = saved;
		return false;
	}
	uint32_t slot = size ? kl_lw_slot(l, (uint32_t)size, 8) : 0;
	for (size_t k = 0; k < cb.caps->v.len; k++) {
		struct kl_lw_cap *cp = cb.caps->v.items[k];
		if (cp->off >= 0) {   /* (the register first: making it may move the instructions) */
			kl_vreg r = kl_lw_reg_of(l, cp->outer);
			mem(l, IR_STORE, 0, slot, cp->off)->b = r;
		}
	}
	struct kl_ir_ins *fn = emit(l, IR_LDFUNC);
	kl_vreg fnd = vreg(l);
	fn->imm = (int64_t)(c->funs.len + c->progs.len + c->loops.len);
	fn->d = fnd;
	kl_vec_push(c->a, &c->loops, cb.f);
	kl_vreg args[4] = { kl_lw_reg_of(l, cval(count)), fnd, slot ? kl_lw_slot_addr(l, slot) : kl_lw_reg_of(l, cval(0)),
			    kl_lw_reg_of(l, cval(0)) };
	kl_lw_call(l, BPF_FUNC_loop, args, 4);
	for (size_t k = 0; k < cb.caps->v.len; k++) {
		struct kl_lw_cap *cp = cb.caps->v.items[k];
		if (cp->off >= 0 && kl_names_get(set, cp->b.name) >= 0)
			mem(l, IR_LOAD, 0, slot, cp->off)->d = cp->outer.r;
	}
	return true;
}

static int f_dotimes(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	struct kl_node *spec = n->items[1];
	if (spec->kind != KL_N_LIST || spec->nitems != 2 || spec->items[0]->kind != KL_N_SYM)
		return kl_lw_err_form(l, spec, "%s needs (VAR COUNT): %s", "dotimes");
	int64_t count;
	if (kl_const_eval(l->c, spec->items[1], &count))
		return -1;
	if (count < 0 || count > 1 << 20)
		return kl_error(l->c->d, spec->items[1]->span, "dotimes count %lld is out of range 0..1048576",
				(long long)count);
	size_t mark = l->scope.len;
	if (unrolls(l, n, count)) {
		for (int64_t k = 0; k < count; k++) {
			struct val v;
			kl_lw_bind(l, spec->items[0]->str, cval(k), false);
			if (kl_lw_lower_body(l, n->items + 2, n->nitems - 2, &v))
				return -1;
			l->scope.len = mark;
		}
		*out = cval(0);
		return 0;
	}
	struct kl_names set = { 0 };
	if (loop_wanted(l, n, count, &set) && as_callback(l, n, count, &set)) {
		*out = cval(0);
		return 0;
	}
	kl_lw_bind(l, spec->items[0]->str, cval(0), true);
	kl_vreg i = l->scope.items[l->scope.len - 1].v.r;
	uint32_t top = label(l), end = label(l);
	place(l, top);
	kl_lw_branch(l, BPF_JGE, rval(i), cval(count), end);
	struct val v;
	l->loop_depth++;
	if (kl_lw_lower_body(l, n->items + 2, n->nitems - 2, &v))
		return -1;
	l->loop_depth--;
	kl_lw_alu_in_place(l, BPF_ADD, i, 1);
	jump(l, top);
	place(l, end);
	l->scope.len = mark;
	*out = cval(0);
	return 0;
}


const struct kl_lw_form kl_lw_loop_forms[] = {
	{ "dotimes", f_dotimes, "de" },
};
const size_t kl_lw_nloop_forms = sizeof(kl_lw_loop_forms) / sizeof(kl_lw_loop_forms[0]);
