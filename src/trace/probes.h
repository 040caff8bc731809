/* probes.h — attach points to what kiln attaches: one row per probe kind (probes.c's table)
 * resolves `provider:a:b` into targets, expanding wildcards (tracepoints from tracefs,
 * kernel functions from BTF, a file's functions from its ELF symbols), finding files and
 * offsets, and refusing at its position what kiln trace cannot attach. The software and
 * hardware perf events are tables too, shared with -l and the runtime. */
#ifndef KT_PROBES_H
#define KT_PROBES_H
#include "trace/ast.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kt_pkind { KP_BEGIN, KP_END, KP_TRACEPOINT, KP_INTERVAL, KP_PROFILE, KP_UPROBE, KP_URETPROBE, KP_KPROBE, KP_KRETPROBE,
	KP_KFUNC, KP_KRETFUNC, KP_RAWTRACEPOINT, KP_SOFTWARE, KP_HARDWARE, KP_USDT, KP_WATCHPOINT };

/* One program kiln attaches (or test-runs, for BEGIN and END). */
struct kt_target {
	enum kt_pkind kind;
	const char *event;          /* tracepoint "CAT/NAME"; the function of a uprobe, kprobe or kfunc;
				     * a raw tracepoint's name; a software or hardware event's name */
	const char *probe;          /* the `probe` builtin's text: "tracepoint:syscalls:sys_enter_read" */
	uint64_t period_ns, freq;   /* interval / profile */
	uint32_t probe_index;       /* which probe of the program */
	const char *binary;         /* uprobe: the file (a library found by name, a path) */
	uint64_t offset;            /* uprobe, kprobe: bytes past the function's start (FUNC+OFFSET);
				     * usdt: the probe's file offset in binary */
	uint64_t sema;              /* usdt: its semaphore's file offset (0: none) */
	const char *usdt_args;      /* usdt: its arguments' locations ("-4@%edi 8@%rsi") */
	uint32_t perf_type;         /* software, hardware: the perf event */
	uint64_t perf_config;
	uint64_t count;             /* ... and its sample period (fires once every count events) */
	uint32_t nargs;             /* rawtracepoint: its arguments (from BTF; 0: unknown) */
	uint64_t bp_addr;           /* watchpoint: the address, its length (1, 2, 4, 8) and mode */
	uint32_t bp_len, bp_type;   /* (HW_BREAKPOINT_R | _W | _X) */
	/* watchpoint:FUNC+argN: a uprobe on FUNC (watch_setup) sends argN's value to user space,
	 * which attaches the watchpoint target (watch_of, its index; deferred: no address until
	 * then) there; the process waits stopped (SIGSTOP) unless asyncwatchpoint */
	uint32_t watch_arg, watch_of;
	bool watch_setup, watch_deferred, watch_async;
	bool absent;                /* uprobe: the file has no such function; as bpftrace 0.17
	                             * does, it is neither attached nor counted (sslsnoop.bt names
	                             * libcrypto functions a stripped libcrypto does not export) */
};

struct kt_targets {
	struct kt_target *items;
	size_t len, cap;
};

/* Append the targets of attach point ap (of probe pi) to out, its $1.. the positional
 * parameters. A wildcard that matches nothing adds none (bpftrace's way: dcsnoop's
 * `lookup_fast.constprop.*`); an exact name that does not exist is an error. 0, or -1 with
 * the error in d at ap. proc: -p's or -c's process, as far as it is known. */
struct kt_proc {
	const char *binary;         /* -p's or -c's program (watchpoint:FUNC's file), or NULL */
	const char *root;           /* -p: "/proc/PID/root", where a uprobe's or usdt's file not
				     * found here is looked for (a process in its own mount
				     * namespace), or NULL */
};
int kt_resolve_attach(struct kl_arena *a, struct kl_diag *d, const struct kt_attach *ap, uint32_t pi,
		      const char *const *params, int nparams, struct kt_proc proc, struct kt_targets *out);

/* The kernel functions kprobe, kretprobe, kfunc and kretfunc wildcards expand to: BTF's FUNC
 * names matching glob (NULL: all), sorted, without the __init functions kallsyms places
 * between _sinittext and _einittext. 0, or -1 (no BTF) with the reason in msg. */
int kt_kernel_funcs(struct kl_arena *a, const char *glob, const char ***out, uint32_t *n, char *msg, size_t len);

/* Whether the kernel runs the programs attached to one event of this kind last-attached
 * first (uprobes, kprobes, USDT, software events, kfuncs): kiln trace attaches those in
 * reverse so that probes on one event run in the script's order, as bpftrace 0.17 does. */
bool kt_attach_reversed(enum kt_pkind kind);

/* The tracefs root kiln trace reads ("/sys/kernel/tracing", or debugfs's). */
const char *kt_tracefs(void);
/* The provider kind is written as (its first spelling in the table: "kfunc", "watchpoint"). */
const char *kt_provider_name(enum kt_pkind kind);

/* A perf event of software:NAME:COUNT or hardware:NAME:COUNT. */
struct kt_perf_event {
	const char *name, *alias;   /* alias "" when none */
	uint32_t type;              /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config;            /* PERF_COUNT_SW_* / PERF_COUNT_HW_* */
	uint64_t count;             /* the sample period when the attach point gives none */
};
/* The events of provider "software" or "hardware" (NULL for another), *n of them. */
const struct kt_perf_event *kt_perf_events(const char *provider, size_t *n);
#endif
