/* doctor.c — `kiln doctor`: whether this machine has what kiln needs, one check a line (yes,
 * warn or no, what was found) with a fix under each warn and no. It observes and changes
 * nothing: the kernel facts come from libkiln's probe (kiln/probe.h), the rest from the
 * process (capabilities, limits) and the mount table. */
#define _GNU_SOURCE
#include "cli.h"
#include "compiler/mounts.h"
#include <kiln/paths.h>
#include <kiln/probe.h>
#include <errno.h>
#include <stdarg.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const char doctor_help[] =
	"usage: kiln doctor [--json]\n"
	"\n"
	"Check, in one screen, whether this machine has what kiln needs: the kernel's version,\n"
	"the bpf() call and this process's privilege to use it (capabilities, unprivileged BPF),\n"
	"lockdown, kernel BTF, the bpffs, tracefs and debugfs mounts, the memlock limit, the JIT,\n"
	"kprobes, uprobes, fentry programs, the bpf LSM, and the features `kiln probe` finds. Each\n"
	"line is yes, warn (something kiln can do is unavailable) or no, with what was found;\n"
	"under each warn and no, a fix. Nothing is changed: run the fixes yourself.\n"
	"\n"
	"Exit status 0 when everything kiln needs is there, 1 when something essential is missing:\n"
	"the bpf() call loading a program, or the privilege to use it (CAP_BPF or CAP_SYS_ADMIN, or\n"
	"unprivileged BPF left on, for socket filters).\n"
	"\n"
	"  --json  one object: {\"kiln\",\"kernel\",\"ok\",\"checks\":[{\"name\",\"status\",\n"
	"          \"essential\",\"found\",\"fix\"},..]}, status \"yes\", \"warn\" or \"no\", fix null\n"
	"          on a yes\n";

enum doc_status { DOC_YES, DOC_WARN, DOC_NO };
static const char *const status_word[] = { "yes", "warn", "no" };

struct doc_check {
	enum doc_status status;
	char found[400];
	char fix[400];
};

/* What every check reads, gathered once. */
struct doc_env {
	struct utsname u;
	unsigned major, minor;             /* of the kernel's release */
	struct kiln_probe p;
	int probe_err;                     /* kiln_probe_run's, 0 when it ran */
	char probe_msg[256];
	uint64_t caps;
	bool caps_known;
	char self[512];                    /* this binary, for setcap */
	char *mounts;                      /* /proc/self/mounts, NUL-terminated (or NULL) */
};

static void say(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, 400, fmt, ap);
	va_end(ap);
}

static bool has_cap(const struct doc_env *e, int cap)
{
	return e->caps_known && (e->caps >> cap & 1);
}

static bool privileged(const struct doc_env *e)
{
	return has_cap(e, CAP_BPF) || has_cap(e, CAP_SYS_ADMIN);
}

static int feat(const struct doc_env *e, enum kiln_probe_feature f)
{
	return kiln_probe_feature(&e->p, f);
}

/* The mount point of the first filesystem of type in the mount table (into dir), or of
 * type mounted exactly at want when want is given. */
static bool mounted(const struct doc_env *e, const char *type, const char *want, char *dir, size_t len)
{
	for (const char *l = e->mounts; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char src[256], at[512], fstype[64];
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (sscanf(line, "%255s %511s %63s", src, at, fstype) == 3 && !strcmp(fstype, type) &&
		    (!want || !strcmp(at, want))) {
			snprintf(dir, len, "%s", at);
			return true;
		}
		l += n + (nl ? 1 : 0);
	}
	return false;
}

/* A kernel build option from /proc/config.gz: "y", "m", "not set", or NULL when the kernel
 * does not publish its configuration. */
