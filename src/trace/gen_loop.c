/* gen_loop.c — `for ($i : START..END) BODY` (sema_loop.c) as kiln Lisp: START and END are
 * read once; with both constants the rounds are a dotimes of END - START (which kiln's
 * compiler unrolls or makes a bpf_loop callback by its size), else a loop the verifier must
 * bound, as a while's. break and continue set the loop's flags (gen.c's while). */
#include "trace/gen_priv.h"

void kt_gen_for(struct g *g, const struct kt_node *s)
{
	const struct kt_node *lo = s->kids[0], *hi = s->kids[1];
	int outer = g->loop;
	g->loop = (int)g->tmp++;
	const char *start = kt_fresh(g, "fs"), *end = kt_fresh(g, "fe");
	kt_emit(&g->b, "(let ((b%d 0) (c%d 0) (%s ", g->loop, g->loop, start);
	kt_gen_int(g, lo);
	kt_emit(&g->b, ") (%s ", end);
	kt_gen_int(g, hi);
	kt_emit(&g->b, ")) ");
	if (lo->kind == KT_INT && hi->kind == KT_INT) {
		int64_t n = hi->num > lo->num ? hi->num - lo->num : 0;
		const char *k = kt_fresh(g, "fk");
		kt_emit(&g->b, "(dotimes (%s %lld) (when (= b%d 0) (setf c%d 0) (setf v%d (+ %s %s)) ", k, (long long)n,
			g->loop, g->loop, s->a->var_id, start, k);
	} else {   /* the loop's own count: the body may assign $i */
		kt_emit(&g->b, "(loop :while (and (= b%d 0) (s< %s %s)) (setf c%d 0) (setf v%d %s) ", g->loop, start, end,
			g->loop, s->a->var_id, start);
	}
	kt_gen_block(g, s->b);
	if (lo->kind == KT_INT && hi->kind == KT_INT)
		kt_emit(&g->b, ")))");
	else
		kt_emit(&g->b, " (setf %s (+ %s 1))))", start, start);
	g->loop = outer;
}
