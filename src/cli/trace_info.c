/* trace_info.c — `kiln trace --info`: what this machine offers kiln trace, in the shape of
 * bpftrace's --info (sections of `name: yes|no` lines). Everything printed is found out
 * now: the map and program types by libkiln's feature probe (tiny maps and programs), the
 * dynamic-probe PMUs in sysfs, BTF and lockdown from their files. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <kiln/probe.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

/* The lockdown mode the kernel is in ("none" when the file is not there). */
static void lockdown(char *buf, size_t len)
{
	snprintf(buf, len, "none");
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	char line[128];
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		char *o = strchr(line, '['), *c = o ? strchr(o, ']') : NULL;
		if (o && c)
			snprintf(buf, len, "%.*s", (int)(c - o - 1), o + 1);
	}
	fclose(f);
}

static bool pmu(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	return access(path, R_OK) == 0;
}

int trace_info(void)
{
	struct utsname u;
	uname(&u);
	struct kiln_probe p = { 0 };
	int err = kiln_probe_run(&p, KILN_PROBE_PROG_TYPES | KILN_PROBE_MAP_TYPES | KILN_PROBE_MISC);
	char ld[64];
	lockdown(ld, sizeof(ld));
	bool locked = strcmp(ld, "none") != 0, btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	printf("System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname, u.release, u.version, u.machine);
	printf("Build\n  kiln: %s\n  language: bpftrace v0.17.0's, compiled by kiln (no LLVM)\n  libbpf: %u.%u\n\n",
	       cli_version(), libbpf_major_version(), libbpf_minor_version());
	if (err) {
		printf("Kernel features\n  bpf(): %s\n", strerror(-err));
		return 1;
	}
	printf("Kernel features\n  btf: %s\n  lockdown: %s\n  bounded loops: %s\n  instruction limit 1M: %s\n\n", yes(btf),
	       ld, yes(kiln_probe_feature(&p, KILN_FEAT_BOUNDED_LOOPS) == 1),
	       yes(kiln_probe_feature(&p, KILN_FEAT_LARGE_INSN_LIMIT) == 1));
	static const struct { const char *name; uint32_t type; } maps[] = {
		{ "hash", BPF_MAP_TYPE_HASH }, { "percpu hash", BPF_MAP_TYPE_PERCPU_HASH },
		{ "array", BPF_MAP_TYPE_ARRAY }, { "percpu array", BPF_MAP_TYPE_PERCPU_ARRAY },
		{ "stack_trace", BPF_MAP_TYPE_STACK_TRACE }, { "perf_event_array", BPF_MAP_TYPE_PERF_EVENT_ARRAY },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF },
	};
	printf("Map types\n");
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		printf("  %s: %s\n", maps[i].name, yes(kiln_probe_has_map_type(&p, maps[i].type)));
	bool perf = kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_PERF_EVENT);
	bool tracing = kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_TRACING) && btf && !locked;
	printf("\nProbe types\n");
	printf("  tracepoint: %s\n", yes(kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_TRACEPOINT)));
	printf("  rawtracepoint: %s\n", yes(kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_RAW_TRACEPOINT)));
	printf("  kprobe: %s\n", pmu("kprobe") && kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_KPROBE) ? "yes"
											: "no (no kprobe PMU)");
	printf("  uprobe: %s\n", pmu("uprobe") && kiln_probe_has_prog_type(&p, BPF_PROG_TYPE_KPROBE) ? "yes"
											: "no (no uprobe PMU)");
	printf("  perf_event (profile, interval, software): %s\n", yes(perf));
	printf("  hardware: %s\n", perf && pmu("cpu") ? "yes" : "no (no cpu PMU)");
	if (locked)
		printf("  kfunc: no (lockdown refuses fentry/fexit: %s)\n", ld);
	else
		printf("  kfunc: %s\n", tracing ? "yes" : btf ? "no" : "no (no kernel BTF)");
	return 0;
}
