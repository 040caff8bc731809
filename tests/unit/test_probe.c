/* test_probe.c — libkiln's kernel feature probe (kiln/probe.h): parts probed on demand and
 * only once, one program type's helpers alone giving what the whole probe gives, the
 * process-wide cache from several threads at once, names both ways, the macros header and
 * the JSON written and read back to the same answers, and the errors of reading a file
 * that is not a probe. */
#define _GNU_SOURCE
#include "check.h"
#include "kiln/error.h"
#include "kiln/probe.h"
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static bool same_answers(const struct kiln_probe *a, const struct kiln_probe *b)
{
	if (a->prog_types != b->prog_types || a->map_types != b->map_types || a->helpers_done != b->helpers_done ||
	    a->feat_known != b->feat_known || a->feat_have != b->feat_have ||
	    memcmp(a->helpers_skipped, b->helpers_skipped, sizeof(a->helpers_skipped)))
		return false;
	for (int t = 0; t < KILN_PROBE_TYPES_MAX; t++)
		if (kiln_probe_helpers_known(a, t) && memcmp(a->helpers[t], b->helpers[t], sizeof(a->helpers[t])))
			return false;
	return true;
}

static struct kiln_probe whole;      /* everything, probed once */

static void *cached_thread(void *arg)
{
	struct kiln_probe *out = arg;
	int r = kiln_probe_cached(KILN_PROBE_PROG_TYPES | KILN_PROBE_MAP_TYPES, BPF_PROG_TYPE_XDP, out);
	return (void *)(intptr_t)r;
}

