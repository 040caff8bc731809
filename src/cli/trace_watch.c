/* trace_watch.c — the attach options of a watchpoint:ADDRESS:LENGTH:MODE target: a perf
 * event on a hardware breakpoint (PERF_TYPE_BREAKPOINT), firing the program on every access,
 * in -c's command or -p's process when there is one (a user address), else on every CPU (a
 * kernel address). A machine without breakpoint registers (a VM that hides them) fails at
 * perf_event_open, and trace_watch_why says so. */
#include "trace.h"
#include <errno.h>
#include <linux/perf_event.h>

void trace_watch_opts(const struct kt_target *t, pid_t pid, struct kiln_attach_opts *o)
{
	o->event_name = "watchpoint";
	o->event_type = PERF_TYPE_BREAKPOINT;
	o->period = 1;
	o->bp_addr = t->bp_addr;
	o->bp_len = t->bp_len;
	o->bp_type = t->bp_type;
	o->pid = pid > 0 ? pid : 0;
}
