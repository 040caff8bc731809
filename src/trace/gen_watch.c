/* gen_watch.c — watchpoint:FUNCTION+argN (gen_watch.h). As bpftrace 0.17 does it: a uprobe on
 * FUNCTION sends argN's value with its watchpoint target's index, and stops the process with
 * SIGSTOP (bpf_send_signal) so that nothing is missed before user space has attached the
 * breakpoint and sent SIGCONT (src/cli/trace_watch.c); asyncwatchpoint lets it run on. */
#include "trace/gen_watch.h"

void kt_watch_defs(struct g *g)
{
	for (uint32_t i = 0; i < g->s->ntargets; i++)   /* (unwatch() sends it too: with any watchpoint) */
		if (g->s->targets[i].kind == KP_WATCHPOINT) {
			kt_emit(&g->b, "(defevent kt-watch [:id :u64] [:addr :u64])");
			return;
		}
}

void kt_watch_setup_body(struct g *g, const struct kt_target *t)
{
	const char *e = kt_fresh(g, "e");
	kt_emit(&g->b, "(with-event (%s kt-watch " KT_RINGBUF ") (setf (kt-watch-id %s) %p) (setf (kt-watch-addr %s) "
		"(pt-regs-parm%u)))", e, e, kt_rec_id(g, KT_EV_WATCH, t->watch_of), e, t->watch_arg + 1);
	if (!t->watch_async)
		kt_emit(&g->b, " (send-signal 19)");   /* SIGSTOP: until the watchpoint is attached */
	kt_emit(&g->b, " 0)");
}
