/* lower_args.c — a tracing program's typed arguments (targs.c finds them in the kernel's
 * BTF): (arg N), (retval) and the arguments by name. Each read is one load of ctx[slot],
 * narrowed to the argument's BTF size (sign-extended when signed); a pointer to a struct is
 * typed for -> and, where the verifier makes it PTR_TO_BTF_ID (tp_btf, fentry, fexit,
 * fmod_ret, lsm), marked trusted so -> reads through it directly. The names are looked up,
 * not bound: an argument not read warns nothing and costs nothing (its load at the entry of
 * such programs is dead code; a raw tracepoint loads an argument where it is read). */
#include "lower_internal.h"
#include "targs.h"
#include <linux/bpf.h>
#include <ctype.h>

/* The program's arguments, read from the kernel's BTF on first need (NULL: none). */
static const struct kl_targs *targs(struct lw *l)
{
	if (!l->targs_tried && l->prog) {
		l->targs_tried = true;
		l->targs = kl_targs_of(l->c, l->prog);
	}
	return l->targs;
}

static struct val load_slot(struct lw *l, uint32_t slot)
{
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = l->ctx;
	i->off = (int32_t)(slot * 8);
	i->size = 8;
	i->d = vreg(l);
	return rval(i->d);
}

static bool by_value(const struct kl_targ *g)
{
	return g->type && (g->type->kind == KL_T_STRUCT || g->type->kind == KL_T_ARRAY || g->type->size > 8);
}

/* In the programs whose pointer arguments are BTF pointers, every argument is loaded once at
 * the entry: a pointer the verifier marks "or NULL" is then the same register where the
 * program tests it and where it reads through it. The loads no one reads are dead code and
 * go (opt.c). */
int kl_lw_args_start(struct lw *l)
{
	bool must;
	if (!l->prog || !kl_targs_wanted(l->prog, &must) || !must)
		return 0;   /* a raw tracepoint opens the kernel's BTF only if it reads an argument */
	int errs = l->c->d->nerrors;
	const struct kl_targs *a = targs(l);
	if (!a)
		return l->c->d->nerrors == errs ? 0 : -1;
	l->argregs = kl_arena_array(l->c->a, kl_vreg, a->n + 1);
	for (uint32_t i = 0; i <= a->n; i++) {
		const struct kl_targ *g = i < a->n ? &a->args[i] : a->has_ret ? &a->ret : NULL;
		if (g && !by_value(g))
			l->argregs[i] = load_slot(l, g->slot).r;
	}
	return 0;
}

static int load_arg(struct lw *l, const struct kl_targs *a, const struct kl_targ *g, struct kl_span at,
		    struct val *out)
{
	const struct kl_type *t = g->type;
	if (by_value(g))
		return kl_error(l->c->d, at, "argument '%s' of %s %s is %s of %u bytes passed by value: not "
				"one value; read its words with (ctx u64 %u) and (ctx u64 %u)",
				g->name ? g->name : "?", a->what, a->target,
				t->kind == KL_T_STRUCT ? "a struct" : "a value", t->size, g->slot * 8, g->slot * 8 + 8);
	uint32_t idx = g == &a->ret ? a->n : (uint32_t)(g - a->args);
	*out = l->argregs && l->argregs[idx] ? rval(l->argregs[idx]) : load_slot(l, g->slot);
	if (!t)
		return 0;
	if (t->kind == KL_T_PTR) {
		if (t->elem && t->elem->kind == KL_T_STRUCT && t->elem->name) {
			out->kt = t->elem->name;
			out->trusted = a->trusted;
		}
		return 0;
	}
	if (t->size < 8)
		*out = kl_lw_truncate(l, *out, t->size, t->is_signed);
	return 0;
}

/* "prev, next and prev_state" for messages. */
static const char *arg_names(struct lw *l, const struct kl_targs *a)
{
	char *s = kl_arena_printf(l->c->a, "%s", "");
	for (uint32_t i = 0; i < a->n; i++)
		s = kl_arena_printf(l->c->a, "%s%s%s", s, i == 0 ? "" : i + 1 == a->n ? " and " : ", ",
				    a->args[i].name ? a->args[i].name : "?");
	return s;
}