static const char *kconfig(const char *name, char *buf, size_t len)
{
	gzFile f = gzopen("/proc/config.gz", "rb");
	if (!f)
		return NULL;
	char line[256], set[128], unset[128];
	snprintf(set, sizeof(set), "%s=", name);
	snprintf(unset, sizeof(unset), "# %s is not set", name);
	snprintf(buf, len, "not set");
	while (gzgets(f, line, sizeof(line))) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, set, strlen(set))) {
			snprintf(buf, len, "%s", line + strlen(set));
			break;
		}
		if (!strcmp(line, unset))
			break;
	}
	gzclose(f);
	return buf;
}

/* ---- the checks ------------------------------------------------------------------------ */

static void check_kernel(const struct doc_env *e, struct doc_check *c)
{
	say(c->found, "Linux %s (%s)", e->u.release, e->u.machine);
	if (e->major > 5 || (e->major == 5 && e->minor >= 15))
		return;
	c->status = DOC_WARN;
	say(c->found, "Linux %s: older than 5.15, where kiln is tested (ring buffers need 5.8, "
		"links to kprobes and tracepoints 5.15, bpf_loop 5.17)", e->u.release);
	say(c->fix, "a kernel of 5.15 or later");
}

static void check_bpf(const struct doc_env *e, struct doc_check *c)
{
	if (e->probe_err) {
		c->status = DOC_NO;
		if (e->probe_err == -EPERM) {
			say(c->found, "refused: this process may not use bpf() (neither CAP_BPF nor CAP_SYS_ADMIN)");
			say(c->fix, "run kiln as root, or give it the capabilities (see capabilities)");
		} else {
			say(c->found, "the probe could not run: %s", e->probe_msg);
			say(c->fix, "a kernel built with CONFIG_BPF_SYSCALL=y");
		}
		return;
	}
	unsigned np = 0, nm = 0;
	char absent[200] = "", name[64];
	for (uint32_t t = 1; t < e->p.n_prog_types; t++) {
		size_t n = strlen(absent);
		if (kiln_probe_has_prog_type(&e->p, t))
			np++;
		else
			snprintf(absent + n, sizeof(absent) - n, "%s%s", n ? ", " : "",
				 kiln_probe_prog_type_name(t, name, sizeof(name)));
	}
	for (uint32_t t = 1; t < e->p.n_map_types; t++)
		nm += kiln_probe_has_map_type(&e->p, t);
	say(c->found, "programs load: %u of %u program types%s%s%s, %u of %u map types (`kiln probe` lists them)", np,
	    e->p.n_prog_types - 1, absent[0] ? " (not " : "", absent, absent[0] ? ")" : "", nm, e->p.n_map_types - 1);
	if (!kiln_probe_has_prog_type(&e->p, BPF_PROG_TYPE_SOCKET_FILTER)) {
		c->status = DOC_NO;
		say(c->fix, "a kernel built with CONFIG_BPF_SYSCALL=y");
	}
}

static void check_caps(const struct doc_env *e, struct doc_check *c)
{
	if (!e->caps_known) {
		c->status = DOC_WARN;
		say(c->found, "the kernel does not say (capget failed)");
		say(c->fix, "run kiln as root");
		return;
	}
	static const struct { int cap; const char *name; } caps[] = {
		{ CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" }, { CAP_NET_ADMIN, "CAP_NET_ADMIN" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" }, { CAP_SYS_RESOURCE, "CAP_SYS_RESOURCE" },
	};
	char have[160] = "", lack[160] = "";
	/* CAP_SYS_RESOURCE raises the memlock limit, which a kernel charging the memory cgroup
	 * does not use */
	size_t n_caps = sizeof(caps) / sizeof(caps[0]) - (feat(e, KILN_FEAT_MEMCG_ACCOUNT) == 1);
	for (size_t i = 0; i < n_caps; i++) {
		char *to = has_cap(e, caps[i].cap) ? have : lack;
		size_t n = strlen(to);
		snprintf(to + n, 160 - n, "%s%s", n ? " " : "", caps[i].name);
	}
	if (!have[0])
		say(c->found, "effective: none of %s", lack);
	else
		say(c->found, "effective: %s%s%s", have, lack[0] ? "; lacking: " : "", lack);
	const char *setcap = "sudo setcap cap_bpf,cap_perfmon,cap_net_admin,cap_sys_resource+ep";
	if (!privileged(e)) {
		/* with unprivileged BPF on, socket filters still load: less, but not nothing */
		c->status = feat(e, KILN_FEAT_UNPRIV_DISABLED) == 0 ? DOC_WARN : DOC_NO;
		say(c->fix, "run kiln as root, or `%s %s` (CAP_BPF loads, CAP_PERFMON traces, CAP_NET_ADMIN "
			"attaches xdp and tc)", setcap, e->self);
	} else if (!has_cap(e, CAP_SYS_ADMIN) && (!has_cap(e, CAP_PERFMON) || !has_cap(e, CAP_NET_ADMIN))) {
		c->status = DOC_WARN;
		say(c->fix, "`%s %s`: without CAP_PERFMON kprobes, tracepoints and perf events are refused, "
			"without CAP_NET_ADMIN xdp and tc", setcap, e->self);
	}
}

