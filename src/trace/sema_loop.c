/* sema_loop.c — bpftrace 0.26's `for ($i : START..END) BODY`: START and END integers read
 * once, $i a new variable of the loop's scope (int64, each round START, START + 1, ... below
 * END), break and continue as in while. `for ($kv : @m)` over a map's entries is refused
 * yet: it needs the body as a callback of bpf_for_each_map_elem. */
#include "trace/sema_priv.h"
#include "trace/limits.h"
#include <string.h>

int kt_sm_for(struct sm *m, struct kt_node *s)
{
	if (s->c)
		return kl_error(m->d, s->span, "%s", "for over a map's entries is not supported yet by kiln trace");
	for (uint32_t i = 0; i < 2; i++) {
		if (kt_sm_expr(m, s->kids[i]) && !m->lenient)
			return -1;
		if (s->kids[i]->type.kind != KTT_INT && !m->lenient)
			return kl_error(m->d, s->kids[i]->span, "%s", "a for's range takes integers");
	}
	for (size_t i = 0; i < m->vars.len; i++)
		if (!strcmp(m->vars.items[i].name, s->a->name) && m->s->dialect == KT_DIALECT_026 && !m->scope_017)
			return kl_error(m->d, s->a->span, "variable $%s is already declared", s->a->name);
	size_t mark = m->vars.len;
	int id = -1;
	for (size_t i = 0; i < m->vars.len && id < 0; i++)   /* 0.17's scopes: the probe's one $i */
		if (!strcmp(m->vars.items[i].name, s->a->name))
			id = (int)i;
	if (id < 0) {
		if (m->vars.len == KT_MAX_VARS)
			return kl_error(m->d, s->a->span, "too many $variables: kiln trace takes at most %d in a probe",
					KT_MAX_VARS);
		struct kt_var v = { s->a->name, kt_t_int(8, true) };
		kl_vec_push(m->a, &m->vars, v);
		id = (int)m->vars.len - 1;
	}
	if (m->vars.items[id].type.kind != KTT_INT)
		return kl_error(m->d, s->a->span, "type mismatch for $%s: it holds a string, not an integer", s->a->name);
	s->a->var_id = id;
	s->a->type = m->vars.items[id].type;
	bool was = m->in_loop;
	m->in_loop = true;
	int r = kt_sm_block(m, s->b);
	m->in_loop = was;
	kt_sm_scope_close(m, mark);
	return r;
}
