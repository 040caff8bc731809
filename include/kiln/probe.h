/* kiln/probe.h — what the running kernel supports: program types, map types, the helpers
 * each program type may call, and a few other features (bounded loops, the 1M instruction
 * limit, kernel BTF, the JIT). Like `bpftool feature probe`, by loading tiny programs and
 * making tiny maps; and read back from a saved probe (bpftool's or kiln's macros header, or
 * their JSON), as Cilium reads its bpf_features.h. */
#ifndef KILN_PROBE_H
#define KILN_PROBE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PROBE_TYPES_MAX 64       /* program and map type numbers probed: 0..63 */
#define KILN_PROBE_HELPERS_MAX 256    /* helper ids probed: 0..255 */

/* The parts of a probe, for kiln_probe_run() and kiln_probe::done. */
enum {
	KILN_PROBE_PROG_TYPES = 1,
	KILN_PROBE_MAP_TYPES = 2,
	KILN_PROBE_HELPERS = 4,       /* the helpers of every supported program type */
	KILN_PROBE_MISC = 8,
	KILN_PROBE_ALL = 15,
	/* Also the helpers that write to the kernel log when a program merely names them
	 * (bpf_trace_printk's banner, bpf_probe_write_user's warning), which bpftool too probes
	 * only when asked (`feature probe full`); without it they are left out (helpers_skipped).
	 * It holds for every helper probe of p: give it with the first kiln_probe_run(). */
	KILN_PROBE_FULL = 16,
};

/* The other features (bits of feat_known / feat_have). */
enum kiln_probe_feature {
	KILN_FEAT_LARGE_INSN_LIMIT,   /* programs of up to 1M instructions (bpftool's
				       * have_large_insn_limit), not 4096 */
	KILN_FEAT_BOUNDED_LOOPS,      /* the verifier accepts a backward jump */
	KILN_FEAT_BPF_LOOP,           /* the bpf_loop helper (for socket filters, so for all) */
	KILN_FEAT_RINGBUF,            /* BPF_MAP_TYPE_RINGBUF */
	KILN_FEAT_KERNEL_BTF,         /* /sys/kernel/btf/vmlinux is there to read */
	KILN_FEAT_JIT,                /* net.core.bpf_jit_enable is not 0 (jit_enable) */
	KILN_FEAT_UNPRIV_DISABLED,    /* kernel.unprivileged_bpf_disabled is not 0 */
	KILN_FEAT_KPROBE_PMU,         /* the kprobe PMU (/sys/bus/event_source/devices/kprobe):
				       * kprobes attach (CONFIG_KPROBE_EVENTS) */
	KILN_FEAT_UPROBE_PMU,         /* the uprobe PMU: uprobes attach (CONFIG_UPROBE_EVENTS) */
	KILN_FEAT_FENTRY,             /* an fentry program loads (kernel BTF, JIT trampolines,
				       * and no lockdown refusing it) */
	KILN_FEAT_MEMCG_ACCOUNT,      /* BPF memory is charged to the memory cgroup, not to
				       * RLIMIT_MEMLOCK (linux 5.11; libbpf's sign of it: the
				       * bpf_ktime_get_coarse_ns helper, of the same release) */
	KILN_FEAT_LOCKDOWN_INTEGRITY, /* the kernel is locked down: integrity or confidentiality */
	KILN_FEAT_LOCKDOWN_CONFIDENTIALITY, /* ... confidentiality */
	KILN_FEAT_BPF_LSM,            /* "bpf" is among the active LSMs: lsm programs run */
	KILN_FEAT_COUNT
};

/* A probe's answers: bitmaps by number. Zero it before the first kiln_probe_run(); each run
 * probes only the parts not yet in done, so one struct can be filled a part at a time.
 * Numbers past the build's <linux/bpf.h> are probed too, up to the first few in a row the
 * kernel does not know; n_prog_types etc. are one past the last number libbpf knows or the
 * kernel has (the range answered: numbers above it are unsupported or unknown). */
struct kiln_probe {
	unsigned done;                        /* KILN_PROBE_* parts probed (or read) */
	uint32_t n_prog_types, n_map_types;   /* numbers probed: 0 .. n-1 */
	uint32_t n_helpers;                   /* helper ids probed: 0 .. n_helpers-1 */
	uint64_t prog_types;                  /* bit t: program type t loads */
	uint64_t map_types;                   /* bit t: a map of type t can be made */
	uint64_t helpers_done;                /* bit t: the helpers of program type t are known */
	uint64_t helpers[KILN_PROBE_TYPES_MAX][KILN_PROBE_HELPERS_MAX / 64];
	uint64_t helpers_skipped[KILN_PROBE_HELPERS_MAX / 64];  /* ids left out (no KILN_PROBE_FULL) */
	uint32_t feat_known, feat_have;       /* bits 1u << KILN_FEAT_* */
	int jit_enable;                       /* net.core.bpf_jit_enable (0, 1, 2) if known */
	int unpriv_disabled;                  /* kernel.unprivileged_bpf_disabled (0, 1, 2) */
};

