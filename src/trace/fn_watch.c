/* fn_watch.c — unwatch(ADDR): the watchpoints at ADDR (watchpoint:FUNCTION+argN's, attached
 * as their uprobes said) detached: a record (KT_EV_UNWATCH) to user space, which destroys
 * them (src/cli/trace_watch.c). As in bpftrace 0.17 it is asynchronous: accesses made before
 * user space reads the record still fire. */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include "trace/gen_priv.h"
#include "trace/sema_priv.h"

static int unwatch_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1)
		return kt_sm_err(m, n->span, "%s", "unwatch() takes one argument");
	bool watch = false;
	for (uint32_t i = 0; i < m->s->ntargets; i++)
		watch = watch || m->s->targets[i].kind == KP_WATCHPOINT;
	if (!watch)   /* (its record is the watchpoints') */
		return kt_sm_err(m, n->span, "%s", "unwatch() needs a watchpoint probe in the program");
	if (n->kids[0]->kind == KT_MAP && kt_sm_expr(m, n->kids[0]))
		return -1;
	if (n->kids[0]->type.kind != KTT_INT && n->kids[0]->type.kind != KTT_PTR)
		return kt_sm_err(m, n->span, "%s", "unwatch() expects an integer address");
	n->type = kt_t_int(8, false);
	return 0;
}

static void unwatch_stmt(struct g *g, const struct kt_node *n)
{
	const char *e = kt_fresh(g, "e");
	kt_emit(&g->b, "(with-event (%s kt-watch " KT_RINGBUF ") (setf (kt-watch-id %s) %p) (setf (kt-watch-addr %s) ", e, e,
		kt_rec_id(g, KT_EV_UNWATCH, 0), e);
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, "))");
}

static const struct kt_fn fns[] = {
	/* name        check           own    stmt          value  str    site */
	{ "unwatch", unwatch_check, false, unwatch_stmt, NULL, NULL, NULL },
};
const struct kt_fn_table kt_fns_watch = { fns, sizeof(fns) / sizeof(fns[0]) };
