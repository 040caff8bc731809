/* fn_core.c — bpftrace's output and control functions (printf, print, clear, zero, delete,
 * exit, time, join), strings and symbols (str, ksym, kaddr) and stacks (kstack, ustack):
 * how sema types each call and how gen writes it (funcs.h). */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include "trace/gen_check.h"
#include "trace/limits.h"
#include <kiln/stack.h>
#include <stdio.h>
#include <string.h>

/* ---- sema ---- */

/* kaddr("name"): the kernel symbol's address from /proc/kallsyms, now (bpftrace resolves
 * it when compiling too); this kernel's kallsyms lists functions, not data. */
static int kaddr_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "kaddr() takes a symbol name as a string literal");
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	unsigned long long addr = 0;
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f)) {
		char name[256], type;
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, n->kids[0]->str))
			found = true;
	}
	if (f)
		fclose(f);
	if (!found || !addr)
		return kt_sm_err(m, n->kids[0]->span, "Failed to resolve kernel symbol: %s (kaddr: it is not in /proc/kallsyms)", n->kids[0]->str);
	n->kind = KT_INT;
	n->num = (int64_t)addr;
	n->nkids = 0;
	n->type = kt_t_int(8, false);
	return 0;
}

/* kstack([bpftrace|perf,] [LIMIT]), ustack(...): becomes the builtin, its type's size the
 * limit; perf's mode prints each frame's address too (trace_val.c). */
static int stack_check(struct sm *m, struct kt_node *n)
{
	uint32_t limit = KILN_STACK_MAX_DEPTH;
	bool perf = false;
	for (uint32_t i = 0; i < n->nkids; i++) {
		struct kt_node *k = n->kids[i];
		if (i == 0 && k->kind == KT_IDENT && (!strcmp(k->name, "bpftrace") || !strcmp(k->name, "perf")) &&
		    n->nkids <= 2) {
			perf = !strcmp(k->name, "perf");
			continue;
		}
		if (k->kind != KT_INT || i != n->nkids - 1)
			return kt_sm_err(m, k->span, "%s() takes an optional mode (bpftrace or perf) and a limit", n->name);
		if (k->num < 1 || k->num > KILN_STACK_MAX_DEPTH)
			return kl_error(m->d, k->span, "the stack limit must be 1 to %d", KILN_STACK_MAX_DEPTH);
		limit = (uint32_t)k->num;
	}
	n->kind = KT_BUILTIN;
	n->nkids = 0;
	n->type = (struct kt_type){ .kind = !strcmp(n->name, "kstack") ? KTT_KSTACK : KTT_USTACK, .size = limit,
				    .perf = perf };
	m->s->has_stacks = true;
	return 0;
}

/* How many arguments a printf format takes: its conversions, %% not counted. */
static uint32_t conversions(const char *f)
{
	uint32_t n = 0;
	for (; *f; f++)
		if (*f == '%') {
			if (f[1] == '%')
				f++;
			else if (f[1])
				n++;
		}
	return n;
}

int kt_check_record_args(struct sm *m, struct kt_node *n, uint32_t first)
{
	for (uint32_t i = first; i < n->nkids; i++) {
		if (n->kids[i]->kind == KT_MAP && kt_sm_expr(m, n->kids[i]))
			return -1;
		enum kt_tkind k = n->kids[i]->type.kind;
		if (k == KTT_TUPLE && !strcmp(n->name, "print"))   /* bpftrace refuses tuples in printf */
			continue;
		if (k != KTT_INT && !kt_is_bytes(&n->kids[i]->type) && k != KTT_PROBE && !kt_is_symbolic(&n->kids[i]->type))
			return kl_error(m->d, n->kids[i]->span, "%s() arguments other than integers and strings are %s", n->name,
					kt_refused);
	}
	return 0;
}

