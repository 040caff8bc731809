/* sema.h — types for a parsed bpftrace program: every expression's type (integers with a
 * size and sign, strings char[N], tuples), each @map's key layout and value kind (from the
 * aggregation or assignment that first writes it), each probe's $variables, and each attach
 * point resolved to what kiln attaches (wildcards expanded against tracefs). What parses
 * but kiln trace cannot compile yet is refused here, at its position, in bpftrace's terms. */
#ifndef KT_SEMA_H
#define KT_SEMA_H
#include "trace/ast.h"
#include "trace/probes.h"

/* What a map holds, as bpftrace prints it. */
enum kt_mkind { KM_NONE, KM_INT, KM_STR, KM_TUPLE, KM_COUNT, KM_SUM, KM_MIN, KM_MAX, KM_AVG, KM_STATS, KM_HIST, KM_LHIST };

struct kt_map {
	const char *name;           /* as written, without '@' ("" for @) */
	enum kt_mkind kind;
	struct kt_type key;         /* KTT_NONE: no key; KTT_TUPLE for several keys */
	struct kt_type value;       /* KM_INT, KM_STR, KM_TUPLE */
	int64_t lmin, lmax, lstep;  /* lhist */
	struct kl_span span;        /* first use */
	uint32_t key_size, value_size;   /* in the BPF map (hist/lhist: key + a u64 bucket) */
	const char *bpf_type;       /* kiln's map type when declared (`let @m = lruhash(N)`), NULL: hash */
	uint32_t max_entries;       /* ... its entries, 0: BPFTRACE_MAP_KEYS_MAX */
};

struct kt_var {
	const char *name;
	struct kt_type type;
};

/* Which bpftrace's meaning a script gets where the versions differ (docs/trace.md has the
 * table): today's (0.26, the default) or 0.17's (`kiln trace --dialect 0.17`). */
enum kt_dialect { KT_DIALECT_026 = 0, KT_DIALECT_017 };

struct kt_sema {
	struct kt_map *maps;
	uint32_t nmaps;
	struct kt_target *targets;
	uint32_t ntargets;
	struct kt_var **vars;       /* per probe */
	uint32_t *nvars;
	uint32_t strlen;            /* BPFTRACE_STRLEN */
	uint32_t map_keys_max;      /* BPFTRACE_MAP_KEYS_MAX: every map's max-entries */
	uint32_t max_probes, max_progs;   /* BPFTRACE_MAX_PROBES, BPFTRACE_MAX_BPF_PROGS */
	uint32_t rb_pages;          /* BPFTRACE_PERF_RB_PAGES times the CPUs: the ring buffer, in pages */
	uint32_t rb_flood_pages;    /* the least pages where probes other than BEGIN and END send records
				     * (BPFTRACE_PERF_RB_PAGES unset: a printf flood's slack; 0 none) */
	const char *const *params;  /* positional parameters $1.. */
	int nparams;
	bool has_child;             /* -c CMD: cpid is its pid */
	bool has_stacks;            /* kstack/ustack: the programs share a :stack-trace map */
	bool unsafe;                /* --unsafe: system(), signal() allowed */
	enum kt_dialect dialect;    /* --dialect */
	const char *const *named;   /* the program's named options after --: "--name[=value]" (getopt) */
	int nnamed;
	unsigned defuns;            /* the defuns fn_v026.c's functions call, defined once (KT_DEFUN_*) */
	int helper_checks;          /* -k: 1, -kk: 2 (gen_check.c) */
	struct kt_proc proc;        /* -p's or -c's process: watchpoint:FUNCTION's file, -p's root (probes.h) */
	struct kt_tpcache **tp_cache;   /* kt_sema's: the tracepoint formats read, in the arena */
	const struct kt_cdefs *cdefs;   /* kt_sema's: the script's #defines and structs (its program's) */
};

/* Type prog, filling s (whose strlen, params, nparams and limits the caller sets). 0, or -1
 * with the first error in d at its line:col. When the targets are more than max_progs or
 * max_probes (those set), nothing is typed (no maps, no variables): the caller refuses
 * them before anything else (trace_limits). */
int kt_sema(struct kt_program *prog, struct kt_sema *s, struct kl_arena *a, struct kl_diag *d);
static inline bool kt_is_stack(const struct kt_type *t)
{
	return t->kind == KTT_KSTACK || t->kind == KTT_USTACK;
}
/* Values of 8 bytes printed as text looked up at print time: stacks, ksym(), strftime(),
 * username, cgroup_path(). */
static inline bool kt_is_symbolic(const struct kt_type *t)
{
	return kt_is_stack(t) || t->kind == KTT_KSYM || t->kind == KTT_TIMESTAMP || t->kind == KTT_USERNAME ||
	       t->kind == KTT_CGROUP_PATH || t->kind == KTT_STRERROR;
}
/* Values that are bytes written at an address (gen's kt_gen_str), never integers in
 * registers: strings, ntop()'s address, buf(), macaddr(), pton()'s bytes, usym()'s address
 * and pid, a whole struct the script defines. */
static inline bool kt_is_bytes(const struct kt_type *t)
{
	return t->kind == KTT_STR || t->kind == KTT_INET || t->kind == KTT_BUF || t->kind == KTT_MAC || t->kind == KTT_BYTES ||
	       t->kind == KTT_USYM || (t->kind == KTT_STRUCT && t->size);   /* a script's struct (sized) */
}
/* Bytes a value of type t takes in a record or key. */
uint32_t kt_type_size(const struct kt_type *t);



#include "compiler/tracefs.h"
/* The field `name` of tracepoint event "CAT/NAME"; 0, or -1 with the reason (naming the
 * fields there are) in msg. Formats are cached per event in s (allocated from a, the
 * arena kt_sema was given: the script's). */
int kt_tp_field(const struct kt_sema *s, struct kl_arena *a, const char *event, const char *name,
		struct kl_tp_field *out, char *msg, size_t msgsz);
#endif