static void parts(void)
{
	struct kiln_probe p = { 0 };
	int r = kiln_probe_run(&p, KILN_PROBE_PROG_TYPES);
	CHECK("probe/prog-types-only", r == 0 && p.done == KILN_PROBE_PROG_TYPES && !p.helpers_done && !p.feat_known &&
	      kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_XDP) && !kiln_probe_has_map_type(&p, BPF_MAP_TYPE_HASH),
	      "r=%d done=%u helpers_done=%llx (%s)", r, p.done, (unsigned long long)p.helpers_done, kiln_errmsg());
	r = kiln_probe_run_helpers(&p, BPF_PROG_TYPE_XDP);
	CHECK("probe/one-type-lazily", r == 0 && p.helpers_done == 1ull << BPF_PROG_TYPE_XDP &&
	      kiln_probe_has_helper(&p, BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_adjust_head) &&
	      !kiln_probe_has_helper(&p, BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_current_pid_tgid),
	      "r=%d helpers_done=%llx", r, (unsigned long long)p.helpers_done);

	double t0 = now();
	r = kiln_probe_run(&whole, KILN_PROBE_ALL);
	double t1 = now();
	CHECK("probe/all", r == 0 && whole.done == KILN_PROBE_ALL && whole.n_helpers > BPF_FUNC_user_ringbuf_drain,
	      "r=%d done=%u n_helpers=%u", r, whole.done, whole.n_helpers);
	printf("# the whole probe took %.1f ms\n", (t1 - t0) * 1e3);
	CHECK("probe/one-type-same-as-all", !memcmp(p.helpers[BPF_PROG_TYPE_XDP], whole.helpers[BPF_PROG_TYPE_XDP],
						     sizeof(p.helpers[0])), "xdp's helpers differ");
	/* what kprobes may call and xdp may not, and the other way round */
	CHECK("probe/per-type", kiln_probe_has_helper(&whole, BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_current_pid_tgid) &&
	      !kiln_probe_has_helper(&whole, BPF_PROG_TYPE_KPROBE, BPF_FUNC_xdp_adjust_head) &&
	      kiln_probe_has_helper(&whole, BPF_PROG_TYPE_XDP, BPF_FUNC_redirect_map) &&
	      !kiln_probe_has_helper(&whole, BPF_PROG_TYPE_SOCKET_FILTER, BPF_FUNC_redirect_map),
	      "helpers by type are not told apart");
	CHECK("probe/skipped-by-default", kiln_probe_helper_skipped(&whole, BPF_FUNC_trace_printk) &&
	      !kiln_probe_has_helper(&whole, BPF_PROG_TYPE_KPROBE, BPF_FUNC_trace_printk) &&
	      !kiln_probe_helper_skipped(&whole, BPF_FUNC_map_lookup_elem), "bpf_trace_printk was probed");
	struct kiln_probe full = { 0 };
	r = kiln_probe_run(&full, KILN_PROBE_PROG_TYPES | KILN_PROBE_FULL);
	r = r ?: kiln_probe_run_helpers(&full, BPF_PROG_TYPE_KPROBE);
	CHECK("probe/full", r == 0 && !kiln_probe_helper_skipped(&full, BPF_FUNC_trace_printk) &&
	      kiln_probe_has_helper(&full, BPF_PROG_TYPE_KPROBE, BPF_FUNC_trace_printk), "r=%d", r);
	/* a type that does not load has no helpers known, and is no error */
	uint32_t lirc = BPF_PROG_TYPE_LIRC_MODE2;
	bool lirc_loads = kiln_probe_has_prog_type(&whole, lirc);
	CHECK("probe/absent-type", lirc_loads == kiln_probe_helpers_known(&whole, lirc), "lirc_mode2 loads %d", lirc_loads);
	r = kiln_probe_run_helpers(&p, KILN_PROBE_TYPES_MAX);
	CHECK("probe/out-of-range", r == -EINVAL && strstr(kiln_errmsg(), "out of the probe's range"), "r=%d %s", r,
	      kiln_errmsg());
	CHECK("probe/features", kiln_probe_feature(&whole, KILN_FEAT_BOUNDED_LOOPS) == 1 &&
	      kiln_probe_feature(&whole, KILN_FEAT_RINGBUF) == kiln_probe_has_map_type(&whole, BPF_MAP_TYPE_RINGBUF) &&
	      kiln_probe_feature(&whole, KILN_FEAT_KERNEL_BTF) == (access("/sys/kernel/btf/vmlinux", R_OK) == 0) &&
	      kiln_probe_feature(&p, KILN_FEAT_BOUNDED_LOOPS) == -1, "features");
	/* the features read from files, against the files read here */
	char ld[128] = "", lsm[512] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	if (f) {
		if (!fgets(ld, sizeof(ld), f))
			ld[0] = 0;
		fclose(f);
	}
	if ((f = fopen("/sys/kernel/security/lsm", "r"))) {
		if (!fgets(lsm, sizeof(lsm), f))
			lsm[0] = 0;
		fclose(f);
	}
	int want_ld = ld[0] ? !strstr(ld, "[none]") : -2;    /* -2: not read here, not compared */
	int want_lsm = lsm[0] ? (strstr(lsm, ",bpf") || !strncmp(lsm, "bpf", 3)) : -2;
	CHECK("probe/features-files",
	      kiln_probe_feature(&whole, KILN_FEAT_KPROBE_PMU) == (access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0) &&
	      kiln_probe_feature(&whole, KILN_FEAT_UPROBE_PMU) == (access("/sys/bus/event_source/devices/uprobe/type", R_OK) == 0) &&
	      (want_ld == -2 || kiln_probe_feature(&whole, KILN_FEAT_LOCKDOWN_INTEGRITY) == want_ld) &&
	      (want_ld == -2 || kiln_probe_feature(&whole, KILN_FEAT_LOCKDOWN_CONFIDENTIALITY) == (strstr(ld, "[confidentiality]") != NULL)) &&
	      (want_lsm == -2 || kiln_probe_feature(&whole, KILN_FEAT_BPF_LSM) == want_lsm) &&
	      kiln_probe_feature(&whole, KILN_FEAT_MEMCG_ACCOUNT) >= 0 && kiln_probe_feature(&whole, KILN_FEAT_FENTRY) >= 0,
	      "lockdown %s lsm %s", ld, lsm);

	/* the cache: four threads at once, each the same answers as a probe of its own */
	pthread_t th[4];
	struct kiln_probe got[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, cached_thread, &got[i]);
	bool same = true;
	for (int i = 0; i < 4; i++) {
		void *rv;
		pthread_join(th[i], &rv);
		same = same && !rv && got[i].prog_types == whole.prog_types && got[i].map_types == whole.map_types &&
		       got[i].helpers_done == 1ull << BPF_PROG_TYPE_XDP &&
		       !memcmp(got[i].helpers[BPF_PROG_TYPE_XDP], whole.helpers[BPF_PROG_TYPE_XDP], sizeof(got[i].helpers[0]));
	}
	CHECK("probe/cache-threads", same, "a thread's copy of the cache differs");
	/* asked for nothing, the cache still holds what the threads had probed */
	memset(&got[0], 0, sizeof(got[0]));
	r = kiln_probe_cached(0, -1, &got[0]);
	CHECK("probe/cache-kept", r == 0 && got[0].done == (KILN_PROBE_PROG_TYPES | KILN_PROBE_MAP_TYPES) &&
	      got[0].helpers_done == 1ull << BPF_PROG_TYPE_XDP, "r=%d done=%u", r, got[0].done);
}