/* printf(FMT, ...) and the functions formatted as it is (system, cat) */
int kt_check_format(struct sm *m, struct kt_node *n)
{
	if (!n->nkids || n->kids[0]->kind != KT_STR)
		return kl_error(m->d, n->span, "%s() needs a string literal as its first argument", n->name);
	if (n->nkids - 1 > KT_MAX_RECORD_ARGS)
		return kl_error(m->d, n->kids[KT_MAX_RECORD_ARGS + 1]->span,
				"%s: too many arguments: kiln trace takes at most %d", n->name, KT_MAX_RECORD_ARGS);
	uint32_t want = conversions(n->kids[0]->str);
	if (want != n->nkids - 1)
		return kl_error(m->d, n->span, "%s: %s arguments for the format (%u given, %u expected)", n->name,
				want > n->nkids - 1 ? "not enough" : "too many", n->nkids - 1, want);
	if (kt_check_record_args(m, n, 1))
		return -1;
	n->type.kind = KTT_NONE;
	return 0;
}

static int str_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 2)
		return kt_sm_err(m, n->span, "%s", "str() takes one or two arguments");
	if (n->kids[0]->kind == KT_MAP && kt_sm_expr(m, n->kids[0]))
		return -1;
	if (n->kids[0]->type.kind == KTT_STR && n->nkids == 1) {   /* str() of a string (a __data_loc field): itself */
		*n = *n->kids[0];
		return 0;
	}
	if (n->kids[0]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "str() expects an integer or a pointer");
	uint32_t size = m->s->strlen;
	if (n->nkids == 2) {   /* a length computed at run time reads at most BPFTRACE_STRLEN bytes */
		if (n->kids[1]->type.kind != KTT_INT)
			return kt_sm_err(m, n->kids[1]->span, "%s", "str()'s length must be an integer");
		if (n->kids[1]->kind == KT_INT && n->kids[1]->num + 1 < size && n->kids[1]->num >= 0)
			size = (uint32_t)n->kids[1]->num + 1;
	}
	n->type = kt_t_str(size);
	return 0;
}

static int ksym_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "ksym() takes one integer (an address)");
	n->type = (struct kt_type){ .kind = KTT_KSYM, .size = 8 };
	return 0;
}

static int join_check(struct sm *m, struct kt_node *n)   /* join(argv [, "delim"]): argv an array of user string pointers */
{
	if (n->nkids < 1 || n->nkids > 2 || n->kids[0]->type.kind != KTT_INT ||
	    (n->nkids == 2 && n->kids[1]->kind != KT_STR))
		return kt_sm_err(m, n->span, "%s", "join() takes an array of string pointers and an optional delimiter literal");
	n->type.kind = KTT_NONE;
	return 0;
}

/* exit([code]): kiln trace exits with code (0 to 255, bpftrace 0.26) */
static int exit_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids > 1 || (n->nkids && n->kids[0]->type.kind != KTT_INT))
		return kt_sm_err(m, n->span, "%s", "exit() takes no arguments or an exit code");
	return 0;
}

static int time_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids > 1 || (n->nkids && n->kids[0]->kind != KT_STR))
		return kt_sm_err(m, n->span, "%s", "time() takes at most one argument, a string literal (strftime's format)");
	return 0;
}

/* print(@m [, top [, div]]), print(value) */
static int print_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids >= 1 && n->kids[0]->kind != KT_MAP) {
		if (n->nkids != 1)
			return kl_error(m->d, n->span, "Non-map print() only takes 1 argument, %u found", n->nkids);
		return kt_check_record_args(m, n, 0);
	}
	if (n->nkids < 1 || n->nkids > 3)
		return kt_sm_err(m, n->span, "%s", "print() takes a map and an optional top and div, or one value");
	for (uint32_t i = 1; i < n->nkids; i++)
		if (n->kids[i]->kind != KT_INT || n->kids[i]->num < 0 || n->kids[i]->num > UINT32_MAX)
			return kt_sm_err(m, n->kids[i]->span, "%s", "print()'s top and div must be non-negative integer literals");
	if (n->kids[0]->a)
		return kt_sm_err(m, n->span, "%s", "print() expects a whole map, without a key");
	kt_sm_map_of(m, n->kids[0]);
	return 0;
}

