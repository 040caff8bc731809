/* fn_user.c — bpftrace's functions that reach user space or the process: usym and uaddr
 * (user symbols), strftime, cat and system (done in user space from a record laid out as
 * printf's), signal, reg (pt_regs by name, x86-64), cgroup_path and override (refused: it
 * needs kprobes).
 * How sema types each call and how gen writes it (funcs.h); src/cli/trace_user.c prints. */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include "trace/elfsyms.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- sema ---- */

/* bpftrace's unsafe functions need --unsafe; its wording. */
static int unsafe_check(struct sm *m, struct kt_node *n)
{
	if (m->s->unsafe)
		return 0;
	return kl_error(m->d, n->span, "%s() is an unsafe function being used in safe mode", n->name);
}

/* Whether every target of the current probe is one of kinds (a bit per enum kt_pkind);
 * else bpftrace's error naming the first probe that is not. */
static int probes_allow(struct sm *m, struct kt_node *n, unsigned kinds)
{
	for (uint32_t i = 0; i < m->s->ntargets; i++) {
		const struct kt_target *t = &m->s->targets[i];
		if (t->probe_index == m->first->probe_index && !(kinds & (1u << t->kind)))
			return kl_error(m->d, n->span, "%s can not be used with \"%s\" probes", n->name, kt_provider_name(t->kind));
	}
	return 0;
}

static int usym_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "usym() expects an integer or pointer argument");
	n->type = (struct kt_type){ .kind = KTT_USYM, .size = 16 };
	return 0;
}

/* The symbol's value and size in the ELF file path (its .symtab, else .dynsym); 0 or -1. */
static int elf_symbol(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	int fd = kt_open_regular(path), found = -1;
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	for (int pass = 0; e && found && pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while (found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && found && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *sn;
				if (gelf_getsym(d, (int)i, &s) && s.st_value && (sn = elf_strptr(e, sh.sh_link, s.st_name)) &&
				    !strcmp(sn, name)) {
					*value = s.st_value;
					*size = s.st_size;
					found = 0;
				}
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/* uaddr("NAME"): the symbol's address in the probe's file, as bpftrace gives it (the ELF
 * value: a fixed address in a program built without PIE), an integer. */
static int uaddr_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "uaddr() expects a symbol name as a string literal");
	if (probes_allow(m, n, 1u << KP_UPROBE | 1u << KP_URETPROBE))
		return -1;
	uint64_t addr = 0, size = 0;
	for (uint32_t i = 0; i < m->s->ntargets; i++) {
		const struct kt_target *t = &m->s->targets[i];
		uint64_t a, sz;
		if (t->probe_index != m->first->probe_index)
			continue;
		if (elf_symbol(t->binary, n->kids[0]->str, &a, &sz))
			return kl_error(m->d, n->span, "Could not resolve symbol: %s:%s", t->binary, n->kids[0]->str);
		if (addr && sz != size)
			return kl_error(m->d, n->span, "Symbol size mismatch between probes. Symbol \"%s\"", n->kids[0]->str);
		addr = a;
		size = sz;
	}
	n->kind = KT_INT;
	n->num = (int64_t)addr;
	n->nkids = 0;
	n->type = kt_t_int(8, false);
	return 0;
}

static int strftime_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 2 || n->kids[0]->kind != KT_STR || n->kids[1]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "strftime() takes a format (a string literal) and nanoseconds since boot");
	n->type = (struct kt_type){ .kind = KTT_TIMESTAMP, .size = 8, .fmt = n->kids[0]->str };
	return 0;
}

/* cgroup_path(ID [, "FILTER"]): the id; user space finds its directory in every cgroup
 * hierarchy whose name matches the filter (a glob, "*" by default) */
static int cgroup_path_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 2 || n->kids[0]->type.kind != KTT_INT || (n->nkids == 2 && n->kids[1]->kind != KT_STR))
		return kt_sm_err(m, n->span, "%s", "cgroup_path() takes a cgroup id and an optional filter (a string literal)");
	n->type = (struct kt_type){ .kind = KTT_CGROUP_PATH, .size = 8, .fmt = n->nkids == 2 ? n->kids[1]->str : "*" };
	return 0;
}

static int system_check(struct sm *m, struct kt_node *n)
{
	return unsafe_check(m, n) || kt_check_format(m, n);
}

/* Linux's signal numbers (x86-64) by name; bpftrace takes them with or without "SIG". */
static const struct { const char *name; int num; } signals[] = {
	{ "HUP", 1 }, { "INT", 2 }, { "QUIT", 3 }, { "ILL", 4 }, { "TRAP", 5 }, { "ABRT", 6 }, { "IOT", 6 },
	{ "BUS", 7 }, { "FPE", 8 }, { "KILL", 9 }, { "USR1", 10 }, { "SEGV", 11 }, { "USR2", 12 },
	{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 }, { "STKFLT", 16 }, { "CHLD", 17 }, { "CONT", 18 },
	{ "STOP", 19 }, { "TSTP", 20 }, { "TTIN", 21 }, { "TTOU", 22 }, { "URG", 23 }, { "XCPU", 24 },
	{ "XFSZ", 25 }, { "VTALRM", 26 }, { "PROF", 27 }, { "WINCH", 28 }, { "IO", 29 }, { "POLL", 29 },
	{ "PWR", 30 }, { "SYS", 31 },
};