static void check_unpriv(const struct doc_env *e, struct doc_check *c)
{
	int v = feat(e, KILN_FEAT_UNPRIV_DISABLED);
	if (v < 0) {
		say(c->found, "kernel.unprivileged_bpf_disabled is not there to read");
		return;
	}
	int n = e->p.unpriv_disabled;
	const char *what = n == 0 ? "any user may load socket filters" : n == 1 ? "only privileged users, until reboot"
									 : "only privileged users";
	say(c->found, "kernel.unprivileged_bpf_disabled = %d: %s%s", n, what,
	    privileged(e) ? "; this process is privileged" : "");
	if (privileged(e))
		return;
	c->status = n ? DOC_NO : DOC_WARN;
	if (n)
		say(c->fix, "run kiln with CAP_BPF (see capabilities)%s", n == 2 ? ", or `sudo sysctl "
			"kernel.unprivileged_bpf_disabled=0` to let every user load socket filters (and no more)" : "");
	else
		say(c->fix, "unprivileged, kiln can load socket filters only: run it with CAP_BPF (see capabilities)");
}

static void check_lockdown(const struct doc_env *e, struct doc_check *c)
{
	int integ = feat(e, KILN_FEAT_LOCKDOWN_INTEGRITY), conf = feat(e, KILN_FEAT_LOCKDOWN_CONFIDENTIALITY);
	if (integ < 0) {
		c->status = DOC_WARN;
		say(c->found, "cannot tell: securityfs is not mounted (/sys/kernel/security/lockdown)");
		say(c->fix, "sudo mount -t securityfs securityfs /sys/kernel/security");
		return;
	}
	if (!integ) {
		say(c->found, "none");
		return;
	}
	c->status = DOC_WARN;
	say(c->found, "%s (/sys/kernel/security/lockdown): bpf_probe_write_user is refused%s%s",
	    conf == 1 ? "confidentiality" : "integrity",
	    conf == 1 ? ", and reading kernel memory (bpf_probe_read_kernel)" : "",
	    feat(e, KILN_FEAT_FENTRY) == 0 ? "; fentry programs are refused here too (see fentry)" : "");
	say(c->fix, "boot with lockdown=none on the kernel command line (Secure Boot may impose lockdown: "
		"turn it off in the firmware); a running kernel cannot leave lockdown");
}

static void check_btf(const struct doc_env *e, struct doc_check *c)
{
	if (feat(e, KILN_FEAT_KERNEL_BTF) == 1) {
		say(c->found, "/sys/kernel/btf/vmlinux");
		return;
	}
	c->status = DOC_WARN;
	say(c->found, "no /sys/kernel/btf/vmlinux to read: kernel types in programs (CO-RE), fentry, "
		"fexit, tp_btf and lsm programs and kiln trace's args are unavailable");
	say(c->fix, "a kernel built with CONFIG_DEBUG_INFO_BTF=y; or give kiln compile --btf FILE a vmlinux's BTF");
}

