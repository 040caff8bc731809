/* lower_control.c — the control and binding forms: conditions lowered straight to branches
 * (so the verifier sees the packet and null checks the program wrote), progn, if, when,
 * unless, cond, and, or, not, the comparisons, return, loop :while, and the forms that bind
 * variables (let, let*, when-let, if-let, with their types and declarations). */
#include "lower_internal.h"
#include "nearest.h"
#include <linux/bpf.h>
#include <string.h>

/* ---- conditions ---- */

struct cmp_op { const char *name; uint8_t cond; };
static const struct cmp_op cmp_ops[] = {
	{ "=", BPF_JEQ }, { "/=", BPF_JNE }, { "<", BPF_JLT }, { "<=", BPF_JLE }, { ">", BPF_JGT },
	{ ">=", BPF_JGE }, { "s<", BPF_JSLT }, { "s<=", BPF_JSLE }, { "s>", BPF_JSGT }, { "s>=", BPF_JSGE },
	{ "==", BPF_JEQ }, { "!=", BPF_JNE },
};

static const struct cmp_op *find_cmp(const char *h)
{
	for (size_t i = 0; h && i < sizeof(cmp_ops) / sizeof(cmp_ops[0]); i++)
		if (!strcmp(cmp_ops[i].name, h))
			return &cmp_ops[i];
	return NULL;
}

/* Jump to lab when the truth of n equals `when`; otherwise fall through. */
static int lower_branch(struct lw *l, struct kl_node *n, uint32_t lab, bool when)
{
	const char *h = kl_head(n);
	struct kl_span saved = l->span;
	if (n->kind == KL_N_LIST)
		l->span = n->span;
	int r = 0;
	const struct cmp_op *cmp = find_cmp(h);
	if (h && !strcmp(h, "not") && n->nitems == 2) {
		r = lower_branch(l, n->items[1], lab, !when);
	} else if (h && (!strcmp(h, "and") || !strcmp(h, "or"))) {
		bool is_and = h[0] == 'a';
		if (n->nitems == 1) {
			if (when == is_and)
				jump(l, lab);
		} else if (when != is_and) {
			/* and/false, or/true: any operand decides */
			for (uint32_t i = 1; i < n->nitems && !r; i++)
				r = lower_branch(l, n->items[i], lab, when);
		} else {
			uint32_t skip = label(l);
			for (uint32_t i = 1; i + 1 < n->nitems && !r; i++)
				r = lower_branch(l, n->items[i], skip, !when);
			if (!r)
				r = lower_branch(l, n->items[n->nitems - 1], lab, when);
			place(l, skip);
		}
	} else if (cmp && n->nitems == 3) {
		struct val a, b;
		if (kl_lw_lower(l, n->items[1], &a) || kl_lw_lower(l, n->items[2], &b)) {
			r = -1;
		} else {
			uint8_t cond = when ? cmp->cond : kl_cond_invert(cmp->cond);
			if (a.kind == V_CONST && b.kind == V_CONST) {
				if (kl_cond_holds(cond, a.c, b.c) == 1)
					jump(l, lab);
			} else if (a.kind == V_CONST) {
				kl_lw_branch(l, kl_cond_swap(cond), b, a, lab);
			} else {
				kl_lw_branch(l, cond, a, b, lab);
			}
		}
	} else {
		struct val v;
		if (kl_lw_lower(l, n, &v))
			r = -1;
		else if (v.kind == V_CONST) {
			if ((v.c != 0) == when)
				jump(l, lab);
		} else {
			kl_lw_branch(l, when ? BPF_JNE : BPF_JEQ, v, cval(0), lab);
		}
	}
	l->span = saved;
	return r;
}

/* A condition as a 0/1 value. */
static int bool_value(struct lw *l, struct kl_node *n, struct val *out)
{
	kl_vreg r = vreg(l);
	uint32_t done = label(l);
	kl_lw_move_to(l, r, cval(1));
	if (lower_branch(l, n, done, true))
		return -1;
	kl_lw_move_to(l, r, cval(0));
	place(l, done);
	*out = rval(r);
	return 0;
}