/* clear(@m), zero(@m), delete(@m[key]), delete(@m, key) (fn_v026.c) */
static int mapfn_check(struct sm *m, struct kt_node *n)
{
	const char *f = n->name;
	n->type = kt_t_int(1, false);   /* delete's value: whether there was an entry (0.26) */
	if (!strcmp(f, "delete") && n->nkids == 2)
		return kt_map_key_arg(m, n);
	if (n->nkids != 1 || n->kids[0]->kind != KT_MAP)
		return kt_sm_err(m, n->span, "%s() expects a map", f);
	struct kt_node *mn = n->kids[0];
	struct kt_map *mp = kt_sm_map_of(m, mn);
	if (!strcmp(f, "delete"))
		return kt_sm_map_key(m, mn, mp);
	if (mn->a)
		return kt_sm_err(m, n->span, "%s() expects a whole map, without a key", f);
	n->type.kind = KTT_NONE;
	return 0;
}

/* ---- gen: statements ---- */

void kt_gen_record(struct g *g, const struct kt_node *n, uint32_t first)
{
	uint32_t id = g->site++;
	const struct kt_site *site = &g->sites.items[id];
	const char *e = kt_fresh(g, "e");
	kt_emit(&g->b, "(with-event (%s ev%u " KT_RINGBUF ") (setf (ev%u-id %s) %p)", e, id, id, e,
		kt_rec_id(g, site->kind, id));
	for (uint32_t i = first; i < n->nkids; i++) {
		const struct kt_node *a = n->kids[i];
		const struct kt_arg *arg = &site->args[i - first];
		if (kt_is_bytes(&arg->type)) {
			kt_gen_str(g, a, kt_form(&g->b, "(ev%u-a%u-ptr %s)", id, i - first + 1, e), arg->type.size);
		} else if (arg->type.kind == KTT_TUPLE) {
			kt_gen_tuple(g, a, kt_form(&g->b, "(ev%u-a%u-ptr %s)", id, i - first + 1, e), &arg->type);
		} else {
			kt_emit(&g->b, "(setf (ev%u-a%u %s) ", id, i - first + 1, e);
			kt_gen_int(g, a);
			kt_emit(&g->b, ")");
		}
	}
	kt_emit(&g->b, ")");
}

static void printf_stmt(struct g *g, const struct kt_node *n)
{
	kt_gen_record(g, n, 1);
}

/* join(argv): the array of user pointers read one by one, each string into its slot, until
 * a NULL (nested ifs: nothing past the array's end is read), whose slot gets an empty string:
 * the ring buffer's record is not zeroed, and the reader stops at the first empty slot. */
static void join_stmt(struct g *g, const struct kt_node *n)
{
	uint32_t id = g->site++;
	const char *e = kt_fresh(g, "e"), *p = kt_fresh(g, "j"), *b = kt_fresh(g, "jb");
	kt_emit(&g->b, "(with-event (%s ev%u " KT_RINGBUF ") (setf (ev%u-id %s) %p) (let ((%s ", e, id, id, e,
		kt_rec_id(g, KT_EV_JOIN, id), p);
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, ") (%s (stack-buffer 8))) ", b);
	for (uint32_t i = 0; i < KT_JOIN_ARGS; i++)
		kt_emit(&g->b, "(store u64 %s 0 0) (probe-read-user %s 8 (+ %s %u)) (if (load u64 %s 0) (progn "
			"(probe-read-user-str (ev%u-a%u-ptr %s) %u (load u64 %s 0)) ", b, b, p, i * 8, b, id, i + 1, e,
			KT_JOIN_SIZE, b);
	for (uint32_t i = KT_JOIN_ARGS; i-- > 0;)
		kt_emit(&g->b, "0) (store u8 (ev%u-a%u-ptr %s) 0 0))", id, i + 1, e);
	kt_emit(&g->b, "))");
}