static void check_bpffs(const struct doc_env *e, struct doc_check *c)
{
	char at[512];
	const char *root = kiln_map_root();
	if (mounted(e, "bpf", root, at, sizeof(at))) {
		say(c->found, "mounted at %s", at);
		return;
	}
	c->status = DOC_WARN;
	bool elsewhere = mounted(e, "bpf", NULL, at, sizeof(at));
	say(c->found, "not mounted at %s%s%s: kiln load --pin and :pinning maps need it (kiln mounts it when it "
		"may)", root, elsewhere ? ", only at " : "", elsewhere ? at : "");
	say(c->fix, "sudo mount -t bpf bpf %s", root);
}

static void check_tracefs(const struct doc_env *e, struct doc_check *c)
{
	const char *root = kl_tracefs_found();
	char at[512];
	if (root) {
		char fmt[600];
		snprintf(fmt, sizeof(fmt), "%s/events/sched/sched_switch/format", root);
		bool readable = access(fmt, R_OK) == 0;
		say(c->found, "%s%s", root, readable ? "" : ": its tracepoint formats are unreadable to this user");
		if (!readable) {
			c->status = DOC_WARN;
			say(c->fix, "run kiln as root");
		}
		return;
	}
	c->status = DOC_WARN;
	if (mounted(e, "tracefs", NULL, at, sizeof(at))) {
		say(c->found, "mounted at %s, but its events are out of this user's reach", at);
		say(c->fix, "run kiln as root");
		return;
	}
	say(c->found, "not mounted: tracepoints and kiln trace's tracepoint: probes need it (kiln mounts it "
		"when it may)");
	say(c->fix, "sudo mount -t tracefs tracefs /sys/kernel/tracing");
}

static void check_debugfs(const struct doc_env *e, struct doc_check *c)
{
	char at[512];
	if (mounted(e, "debugfs", "/sys/kernel/debug", at, sizeof(at))) {
		say(c->found, "mounted at %s", at);
	} else if (mounted(e, "tracefs", "/sys/kernel/tracing", at, sizeof(at))) {
		say(c->found, "not mounted; kiln does not need it while tracefs is at %s", at);
	} else {
		c->status = DOC_WARN;
		say(c->found, "not mounted, and tracefs is not at /sys/kernel/tracing either");
		say(c->fix, "sudo mount -t debugfs debugfs /sys/kernel/debug (or mount tracefs: see tracefs)");
	}
}

static void memlock_str(rlim_t v, char *buf, size_t len)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KB", (unsigned long long)v / 1024);
}

static void check_memlock(const struct doc_env *e, struct doc_check *c)
{
	struct rlimit rl;
	char soft[32], hard[32];
	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		c->status = DOC_WARN;
		say(c->found, "getrlimit: %s", strerror(errno));
		return;
	}
	memlock_str(rl.rlim_cur, soft, sizeof(soft));
	memlock_str(rl.rlim_max, hard, sizeof(hard));
	int memcg = feat(e, KILN_FEAT_MEMCG_ACCOUNT);
	bool by_version = memcg < 0 && (e->major > 5 || (e->major == 5 && e->minor >= 11));
	if (memcg == 1 || by_version) {
		say(c->found, "%s (hard %s); not used: the kernel charges BPF memory to the memory cgroup%s", soft, hard,
		    by_version ? " (5.11 or later)" : "");
		return;
	}
	bool raisable = rl.rlim_max == RLIM_INFINITY || has_cap(e, CAP_SYS_RESOURCE);
	if (rl.rlim_cur == RLIM_INFINITY || raisable) {
		say(c->found, "%s (hard %s)%s: the kernel counts BPF memory against it", soft, hard,
		    rl.rlim_cur == RLIM_INFINITY ? "" : ", raised to unlimited at load");
		return;
	}
	c->status = DOC_NO;
	say(c->found, "%s (hard %s), and this kernel counts maps and programs against it: larger maps fail "
		"with EPERM", soft, hard);
	say(c->fix, "ulimit -l unlimited (as root); for a service LimitMEMLOCK=infinity, for a user "
		"'memlock unlimited' in /etc/security/limits.conf");
}

