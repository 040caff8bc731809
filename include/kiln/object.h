/* kiln/object.h — BPF objects: open a kiln-built or clang-built (libbpf-style) ELF object, or
 * a kiln source file, load it with the verifier log kept, find its programs and maps, and
 * attach programs by their section, getting links that detach. */
#ifndef KILN_OBJECT_H
#define KILN_OBJECT_H
#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "map.h"
#include "verifier.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kiln_object;
struct kiln_prog;
struct kiln_link;
struct bpf_object;
struct bpf_program;

struct kiln_object_opts {
	size_t sz;                /* sizeof(struct kiln_object_opts) */
	const char *name;         /* object name (default: the file's) */
	const char *pin_root;     /* where `:pinning :by-name` maps live (default /sys/fs/bpf) */
	uint32_t log_level;       /* verifier log level on load: 0 = only on failure (then 1) */
	size_t log_size;          /* log buffer (default 1 MiB) */
	int opt_level;            /* kiln sources: -O level (default 2); 0 means -O2, -1 means -O0 */
	const char *btf_path;     /* kiln sources: the kernel BTF their kernel types come from
				   * (NULL: /sys/kernel/btf/vmlinux, read only if a program names one) */
};

/* Open an object: an ELF file, or a kiln source (.lisp/.lsp/.kl), compiled in memory (a
 * compile error is -EINVAL with "file:line:col: error: ..." as kiln_errmsg()). */
int kiln_object_open(const char *path, const struct kiln_object_opts *opts, struct kiln_object **out);
/* A kiln source's compile warnings ("file:line:col: warning: ...", the line and a caret,
 * for variables bound and never used and maps no program uses); "" if none. */
const char *kiln_object_warnings(const struct kiln_object *obj);
int kiln_object_open_mem(const void *elf, size_t size, const struct kiln_object_opts *opts,
			 struct kiln_object **out);
/* Create maps (reusing or pinning `:pinning :by-name` ones under pin_root), load programs.
 * On a verifier rejection: a negative errno, kiln_errmsg() names the program, and
 * kiln_errlog() / kiln_object_log() hold the verifier's log. */
int kiln_object_load(struct kiln_object *obj);
/* The verifier log of the last load: the rejected program's log, or with log_level > 0 the
 * logs of all programs. "" if none. */
const char *kiln_object_log(const struct kiln_object *obj);
/* After a load the verifier refused: the rejection in the source's terms (message, failing
 * instruction, file:line:col from the object's line info, hint; kiln/verifier.h). Owned by
 * the object. NULL when the last load did not fail in the verifier. */
const struct kiln_verifier_error *kiln_object_verifier_error(const struct kiln_object *obj);
/* Close: unload programs, close maps. Links made from the object stay until destroyed. */
void kiln_object_close(struct kiln_object *obj);

const char *kiln_object_name(const struct kiln_object *obj);
size_t kiln_object_prog_count(const struct kiln_object *obj);
struct kiln_prog *kiln_object_prog(const struct kiln_object *obj, size_t i);
/* Programs and maps by name as the object has it; a kiln source's dashed name ("proto-count")
 * finds the object's "proto_count" too. NULL if none. */
struct kiln_prog *kiln_object_find_prog(const struct kiln_object *obj, const char *name);
size_t kiln_object_map_count(const struct kiln_object *obj);
/* The object's maps (valid after open; fds after load). Owned by the object: do not close. */
struct kiln_map *kiln_object_map(const struct kiln_object *obj, size_t i);
struct kiln_map *kiln_object_find_map(const struct kiln_object *obj, const char *name);
/* Global variables (a kiln source's defparameter and defvar, a C object's globals), in libbpf's
 * .rodata/.data/.bss maps: before load, set NAME (dashes and underscores alike) from TEXT,
 * parsed through its BTF type as map values are (an integer, an address, a string for a char
 * array, JSON for a struct or an array). A defparameter set so is a constant the verifier
 * knows. 0; -ENOENT for no such variable (the message lists the object's), -EINVAL or
 * -ERANGE for a value its type does not take (the message names the setting), -EBUSY after
 * load. */
int kiln_object_set_global(struct kiln_object *obj, const char *name, const char *text);
/* A data section's bytes by its name (".rodata", ".data", ".bss"), laid out as its BTF
 * DATASEC says (a skeleton's typed struct): before load the first values, to change; called
 * after load, the map itself from then on, shared with the programs (.rodata read-only), at
 * the same address. *size its bytes. NULL (-ENOENT, message set) when the object has no such
 * section. */
void *kiln_object_global_data(struct kiln_object *obj, const char *section, size_t *size);
/* The libbpf object underneath, for what libkiln does not wrap. */
struct bpf_object *kiln_object_libbpf(const struct kiln_object *obj);

const char *kiln_prog_name(const struct kiln_prog *p);
const char *kiln_prog_section(const struct kiln_prog *p);
enum bpf_prog_type kiln_prog_type(const struct kiln_prog *p);
enum bpf_attach_type kiln_prog_expected_attach_type(const struct kiln_prog *p);
int kiln_prog_fd(const struct kiln_prog *p);            /* after load; -1 before */
size_t kiln_prog_insn_count(const struct kiln_prog *p); /* in the object */
struct bpf_program *kiln_prog_libbpf(const struct kiln_prog *p);

