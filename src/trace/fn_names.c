/* fn_names.c — bpftrace 0.26's syscall_name(nr) and signal_name(sig): a number's name as a
 * string, written natively. The names are learned when the script is compiled (the system's
 * <asm/unistd_64.h> for syscalls, strsignal(3) for signals, the text bpftrace prints) and
 * become one defun per table, called by every use: a binary search over the numbers whose
 * leaves store the name's bytes, 8 at a time, at the caller's buffer (NAME_SIZE bytes; an
 * unknown number gets bpftrace's "Unknown syscall" or "N/A"). Also kt_fn_defuns, which
 * writes the defuns fn_v026.c's functions need (funcs.h). */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_SIZE 32            /* bytes of a name: the longest syscall's (23) and NUL fit */
#define MAX_SIGNAL 64           /* SIGRTMAX */
#define UNISTD "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"

struct name {
	int64_t nr;
	char text[NAME_SIZE];
};

struct names {
	struct name *v;
	size_t n;
};

static int by_nr(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* The syscalls of <asm/unistd_64.h>: `#define __NR_read 0` lines. 0, or -1 (no header). */
static int syscall_names(struct kl_arena *a, struct names *out)
{
	FILE *f = fopen(UNISTD, "re");
	if (!f)
		return -1;
	char line[256], nm[NAME_SIZE + 8];
	long long nr;
	size_t cap = 1024;
	out->v = kl_arena_array(a, struct name, cap);
	out->n = 0;
	while (fgets(line, sizeof(line), f) && out->n < cap)
		if (sscanf(line, "#define __NR_%39s %lld", nm, &nr) == 2 && strlen(nm) < NAME_SIZE) {
			out->v[out->n].nr = nr;
			snprintf(out->v[out->n++].text, NAME_SIZE, "%s", nm);
		}
	fclose(f);
	qsort(out->v, out->n, sizeof(*out->v), by_nr);
	return out->n ? 0 : -1;
}

/* Signals 0 to SIGRTMAX as strsignal(3) says them (bpftrace's text). */
static void signal_names(struct kl_arena *a, struct names *out)
{
	out->v = kl_arena_array(a, struct name, MAX_SIGNAL + 1);
	out->n = MAX_SIGNAL + 1;
	for (int i = 0; i <= MAX_SIGNAL; i++) {
		out->v[i].nr = i;
		snprintf(out->v[i].text, NAME_SIZE, "%s", strsignal(i));
	}
}

/* ---- sema ---- */

static int name_check(struct sm *m, struct kt_node *n)
{
	bool sys = !strcmp(n->name, "syscall_name");
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kl_error(m->d, n->span, "%s() takes an integer", n->name);
	struct names t;
	if (sys && syscall_names(m->a, &t))
		return kt_sm_err(m, n->span, "syscall_name(): kiln trace reads the names from %s, which is missing (Debian's linux-libc-dev)",
				 UNISTD);
	m->s->defuns |= sys ? KT_DEFUN_SYSCALL : KT_DEFUN_SIGNAL;
	n->type = kt_t_str(NAME_SIZE);
	return 0;
}

/* ---- gen ---- */

/* The stores of text (NAME_SIZE bytes, zero-padded) at d, 8 bytes at a time. */
static void store_name(struct g *g, const char *text)
{
	char b[NAME_SIZE] = { 0 };
	strncpy(b, text, NAME_SIZE - 1);
	kt_emit(&g->b, "(progn");
	for (uint32_t off = 0; off < NAME_SIZE; off += 8) {
		uint64_t v;
		memcpy(&v, b + off, 8);
		kt_emit(&g->b, " (store u64 d %u %llu)", off, (unsigned long long)v);
	}
	kt_emit(&g->b, ")");
}

/* The search over t's entries lo..hi-1 (sorted), depth about log2 of the entries. */
static void search(struct g *g, const struct names *t, size_t lo, size_t hi, const char *unknown)
{
	if (hi - lo == 1) {
		kt_emit(&g->b, "(if (= nr %lld) ", (long long)t->v[lo].nr);
		store_name(g, t->v[lo].text);
		store_name(g, unknown);
		kt_emit(&g->b, ")");
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
	kt_emit(&g->b, "(if (s< nr %lld) ", (long long)t->v[mid].nr);
	search(g, t, lo, mid, unknown);
	search(g, t, mid, hi, unknown);
	kt_emit(&g->b, ")");
}

void kt_fn_defuns(struct g *g)
{
	unsigned d = g->s->defuns;
	if (d & KT_DEFUN_LEN)   /* len(@m): for-each-map-elem's callback, counting */
		kt_emit(&g->b, "(defun kt-len-cb (m k v c) 0)");
	struct names t;
	if ((d & KT_DEFUN_SYSCALL) && !syscall_names(g->a, &t)) {
		kt_emit(&g->b, "(defun kt-syscall-name (nr d) ");
		search(g, &t, 0, t.n, "Unknown syscall");
		kt_emit(&g->b, " 0)");
	}
	if (d & KT_DEFUN_SIGNAL) {
		signal_names(g->a, &t);
		kt_emit(&g->b, "(defun kt-signal-name (nr d) ");
		search(g, &t, 0, t.n, "N/A");
		kt_emit(&g->b, " 0)");
	}
}

/* The name in a buffer of its own (the defun writes NAME_SIZE bytes), then what fits of it at
 * dest, ending with a NUL. */
static void name_str(struct g *g, const struct kt_node *n, const char *dest, uint32_t size)
{
	uint32_t want = size < NAME_SIZE ? size : NAME_SIZE;
	const char *b = kt_fresh(g, "nm");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u))) (%s ", b, NAME_SIZE,
		!strcmp(n->name, "syscall_name") ? "kt-syscall-name" : "kt-signal-name");
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, " %s) (probe-read-kernel %s %u %s) (store u8 %s %u 0))", b, dest, want, b, dest, want - 1);
}

static const struct kt_fn fns[] = {
	/* name           check       own    stmt  value str       site */
	{ "syscall_name", name_check, false, NULL, NULL, name_str, NULL },
	{ "signal_name", name_check, false, NULL, NULL, name_str, NULL },
};
const struct kt_fn_table kt_fns_names = { fns, sizeof(fns) / sizeof(fns[0]) };
