/* probe.c — what the running kernel supports, found the way bpftool finds it: load a
 * two-instruction program of each type, make a one-entry map of each type, and for each
 * program type load "call HELPER; exit" for every helper id and read the verifier's verdict.
 *
 * Program and map types libbpf knows go through libbpf's own probes (so kiln and bpftool
 * agree on them). Helpers do not: libbpf 1.1's libbpf_probe_bpf_helper() takes a helper the
 * program type may not call for a supported one on kernels since 6.x, whose verifier says
 * "program of this type cannot use helper" where older ones said "unknown func" (bpftool
 * 7.1 built on it lists every helper for every type on such a kernel). kiln reads all three
 * wordings.
 *
 * The build's <linux/bpf.h> (Debian 12: linux 6.1) is older than the kernels it runs on, so
 * numbers past it are probed as well, until a few in a row are unknown to the kernel; the
 * names of those come from the kernel's BTF (enum bpf_prog_type etc.) when it has it. */
#include "kiln/probe.h"
#include "kiln/error.h"
#include "fail.h"
#include "probe_internal.h"
#include "compiler/tables.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* How many numbers in a row the kernel must not know, past the last one libbpf (or kiln's
 * helper table) knows, before probing stops. The kernel numbers its enums densely, so one
 * gap already means the end; a few more cost little. */
#define PROBE_MISSES 4

/* Numbers newer than linux 6.1's <linux/bpf.h>, which this file must name itself (the program
 * types' are in kfacts/prog_types.h). */
#define KL_MAP_TYPE_ARENA 33
#ifndef BPF_F_MMAPABLE
#define BPF_F_MMAPABLE (1U << 10)
#endif
#define KL_FUNC_LOOP 181              /* BPF_FUNC_loop */

/* Helpers whose mere presence in a loaded program writes to the kernel log. */
static const uint32_t log_writers[] = { BPF_FUNC_trace_printk, BPF_FUNC_probe_write_user, BPF_FUNC_trace_vprintk };

static uint32_t kernel_version(void)
{
	struct utsname u;
	unsigned a, b, c;
	if (uname(&u) || sscanf(u.release, "%u.%u.%u", &a, &b, &c) != 3)
		return 0;
	return a << 16 | b << 8 | (c > 255 ? 255 : c);
}

/* Load insns as a program of type t; the fd is closed again. Returns 0 loaded, else -errno;
 * with log, the verifier's log (level 1) is left there. */
static int try_load(uint32_t t, const struct bpf_insn *insns, size_t n, char *log, size_t logsz)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = log ? (uint32_t)logsz : 0,
		    .log_level = log ? 1 : 0);
	/* what a program type needs besides its type to load at all: kfacts/prog_types.def */
	const struct kl_prog_kind *k = kl_prog_kind_facts(t);
	o.expected_attach_type = (enum bpf_attach_type)k->load_attach;
	o.prog_flags = k->load_flags;
	if (k->kern_version)
		o.kern_version = kernel_version();
	if (log)
		log[0] = 0;
	int fd = bpf_prog_load((enum bpf_prog_type)t, NULL, "GPL", insns, n, &o);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static bool prog_type_loads(uint32_t t)
{
	if (libbpf_bpf_prog_type_str((enum bpf_prog_type)t)) {
		int r = libbpf_probe_bpf_prog_type((enum bpf_prog_type)t, NULL);
		if (r >= 0)
			return r > 0;
	}
	return try_load(t, ret0, 2, NULL, 0) == 0;
}

/* A local-storage map (cgroup storage since 6.2) needs BTF: an int key, a struct value. */
static int storage_btf(void)
{
	struct btf *b = btf__new_empty();
	if (!b)
		return -ENOMEM;
	int fd = -EINVAL;
	int i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	if (i > 0 && btf__add_struct(b, "val", 4) > 0 && !btf__add_field(b, "v", i, 0, 0) &&
	    !btf__load_into_kernel(b))
		fd = dup(btf__fd(b));
	btf__free(b);
	return fd;
}