static void names(void)
{
	char buf[96];
	uint32_t v = 0;
	CHECK("probe/names", !strcmp(kiln_probe_prog_type_name(BPF_PROG_TYPE_SCHED_CLS, buf, sizeof(buf)), "sched_cls") &&
	      !strcmp(kiln_probe_map_type_name(BPF_MAP_TYPE_LRU_HASH, buf, sizeof(buf)), "lru_hash") &&
	      !strcmp(kiln_probe_helper_name(BPF_FUNC_map_lookup_elem, buf, sizeof(buf)), "bpf_map_lookup_elem") &&
	      !strcmp(kiln_probe_helper_name(KILN_PROBE_HELPERS_MAX - 1, buf, sizeof(buf)), "helper_255") &&
	      !strcmp(kiln_probe_feature_name(KILN_FEAT_LARGE_INSN_LIMIT), "large_insn_limit"), "a name is off");
	bool round = true;
	for (uint32_t t = 1; t < whole.n_prog_types; t++)
		round = round && !kiln_probe_prog_type_by_name(kiln_probe_prog_type_name(t, buf, sizeof(buf)), &v) && v == t;
	for (uint32_t t = 1; t < whole.n_map_types; t++)
		round = round && !kiln_probe_map_type_by_name(kiln_probe_map_type_name(t, buf, sizeof(buf)), &v) && v == t;
	for (uint32_t h = 1; h < whole.n_helpers; h++)
		round = round && !kiln_probe_helper_by_name(kiln_probe_helper_name(h, buf, sizeof(buf)), &v) && v == h;
	CHECK("probe/names-round-trip", round, "a name does not lead back to its number");
	CHECK("probe/by-name", kiln_probe_prog_type_by_name("12", &v) == 0 && v == 12 &&
	      kiln_probe_prog_type_by_name("nope", &v) == -ENOENT && kiln_probe_helper_by_name("bpf_nope", &v) == -ENOENT &&
	      kiln_probe_map_type_by_name("999", &v) == -ENOENT, "by_name");
	/* past linux 6.1's header: named from the kernel's BTF where it has them */
	if (whole.n_prog_types > BPF_PROG_TYPE_SYSCALL + 1)
		CHECK("probe/newer-named", strncmp(kiln_probe_prog_type_name(BPF_PROG_TYPE_SYSCALL + 1, buf, sizeof(buf)),
						   "prog_type_", 10), "%s", buf);
}

static void files(void)
{
	char path[] = "/tmp/kiln-probe-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	for (int json = 0; json < 2 && f; json++) {
		rewind(f);
		if (ftruncate(fileno(f), 0))
			break;
		int w = json ? kiln_probe_write_json(&whole, f) : kiln_probe_write_macros(&whole, f);
		fflush(f);
		struct kiln_probe back;
		int r = kiln_probe_read_file(path, &back);
		CHECK(json ? "probe/json-read-back" : "probe/macros-read-back", !w && !r && same_answers(&whole, &back) &&
		      back.jit_enable == whole.jit_enable && back.unpriv_disabled == whole.unpriv_disabled,
		      "w=%d r=%d %s", w, r, kiln_errmsg());
	}
	/* not a probe, broken JSON, no file */
	rewind(f);
	if (ftruncate(fileno(f), 0) == 0) {
		fputs("#define SOMETHING_ELSE 1\n", f);
		fflush(f);
	}
	struct kiln_probe p;
	int r = kiln_probe_read_file(path, &p);
	CHECK("probe/read-not-a-probe", r == -EINVAL && strstr(kiln_errmsg(), "no probe results"), "r=%d %s", r, kiln_errmsg());
	rewind(f);
	if (ftruncate(fileno(f), 0) == 0) {
		fputs("{\"program_types\":{\"have_xdp_prog_type\":true}}}", f);
		fflush(f);
	}
	r = kiln_probe_read_file(path, &p);
	CHECK("probe/read-unbalanced", r == -EINVAL && strstr(kiln_errmsg(), "unbalanced"), "r=%d %s", r, kiln_errmsg());
	rewind(f);
	if (ftruncate(fileno(f), 0) == 0) {
		fputs("{\"program_types\":{\"have_xdp_prog_type\":true,\"have_nonesuch_prog_type\":true},"
		      "\"helpers\":{\"xdp_available_helpers\":[\"bpf_redirect\",\"bpf_nonesuch\"]}}", f);
		fflush(f);
	}
	r = kiln_probe_read_file(path, &p);
	CHECK("probe/read-skips-unknown", r == 0 && p.prog_types == 1ull << BPF_PROG_TYPE_XDP &&
	      kiln_probe_has_helper(&p, BPF_PROG_TYPE_XDP, BPF_FUNC_redirect) && p.n_helpers == BPF_FUNC_redirect + 1,
	      "r=%d types=%llx n_helpers=%u", r, (unsigned long long)p.prog_types, p.n_helpers);
	if (f)
		fclose(f);
	unlink(path);
	r = kiln_probe_read_file(path, &p);
	CHECK("probe/read-missing", r == -ENOENT && strstr(kiln_errmsg(), path), "r=%d %s", r, kiln_errmsg());
}

int main(void)
{
	if (kiln_bpf_privileged()) {
		printf("SKIP probe: %s\n", kiln_errmsg());
		return 0;
	}
	parts();
	names();
	files();
	return check_failures ? 1 : 0;
}