static void check_jit(const struct doc_env *e, struct doc_check *c)
{
	if (feat(e, KILN_FEAT_JIT) < 0) {
		c->status = DOC_WARN;
		say(c->found, "no net.core.bpf_jit_enable: this kernel has no JIT (the interpreter runs programs; "
			"fentry, fexit and kfunc calls need the JIT)");
		say(c->fix, "a kernel built with CONFIG_BPF_JIT=y");
		return;
	}
	int v = e->p.jit_enable;
	say(c->found, "net.core.bpf_jit_enable = %d%s", v,
	    v == 1 ? "" : v == 2 ? ": every image is also written to the kernel log"
			     : ": the interpreter runs programs (slower; fentry, fexit and kfunc calls need the JIT)");
	if (v != 1) {
		c->status = DOC_WARN;
		say(c->fix, "sudo sysctl net.core.bpf_jit_enable=1");
	}
}

/* kprobes or uprobes: the PMU kiln attaches through, and the build option behind it. */
static void check_pmu(const struct doc_env *e, struct doc_check *c, enum kiln_probe_feature f, const char *kind,
		      const char *option, const char *uses)
{
	if (feat(e, f) == 1) {
		say(c->found, "the %s PMU (/sys/bus/event_source/devices/%s)", kind, kind);
		return;
	}
	char cfg[32];
	const char *v = kconfig(option, cfg, sizeof(cfg));
	c->status = DOC_WARN;
	say(c->found, "no %s PMU (/sys/bus/event_source/devices/%s)%s%s%s: %s do not attach", kind, kind,
	    v ? "; " : "", v ? option : "", v ? (strcmp(v, "not set") ? " is set" : " is not set") : "", uses);
	say(c->fix, "a kernel built with %s=y%s", option,
	    f == KILN_FEAT_KPROBE_PMU ? " (fentry/fexit or tracepoints reach many of the same functions)" : "");
}

static void check_kprobes(const struct doc_env *e, struct doc_check *c)
{
	check_pmu(e, c, KILN_FEAT_KPROBE_PMU, "kprobe", "CONFIG_KPROBE_EVENTS",
		  "kprobe/ and kretprobe/ programs, kiln trace's kprobe: and kretprobe:, attach-kprobe");
}

static void check_uprobes(const struct doc_env *e, struct doc_check *c)
{
	check_pmu(e, c, KILN_FEAT_UPROBE_PMU, "uprobe", "CONFIG_UPROBE_EVENTS",
		  "uprobe/ and uretprobe/ programs, kiln trace's uprobe:, uretprobe: and usdt:");
}

