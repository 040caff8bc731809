/* fn_v026.c — the functions and builtins bpftrace 0.26 added that scripts use: has_key(@m, k),
 * len(@m), getopt("name"[, default]), ppid and ncpus (with or without parentheses). Each is
 * written natively: has_key as a map lookup, len as for-each-map-elem with an empty callback
 * (kt-len-cb, defined once when a script counts; gen_prog.c), ppid as curtask's real
 * parent's pid, ncpus and getopt as literals fixed when the script is compiled. delete(@m, k)
 * and exit(code) are fn_core.c's rows. */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include <errno.h>
#include <kiln/map.h>
#include <stdlib.h>
#include <string.h>

/* ---- sema ---- */

static struct kt_node *new_node(struct sm *m, enum kt_kind kind, struct kl_span at)
{
	struct kt_node *n = kl_arena_new(m->a, struct kt_node);
	n->kind = kind;
	n->span = at;
	n->map_id = n->var_id = -1;
	return n;
}

/* ppid [ (task) ]: task->real_parent->pid, task curtask when not given. n becomes the arrow. */
static int ppid_rewrite(struct sm *m, struct kt_node *n, struct kt_node *task)
{
	if (!task) {
		task = new_node(m, KT_IDENT, n->span);
		task->name = "curtask";
	}
	struct kt_node *parent = new_node(m, KT_ARROW, n->span);
	parent->a = task;
	parent->name = "real_parent";
	n->kind = KT_ARROW;
	n->a = parent;
	n->name = "pid";
	n->nkids = 0;
	return kt_sm_expr(m, n);
}

/* ncpus: the possible CPUs, as bpftrace counts them when it loads. */
static int ncpus_rewrite(struct sm *m, struct kt_node *n)
{
	int c = kiln_num_possible_cpus();
	n->kind = KT_INT;
	n->num = c > 0 ? c : 1;
	n->nkids = 0;
	n->type = kt_t_int(8, false);
	(void)m;
	return 0;
}

int kt_fn_ident(struct sm *m, struct kt_node *n)
{
	if (!strcmp(n->name, "ppid"))
		return ppid_rewrite(m, n, NULL);
	if (!strcmp(n->name, "ncpus"))
		return ncpus_rewrite(m, n);
	return 1;
}

static int ppid_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids > 1)
		return kt_sm_err(m, n->span, "%s", "ppid() takes no argument or a task (struct task_struct *)");
	return ppid_rewrite(m, n, n->nkids ? n->kids[0] : NULL);
}

static int ncpus_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids)
		return kt_sm_err(m, n->span, "%s", "ncpus() takes no arguments");
	return ncpus_rewrite(m, n);
}

/* has_key(@m, k): the key moved into the map node (@m[k]), as delete's; a later typing pass
 * (sema's passes) meets the moved form. */
int kt_map_key_arg(struct sm *m, struct kt_node *n)
{
	if (n->nkids == 1 && n->kids[0]->kind == KT_MAP && n->kids[0]->a)
		return kt_sm_map_key(m, n->kids[0], kt_sm_map_of(m, n->kids[0]));
	if (n->nkids != 2 || n->kids[0]->kind != KT_MAP || n->kids[0]->a)
		return kt_sm_err(m, n->span, "%s() expects a map and a key: (@m, key)", n->name);
	struct kt_node *mn = n->kids[0], *k = n->kids[1];
	if (k->kind == KT_TUPLE)
		k->op = 1;   /* (1, "a"): the map's several keys, as @m[1, "a"] */
	mn->a = k;
	n->nkids = 1;
	struct kt_map *mp = kt_sm_map_of(m, mn);
	return kt_sm_map_key(m, mn, mp);
}

static int has_key_check(struct sm *m, struct kt_node *n)
{
	if (kt_map_key_arg(m, n))
		return -1;
	n->type = kt_t_int(1, false);
	return 0;
}

static int len_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_MAP || n->kids[0]->a)
		return kt_sm_err(m, n->span, "%s", "len() expects a whole map (stacks: not supported yet by kiln trace)");
	kt_sm_map_of(m, n->kids[0]);
	m->s->has_len = true;
	n->type = kt_t_int(8, true);
	return 0;
}

