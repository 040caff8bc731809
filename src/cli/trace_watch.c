/* trace_watch.c — the attach options of a watchpoint:ADDRESS:LENGTH:MODE target: a perf
 * event on a hardware breakpoint (PERF_TYPE_BREAKPOINT), firing the program on every access,
 * in -c's command or -p's process when there is one (a user address), else on every CPU (a
 * kernel address). A machine without breakpoint registers (a VM that hides them) fails at
 * perf_event_open, said as attaching fails. watchpoint:FUNCTION+argN's breakpoints are
 * attached as its uprobe's records arrive, one per address, kept until the trace ends. */
#include "trace.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* -p's program (/proc/PID/exe) or -c's (its first word, found as a uprobe's file is), into
 * buf; NULL without either. */
const char *trace_watch_binary(const char *command, const char *pid_text, char *buf, size_t len)
{
	if (command) {
		size_t n = strcspn(command, " \t");
		snprintf(buf, len, "%.*s", (int)n, command);
		return buf;
	}
	if (!pid_text)
		return NULL;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%s/exe", pid_text);
	ssize_t k = readlink(path, buf, len - 1);
	if (k <= 0)
		return NULL;
	buf[k] = 0;
	return buf;
}

/* The breakpoints attached for watchpoint:FUNCTION+argN, each a target's at one address. */
struct trace_watch {
	struct wlink {
		uint32_t target;
		uint64_t addr;
		struct kiln_link *link;
	} *links;
	size_t n, cap;
};

static bool watched(const struct trace_watch *w, uint32_t target, uint64_t addr)
{
	for (size_t i = 0; w && i < w->n; i++)   /* as many as the machine has registers: a few */
		if (w->links[i].target == target && w->links[i].addr == addr)
			return true;
	return false;
}

static void keep(struct trace_watch **wp, uint32_t target, uint64_t addr, struct kiln_link *l)
{
	struct trace_watch *w = *wp ? *wp : (*wp = calloc(1, sizeof(**wp)));
	if (w && w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;
		struct wlink *nl = realloc(w->links, cap * sizeof(*nl));
		if (nl) {
			w->links = nl;
			w->cap = cap;
		}
	}
	if (!w || w->n == w->cap) {
		kiln_link_destroy(l);
		return;
	}
	w->links[w->n++] = (struct wlink){ target, addr, l };
}

int trace_watch_attach(struct trace_watch **wp, struct kiln_object *obj, const struct kt_sema *s, uint32_t target,
		       uint64_t addr, pid_t pid, FILE *out, bool json)
{
	if (target >= s->ntargets || !s->targets[target].watch_deferred)
		return -1;
	const struct kt_target *t = &s->targets[target];
	if (!watched(*wp, target, addr)) {   /* the same address again: already watched */
		char name[32];
		snprintf(name, sizeof(name), "p%u", target);
		struct kiln_prog *p = kiln_object_find_prog(obj, name);
		struct kiln_attach_opts o = { .sz = sizeof(o) };
		struct kiln_link *l = NULL;
		trace_watch_opts(t, pid, &o);
		o.bp_addr = addr;
		int err = p ? kiln_prog_attach(p, &o, &l) : -ENOENT;
		if (!err) {
			keep(wp, target, addr, l);
		} else if (err == -ENOSPC) {   /* bpftrace's words; the trace goes on */
			static const char msg[] = "Failed to attach watchpoint probe. You are out of watchpoint registers.";
			if (json)
				trace_json_message(out, "lost_events", msg, sizeof(msg) - 1);
			else
				fprintf(out, "%s\n", msg);
		} else {
			fprintf(stderr, "kiln trace: attaching %s at %#llx: %s\n", t->probe, (unsigned long long)addr,
				kiln_errmsg());
		}
	}
	for (uint32_t i = 0; i < s->ntargets; i++)   /* its uprobe stopped the process: it goes on */
		if (s->targets[i].watch_setup && s->targets[i].watch_of == target && !s->targets[i].watch_async &&
		    pid > 0 && kill(pid, SIGCONT)) {
			fprintf(stderr, "kiln trace: SIGCONT to %d: %s\n", (int)pid, strerror(errno));
			return -1;
		}
	return 0;
}

void trace_watch_free(struct trace_watch *w)
{
	for (size_t i = 0; w && i < w->n; i++)
		kiln_link_destroy(w->links[i].link);
	if (w)
		free(w->links);
	free(w);
}

/* The entry stays, its link gone: the function called again with the same address does not
 * watch it again (as bpftrace keeps the address it attached at). */
void trace_watch_unwatch(struct trace_watch *w, uint64_t addr)
{
	for (size_t i = 0; w && i < w->n; i++)
		if (w->links[i].addr == addr) {
			kiln_link_destroy(w->links[i].link);
			w->links[i].link = NULL;
		}
}