static void check_fentry(const struct doc_env *e, struct doc_check *c)
{
	int v = feat(e, KILN_FEAT_FENTRY);
	if (v == 1) {
		say(c->found, "an fentry program loads");
		return;
	}
	c->status = DOC_WARN;
	if (v < 0) {
		say(c->found, "not probed (%s)", e->probe_err ? "see bpf()" : "no bpf_fentry_test1 in the kernel's BTF");
		say(c->fix, e->probe_err ? "see bpf()" : "a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return;
	}
	bool locked = feat(e, KILN_FEAT_LOCKDOWN_INTEGRITY) == 1, jit = feat(e, KILN_FEAT_JIT) == 1;
	say(c->found, "an fentry program is refused%s: fentry/, fexit/, fmod_ret/ and lsm/ programs, kiln trace's "
		"kfunc: and kretfunc: do not load", locked ? ", and the kernel is locked down" : !jit ? ", and the JIT is off" : "");
	say(c->fix, "%s", locked ? "boot with lockdown=none (see lockdown)" : !jit ? "sudo sysctl net.core.bpf_jit_enable=1"
						  : "a kernel with BPF trampolines (CONFIG_BPF_JIT, x86-64 or arm64, 5.5+)");
}

static void check_lsm(const struct doc_env *e, struct doc_check *c)
{
	int v = feat(e, KILN_FEAT_BPF_LSM);
	if (v == 1) {
		say(c->found, "bpf is among the active LSMs (/sys/kernel/security/lsm)");
		return;
	}
	c->status = DOC_WARN;
	if (v < 0) {
		say(c->found, "cannot tell: securityfs is not mounted");
		say(c->fix, "sudo mount -t securityfs securityfs /sys/kernel/security");
		return;
	}
	say(c->found, "bpf is not among the active LSMs: lsm/ programs would never run, so kiln refuses to attach them");
	say(c->fix, "add bpf to the kernel's lsm= boot option (the list in /sys/kernel/security/lsm, then bpf)");
}

/* The features kiln's programs lean on, from the probe. */
static void check_features(const struct doc_env *e, struct doc_check *c)
{
	if (e->probe_err) {
		c->status = DOC_WARN;
		say(c->found, "not probed (see bpf())");
		say(c->fix, "see bpf()");
		return;
	}
	static const struct { enum kiln_probe_feature f; const char *name, *loses; } want[] = {
		{ KILN_FEAT_RINGBUF, "ring buffers", "ring buffer maps and events (5.8)" },
		{ KILN_FEAT_BOUNDED_LOOPS, "bounded loops", "loops the compiler cannot unroll (5.3)" },
		{ KILN_FEAT_BPF_LOOP, "bpf_loop", "bpf_loop callbacks for long loops (5.17)" },
		{ KILN_FEAT_LARGE_INSN_LIMIT, "1M instructions", "programs over 4,096 instructions (5.2)" },
	};
	char have[200] = "", lack[300] = "";
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool yes = feat(e, want[i].f) == 1;
		char *to = yes ? have : lack;
		size_t n = strlen(to), cap = yes ? sizeof(have) : sizeof(lack);
		snprintf(to + n, cap - n, "%s%s", n ? ", " : "", yes ? want[i].name : want[i].loses);
	}
	say(c->found, "%s%s%s", have[0] ? have : "", have[0] && lack[0] ? "; missing: " : lack[0] ? "missing: " : "",
	    lack);
	if (lack[0]) {
		c->status = DOC_WARN;
		say(c->fix, "a newer kernel (the release that brought each is given)");
	}
}

static const struct {
	const char *name;
	bool essential;
	void (*run)(const struct doc_env *e, struct doc_check *c);
} checks[] = {
	{ "kernel", false, check_kernel },
	{ "bpf()", true, check_bpf },
	{ "capabilities", true, check_caps },
	{ "unprivileged", false, check_unpriv },
	{ "lockdown", false, check_lockdown },
	{ "btf", false, check_btf },
	{ "bpffs", false, check_bpffs },
	{ "tracefs", false, check_tracefs },
	{ "debugfs", false, check_debugfs },
	{ "memlock", false, check_memlock },
	{ "jit", false, check_jit },
	{ "kprobes", false, check_kprobes },
	{ "uprobes", false, check_uprobes },
	{ "fentry", false, check_fentry },
	{ "bpf-lsm", false, check_lsm },
	{ "features", false, check_features },
};
#define N_CHECKS (sizeof(checks) / sizeof(checks[0]))