/* ---- control forms ---- */

static int f_progn(struct lw *l, struct kl_node *n, struct val *out)
{
	return kl_lw_lower_body(l, n->items + 1, n->nitems - 1, out);
}

static int f_if(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 3))
		return -1;
	uint32_t lelse = label(l), lend = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	if (lower_branch(l, n->items[1], lelse, false) || kl_lw_lower(l, n->items[2], &v))
		return -1;
	kl_lw_move_to(l, r, v);
	bool ptr = v.is_ptr;
	jump(l, lend);
	place(l, lelse);
	if (n->nitems == 4) {
		if (kl_lw_lower(l, n->items[3], &v))
			return -1;
	} else {
		v = cval(0);
	}
	kl_lw_move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	out->is_ptr = ptr && v.is_ptr;   /* (if c key-a key-b) of two struct keys is still a pointer */
	return 0;
}

static int when_unless(struct lw *l, struct kl_node *n, struct val *out, bool when)
{
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	uint32_t lskip = label(l);
	kl_vreg r = vreg(l);
	struct val v;
	kl_lw_move_to(l, r, cval(0));
	if (lower_branch(l, n->items[1], lskip, !when) || kl_lw_lower_body(l, n->items + 2, n->nitems - 2, &v))
		return -1;
	kl_lw_move_to(l, r, v);
	place(l, lskip);
	*out = rval(r);
	return 0;
}

static int f_when(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, true); }
static int f_unless(struct lw *l, struct kl_node *n, struct val *out) { return when_unless(l, n, out, false); }

static int f_cond(struct lw *l, struct kl_node *n, struct val *out)
{
	int sw = kl_lw_switch(l, n, out);   /* lower_switch.c: a cond of key tests */
	if (sw <= 0)
		return sw;
	uint32_t lend = label(l);
	kl_vreg r = vreg(l);
	bool closed = false;
	for (uint32_t i = 1; i < n->nitems; i++) {
		struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || cl->nitems < 1)
			return kl_lw_err_form(l, cl, "%s clause must be (TEST BODY...): %s", "cond");
		struct val v;
		uint32_t lnext = label(l);
		bool always = kl_lw_always_clause(cl);
		if ((!always && lower_branch(l, cl->items[0], lnext, false)) || kl_lw_clause_value(l, cl, &v))
			return -1;
		kl_lw_move_to(l, r, v);
		jump(l, lend);
		place(l, lnext);
		if (always) {
			closed = true;
			break;
		}
	}
	if (!closed)
		kl_lw_move_to(l, r, cval(0));
	place(l, lend);
	*out = rval(r);
	return 0;
}

static int f_andor(struct lw *l, struct kl_node *n, struct val *out)
{
	return bool_value(l, n, out);
}

static int f_not(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	return bool_value(l, n, out);
}

static int f_return(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 1))
		return -1;
	if (l->outer)   /* lower_loop.c then lowers the dotimes as a loop */
		return kl_lw_err_form(l, n, "%s cannot leave a bpf_loop callback: %s", "return");
	struct val v = cval(0);
	if (n->nitems == 2 && kl_lw_lower(l, n->items[1], &v))
		return -1;
	ret(l, v);
	*out = cval(0);
	return 0;
}

/* One binding of let, let*, when-let or if-let: NAME, (NAME), (NAME VALUE), (NAME TYPE) or
 * (NAME TYPE VALUE). TYPE (u8 .. i64, ptr) gives the variable a width: its value is truncated
 * to the type when bound and whenever it is assigned, as a C variable of that type would be. */
struct bspec {
	const char *name;
	struct kl_node *init;        /* NULL: 0 */
	const struct kl_type *type;  /* NULL: 64 bits */
	const struct kl_node *at;    /* the name as written */
	bool ignore;                 /* (declare (ignore NAME)): never read, on purpose */
};

