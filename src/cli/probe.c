/* probe.c — `kiln probe`: what the running kernel supports (program types, map types, the
 * helpers of each program type, a few other features), as text, JSON or a macros header,
 * the last two in bpftool's words (`bpftool feature probe [--json|macros]`). */
#include "cli.h"
#include "compiler/nearest.h"
#include "compiler/tables.h"
#include <kiln/probe.h>
#include <errno.h>
#include <string.h>

static const char probe_help[] =
	"usage: kiln probe [--json | --macros] [-t|--prog-type TYPE] [--full] [--from FILE]\n"
	"\n"
	"Probe what the running kernel supports, as `bpftool feature probe` does: which program\n"
	"types load, which map types can be made, which helpers each program type may call, and\n"
	"other features (the 1M instruction limit, bounded loops, bpf_loop, ring buffers, kernel\n"
	"BTF, the JIT, unprivileged BPF, the kprobe and uprobe PMUs, fentry, memory cgroup\n"
	"accounting, lockdown, the bpf LSM). Types and helpers newer than kiln's headers are probed\n"
	"too, named from the kernel's BTF. Needs the privilege to load programs (CAP_BPF).\n"
	"\n"
	"  --json            bpftool's JSON keys: {\"system_config\":{..},\"program_types\":\n"
	"                    {\"have_xdp_prog_type\":true,..},\"map_types\":{..},\"helpers\":\n"
	"                    {\"xdp_available_helpers\":[\"bpf_map_lookup_elem\",..]},\"misc\":{..}}\n"
	"  --macros          a C header like `bpftool feature probe macros` writes (#define\n"
	"                    HAVE_XDP_PROG_TYPE, HAVE_PROG_TYPE_HELPER(xdp, bpf_redirect), ...)\n"
	"  --prog-type TYPE  the helpers of this program type only (probing them alone is quicker):\n"
	"                    bpftool's name (sched_cls), a kiln :type keyword (tc) or a number\n"
	"  --full            also the helpers that write to the kernel log when a program names\n"
	"                    them (bpf_trace_printk, bpf_trace_vprintk, bpf_probe_write_user),\n"
	"                    left out otherwise, as `bpftool feature probe` leaves them without full\n"
	"  --from FILE       show a saved probe instead: kiln's or bpftool's macros or JSON\n";

/* TYPE as a name, a kiln keyword or a number; prints the error (with the nearest names). */
static int prog_type_arg(const char *arg, uint32_t *t)
{
	const char *kw = arg[0] == ':' ? arg + 1 : arg;
	const struct kl_prog_type *pt = kl_prog_type_find(kw);
	if (!kiln_probe_prog_type_by_name(arg, t) || (pt && (*t = pt->prog_type, true)))
		return 0;
	struct kl_nearest nb;
	char name[96], hint[400];
	kl_nearest_init(&nb, arg);
	for (uint32_t i = 1; i < KILN_PROBE_TYPES_MAX; i++)
		if (strncmp(kiln_probe_prog_type_name(i, name, sizeof(name)), "prog_type_", 10))
			kl_nearest_add(&nb, name);
	fprintf(stderr, "kiln probe: unknown program type '%s'", arg);
	if (*kl_nearest_hint(&nb, hint, sizeof(hint)))
		fprintf(stderr, "; %s\n", hint);
	else
		fputs("; `kiln probe` lists the program types\n", stderr);
	return -ENOENT;
}

static void print_yes_no(const char *name, bool yes)
{
	printf("  %-28s %s\n", name, yes ? "yes" : "no");
}

static void print_helpers(const struct kiln_probe *p, uint32_t t)
{
	char name[96], h[96];
	kiln_probe_prog_type_name(t, name, sizeof(name));
	if (!kiln_probe_has_prog_type(p, t)) {
		printf("  %s: the program type is not available\n", name);
		return;
	}
	if (!kiln_probe_helpers_known(p, t)) {
		printf("  %s: not probed (it loads only against a kernel function or struct)\n", name);
		return;
	}
	unsigned n = 0;
	for (uint32_t id = 1; id < p->n_helpers; id++)
		n += kiln_probe_has_helper(p, t, id);
	printf("  %s (%u):", name, n);
	size_t col = 100;
	for (uint32_t id = 1; id < p->n_helpers; id++) {
		if (!kiln_probe_has_helper(p, t, id))
			continue;
		size_t len = strlen(kiln_probe_helper_name(id, h, sizeof(h)));
		if (col + len + 1 > 96) {
			printf("\n     ");
			col = 5;
		}
		printf(" %s", h);
		col += len + 1;
	}
	putchar('\n');
}