static void exit_stmt(struct g *g, const struct kt_node *n)
{
	if (n->nkids) {   /* the code in the record id's low byte */
		const char *e = kt_fresh(g, "e");
		kt_emit(&g->b, "(with-event (%s kt-ctl " KT_RINGBUF ") (setf (kt-ctl-id %s) (logior %p (logand ", e, e,
			kt_rec_id(g, KT_EV_EXIT, 0));
		kt_gen_int(g, n->kids[0]);
		kt_emit(&g->b, " 255))))");
	} else {
		kt_gen_ctl(g, KT_EV_EXIT, 0);
	}
	kt_emit(&g->b, "(return 0)");
}

/* print(@m) and time(): a record naming the site; user space does the rest */
static void site_stmt(struct g *g, const struct kt_node *n)
{
	(void)n;
	uint32_t id = g->site++;
	kt_gen_ctl(g, g->sites.items[id].kind, id);
}

/* bpftrace 0.17 zeroes a count map without a key where it would remove the entry (clear,
 * delete): `@: 0` is printed after them. */
static bool keyless_count(const struct g *g, const struct kt_node *mn)
{
	const struct kt_map *m = &g->s->maps[mn->map_id];
	return m->kind == KM_COUNT && m->key.kind == KTT_NONE;
}

static void print_stmt(struct g *g, const struct kt_node *n)
{
	if (n->kids[0]->kind == KT_MAP)
		site_stmt(g, n);
	else
		kt_gen_record(g, n, 0);
}

static void clear_stmt(struct g *g, const struct kt_node *n)
{
	bool zero = n->name[0] != 'c' || keyless_count(g, n->kids[0]);
	kt_gen_ctl(g, zero ? KT_EV_ZERO : KT_EV_CLEAR, (uint32_t)n->kids[0]->map_id);
}

static void delete_stmt(struct g *g, const struct kt_node *n)
{
	if (keyless_count(g, n->kids[0])) {
		kt_emit(&g->b, "(setf (getmap m%d 0) 0)", n->kids[0]->map_id);
		return;
	}
	bool opened;
	const char *k = kt_open_key(g, n->kids[0], &opened);
	const char *rc = kt_check_open(g, "map_delete_elem", false, n->span);   /* -k */
	kt_emit(&g->b, "(remmap m%d %s)", n->kids[0]->map_id, k);
	kt_check_close(g, rc);
	kt_close_key(g, opened);
}

/* ---- gen: values ---- */

/* delete(...) as a value (bpftrace 0.26): 1 when the entry was there */
static void delete_value(struct g *g, const struct kt_node *n)
{
	if (keyless_count(g, n->kids[0])) {
		kt_emit(&g->b, "(progn (setf (getmap m%d 0) 0) 1)", n->kids[0]->map_id);
		return;
	}
	bool opened;
	const char *k = kt_open_key(g, n->kids[0], &opened);
	kt_emit(&g->b, "(if (= (remmap m%d %s) 0) 1 0)", n->kids[0]->map_id, k);
	kt_close_key(g, opened);
}

static void ksym_value(struct g *g, const struct kt_node *n)   /* the address; user space names it */
{
	kt_gen_int(g, n->kids[0]);
}

static void str_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)   /* str(p [, n]) */
{
	uint32_t want = n->type.size < size ? n->type.size : size;
	if (n->nkids == 2 && n->kids[1]->kind != KT_INT) {   /* n + 1 bytes (its NUL), clamped to want */
		const char *l = kt_fresh(g, "l");
		kt_emit(&g->b, "(store u8 %s 0 0) (let ((%s (+ ", d, l);
		kt_gen_int(g, n->kids[1]);
		kt_emit(&g->b, " 1))) (when (> %s %u) (setf %s %u)) (probe-read-str %s %s ", l, want, l, want, d, l);
		kt_gen_int(g, n->kids[0]);
		kt_emit(&g->b, "))");
		return;
	}
	kt_emit(&g->b, "(probe-read-str %s %u ", d, want);
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, ")");
}