static bool map_type_makes(uint32_t t)
{
	if (libbpf_bpf_map_type_str((enum bpf_map_type)t)) {
		int r = libbpf_probe_bpf_map_type((enum bpf_map_type)t, NULL);
		if (r >= 0)
			return r > 0;
	}
	LIBBPF_OPTS(bpf_map_create_opts, o);
	uint32_t key = 4, value = 4, max = 1;
	int btf = -1;
	if (t == KL_MAP_TYPE_CGRP_STORAGE) {
		if ((btf = storage_btf()) < 0)
			return false;
		o.btf_fd = btf, o.btf_key_type_id = 1, o.btf_value_type_id = 2;
		o.map_flags = BPF_F_NO_PREALLOC, max = 0;
	} else if (t == KL_MAP_TYPE_ARENA) {
		key = value = 0;                     /* max_entries counts pages */
		o.map_flags = BPF_F_MMAPABLE;
	}
	int fd = bpf_map_create((enum bpf_map_type)t, NULL, key, value, max, &o);
	if (btf >= 0)
		close(btf);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The verifier's verdict on "call id; exit" in a program of type t. */
enum helper_verdict { HELPER_OK, HELPER_NOT_FOR_TYPE, HELPER_UNKNOWN_ID };

static enum helper_verdict helper_probe(uint32_t t, uint32_t id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = (int32_t)id },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[1024];
	int r = try_load(t, insns, 2, log, sizeof(log));
	if (r == 0)
		return HELPER_OK;
	if (strstr(log, "invalid func "))
		return HELPER_UNKNOWN_ID;
	/* "unknown func" before linux 6.x, "program of this type cannot use helper" since; a log
	 * left empty means it was refused before the verifier looked at the call */
	if (!log[0] || strstr(log, "unknown func ") || strstr(log, "cannot use helper "))
		return HELPER_NOT_FOR_TYPE;
	return HELPER_OK;     /* known and allowed: refused only for its arguments */
}

/* One past the last helper id the kernel knows: past kiln's table, probed until
 * PROBE_MISSES ids in a row are unknown to the verifier. */
static uint32_t helper_bound(void)
{
	uint32_t last = __BPF_FUNC_MAX_ID - 1;
	for (uint32_t i = last + 1; i < KILN_PROBE_HELPERS_MAX; i++)
		if (kl_helper_by_id(i))
			last = i;
	for (uint32_t id = last + 1, miss = 0; id < KILN_PROBE_HELPERS_MAX && miss < PROBE_MISSES; id++) {
		if (helper_probe(BPF_PROG_TYPE_SOCKET_FILTER, id) == HELPER_UNKNOWN_ID)
			miss++;
		else
			last = id, miss = 0;
	}
	return last + 1;
}

/* Probe types 1.. with probe(), past the last one libbpf names until PROBE_MISSES in a row
 * fail. Returns one past the last that libbpf names or the kernel has. */
static uint32_t probe_types(uint64_t *bits, bool (*probe)(uint32_t), const char *(*libbpf_name)(uint32_t))
{
	uint32_t last = 0, miss = 0;
	*bits = 0;
	for (uint32_t t = 1; t < KILN_PROBE_TYPES_MAX; t++) {
		bool known = libbpf_name(t) != NULL;
		if (!known && miss >= PROBE_MISSES)
			break;
		if (probe(t)) {
			*bits |= 1ull << t;
			miss = 0;
			last = t;
		} else if (!known) {
			miss++;
		} else {
			last = t;
		}
	}
	return last + 1;
}

static const char *libbpf_prog_name(uint32_t t) { return libbpf_bpf_prog_type_str((enum bpf_prog_type)t); }
static const char *libbpf_map_name(uint32_t t) { return libbpf_bpf_map_type_str((enum bpf_map_type)t); }

static int read_sysctl(const char *path, int *out)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

void kl_probe_feat_set(struct kiln_probe *p, enum kiln_probe_feature f, bool have)
{
	p->feat_known |= 1u << f;
	if (have)
		p->feat_have |= 1u << f;
	else
		p->feat_have &= ~(1u << f);
}

/* The whole of a small sysfs or securityfs file into buf; false when it cannot be read. */
static bool read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, len - 1, f);
	bool ok = !ferror(f);
	fclose(f);
	buf[n] = 0;
	return ok;
}