/* getopt's value for name: the text after --name= (NULL: not given; "" for a bare --name). */
static const char *named_arg(const struct sm *m, const char *name, bool *given)
{
	size_t len = strlen(name);
	for (int i = 0; i < m->s->nnamed; i++) {
		const char *a = m->s->named[i] + 2;
		if (!strncmp(a, name, len) && (a[len] == '=' || !a[len])) {
			*given = true;
			return a[len] == '=' ? a + len + 1 : NULL;
		}
	}
	*given = false;
	return NULL;
}

/* getopt("name" [, default [, "description"]]): a literal, of the default's type (none: a
 * boolean). Booleans take true/1 and false/0, a bare --name being true. */
static int getopt_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 3 || n->kids[0]->kind != KT_STR || (n->nkids == 3 && n->kids[2]->kind != KT_STR))
		return kt_sm_err(m, n->span, "%s", "getopt() takes a name, a default and a description, all literals");
	struct kt_node *def = n->nkids > 1 ? n->kids[1] : NULL;
	bool given, is_bool = !def || (def->kind == KT_IDENT && (!strcmp(def->name, "true") || !strcmp(def->name, "false")));
	if (def && !is_bool && def->kind != KT_INT && def->kind != KT_STR)
		return kt_sm_err(m, def->span, "%s", "getopt()'s default must be a literal: an integer, a string, true or false");
	const char *v = named_arg(m, n->kids[0]->str, &given);
	if (def && def->kind == KT_STR) {
		n->kind = KT_STR;
		n->str = given ? (v ? v : "") : def->str;
		n->strlen = (uint32_t)strlen(n->str);
		n->nkids = 0;
		n->type = kt_t_str(n->strlen + 1);
		return 0;
	}
	int64_t x = is_bool ? (def && !strcmp(def->name, "true")) : def->num;
	if (given && is_bool) {
		if (v && strcmp(v, "true") && strcmp(v, "1") && strcmp(v, "false") && strcmp(v, "0"))
			return kl_error(m->d, n->span, "--%s is a boolean option: true, 1, false or 0, not '%s'", n->kids[0]->str, v);
		x = !v || !strcmp(v, "true") || !strcmp(v, "1");
	} else if (given) {
		char *end;
		errno = 0;
		x = v ? strtoll(v, &end, 0) : 0;
		if (!v || !*v || *end || errno)
			return kl_error(m->d, n->span, "--%s takes an integer, not '%s'", n->kids[0]->str, v ? v : "");
	}
	n->kind = KT_INT;
	n->num = x;
	n->nkids = 0;
	n->type = kt_t_int(8, true);
	return 0;
}

/* ---- the dialects' meanings (docs/trace.md's table) ---- */

/* pid, tid, cpu, rand: uint32 in bpftrace 0.26, 64 bits in 0.17. */
void kt_dialect_builtin(const struct sm *m, struct kt_node *n)
{
	static const char *const u32s[] = { "pid", "tid", "cpu", "rand" };
	for (size_t i = 0; m->s->dialect == KT_DIALECT_026 && i < sizeof(u32s) / sizeof(u32s[0]); i++)
		if (!strcmp(n->name, u32s[i]))
			n->type = kt_t_int(4, false);
}

/* a - b: signed in bpftrace 0.26 whatever the operands (as a + (-b)); 0.17 keeps an
 * unsigned result unless both are signed. A pointer minus an integer stays the pointer. */
void kt_dialect_binop(const struct sm *m, struct kt_node *n)
{
	if (m->s->dialect == KT_DIALECT_026 && n->op == '-')
		n->type.is_signed = true;
}

/* ---- gen ---- */

static void has_key_value(struct g *g, const struct kt_node *n)
{
	bool opened;
	const char *k = kt_open_key(g, n->kids[0], &opened);
	kt_emit(&g->b, "(if (map-lookup m%d %s) 1 0)", n->kids[0]->map_id, k);
	kt_close_key(g, opened);
}

static void len_value(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "(for-each-map-elem m%d (function " KT_LEN_CB ") 0 0)", n->kids[0]->map_id);
}

static const struct kt_fn fns[] = {
	/* name      check          own    stmt  value          str   site */
	{ "has_key", has_key_check, false, NULL, has_key_value, NULL, NULL },
	{ "len", len_check, false, NULL, len_value, NULL, NULL },
	{ "getopt", getopt_check, true, NULL, NULL, NULL, NULL },
	{ "ppid", ppid_check, true, NULL, NULL, NULL, NULL },
	{ "ncpus", ncpus_check, true, NULL, NULL, NULL, NULL },
};
const struct kt_fn_table kt_fns_v026 = { fns, sizeof(fns) / sizeof(fns[0]) };