/* sym is folded to lower case (reader.h): a kernel argument spelled with capitals matches too */
static bool same_name(const char *arg, const char *sym)
{
	for (; *arg && *sym; arg++, sym++)
		if (tolower((unsigned char)*arg) != *sym && !(*arg == '_' && *sym == '-'))
			return false;
	return !*arg && !*sym;
}

/* The argument called name (ret: the return value), NULL if none. */
static const struct kl_targ *find_arg(const struct kl_targs *a, const char *name)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (a->args[i].name && same_name(a->args[i].name, name))
			return &a->args[i];
	return a->has_ret && !strcmp(name, "ret") ? &a->ret : NULL;
}

int kl_lw_arg_var(struct lw *l, struct kl_node *n, struct val *out)
{
	if (!l->prog || !kl_targs_wanted(l->prog, NULL))
		return 1;
	const struct kl_targs *a = targs(l);
	if (!a)
		return l->c->d->nerrors ? -1 : 1;
	const struct kl_targ *g = find_arg(a, n->str);
	if (!g)
		return 1;
	return load_arg(l, a, g, n->span, out) ? -1 : 0;
}

bool kl_lw_is_arg(struct lw *l, const char *name)
{
	const struct kl_targs *a = l->prog && kl_targs_wanted(l->prog, NULL) ? targs(l) : NULL;
	return a && find_arg(a, name);
}

static int need_args_ctx(struct lw *l, struct kl_node *n)
{
	if (!l->pt || l->pt->ctx != KL_CTX_U64_ARRAY)
		return kl_error(l->c->d, n->span, "(%s) reads a tracing program's arguments (:tp-btf, "
				":raw-tracepoint, :fentry, :fexit, :fmod-ret, :lsm); this is %s%s", n->items[0]->str,
				l->pt ? ":" : "a defun", l->pt ? l->pt->keyword : "");
	return 0;
}

/* (arg N): the Nth argument (from 0), typed when the kernel's BTF knows the target. */
static int f_arg(struct lw *l, struct kl_node *n, struct val *out)
{
	int64_t idx;
	if (kl_lw_arity(l, n, 1, 1) || need_args_ctx(l, n) || kl_const_eval(l->c, n->items[1], &idx))
		return -1;
	const struct kl_targs *a = targs(l);
	if (!a && l->c->d->nerrors)
		return -1;
	if (!a) {
		if (idx < 0 || idx >= 12)
			return kl_error(l->c->d, n->items[1]->span, "argument %lld: a program has at most 12 (0 to 11)",
					(long long)idx);
		*out = load_slot(l, (uint32_t)idx);
		return 0;
	}
	if (idx < 0 || idx >= a->n) {
		if (!a->n)
			return kl_error(l->c->d, n->items[1]->span, "argument %lld: %s %s takes no arguments",
					(long long)idx, a->what, a->target);
		return kl_error(l->c->d, n->items[1]->span, "argument %lld: %s %s takes %u (0 to %u: %s)",
				(long long)idx, a->what, a->target, a->n, a->n - 1, arg_names(l, a));
	}
	return load_arg(l, a, &a->args[idx], n->span, out);
}

/* (retval): what the traced function returned, in fexit and fmod_ret. */
static int f_retval(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0) || need_args_ctx(l, n))
		return -1;
	const struct kl_targs *a = targs(l);
	if (!a)
		return l->c->d->nerrors ? -1 : kl_error(l->c->d, n->span, "(retval) needs the traced function's "
							"prototype, and this program has none");
	if (!a->has_ret) {
		if (!strncmp(l->section, "fexit", 5) || !strncmp(l->section, "fmod_ret", 8))
			return kl_error(l->c->d, n->span, "(retval): %s %s returns void", a->what, a->target);
		return kl_error(l->c->d, n->span, "(retval) is the traced function's return value, in :fexit and "
				":fmod-ret programs");
	}
	return load_arg(l, a, &a->ret, n->span, out);
}

const struct kl_lw_form kl_lw_args_forms[] = {
	{ "arg", f_arg, "d" }, { "retval", f_retval, "d" },
};
const size_t kl_lw_nargs_forms = sizeof(kl_lw_args_forms) / sizeof(kl_lw_args_forms[0]);