/* Whether word is one of the comma-separated names in list ("lockdown,capability,bpf"). */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *s = list; (s = strstr(s, word)); s += n)
		if ((s == list || s[-1] == ',') && (s[n] == ',' || s[n] == '\n' || !s[n]))
			return true;
	return false;
}

/* The active LSMs and the lockdown mode, from securityfs. Where the lsm list is readable and
 * has no lockdown, the kernel is not locked down; where securityfs is not there, both stay
 * unknown. */
static void probe_security(struct kiln_probe *p)
{
	char lsms[512], mode[128];
	bool have_lsms = read_small("/sys/kernel/security/lsm", lsms, sizeof(lsms));
	if (have_lsms)
		kl_probe_feat_set(p, KILN_FEAT_BPF_LSM, in_list(lsms, "bpf"));
	if (read_small("/sys/kernel/security/lockdown", mode, sizeof(mode))) {
		kl_probe_feat_set(p, KILN_FEAT_LOCKDOWN_INTEGRITY, !strstr(mode, "[none]"));
		kl_probe_feat_set(p, KILN_FEAT_LOCKDOWN_CONFIDENTIALITY, strstr(mode, "[confidentiality]") != NULL);
	} else if (have_lsms && !in_list(lsms, "lockdown")) {
		kl_probe_feat_set(p, KILN_FEAT_LOCKDOWN_INTEGRITY, false);
		kl_probe_feat_set(p, KILN_FEAT_LOCKDOWN_CONFIDENTIALITY, false);
	}
}

