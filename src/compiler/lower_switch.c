/* lower_switch.c — a cond whose tests all compare one variable with constants, what case
 * makes, lowered as a switch (kl_lw_switch): the verifier walks its default first. And what
 * lower_control.c's cond shares with it: which clause always holds, and a clause's value. */
#include "lower_internal.h"
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

/* A key test's constant, with its clause and its test (for line info). */
struct case_const {
	int64_t v;
	uint32_t clause;
	const struct kl_node *at;
};
typedef KL_VEC(struct case_const) case_consts;

/* Whether t compares one variable with constants, (= K C) or an or of such: what case makes.
 * *key is the variable's name, the same in every test; each constant goes to cs, with its
 * clause. */
static bool key_test(struct lw *l, const struct kl_node *t, const char **key, uint32_t clause, case_consts *cs)
{
	const char *h = kl_head(t);
	if (h && !strcmp(h, "or") && t->nitems > 1) {
		for (uint32_t i = 1; i < t->nitems; i++)
			if (!key_test(l, t->items[i], key, clause, cs))
				return false;
		return true;
	}
	int64_t v = 0;
	const struct kl_node *k = t->nitems == 3 ? t->items[2] : NULL;
	if (!h || strcmp(h, "=") || !k || t->items[1]->kind != KL_N_SYM ||
	    !(k->kind == KL_N_INT ||
	      (k->kind == KL_N_SYM && !kl_lw_find_var(l, k->str) && kl_const_lookup(l->c, k->str, &v))))
		return false;   /* (a variable named like a constant is the variable) */
	if (*key && strcmp(*key, t->items[1]->str))
		return false;
	*key = t->items[1]->str;
	struct case_const c = { k->kind == KL_N_INT ? k->ival : v, clause, t };
	kl_vec_push(l->c->a, cs, c);
	return true;
}

int kl_lw_clause_value(struct lw *l, struct kl_node *cl, struct val *v)
{
	if (cl->nitems == 1)
		return kl_lw_lower(l, cl->items[0], v);
	return kl_lw_lower_body(l, cl->items + 1, cl->nitems - 1, v);
}

bool kl_lw_always_clause(const struct kl_node *cl)
{
	return kl_is_sym(cl->items[0], "t") || kl_is_sym(cl->items[0], "else") || kl_is_key(cl->items[0], "else");
}

static int by_value(const void *x, const void *y)
{
	const struct case_const *a = x, *b = y;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->clause < b->clause ? -1 : a->clause > b->clause;
}

static int by_clause_desc(const void *x, const void *y)
{
	const struct case_const *a = x, *b = y;
	return a->clause > b->clause ? -1 : a->clause < b->clause;
}

/* A cond of key tests (key_test) laid out as a switch: the key compared with every constant
 * first, each jumping to its clause's body, then the default (or 0), then the bodies. No body
 * runs before its test either way, so the meaning is the same; but the verifier walks a
 * branch's fall-through first, and here that is the default, where the key is a range: the
 * paths of each constant then prune against it at the join, instead of each constant's path
 * being walked to the end (wh-case: 771 -> 251 processed, clang 584). The comparisons go from
 * the last clause to the first, so that after the default the verifier walks the clauses in
 * their order, as it did the chain (it takes the branch it saw last first); a constant an
 * earlier clause has too is left out of the later one, which would not have matched. */
static int switch_cond(struct lw *l, struct kl_node *n, case_consts cs, struct val *out)
{
	uint32_t lend = label(l), *lbody = kl_arena_array(l->c->a, uint32_t, n->nitems);
	kl_vreg r = vreg(l);
	uint32_t last = n->nitems, def = 0;
	for (uint32_t i = 1; i < n->nitems; i++) {
		if (kl_lw_always_clause(n->items[i])) {
			def = i;
			last = i;
			break;
		}
		lbody[i] = label(l);
	}
	qsort(cs.items, cs.len, sizeof(*cs.items), by_value);   /* each value's first clause, the others dropped */
	uint32_t kept = 0;
	for (uint32_t i = 0; i < cs.len; i++)
		if (!i || cs.items[i].v != cs.items[i - 1].v)
			cs.items[kept++] = cs.items[i];
	qsort(cs.items, kept, sizeof(*cs.items), by_clause_desc);
	struct val key;
	if (kl_lw_lower(l, cs.items[0].at->items[1], &key))
		return -1;
	struct kl_span saved = l->span;
	for (uint32_t i = 0; i < kept; i++) {
		l->span = cs.items[i].at->span;
		kl_lw_branch(l, BPF_JEQ, key, cval(cs.items[i].v), lbody[cs.items[i].clause]);
	}
	l->span = saved;
	struct val v = cval(0);
	if (def && kl_lw_clause_value(l, n->items[def], &v))
		return -1;
	kl_lw_move_to(l, r, v);
	jump(l, lend);
	for (uint32_t i = 1; i < last; i++) {
		place(l, lbody[i]);
		if (kl_lw_clause_value(l, n->items[i], &v))
			return -1;
		kl_lw_move_to(l, r, v);
		if (i + 1 < last)
			jump(l, lend);
	}
	place(l, lend);
	*out = rval(r);
	return 0;
}

int kl_lw_switch(struct lw *l, struct kl_node *n, struct val *out)
{
	const char *key = NULL;
	uint32_t keyed = 0;
	case_consts cs = { 0 };
	for (uint32_t i = 1; i < n->nitems; i++) {
		struct kl_node *cl = n->items[i];
		if (cl->kind != KL_N_LIST || cl->nitems < 1)
			return 1;   /* (f_cond says what is wrong) */
		if (kl_lw_always_clause(cl))
			break;
		if (cl->nitems < 2 || !key_test(l, cl->items[0], &key, i, &cs))
			return 1;
		keyed++;
	}
	return keyed >= 2 ? switch_cond(l, n, cs, out) : 1;
}