/* signal("SIGKILL"|"KILL"|N): a literal name or number is checked now and becomes the
 * number; another integer is sent as it is. */
static int signal_check(struct sm *m, struct kt_node *n)
{
	if (unsafe_check(m, n))
		return -1;
	if (n->nkids != 1)
		return kt_sm_err(m, n->span, "%s", "signal() takes one argument");
	if (probes_allow(m, n, 1u << KP_TRACEPOINT | 1u << KP_PROFILE | 1u << KP_UPROBE | 1u << KP_URETPROBE |
				       1u << KP_KPROBE | 1u << KP_KRETPROBE))
		return -1;
	struct kt_node *a = n->kids[0];
	if (a->kind == KT_STR) {
		const char *s = a->str;
		if ((s[0] == 'S' || s[0] == 's') && !strncasecmp(s, "SIG", 3))
			s += 3;
		for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
			if (!strcasecmp(s, signals[i].name)) {
				a->kind = KT_INT;
				a->num = signals[i].num;
				a->type = kt_t_int(8, true);
				return 0;
			}
		return kl_error(m->d, n->span, "%s is not a valid signal", a->str);
	}
	if (a->kind == KT_INT && (a->num < 1 || a->num > 64))
		return kl_error(m->d, n->span, "%lld is not a valid signal, allowed range: [1,64]", (long long)a->num);
	if (a->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "signal only accepts string literals or integers");
	return 0;
}

/* x86-64's struct pt_regs, in order (8 bytes each): bpftrace's register names. */
static const char *const x86_regs[] = {
	"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax", "cx", "dx", "si", "di",
	"orig_ax", "ip", "cs", "flags", "sp", "ss",
};

static int reg_offset(const char *name)
{
	for (size_t i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		if (!strcmp(x86_regs[i], name))
			return (int)i * 8;
	return -1;
}

/* reg("ip"): the register's value where the probe fired (its pt_regs; a perf event's
 * context begins with them) */
static int reg_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "reg() takes a register name as a string literal");
	if (reg_offset(n->kids[0]->str) < 0)
		return kl_error(m->d, n->span, "'%s' is not a valid register on this architecture (x86_64)", n->kids[0]->str);
	if (probes_allow(m, n, 1u << KP_PROFILE | 1u << KP_INTERVAL | 1u << KP_UPROBE | 1u << KP_URETPROBE |
				       1u << KP_KPROBE | 1u << KP_KRETPROBE))
		return -1;
	n->type = kt_t_int(8, false);
	return 0;
}

/* override(rc) changes a kprobed function's return: this kernel has no kprobes to try it
 * on, so it is refused after bpftrace's own checks. */
static int override_check(struct sm *m, struct kt_node *n)
{
	if (unsafe_check(m, n))
		return -1;
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "override() takes one integer");
	for (uint32_t i = 0; i < m->s->ntargets; i++)
		if (m->s->targets[i].probe_index == m->first->probe_index && m->s->targets[i].kind != KP_KPROBE)
			return kt_sm_err(m, n->span, "%s", "override can only be used with kprobes.");
	return kt_sm_err(m, n->span, "override() is %s (it needs kprobes with error injection)", kt_refused);
}

/* ---- gen ---- */

/* usym: the address and the process's pid (tgid), 16 bytes, for the symbolizer */
static void usym_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	(void)size;
	kt_emit(&g->b, "(store u64 %s 0 ", d);
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, ") (store u64 %s 8 (>> (get-current-pid-tgid) 32))", d);
}

static void strftime_value(struct g *g, const struct kt_node *n)   /* the nanoseconds; user space formats */
{
	kt_gen_int(g, n->kids[1]);
}

static void first_value(struct g *g, const struct kt_node *n)   /* cgroup_path's id */
{
	kt_gen_int(g, n->kids[0]);
}

static void reg_value(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "(ctx u64 %d)", reg_offset(n->kids[0]->str));
}

static void signal_stmt(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "(send-signal ");
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, ")");
}

static void format_stmt(struct g *g, const struct kt_node *n)
{
	kt_gen_record(g, n, 1);
}

static void system_site(struct g *g, const struct kt_node *n)
{
	kt_push_record_site(g, n, 1, KT_EV_SYSTEM, n->kids[0]->str);
}

static void cat_site(struct g *g, const struct kt_node *n)
{
	kt_push_record_site(g, n, 1, KT_EV_CAT, n->kids[0]->str);
}

static const struct kt_fn fns[] = {
	/* name        check           own    stmt          value           str        site */
	{ "usym", usym_check, false, NULL, NULL, usym_str, NULL },
	{ "uaddr", uaddr_check, true, NULL, NULL, NULL, NULL },
	{ "strftime", strftime_check, false, NULL, strftime_value, NULL, NULL },
	{ "cat", kt_check_format, false, format_stmt, NULL, NULL, cat_site },
	{ "system", system_check, false, format_stmt, NULL, NULL, system_site },
	{ "signal", signal_check, false, signal_stmt, NULL, NULL, NULL },
	{ "reg", reg_check, false, NULL, reg_value, NULL, NULL },
	{ "override", override_check, false, NULL, NULL, NULL, NULL },
	{ "cgroup_path", cgroup_path_check, false, NULL, first_value, NULL, NULL },
};
const struct kt_fn_table kt_fns_user = { fns, sizeof(fns) / sizeof(fns[0]) };
