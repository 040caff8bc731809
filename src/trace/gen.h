/* gen.h — a typed bpftrace program as kiln Lisp: the reader nodes the compiler takes, each
 * spanning the script's construct it was made for (so the compiler's and the verifier's
 * errors point into the script), made directly (no text in between): one defmap per @map, one
 * defprog per target, a ring buffer for what user space prints or does (printf, print,
 * clear, zero, exit) with one record layout per printf call site. The format strings and
 * record layouts stay in the side table here, for the runtime; BPF carries only ids. */
#ifndef KT_GEN_H
#define KT_GEN_H
#include "trace/sema.h"

struct kl_node;

/* A record's first 8 bytes: kind << 32 | the sending CPU << 16 | index (a site for printf,
 * time and print; the map for clear and zero). */
enum kt_ev { KT_EV_PRINTF = 1, KT_EV_EXIT, KT_EV_PRINT, KT_EV_CLEAR, KT_EV_ZERO, KT_EV_TIME, KT_EV_JOIN,
	/* fn_user.c's, printed by src/cli/trace_user.c: print(value), system(FMT, ...), cat(FMT, ...)
	 * (records laid out as printf's) */
	KT_EV_VALUE, KT_EV_SYSTEM, KT_EV_CAT,
	KT_EV_HELPER /* -k: a helper failed (gen_check.c) */,
	KT_EV_WATCH /* watchpoint:FUNCTION+argN: the address to watch (gen_watch.c); index: the target */,
	KT_EV_UNWATCH /* unwatch(addr): its watchpoints detached (fn_watch.c) */ };

/* join(argv [, delim]): up to 16 strings of up to 1024 bytes each (bpftrace's sizes), printed
 * joined by the delimiter (the site's fmt) up to the first empty one. */
#define KT_JOIN_ARGS 16
#define KT_JOIN_SIZE 1024

struct kt_arg {
	struct kt_type type;
	uint32_t offset;            /* in the record */
};

struct kt_site {
	enum kt_ev kind;            /* KT_EV_PRINTF, KT_EV_TIME, KT_EV_PRINT, KT_EV_JOIN, KT_EV_VALUE, ... */
	uint32_t map, top, div;     /* print(@map [, top [, div]]) */
	const char *fmt;            /* printf's format, escapes decoded; time()'s strftime format */
	uint32_t nargs;
	struct kt_arg *args;
	uint32_t size;              /* record bytes */
	struct kl_span span;        /* KT_EV_HELPER: the script's construct (fmt: the helper) */
};

struct kt_gen {
	struct kl_node **forms;     /* the top-level forms, each node spanning the script's construct
				     * it was made for (in the arena) */
	uint32_t nforms;
	const char **notes;         /* by form: what -d prints after it (a map's name, a probe), or NULL */
	struct kt_site *sites;
	uint32_t nsites;
};

#define KT_RINGBUF "kt-events"
#define KT_STACKS "kt-stacks"      /* :stack-trace, when kstack or ustack is used */
#define KT_START_MAP "kt-start"    /* [0]: the start time (elapsed), [1]: the pid of -c's command (cpid) */

/* 0, or -1 with an error in d. */
int kt_gen(const struct kt_program *prog, const struct kt_sema *s, struct kl_arena *a, struct kl_diag *d,
	   struct kt_gen *out);

#endif