/* only: the one program type whose helpers to show (even when unknown), or -1 for all */
static void print_text(const struct kiln_probe *p, int only)
{
	char name[96];
	if (p->done & KILN_PROBE_PROG_TYPES) {
		puts("program types:");
		for (uint32_t t = 1; t < p->n_prog_types; t++)
			print_yes_no(kiln_probe_prog_type_name(t, name, sizeof(name)), kiln_probe_has_prog_type(p, t));
	}
	if (p->done & KILN_PROBE_MAP_TYPES) {
		puts("map types:");
		for (uint32_t t = 1; t < p->n_map_types; t++)
			print_yes_no(kiln_probe_map_type_name(t, name, sizeof(name)), kiln_probe_has_map_type(p, t));
	}
	if (only >= 0) {
		puts("helpers by program type:");
		print_helpers(p, (uint32_t)only);
	} else if (p->helpers_done) {
		puts("helpers by program type:");
		for (uint32_t t = 1; t < KILN_PROBE_TYPES_MAX; t++)
			if (kiln_probe_helpers_known(p, t) || ((p->done & KILN_PROBE_HELPERS) && t < p->n_prog_types))
				print_helpers(p, t);
	}
	bool skipped = false;
	for (uint32_t id = 1; id < p->n_helpers && p->helpers_done; id++)
		if (kiln_probe_helper_skipped(p, id)) {
			printf("%s %s", skipped ? "" : "  not probed, as they write to the kernel log (--full probes them):",
			       kiln_probe_helper_name(id, name, sizeof(name)));
			skipped = true;
		}
	if (skipped)
		putchar('\n');
	static const char *const what[KILN_FEAT_COUNT] = {
		[KILN_FEAT_LARGE_INSN_LIMIT] = "1M instructions a program",
		[KILN_FEAT_BOUNDED_LOOPS] = "bounded loops",
		[KILN_FEAT_BPF_LOOP] = "the bpf_loop helper",
		[KILN_FEAT_RINGBUF] = "ring buffer maps",
		[KILN_FEAT_KERNEL_BTF] = "kernel BTF",
		[KILN_FEAT_JIT] = "JIT enabled",
		[KILN_FEAT_UNPRIV_DISABLED] = "unprivileged BPF disabled",
		[KILN_FEAT_KPROBE_PMU] = "kprobe PMU",
		[KILN_FEAT_UPROBE_PMU] = "uprobe PMU",
		[KILN_FEAT_FENTRY] = "fentry programs load",
		[KILN_FEAT_MEMCG_ACCOUNT] = "memory cgroup accounting",
		[KILN_FEAT_LOCKDOWN_INTEGRITY] = "lockdown (integrity)",
		[KILN_FEAT_LOCKDOWN_CONFIDENTIALITY] = "lockdown (confidentiality)",
		[KILN_FEAT_BPF_LSM] = "bpf LSM active",
	};
	if (!p->feat_known)
		return;
	puts("misc:");
	for (int f = 0; f < KILN_FEAT_COUNT; f++) {
		int v = kiln_probe_feature(p, f);
		if (v < 0)
			continue;
		if (f == KILN_FEAT_JIT || f == KILN_FEAT_UNPRIV_DISABLED)
			printf("  %-28s %s (%s = %d)\n", what[f], v ? "yes" : "no",
			       f == KILN_FEAT_JIT ? "net.core.bpf_jit_enable" : "kernel.unprivileged_bpf_disabled",
			       f == KILN_FEAT_JIT ? p->jit_enable : p->unpriv_disabled);
		else
			print_yes_no(what[f], v);
	}
}

int cmd_probe(int argc, char **argv)
{
	bool json = false, macros = false, full = false;
	const char *type_s = NULL, *from = NULL, *pos[1];
	const struct cli_opt opts[] = {
		{ "--json", CLI_FLAG, &json, NULL },
		{ "--macros", CLI_FLAG, &macros, NULL },
		{ "--prog-type|-t", CLI_STR, &type_s, "a program type" },
		{ "--from", CLI_STR, &from, "a file" },
		{ "--full", CLI_FLAG, &full, NULL },
		{ 0 },
	};
	int npos, r = cli_parse("probe", probe_help, argc, argv, opts, pos, 0, &npos);
	if (r != CLI_OK)
		return r;
	if (json && macros) {
		fprintf(stderr, "kiln probe: --json and --macros are two formats; choose one\n");
		return 2;
	}
	uint32_t t = 0;
	if (type_s && prog_type_arg(type_s, &t))
		return 2;

	struct kiln_probe p = { 0 };
	if (from)
		r = kiln_probe_read_file(from, &p);
	else if (type_s)
		r = kiln_probe_run(&p, KILN_PROBE_PROG_TYPES | KILN_PROBE_MAP_TYPES | KILN_PROBE_MISC |
				       (full ? KILN_PROBE_FULL : 0)) ?: kiln_probe_run_helpers(&p, t);
	else
		r = kiln_probe_run(&p, KILN_PROBE_ALL | (full ? KILN_PROBE_FULL : 0));
	if (r) {
		fprintf(stderr, "kiln probe: %s\n", kiln_errmsg());
		return 1;
	}
	if (type_s) {
		/* the one type's helpers: "not available" and "not probed" are told too */
		p.helpers_done &= 1ull << t;
		p.done &= ~(unsigned)KILN_PROBE_HELPERS;
	}
	if (json)
		r = kiln_probe_write_json(&p, stdout);
	else if (macros)
		r = kiln_probe_write_macros(&p, stdout);
	else
		print_text(&p, type_s ? (int)t : -1);
	if (r) {
		fprintf(stderr, "kiln probe: %s\n", kiln_errmsg());
		return 1;
	}
	return 0;
}