static const struct kl_type *var_type(const struct kl_node *n)
{
	const struct kl_type *t = n->kind == KL_N_SYM ? kl_type_builtin(n->str) : NULL;
	return t && (t->kind == KL_T_INT || t->kind == KL_T_PTR) ? t : NULL;
}

/* mut[i]: binding i is assigned in the body or, when the bindings are sequential (bindings
 * given), in a later binding's form. */
static void mutable_bindings(struct lw *l, struct kl_node **body, uint32_t nbody, struct kl_node **bindings,
			     const struct bspec *specs, uint32_t n, bool *mut)
{
	struct kl_names set = { 0 };
	kl_lw_assigned(l, body, nbody, &set);
	for (uint32_t i = n; i-- > 0;) {
		mut[i] = kl_names_get(&set, specs[i].name) >= 0;
		if (bindings)
			kl_lw_assigned(l, bindings + i, 1, &set);
	}
}

static int binding_spec(struct lw *l, const char *form, struct kl_node *b, struct bspec *out)
{
	memset(out, 0, sizeof(*out));
	if (b->kind == KL_N_SYM) {
		out->name = b->str;
		out->at = b;
		return 0;
	}
	if (b->kind != KL_N_LIST || !b->nitems || b->items[0]->kind != KL_N_SYM || b->nitems > 3)
		return kl_lw_err_form(l, b, "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
	out->name = b->items[0]->str;
	out->at = b->items[0];
	if (b->nitems == 3) {
		const char *h = kl_head(b->items[1]);
		if (h && !strcmp(h, "*")) {
			/* (* TYPE): a pointer; to a kernel struct, one read through CO-RE */
			if (!(out->type = kl_type_parse(l->c, b->items[1])))
				return -1;
		} else if (!(out->type = var_type(b->items[1])))
			return kl_lw_err_form(l, b->items[1], "%s binding type must be u8 u16 u32 u64 i8 i16 i32 i64, ptr "
					      "or (* TYPE): %s", form);
		out->init = b->items[2];
	} else if (b->nitems == 2) {
		out->type = kl_lw_find_var(l, b->items[1]->str ? b->items[1]->str : "") ? NULL : var_type(b->items[1]);
		if (!out->type)
			out->init = b->items[1];
	}
	return 0;
}

/* (declare (type TYPE VAR...) ...) forms opening a body: the types go to the matching
 * bindings; other declarations (ignore, ignorable, optimize...) mean nothing here. Returns
 * how many body forms were declarations. */
static int declarations(struct lw *l, struct kl_node **body, uint32_t nbody, struct bspec *specs, uint32_t nspecs,
			uint32_t *ndecl)
{
	*ndecl = 0;
	for (; *ndecl < nbody && kl_head(body[*ndecl]) && !strcmp(kl_head(body[*ndecl]), "declare"); (*ndecl)++) {
		struct kl_node *d = body[*ndecl];
		for (uint32_t k = 1; k < d->nitems; k++) {
			struct kl_node *spec = d->items[k];
			const char *h = kl_head(spec);
			if (h && (!strcmp(h, "ignore") || !strcmp(h, "ignorable"))) {
				for (uint32_t v = 1; v < spec->nitems; v++)
					for (uint32_t j = 0; j < nspecs; j++)
						if (kl_is_sym(spec->items[v], specs[j].name))
							specs[j].ignore = true;
				continue;
			}
			if (!h || strcmp(h, "type"))
				continue;
			const struct kl_type *t = spec->nitems >= 2 ? var_type(spec->items[1]) : NULL;
			if (!t)
				return kl_lw_err_form(l, spec, "%s needs (type TYPE VAR...) with TYPE u8 .. i64 or ptr: %s",
						"declare");
			for (uint32_t v = 2; v < spec->nitems; v++) {
				uint32_t j;
				for (j = 0; j < nspecs; j++)
					if (kl_is_sym(spec->items[v], specs[j].name)) {
						specs[j].type = t;
						break;
					}
				if (j == nspecs)
					return kl_lw_err_form(l, spec->items[v], "%s names a variable this form does not bind: %s",
							"declare");
			}
		}
	}
	return 0;
}

/* The binding just made by form is the user's (to warn about if never read), unless
 * ignored: the form is written in the program, not made by a macro (whose variables, like
 * dotimes', may well go unused). */
static void mark_user(struct lw *l, const struct kl_node *form, const struct bspec *sp)
{
	if (!sp->ignore && kl_lw_user_written(l, form) && kl_lw_user_written(l, sp->at))
		l->scope.items[l->scope.len - 1].at = sp->at;
}

/* (let ((x e) ...) body) and let*: let evaluates every init before binding any. */
static int let_common(struct lw *l, struct kl_node *n, struct val *out, bool sequential)
{
	if (kl_lw_arity(l, n, 1, UINT32_MAX))
		return -1;
	const char *form = n->items[0]->str;
	struct kl_node *bs = n->items[1];
	if (bs->kind != KL_N_LIST)
		return kl_lw_err_form(l, bs, "%s bindings must be a list ((NAME VALUE) ...): %s", form);
	size_t mark = l->scope.len;
	struct val vals[64];
	struct bspec specs[64];
	if (bs->nitems > 64)
		return kl_lw_err_form(l, bs, "%s has too many bindings: %s", form);
	for (uint32_t i = 0; i < bs->nitems; i++)
		if (binding_spec(l, form, bs->items[i], &specs[i]))
			return -1;
	uint32_t ndecl;
	if (declarations(l, n->items + 2, n->nitems - 2, specs, bs->nitems, &ndecl))
		return -1;
	struct kl_node **body = n->items + 2 + ndecl;
	uint32_t nbody = n->nitems - 2 - ndecl;
	bool mut[64];
	mutable_bindings(l, body, nbody, sequential ? bs->items : NULL, specs, bs->nitems, mut);
	for (uint32_t i = 0; i < bs->nitems; i++) {
		vals[i] = cval(0);
		if (specs[i].init && kl_lw_lower(l, specs[i].init, &vals[i]))
			return -1;
		if (sequential) {
			kl_lw_bind_typed(l, specs[i].name, vals[i], mut[i], specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	}
	if (!sequential)
		for (uint32_t i = 0; i < bs->nitems; i++) {
			kl_lw_bind_typed(l, specs[i].name, vals[i], mut[i], specs[i].type);
			mark_user(l, n, &specs[i]);
		}
	int r = kl_lw_lower_body(l, body, nbody, out);
	if (!r && out->is_var)
		*out = rval(kl_lw_fresh_copy(l, *out));
	if (!r)
		kl_lw_warn_unused(l, mark);
	l->scope.len = mark;
	return r;
}

static int f_let(struct lw *l, struct kl_node *n, struct val *out) { return let_common(l, n, out, false); }
static int f_letstar(struct lw *l, struct kl_node *n, struct val *out) { return let_common(l, n, out, true); }

/* (when-let ((x e) ...) body), (when-let (x e) body), and if-let with an else form. The
 * bindings go in order, each seeing the ones before it, and stop at the first 0: later
 * values are not computed (so a lookup can depend on the pointer an earlier one found). */
static int bind_test(struct lw *l, struct kl_node *n, struct val *out, bool has_else)
{
	if (kl_lw_arity(l, n, 1, has_else ? 3 : UINT32_MAX))
		return -1;
	const char *form = n->items[0]->str;
	struct kl_node *bs = n->items[1];
	struct kl_node *one[1];
	struct kl_node **list = bs->items;
	uint32_t nb = bs->kind == KL_N_LIST ? bs->nitems : 0;
	/* the single-binding forms (x e) and (x TYPE e) */
	if (bs->kind == KL_N_LIST && (bs->nitems == 2 || bs->nitems == 3) && bs->items[0]->kind == KL_N_SYM) {
		one[0] = bs;
		list = one;
		nb = 1;
	}
	if (!nb || nb > 16)
		return kl_lw_err_form(l, bs, "%s needs bindings ((NAME VALUE) ...): %s", form);
	struct bspec specs[16];
	for (uint32_t i = 0; i < nb; i++) {
		if (list[i]->kind != KL_N_LIST || list[i]->nitems < 2)
			return kl_lw_err_form(l, list[i], "%s binding must be (NAME VALUE) or (NAME TYPE VALUE): %s", form);
		if (binding_spec(l, form, list[i], &specs[i]))
			return -1;
	}
	uint32_t lelse = label(l), lend = label(l);
	kl_vreg r = vreg(l);
	size_t mark = l->scope.len;
	uint32_t ndecl = 0;
	if (!has_else && declarations(l, n->items + 2, n->nitems - 2, specs, nb, &ndecl))
		return -1;
	struct kl_node **body = n->items + 2 + ndecl;
	uint32_t nbody = has_else ? (n->nitems >= 3 ? 1 : 0) : n->nitems - 2 - ndecl;
	bool mut[16];
	mutable_bindings(l, body, nbody, list, specs, nb, mut);
	for (uint32_t i = 0; i < nb; i++) {
		struct val bv = cval(0);
		if (specs[i].init && kl_lw_lower(l, specs[i].init, &bv))
			return -1;
		kl_lw_bind_typed(l, specs[i].name, bv, mut[i], specs[i].type);
		mark_user(l, n, &specs[i]);
		kl_lw_branch(l, BPF_JEQ, l->scope.items[l->scope.len - 1].v, cval(0), lelse);
	}
	struct val v;
	if (kl_lw_lower_body(l, body, nbody, &v))
		return -1;
	kl_lw_warn_unused(l, mark);
	l->scope.len = mark;
	kl_lw_move_to(l, r, v);
	jump(l, lend);
	place(l, lelse);
	v = cval(0);
	if (has_else && n->nitems == 4 && kl_lw_lower(l, n->items[3], &v))
		return -1;
	kl_lw_move_to(l, r, v);
	place(l, lend);
	*out = rval(r);
	return 0;
}

static int f_when_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, false); }
static int f_if_let(struct lw *l, struct kl_node *n, struct val *out) { return bind_test(l, n, out, true); }

/* (loop :while COND BODY...) */
static int f_loop(struct lw *l, struct kl_node *n, struct val *out)
{
	if (n->nitems < 3 || !kl_is_key(n->items[1], "while"))
		return kl_lw_err_form(l, n, "%s must be (loop :while COND BODY...): %s", "loop");
	uint32_t top = label(l), end = label(l);
	place(l, top);
	if (lower_branch(l, n->items[2], end, false))
		return -1;
	struct val v;
	l->loop_depth++;
	if (kl_lw_lower_body(l, n->items + 3, n->nitems - 3, &v))
		return -1;
	l->loop_depth--;
	jump(l, top);
	place(l, end);
	*out = cval(0);
	return 0;
}

static int f_cmp(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	return bool_value(l, n, out);
}

int kl_lw_cmp_op(struct lw *l, struct kl_node *n, struct val *out)
{
	return find_cmp(n->items[0]->str) ? f_cmp(l, n, out) : 1;
}

void kl_lw_cmp_names(struct kl_nearest *nb)
{
	for (size_t i = 0; i < sizeof(cmp_ops) / sizeof(cmp_ops[0]); i++)
		kl_nearest_add(nb, cmp_ops[i].name);
}

const struct kl_lw_form kl_lw_control_forms[] = {
	{ "progn", f_progn, "e" }, { "if", f_if, "e" }, { "when", f_when, "e" },
	{ "unless", f_unless, "e" }, { "cond", f_cond, "c" }, { "and", f_andor, "e" },
	{ "or", f_andor, "e" }, { "not", f_not, "e" }, { "return", f_return, "e" }, { "let", f_let, "be" },
	{ "let*", f_letstar, "be" }, { "when-let", f_when_let, "we" }, { "if-let", f_if_let, "we" },
	{ "loop", f_loop, "e" },
};
const size_t kl_lw_ncontrol_forms = sizeof(kl_lw_control_forms) / sizeof(kl_lw_control_forms[0]);
