/* trace_env.c — the BPFTRACE_* environment settings kiln trace honours, as a table: each
 * names its field of struct kt_sema, its default and its bounds, and is read as bpftrace
 * 0.17 reads it (a non-negative integer, or an error naming the variable). Then the limits
 * they set on the program's probes, in bpftrace's words (trace.h). */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include "trace.h"
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct setting {
	const char *name;
	size_t field;               /* offsetof(struct kt_sema, ...), a uint32_t */
	uint32_t dflt, min, max;
	const char *why;            /* the error when over max */
};

#define RB_PAGES_UNSET 2048   /* the ring buffer's least pages when BPFTRACE_PERF_RB_PAGES is unset */

static const struct setting settings[] = {
	{ "BPFTRACE_STRLEN", offsetof(struct kt_sema, strlen), 64, 1, 200,
	  "exceeds the current maximum of 200 bytes (strings live on the 512-byte BPF stack)" },
	{ "BPFTRACE_MAP_KEYS_MAX", offsetof(struct kt_sema, map_keys_max), 4096, 1, 1u << 24,
	  "exceeds kiln trace's maximum of 16777216 keys" },
	{ "BPFTRACE_MAX_PROBES", offsetof(struct kt_sema, max_probes), 512, 0, UINT32_MAX, NULL },
	{ "BPFTRACE_MAX_BPF_PROGS", offsetof(struct kt_sema, max_progs), 512, 0, UINT32_MAX, NULL },
	{ "BPFTRACE_PERF_RB_PAGES", offsetof(struct kt_sema, rb_pages), 64, 1, 1u << 18,
	  "exceeds kiln trace's maximum of 262144 pages (1 GiB of ring buffer)" },
};

int trace_env(struct kt_sema *s, FILE *err)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const struct setting *st = &settings[i];
		uint32_t *field = (uint32_t *)((char *)s + st->field);
		*field = st->dflt;
		const char *v = getenv(st->name);
		if (!v)
			continue;
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (!*v || *end || errno || v[0] == '-' || n > UINT32_MAX) {
			fprintf(err, "ERROR: Env var '%s' did not contain a valid uint64_t, or was zero-valued.\n", st->name);
			return -1;
		}
		if (n < st->min || n > st->max) {
			fprintf(err, "ERROR: '%s' %llu %s\n", st->name, n, n < st->min ? "must be at least 1" : st->why);
			return -1;
		}
		*field = (uint32_t)n;
	}
	/* bpftrace's pages are per CPU (a perf buffer each); kiln's one ring buffer serves them
	 * all, so it holds what theirs together hold */
	int ncpus = libbpf_num_possible_cpus();
	uint64_t pages = (uint64_t)s->rb_pages * (uint64_t)(ncpus > 1 ? ncpus : 1);
	s->rb_pages = pages > (1u << 18) ? 1u << 18 : (uint32_t)pages;
	/* unset, at least 8 MiB where probes send records (gen_prog.c): a quarter second of
	 * slack for the reader at a million 32-byte records a second (bench/flood.sh), where 64
	 * pages a CPU on two CPUs lost 4%; a script that only fills maps keeps the small ring (the
	 * kernel maps a ring's pages twice into the reader: they are its resident memory) */
	s->rb_flood_pages = getenv("BPFTRACE_PERF_RB_PAGES") ? 0 : RB_PAGES_UNSET;
	return 0;
}

int trace_limits(const struct kt_sema *s, FILE *err)
{
	uint32_t probes = s->ntargets;   /* one program per attach point, BEGIN and END too */
	if (probes > s->max_progs) {
		fprintf(err, "ERROR: Your program is trying to generate more than %u BPF programs, which exceeds the current "
			"limit of %u.\nYou can increase the limit through the BPFTRACE_MAX_BPF_PROGS environment variable.\n",
			probes, s->max_progs);
		return -1;
	}
	if (probes > s->max_probes) {
		fprintf(err, "ERROR: Can't attach to %u probes because it exceeds the current limit of %u probes.\nYou can "
			"increase the limit through the BPFTRACE_MAX_PROBES environment variable, but BE CAREFUL since a "
			"high number of probes attached can cause your system to crash.\n", probes, s->max_probes);
		return -1;
	}
	return 0;
}

/* kiln's compiler names a program 'pN' (gen.c's defprog pN, for target N). */
int trace_compile_limit(const struct kt_program *prog, const struct kt_sema *s, const char *msg, struct kl_diag *d)
{
	const char *q = strstr(msg, "'p");
	char *end;
	if (!q)
		return -1;
	unsigned long t = strtoul(q + 2, &end, 10);
	if (end == q + 2 || *end != '\'' || t >= s->ntargets)
		return -1;
	struct kl_span at = prog->probes[s->targets[t].probe_index].span;
	unsigned need;
	if (sscanf(end, "' needs %u bytes of stack", &need) == 1) {
		kl_error(d, at, "this probe needs %u bytes of BPF stack and the kernel allows 512: fewer strings, "
			 "tuples or string comparisons at once (or keep them in maps)", need);
		return 0;
	}
	if (!strncmp(end, "' is too large", 14)) {
		kl_error(d, at, "this probe's program is too large for BPF (%s): split it into smaller probes",
			 end + 16);
		return 0;
	}
	return -1;
}