/* How a program attaches, from its section. */
enum kiln_attach_kind {
	KILN_ATTACH_NONE,           /* no hook (socket filters, ...): test-run or pin only */
	KILN_ATTACH_XDP,            /* iface */
	KILN_ATTACH_TC,             /* iface, ingress/egress (tcx link, or clsact qdisc filter) */
	KILN_ATTACH_TRACEPOINT,     /* tracepoint/CAT/NAME */
	KILN_ATTACH_RAW_TRACEPOINT, /* raw_tracepoint/NAME */
	KILN_ATTACH_TRACING,        /* fentry/ fexit/ fmod_ret/ tp_btf/ */
	KILN_ATTACH_LSM,
	KILN_ATTACH_UPROBE,         /* uprobe / uretprobe: binary + symbol (or from the section) */
	KILN_ATTACH_KPROBE,
	KILN_ATTACH_CGROUP,         /* cgroup_skb/ingress|egress, cgroup/sock, ...: cgroup path */
	KILN_ATTACH_PERF_EVENT,     /* sampling: every CPU at a frequency or period */
	KILN_ATTACH_SOCKMAP,        /* sk_skb/stream_parser|stream_verdict, sk_msg: a sockmap or
				     * sockhash of the object (map, or the only one) */
	KILN_ATTACH_NETNS,          /* flow_dissector, sk_lookup: a network namespace (netns, or
				     * the caller's) */
	KILN_ATTACH_STRUCT_OPS,     /* struct_ops/: registered with its struct_ops map
				     * (kiln_object_attach_struct_ops), not by kiln_prog_attach */
};
enum kiln_attach_kind kiln_prog_attach_kind(const struct kiln_prog *p);
const char *kiln_attach_kind_name(enum kiln_attach_kind kind);

enum kiln_tc_dir { KILN_TC_INGRESS, KILN_TC_EGRESS };

struct kiln_attach_opts {
	size_t sz;                  /* sizeof(struct kiln_attach_opts) */
	const char *iface;          /* xdp, tc: interface name */
	int ifindex;                /* ...or its index */
	uint32_t xdp_flags;         /* XDP_FLAGS_SKB_MODE, XDP_FLAGS_DRV_MODE, ... (0: kernel picks) */
	int tc_dir;                 /* tc: enum kiln_tc_dir when the section does not say */
	bool tc_legacy;             /* tc: a clsact qdisc filter even where tcx links exist */
	const char *cgroup;         /* cgroup: a cgroup v2 directory */
	const char *binary;         /* uprobe: path of the binary or library */
	const char *symbol;         /* uprobe: function name (else from the section) */
	uint64_t offset;            /* uprobe: offset from the symbol, or absolute without one */
	int pid;                    /* uprobe: only this process (0 or -1: all) */
	uint64_t ref_ctr_offset;    /* uprobe: file offset of a USDT semaphore the kernel counts up
				     * while the probe is attached (0: none) */
	/* perf_event programs: sampled by the software cpu-clock event, on every online CPU (or
	 * only `cpu` with on_one_cpu), `freq` times a second (default 99) or every `period`
	 * nanoseconds of CPU time; `pid` > 0 samples only that process */
	uint64_t freq, period;
	int cpu;
	bool on_one_cpu;
	/* ...or sampled by this perf event instead of cpu-clock when event_name is set (as
	 * messages and the link name it: "page-faults"): perf_event_attr's type and config,
	 * fired every `period` events */
	const char *event_name;
	uint32_t event_type;
	uint64_t event_config;
	/* sk_skb and sk_msg programs: the name of the object's sockmap or sockhash they attach
	 * to (NULL: the object's only one) */
	const char *map;
	/* flow_dissector and sk_lookup programs: a network namespace file (/proc/PID/ns/net,
	 * /run/netns/NAME; NULL: the caller's) */
	const char *netns;
	/* perf_event programs on a hardware breakpoint (event_type PERF_TYPE_BREAKPOINT): the
	 * address watched, its length (1, 2, 4 or 8) and HW_BREAKPOINT_R/_W/_X bits; with pid > 0
	 * in that process on any CPU, else on every online CPU; fired on every access */
	uint64_t bp_addr;
	uint32_t bp_len, bp_type;
};

/* Attach p at its hook. Tracepoint, raw tracepoint, tracing and uprobe sections that name
 * their target need no options; xdp and tc need an interface, cgroup programs a cgroup.
 * sk_skb and sk_msg programs attach to a sockmap/sockhash (no link: the attachment lasts
 * until kiln_link_detach or the map goes, and cannot be pinned); flow_dissector and
 * sk_lookup programs get a link on a network namespace. */
int kiln_prog_attach(struct kiln_prog *p, const struct kiln_attach_opts *opts, struct kiln_link **out);
/* Register the object's map #i, a struct_ops map (its programs filling a kernel struct of
 * operations: a TCP congestion control becomes selectable by its name). The link ends the
 * registration when destroyed; on Linux 6.4 and later it is a kernel link (pinnable, ended
 * by the process's exit too). */
int kiln_object_attach_struct_ops(struct kiln_object *obj, size_t i, struct kiln_link **out);
/* Pin a link on bpffs so the attachment outlives the process, creating missing directories
 * (-EOPNOTSUPP for a legacy tc filter, which is no link: it stays in the qdisc until
 * detached). */
int kiln_link_pin(struct kiln_link *l, const char *path);
/* Detach now (idempotent); a pinned link is unpinned too. */
int kiln_link_detach(struct kiln_link *l);
/* Free the link: detaches unless it is pinned (a pinned link stays attached). NULL ok. */
void kiln_link_destroy(struct kiln_link *l);
enum kiln_attach_kind kiln_link_kind(const struct kiln_link *l);
/* "xdp on veth0", "tracepoint syscalls/sys_enter_kill", ... for messages. */
const char *kiln_link_describe(const struct kiln_link *l);
int kiln_link_fd(const struct kiln_link *l);           /* -1 for a legacy tc filter */

#ifdef __cplusplus
}
#endif
#endif