/* ---- gathering and printing -------------------------------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
		n += got;
		if (cap - n < 2) {
			char *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

static void gather(struct doc_env *e)
{
	uname(&e->u);
	sscanf(e->u.release, "%u.%u", &e->major, &e->minor);
	e->probe_err = kiln_probe_run(&e->p, KILN_PROBE_PROG_TYPES | KILN_PROBE_MAP_TYPES | KILN_PROBE_MISC);
	if (e->probe_err)
		snprintf(e->probe_msg, sizeof(e->probe_msg), "%s", kiln_errmsg()[0] ? kiln_errmsg() : strerror(-e->probe_err));
	e->caps_known = kiln_capabilities(&e->caps) == 0;
	ssize_t n = readlink("/proc/self/exe", e->self, sizeof(e->self) - 1);
	if (n > 0)
		e->self[n] = 0;
	else
		snprintf(e->self, sizeof(e->self), "kiln");
	e->mounts = read_all("/proc/self/mounts");
}

static void json_field(const char *key, const char *s, bool comma)
{
	printf("\"%s\":", key);
	if (s && *s)
		cli_json_str(stdout, s, strlen(s));
	else
		fputs("null", stdout);
	if (comma)
		putchar(',');
}

static void print_json(const struct doc_env *e, const struct doc_check *c, bool ok)
{
	printf("{");
	json_field("kiln", cli_version(), true);
	json_field("kernel", e->u.release, true);
	printf("\"ok\":%s,\"checks\":[", ok ? "true" : "false");
	for (size_t i = 0; i < N_CHECKS; i++) {
		printf("%s{", i ? "," : "");
		json_field("name", checks[i].name, true);
		json_field("status", status_word[c[i].status], true);
		printf("\"essential\":%s,", checks[i].essential ? "true" : "false");
		json_field("found", c[i].found, true);
		json_field("fix", c[i].status == DOC_YES ? NULL : c[i].fix, false);
		putchar('}');
	}
	printf("]}\n");
}

/* s from column col on, its words wrapped at WIDTH with the following lines indented to
 * INDENT (a word longer than a line goes on one of its own). */
enum { WIDTH = 100, INDENT = 20 };
static void put_wrapped(const char *s, size_t col)
{
	for (bool first = true; *(s += strspn(s, " ")); first = false) {
		size_t w = strcspn(s, " ");
		if (!first && col + 1 + w > WIDTH) {
			printf("\n%*s", INDENT, "");
			col = INDENT;
		} else if (!first) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)w, s);
		col += w;
		s += w;
	}
	putchar('\n');
}

static void print_text(const struct doc_env *e, const struct doc_check *c, bool ok)
{
	unsigned count[3] = { 0 };
	printf("kiln %s doctor on Linux %s %s\n", cli_version(), e->u.release, e->u.machine);
	for (size_t i = 0; i < N_CHECKS; i++) {
		count[c[i].status]++;
		printf("%-4s  %-13s ", status_word[c[i].status], checks[i].name);
		put_wrapped(c[i].found, INDENT);
		if (c[i].status != DOC_YES && c[i].fix[0]) {
			printf("%*sfix: ", INDENT, "");
			put_wrapped(c[i].fix, INDENT + 5);
		}
	}
	printf("%zu checks: %u yes, %u warn, %u no; %s\n", N_CHECKS, count[DOC_YES], count[DOC_WARN], count[DOC_NO],
	       ok ? "everything kiln needs is here" : "kiln cannot load programs here (see the essential no above)");
}

int cmd_doctor(int argc, char **argv)
{
	bool json = false;
	const struct cli_opt opts[] = { { "--json", CLI_FLAG, &json, NULL }, { 0 } };
	int npos, r = cli_parse("doctor", doctor_help, argc, argv, opts, NULL, 0, &npos);
	if (r != CLI_OK)
		return r;
	struct doc_env e = { 0 };
	gather(&e);
	struct doc_check c[N_CHECKS];
	bool ok = true;
	for (size_t i = 0; i < N_CHECKS; i++) {
		c[i] = (struct doc_check){ DOC_YES, "", "" };
		checks[i].run(&e, &c[i]);
		if (checks[i].essential && c[i].status == DOC_NO)
			ok = false;
	}
	if (json)
		print_json(&e, c, ok);
	else
		print_text(&e, c, ok);
	free(e.mounts);
	return ok ? 0 : 1;
}