/* The features read from files: no bpf() call, so no privilege needed. */
static void probe_files(struct kiln_probe *p)
{
	kl_probe_feat_set(p, KILN_FEAT_KERNEL_BTF, access("/sys/kernel/btf/vmlinux", R_OK) == 0);
	if (!read_sysctl("/proc/sys/net/core/bpf_jit_enable", &p->jit_enable))
		kl_probe_feat_set(p, KILN_FEAT_JIT, p->jit_enable != 0);
	if (!read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled", &p->unpriv_disabled))
		kl_probe_feat_set(p, KILN_FEAT_UNPRIV_DISABLED, p->unpriv_disabled != 0);
	kl_probe_feat_set(p, KILN_FEAT_KPROBE_PMU, access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0);
	kl_probe_feat_set(p, KILN_FEAT_UPROBE_PMU, access("/sys/bus/event_source/devices/uprobe/type", R_OK) == 0);
	probe_security(p);
}

static uint32_t fentry_target(void);

/* An fentry program on a function the kernel keeps for BPF's own tests: it loads only with
 * kernel BTF, a JIT that makes trampolines, and no lockdown refusing it. Unknown when the
 * kernel's BTF has no such function. */
static void probe_fentry(struct kiln_probe *p)
{
	uint32_t id = fentry_target();
	if (!id)
		return;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY, .attach_btf_id = id);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", ret0, 2, &o);
	kl_probe_feat_set(p, KILN_FEAT_FENTRY, fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void probe_misc(struct kiln_probe *p)
{
	/* a program over the old 4096-instruction limit: 4096 moves and an exit */
	enum { N = 4097 };
	struct bpf_insn *big = calloc(N, sizeof(*big));
	if (big) {
		for (int i = 0; i < N - 1; i++)
			big[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 };
		big[N - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
		kl_probe_feat_set(p, KILN_FEAT_LARGE_INSN_LIMIT, try_load(BPF_PROG_TYPE_SCHED_CLS, big, N, NULL, 0) == 0);
		free(big);
	}
	/* r0 = 10; do r0 -= 1; while (r0 != 0): a jump backwards */
	const struct bpf_insn loop[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 10 },
		{ .code = BPF_ALU64 | BPF_SUB | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .off = -2, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	kl_probe_feat_set(p, KILN_FEAT_BOUNDED_LOOPS, try_load(BPF_PROG_TYPE_SOCKET_FILTER, loop, 4, NULL, 0) == 0);
	kl_probe_feat_set(p, KILN_FEAT_BPF_LOOP, helper_probe(BPF_PROG_TYPE_SOCKET_FILTER, KL_FUNC_LOOP) == HELPER_OK);
	kl_probe_feat_set(p, KILN_FEAT_RINGBUF, (p->done & KILN_PROBE_MAP_TYPES) ? kiln_probe_has_map_type(p, BPF_MAP_TYPE_RINGBUF)
								       : map_type_makes(BPF_MAP_TYPE_RINGBUF));
	kl_probe_feat_set(p, KILN_FEAT_MEMCG_ACCOUNT,
			  helper_probe(BPF_PROG_TYPE_SOCKET_FILTER, BPF_FUNC_ktime_get_coarse_ns) == HELPER_OK);
	probe_fentry(p);
	probe_files(p);
}

int kiln_probe_run_helpers(struct kiln_probe *p, uint32_t t)
{
	if (t >= KILN_PROBE_TYPES_MAX)
		return kl_fail_msg(-EINVAL, "program type %u is out of the probe's range (0 to %u)", t,
				   KILN_PROBE_TYPES_MAX - 1);
	int r = kiln_probe_run(p, KILN_PROBE_PROG_TYPES);
	if (r)
		return r;
	if (kiln_probe_helpers_known(p, t) || !kiln_probe_has_prog_type(p, t) || kl_prog_kind_facts(t)->helpers_unprobeable)
		return 0;
	if (!p->n_helpers) {
		p->n_helpers = helper_bound();
		memset(p->helpers_skipped, 0, sizeof(p->helpers_skipped));
		for (size_t i = 0; !(p->done & KILN_PROBE_FULL) && i < sizeof(log_writers) / sizeof(log_writers[0]); i++)
			p->helpers_skipped[log_writers[i] / 64] |= 1ull << (log_writers[i] % 64);
	}
	memset(p->helpers[t], 0, sizeof(p->helpers[t]));
	for (uint32_t id = 1; id < p->n_helpers; id++)
		if (!kiln_probe_helper_skipped(p, id) && helper_probe(t, id) == HELPER_OK)
			p->helpers[t][id / 64] |= 1ull << (id % 64);
	p->helpers_done |= 1ull << t;
	return 0;
}

int kiln_probe_run(struct kiln_probe *p, unsigned what)
{
	unsigned todo = what & ~p->done & KILN_PROBE_ALL;
	if (!todo)
		return 0;
	if (!p->done && !p->helpers_done)
		p->done |= what & KILN_PROBE_FULL;
	int r = kiln_bpf_privileged();
	if (r) {
		if (todo & KILN_PROBE_MISC)
			probe_files(p);
		return r;
	}
	if (todo & (KILN_PROBE_PROG_TYPES | KILN_PROBE_HELPERS) && !(p->done & KILN_PROBE_PROG_TYPES)) {
		p->n_prog_types = probe_types(&p->prog_types, prog_type_loads, libbpf_prog_name);
		p->done |= KILN_PROBE_PROG_TYPES;
	}
	if (todo & KILN_PROBE_MAP_TYPES) {
		p->n_map_types = probe_types(&p->map_types, map_type_makes, libbpf_map_name);
		p->done |= KILN_PROBE_MAP_TYPES;
	}
	if (todo & KILN_PROBE_HELPERS) {
		for (uint32_t t = 1; t < p->n_prog_types; t++)
			if ((r = kiln_probe_run_helpers(p, t)))
				return r;
		p->done |= KILN_PROBE_HELPERS;
	}
	if (todo & KILN_PROBE_MISC) {
		probe_misc(p);
		p->done |= KILN_PROBE_MISC;
	}
	return 0;
}

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kiln_probe cache;

int kiln_probe_cached(unsigned what, int prog_type, struct kiln_probe *out)
{
	pthread_mutex_lock(&cache_lock);
	int r = kiln_probe_run(&cache, what);
	if (!r && prog_type >= 0)
		r = kiln_probe_run_helpers(&cache, (uint32_t)prog_type);
	*out = cache;
	pthread_mutex_unlock(&cache_lock);
	return r;
}

bool kiln_probe_has_prog_type(const struct kiln_probe *p, uint32_t t)
{
	return t < KILN_PROBE_TYPES_MAX && (p->prog_types >> t & 1);
}

bool kiln_probe_has_map_type(const struct kiln_probe *p, uint32_t t)
{
	return t < KILN_PROBE_TYPES_MAX && (p->map_types >> t & 1);
}

bool kiln_probe_helpers_known(const struct kiln_probe *p, uint32_t t)
{
	return t < KILN_PROBE_TYPES_MAX && (p->helpers_done >> t & 1);
}

bool kiln_probe_helper_skipped(const struct kiln_probe *p, uint32_t id)
{
	return id < KILN_PROBE_HELPERS_MAX && (p->helpers_skipped[id / 64] >> (id % 64) & 1);
}

bool kiln_probe_has_helper(const struct kiln_probe *p, uint32_t t, uint32_t id)
{
	return kiln_probe_helpers_known(p, t) && id < KILN_PROBE_HELPERS_MAX && (p->helpers[t][id / 64] >> (id % 64) & 1);
}

int kiln_probe_feature(const struct kiln_probe *p, enum kiln_probe_feature f)
{
	if ((unsigned)f >= KILN_FEAT_COUNT || !(p->feat_known >> f & 1))
		return -1;
	return p->feat_have >> f & 1;
}

/* ---- names ---------------------------------------------------------------------------- */

static const char *const feature_names[KILN_FEAT_COUNT] = {
	[KILN_FEAT_LARGE_INSN_LIMIT] = "large_insn_limit",
	[KILN_FEAT_BOUNDED_LOOPS] = "bounded_loops",
	[KILN_FEAT_BPF_LOOP] = "bpf_loop_helper",
	[KILN_FEAT_RINGBUF] = "ringbuf_map",
	[KILN_FEAT_KERNEL_BTF] = "kernel_btf",
	[KILN_FEAT_JIT] = "jit_enabled",
	[KILN_FEAT_UNPRIV_DISABLED] = "unprivileged_bpf_disabled",
	[KILN_FEAT_KPROBE_PMU] = "kprobe_pmu",
	[KILN_FEAT_UPROBE_PMU] = "uprobe_pmu",
	[KILN_FEAT_FENTRY] = "fentry_program",
	[KILN_FEAT_MEMCG_ACCOUNT] = "memcg_accounting",
	[KILN_FEAT_LOCKDOWN_INTEGRITY] = "lockdown_integrity",
	[KILN_FEAT_LOCKDOWN_CONFIDENTIALITY] = "lockdown_confidentiality",
	[KILN_FEAT_BPF_LSM] = "bpf_lsm_active",
};

const char *kiln_probe_feature_name(enum kiln_probe_feature f)
{
	return (unsigned)f < KILN_FEAT_COUNT ? feature_names[f] : NULL;
}

/* The kernel's own names for numbers libbpf 1.1 does not know, from the enums in its BTF,
 * read once per process: lower case, prefix dropped ("BPF_MAP_TYPE_ARENA" -> "arena"). */
enum { KN_PROG, KN_MAP, KN_FUNC, KN_COUNT };
static const struct {
	const char *enum_name, *prefix, *keep;  /* keep: put back in front ("bpf_" for helpers) */
	uint32_t max;
} kenums[KN_COUNT] = {
	[KN_PROG] = { "bpf_prog_type", "BPF_PROG_TYPE_", "", KILN_PROBE_TYPES_MAX },
	[KN_MAP] = { "bpf_map_type", "BPF_MAP_TYPE_", "", KILN_PROBE_TYPES_MAX },
	[KN_FUNC] = { "bpf_func_id", "BPF_FUNC_", "bpf_", KILN_PROBE_HELPERS_MAX },
};
static char *knames[KN_COUNT][KILN_PROBE_HELPERS_MAX];
static uint32_t fentry_id;            /* bpf_fentry_test1's BTF id, 0 if none */
static pthread_once_t knames_once = PTHREAD_ONCE_INIT;

/* The kernel's BTF, read once per process for both: the enums' names and the function
 * probe_fentry loads against (the kernel keeps bpf_fentry_test1 for BPF's tests). */
static void knames_read(void)
{
	struct btf *btf = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (libbpf_get_error(btf))
		return;
	int fid = btf__find_by_name_kind(btf, "bpf_fentry_test1", BTF_KIND_FUNC);
	fentry_id = fid > 0 ? (uint32_t)fid : 0;
	for (int k = 0; k < KN_COUNT; k++) {
		int id = btf__find_by_name_kind(btf, kenums[k].enum_name, BTF_KIND_ENUM);
		if (id <= 0)
			continue;
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);
		size_t plen = strlen(kenums[k].prefix);
		for (unsigned i = 0; i < btf_vlen(t); i++, e++) {
			const char *n = btf__name_by_offset(btf, e->name_off);
			if (!n || strncmp(n, kenums[k].prefix, plen) || e->val < 0 || (uint32_t)e->val >= kenums[k].max)
				continue;
			size_t len = strlen(kenums[k].keep) + strlen(n + plen) + 1;
			char *s = malloc(len);
			if (!s)
				continue;
			snprintf(s, len, "%s%s", kenums[k].keep, n + plen);
			for (char *c = s; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			/* an alias is the newer spelling (BPF_MAP_TYPE_CGROUP_STORAGE after
			 * ..._CGROUP_STORAGE_DEPRECATED, both 19): the last one wins */
			free(knames[k][e->val]);
			knames[k][e->val] = s;
		}
	}
	btf__free(btf);
}

static const char *kernel_name(int k, uint32_t v)
{
	if (v >= kenums[k].max)
		return NULL;
	pthread_once(&knames_once, knames_read);
	return knames[k][v];
}

static uint32_t fentry_target(void)
{
	pthread_once(&knames_once, knames_read);
	return fentry_id;
}

static const char *name_or_number(const char *name, const char *kind, uint32_t v, char *buf, size_t size)
{
	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s_%u", kind, v);
	return buf;
}

const char *kiln_probe_prog_type_name(uint32_t t, char *buf, size_t size)
{
	const char *n = libbpf_prog_name(t);
	return name_or_number(n ? n : kernel_name(KN_PROG, t), "prog_type", t, buf, size);
}

const char *kiln_probe_map_type_name(uint32_t t, char *buf, size_t size)
{
	const char *n = libbpf_map_name(t);
	return name_or_number(n ? n : kernel_name(KN_MAP, t), "map_type", t, buf, size);
}

const char *kiln_probe_helper_name(uint32_t id, char *buf, size_t size)
{
	/* kiln's helper table spells bpf_map_lookup_elem as map-lookup-elem */
	const struct kl_helper *h = id ? kl_helper_by_id(id) : NULL;
	if (h) {
		snprintf(buf, size, "bpf_%s", h->name);
		for (char *c = buf; *c; c++)
			if (*c == '-')
				*c = '_';
		return buf;
	}
	return name_or_number(kernel_name(KN_FUNC, id), "helper", id, buf, size);
}

static int by_name(const char *name, uint32_t max, const char *(*namer)(uint32_t, char *, size_t), uint32_t *out)
{
	char *end, buf[96];
	unsigned long v = strtoul(name, &end, 10);
	if (*name && isdigit((unsigned char)*name) && !*end && v < max) {
		*out = (uint32_t)v;
		return 0;
	}
	for (uint32_t i = 1; i < max; i++)
		if (!strcmp(namer(i, buf, sizeof(buf)), name)) {
			*out = i;
			return 0;
		}
	return -ENOENT;
}

int kiln_probe_prog_type_by_name(const char *name, uint32_t *out)
{
	return by_name(name, KILN_PROBE_TYPES_MAX, kiln_probe_prog_type_name, out);
}

int kiln_probe_map_type_by_name(const char *name, uint32_t *out)
{
	return by_name(name, KILN_PROBE_TYPES_MAX, kiln_probe_map_type_name, out);
}

int kiln_probe_helper_by_name(const char *name, uint32_t *out)
{
	/* kiln's table first, a lookup rather than a walk over every id's name */
	char kname[96];
	if (!strncmp(name, "bpf_", 4) && strlen(name + 4) < sizeof(kname)) {
		size_t i = 0;
		for (const char *c = name + 4; *c; c++)
			kname[i++] = *c == '_' ? '-' : *c;
		kname[i] = 0;
		const struct kl_helper *h = kl_helper_find(kname);
		char buf[96];
		if (h && !strcmp(kiln_probe_helper_name(h->id, buf, sizeof(buf)), name)) {
			*out = h->id;
			return 0;
		}
	}
	return by_name(name, KILN_PROBE_HELPERS_MAX, kiln_probe_helper_name, out);
}