/* Probe the parts in what (KILN_PROBE_*, with KILN_PROBE_FULL or not) that p has not done yet. Helpers need the program
 * types, which are probed first if need be. Types that cannot be loaded without a kernel
 * function to attach to (tracing, lsm, ext, struct_ops) have their helpers left unknown.
 * 0, or a negative errno (-EPERM without the privilege to use bpf()). The features read from
 * files rather than found by loading (kernel BTF, the JIT and unprivileged sysctls, the
 * kprobe and uprobe PMUs, lockdown, the bpf LSM) are filled in with KILN_PROBE_MISC even
 * when it fails for want of privilege (feat_known says which; done stays without MISC). */
int kiln_probe_run(struct kiln_probe *p, unsigned what);
/* Probe the helpers of one program type only (the lazy way: a few hundred loads rather than
 * several thousand). 0 also when the type does not load or cannot be probed (then
 * kiln_probe_helpers_known() stays false); -EINVAL for a number out of range. */
int kiln_probe_run_helpers(struct kiln_probe *p, uint32_t prog_type);
/* The process-wide cache: what (and, when prog_type >= 0, that type's helpers) probed once
 * per process, copied into *out. Thread-safe. */
int kiln_probe_cached(unsigned what, int prog_type, struct kiln_probe *out);

bool kiln_probe_has_prog_type(const struct kiln_probe *p, uint32_t prog_type);
bool kiln_probe_has_map_type(const struct kiln_probe *p, uint32_t map_type);
bool kiln_probe_has_helper(const struct kiln_probe *p, uint32_t prog_type, uint32_t helper);
bool kiln_probe_helpers_known(const struct kiln_probe *p, uint32_t prog_type);
/* Whether helper id was left unprobed (a log-writing one, without KILN_PROBE_FULL). */
bool kiln_probe_helper_skipped(const struct kiln_probe *p, uint32_t helper);
/* 1 present, 0 absent, -1 not probed (or not in the file it was read from). */
int kiln_probe_feature(const struct kiln_probe *p, enum kiln_probe_feature f);

/* Names, as bpftool spells them: "sched_cls", "lru_hash", "bpf_map_lookup_elem"; for numbers
 * libbpf does not know, the name in the kernel's BTF, else "prog_type_33", "map_type_40",
 * "helper_230". Written into buf (size at least 64 is plenty), which is returned. */
const char *kiln_probe_prog_type_name(uint32_t prog_type, char *buf, size_t size);
const char *kiln_probe_map_type_name(uint32_t map_type, char *buf, size_t size);
const char *kiln_probe_helper_name(uint32_t helper, char *buf, size_t size);
/* The number a name above stands for (a decimal number is taken as is); -ENOENT if none. */
int kiln_probe_prog_type_by_name(const char *name, uint32_t *out);
int kiln_probe_map_type_by_name(const char *name, uint32_t *out);
int kiln_probe_helper_by_name(const char *name, uint32_t *out);
const char *kiln_probe_feature_name(enum kiln_probe_feature f);   /* "bounded_loops" */

/* A saved probe into *p (zeroed first): the macros header `bpftool feature probe macros` or
 * `kiln probe --macros` writes ("#define HAVE_XDP_PROG_TYPE", "#define NO_HAVE_..._MAP_TYPE",
 * "#define BPF__PROG_TYPE_xdp__HELPER_bpf_redirect 1"), or the JSON of `bpftool feature
 * probe --json` or `kiln probe --json`. Names neither libbpf nor the kernel's BTF knows are
 * skipped. 0, or a negative errno with kiln_errmsg() saying the file and line. */
int kiln_probe_read_file(const char *path, struct kiln_probe *p);
/* p as a macros header, in the layout bpftool writes (the features kiln adds go last). */
int kiln_probe_write_macros(const struct kiln_probe *p, FILE *out);
/* p as JSON, bpftool's keys ("program_types": {"have_xdp_prog_type": true, ...}, "map_types",
 * "helpers": {"xdp_available_helpers": [...]}, "misc") with kiln's features in "misc". */
int kiln_probe_write_json(const struct kiln_probe *p, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