/* ---- gen: record layouts, collected before the code ---- */

static void time_site(struct g *g, const struct kt_node *n)
{
	struct kt_site site = { .kind = KT_EV_TIME, .fmt = n->nkids ? n->kids[0]->str : "%H:%M:%S\n", .size = 8 };
	kl_vec_push(g->a, &g->sites, site);
}

static void print_site(struct g *g, const struct kt_node *n)
{
	if (n->kids[0]->kind != KT_MAP) {   /* print(value): the value, printed as a map's */
		kt_push_record_site(g, n, 0, KT_EV_VALUE, NULL);
		return;
	}
	struct kt_site site = { .kind = KT_EV_PRINT, .map = (uint32_t)n->kids[0]->map_id, .size = 8 };
	site.top = n->nkids > 1 ? (uint32_t)n->kids[1]->num : 0;
	site.div = n->nkids > 2 ? (uint32_t)n->kids[2]->num : 0;
	kl_vec_push(g->a, &g->sites, site);
}

static void join_site(struct g *g, const struct kt_node *n)
{
	struct kt_site site = { .kind = KT_EV_JOIN, .fmt = n->nkids > 1 ? n->kids[1]->str : " ", .nargs = KT_JOIN_ARGS };
	site.args = kl_arena_array(g->a, struct kt_arg, KT_JOIN_ARGS);
	for (uint32_t i = 0; i < KT_JOIN_ARGS; i++)
		site.args[i] = (struct kt_arg){ .type = { .kind = KTT_STR, .size = KT_JOIN_SIZE }, .offset = 8 + i * KT_JOIN_SIZE };
	site.size = 8 + KT_JOIN_ARGS * KT_JOIN_SIZE;
	kl_vec_push(g->a, &g->sites, site);
}

void kt_push_record_site(struct g *g, const struct kt_node *n, uint32_t first, enum kt_ev kind, const char *fmt)
{
	struct kt_site site = { .kind = kind, .fmt = fmt, .nargs = n->nkids - first };
	site.args = kl_arena_array(g->a, struct kt_arg, n->nkids);
	uint32_t off = 8;
	for (uint32_t i = first; i < n->nkids; i++) {
		site.args[i - first].type = n->kids[i]->type;
		site.args[i - first].offset = off;
		off += kt_round8(kt_type_size(&n->kids[i]->type));
	}
	site.size = off;
	kl_vec_push(g->a, &g->sites, site);
}

static void printf_site(struct g *g, const struct kt_node *n)
{
	kt_push_record_site(g, n, 1, KT_EV_PRINTF, n->kids[0]->str);
}

static const struct kt_fn fns[] = {
	/* name      check          own    stmt         value       str      site */
	{ "printf", kt_check_format, false, printf_stmt, NULL, NULL, printf_site },
	{ "print", print_check, false, print_stmt, NULL, NULL, print_site },
	{ "time", time_check, false, site_stmt, NULL, NULL, time_site },
	{ "join", join_check, false, join_stmt, NULL, NULL, join_site },
	{ "exit", exit_check, false, exit_stmt, NULL, NULL, NULL },
	{ "clear", mapfn_check, false, clear_stmt, NULL, NULL, NULL },
	{ "zero", mapfn_check, false, clear_stmt, NULL, NULL, NULL },
	{ "delete", mapfn_check, false, delete_stmt, delete_value, NULL, NULL },
	{ "str", str_check, false, NULL, NULL, str_str, NULL },
	{ "ksym", ksym_check, false, NULL, ksym_value, NULL, NULL },
	{ "kaddr", kaddr_check, true, NULL, NULL, NULL, NULL },
	{ "kstack", stack_check, true, NULL, NULL, NULL, NULL },
	{ "ustack", stack_check, true, NULL, NULL, NULL, NULL },
};
const struct kt_fn_table kt_fns_core = { fns, sizeof(fns) / sizeof(fns[0]) };
