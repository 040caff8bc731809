/* fn_v026.c — the functions and builtins bpftrace 0.26 added that scripts use: has_key(@m, k),
 * len(@m), getopt("name"[, default]), ppid and ncpus (with or without parentheses). Each is
 * written natively: has_key as a map lookup, len as for-each-map-elem with an empty callback
 * (kt-len-cb, defined once when a script counts; gen_prog.c), ppid as curtask's real
 * parent's pid, ncpus and getopt as literals fixed when the script is compiled. delete(@m, k)
 * and exit(code) are fn_core.c's rows. */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include <errno.h>
#include <kiln/map.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define KT_MEMCMP_MAX 128   /* memcmp()'s count: two buffers of it on the BPF stack */

/* ---- sema ---- */

/* Whether kiln trace runs in the initial pid namespace (its pid there is its pid here). */
static bool kt_in_init_pidns(void)
{
	struct stat a, b;
	return stat("/proc/self/ns/pid", &a) || stat("/proc/1/ns/pid", &b) || (a.st_ino == b.st_ino && a.st_dev == b.st_dev);
}

/* The task aliases: NAME [ (task) ] is task->via->field, task curtask when not given. */
static const struct { const char *name, *via, *field; } task_aliases[] = {
	{ "ppid", "real_parent", "pid" }, { "pcomm", "real_parent", "comm" },
	{ "leader_tid", "group_leader", "pid" }, { "leader_comm", "group_leader", "comm" },
};

static int task_alias(struct sm *m, struct kt_node *n, size_t i, struct kt_node *task)
{
	if (!task) {
		task = kt_node_new(m->a, KT_IDENT, n->span);
		task->name = "curtask";
	}
	struct kt_node *via = kt_node_new(m->a, KT_ARROW, n->span);
	via->a = task;
	via->name = task_aliases[i].via;
	n->kind = KT_ARROW;
	n->a = via;
	n->name = task_aliases[i].field;
	n->nkids = 0;
	return kt_sm_expr(m, n);
}

/* ncpus: the possible CPUs, as bpftrace counts them when it loads. */
static int ncpus_rewrite(struct sm *m, struct kt_node *n)
{
	int c = kiln_num_possible_cpus();
	n->kind = KT_INT;
	n->num = c > 0 ? c : 1;
	n->nkids = 0;
	n->type = kt_t_int(8, false);
	(void)m;
	return 0;
}

/* bpftrace's name of a probe kind (probetype) */
static const char *const probe_types[] = {
	[KP_BEGIN] = "special", [KP_END] = "special", [KP_TRACEPOINT] = "tracepoint", [KP_INTERVAL] = "interval",
	[KP_PROFILE] = "profile", [KP_UPROBE] = "uprobe", [KP_URETPROBE] = "uretprobe", [KP_KPROBE] = "kprobe",
	[KP_KRETPROBE] = "kretprobe", [KP_KFUNC] = "fentry", [KP_KRETFUNC] = "fexit",
	[KP_RAWTRACEPOINT] = "rawtracepoint", [KP_SOFTWARE] = "software", [KP_HARDWARE] = "hardware", [KP_USDT] = "usdt",
};

static void to_int(struct kt_node *n, int64_t v, uint32_t size, bool sign)
{
	n->kind = KT_INT;
	n->num = v;
	n->nkids = 0;
	n->type = kt_t_int(size, sign);
}

/* The builtins that are literals once the script is compiled: has_cpid, default_str_length,
 * probetype (every target of the probe is of the first's kind). 1: not one. */
static int literal_builtin(struct sm *m, struct kt_node *n)
{
	if (!strcmp(n->name, "has_cpid")) {
		to_int(n, m->s->has_child, 1, false);
	} else if (!strcmp(n->name, "default_str_length")) {
		to_int(n, m->s->strlen, 8, false);
	} else if (!strcmp(n->name, "probetype")) {
		const char *t = probe_types[m->first->kind];
		for (uint32_t i = 0; i < m->s->ntargets; i++)
			if (m->s->targets[i].probe_index == m->first->probe_index && probe_types[m->s->targets[i].kind] != t)
				return kt_sm_err(m, n->span, "%s", "probetype in a probe of several kinds is not supported yet by kiln trace");
		n->kind = KT_STR;
		n->str = t;
		n->strlen = (uint32_t)strlen(t);
		n->nkids = 0;
		n->type = kt_t_str(n->strlen + 1);
	} else {
		return 1;
	}
	return 0;
}

static int usermode_check(struct sm *m, struct kt_node *n);

int kt_fn_ident(struct sm *m, struct kt_node *n)
{
	for (size_t i = 0; i < sizeof(task_aliases) / sizeof(task_aliases[0]); i++)
		if (!strcmp(n->name, task_aliases[i].name))
			return task_alias(m, n, i, NULL);
	if (!strcmp(n->name, "ncpus"))
		return ncpus_rewrite(m, n);
	if (!strcmp(n->name, "usermode"))
		return usermode_check(m, n);
	if (!strcmp(n->name, "jiffies")) {   /* as jiffies() */
		n->kind = KT_CALL;
		n->nkids = 0;
		n->type = kt_t_int(8, false);
		return 0;
	}
	return literal_builtin(m, n);
}

static int task_alias_check(struct sm *m, struct kt_node *n)
{
	size_t i = 0;
	while (strcmp(task_aliases[i].name, n->name))
		i++;
	if (n->nkids > 1)
		return kl_error(m->d, n->span, "%s() takes no argument or a task (struct task_struct *)", n->name);
	return task_alias(m, n, i, n->nkids ? n->kids[0] : NULL);
}

static int literal_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids)
		return kl_error(m->d, n->span, "%s() takes no arguments", n->name);
	return literal_builtin(m, n);
}

static int jiffies_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids)
		return kt_sm_err(m, n->span, "%s", "jiffies() takes no arguments");
	n->type = kt_t_int(8, false);
	return 0;
}

/* pid([curr_ns|init]), tid(...): the builtin. kiln reads the ids the kernel's initial
 * namespace sees, which are curr_ns's when kiln trace runs there (it refuses otherwise). */
static int pid_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids > 1 || (n->nkids && (n->kids[0]->kind != KT_IDENT ||
					  (strcmp(n->kids[0]->name, "init") && strcmp(n->kids[0]->name, "curr_ns")))))
		return kl_error(m->d, n->span, "%s() takes curr_ns or init", n->name);
	if (n->nkids && !strcmp(n->kids[0]->name, "curr_ns") && !kt_in_init_pidns())
		return kl_error(m->d, n->span, "%s(curr_ns) in a pid namespace other than the initial one is not supported yet by kiln trace", n->name);
	n->kind = KT_IDENT;
	n->nkids = 0;
	return kt_sm_expr(m, n);
}

/* nsecs([monotonic|boot|tai|sw_tai]): the clock's helper; sw_tai is boot's plus the offset
 * of TAI from it, measured when compiling */
static const struct { const char *mode, *lisp; } clocks[] = {
	{ "monotonic", "(ktime-get-ns)" }, { "boot", "(ktime-get-boot-ns)" }, { "tai", "(ktime-get-tai-ns)" },
	{ "sw_tai", NULL },
};

static int nsecs_check(struct sm *m, struct kt_node *n)
{
	size_t i = 0;
	if (n->nkids > 1 || (n->nkids && n->kids[0]->kind != KT_IDENT))
		return kt_sm_err(m, n->span, "%s", "nsecs() takes monotonic, boot, tai or sw_tai");
	while (n->nkids && i < sizeof(clocks) / sizeof(clocks[0]) && strcmp(n->kids[0]->name, clocks[i].mode))
		i++;
	if (i == sizeof(clocks) / sizeof(clocks[0]))
		return kl_error(m->d, n->kids[0]->span, "nsecs(%s): the modes are monotonic, boot, tai and sw_tai",
				n->kids[0]->name);
	n->num = (int64_t)i;
	n->type = kt_t_int(8, false);
	return 0;
}

/* is_literal, is_integer, is_unsigned_integer, is_str, is_ptr, is_array: what the argument is,
 * a literal 0 or 1 */
static int is_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1)
		return kl_error(m->d, n->span, "%s() takes one expression", n->name);
	struct kt_node *e = n->kids[0];
	bool lit = e->kind == KT_INT || e->kind == KT_STR;
	if (kt_sm_expr(m, e))
		return -1;
	const struct kt_type *t = &e->type;
	bool ptr = t->kind == KTT_INT && (t->pointee || t->tname);
	bool v = !strcmp(n->name, "is_literal") ? lit :
		 !strcmp(n->name, "is_integer") ? t->kind == KTT_INT && !ptr :
		 !strcmp(n->name, "is_unsigned_integer") ? t->kind == KTT_INT && !ptr && !t->is_signed :
		 !strcmp(n->name, "is_str") ? t->kind == KTT_STR :
		 !strcmp(n->name, "is_ptr") ? ptr : t->kind == KTT_BYTES;
	to_int(n, v, 1, false);
	return 0;
}

static int ncpus_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids)
		return kt_sm_err(m, n->span, "%s", "ncpus() takes no arguments");
	return ncpus_rewrite(m, n);
}

/* has_key(@m, k): the key moved into the map node (@m[k]), as delete's; a later typing pass
 * (sema's passes) meets the moved form. */
int kt_map_key_arg(struct sm *m, struct kt_node *n)
{
	if (n->nkids == 1 && n->kids[0]->kind == KT_MAP && n->kids[0]->a)
		return kt_sm_map_key(m, n->kids[0], kt_sm_map_of(m, n->kids[0]));
	if (n->nkids != 2 || n->kids[0]->kind != KT_MAP || n->kids[0]->a)
		return kt_sm_err(m, n->span, "%s() expects a map and a key: (@m, key)", n->name);
	struct kt_node *mn = n->kids[0], *k = n->kids[1];
	if (k->kind == KT_TUPLE)
		k->op = 1;   /* (1, "a"): the map's several keys, as @m[1, "a"] */
	mn->a = k;
	n->nkids = 1;
	struct kt_map *mp = kt_sm_map_of(m, mn);
	return kt_sm_map_key(m, mn, mp);
}

static int has_key_check(struct sm *m, struct kt_node *n)
{
	if (kt_map_key_arg(m, n))
		return -1;
	n->type = kt_t_int(1, false);
	return 0;
}

static int len_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_MAP || n->kids[0]->a)
		return kt_sm_err(m, n->span, "%s", "len() expects a whole map (stacks: not supported yet by kiln trace)");
	kt_sm_map_of(m, n->kids[0]);
	m->s->defuns |= KT_DEFUN_LEN;
	n->type = kt_t_int(8, true);
	return 0;
}

/* getopt's value for name: the text after --name= (NULL: not given; "" for a bare --name). */
static const char *named_arg(const struct sm *m, const char *name, bool *given)
{
	size_t len = strlen(name);
	for (int i = 0; i < m->s->nnamed; i++) {
		const char *a = m->s->named[i] + 2;
		if (!strncmp(a, name, len) && (a[len] == '=' || !a[len])) {
			*given = true;
			return a[len] == '=' ? a + len + 1 : NULL;
		}
	}
	*given = false;
	return NULL;
}

/* getopt("name" [, default [, "description"]]): a literal, of the default's type (none: a
 * boolean). Booleans take true/1 and false/0, a bare --name being true. */
static int getopt_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 3 || n->kids[0]->kind != KT_STR || (n->nkids == 3 && n->kids[2]->kind != KT_STR))
		return kt_sm_err(m, n->span, "%s", "getopt() takes a name, a default and a description, all literals");
	struct kt_node *def = n->nkids > 1 ? n->kids[1] : NULL;
	bool given, is_bool = !def || (def->kind == KT_IDENT && (!strcmp(def->name, "true") || !strcmp(def->name, "false")));
	if (def && !is_bool && def->kind != KT_INT && def->kind != KT_STR)
		return kt_sm_err(m, def->span, "%s", "getopt()'s default must be a literal: an integer, a string, true or false");
	const char *v = named_arg(m, n->kids[0]->str, &given);
	if (def && def->kind == KT_STR) {
		n->kind = KT_STR;
		n->str = given ? (v ? v : "") : def->str;
		n->strlen = (uint32_t)strlen(n->str);
		n->nkids = 0;
		n->type = kt_t_str(n->strlen + 1);
		return 0;
	}
	int64_t x = is_bool ? (def && !strcmp(def->name, "true")) : def->num;
	if (given && is_bool) {
		if (v && strcmp(v, "true") && strcmp(v, "1") && strcmp(v, "false") && strcmp(v, "0"))
			return kl_error(m->d, n->span, "--%s is a boolean option: true, 1, false or 0, not '%s'", n->kids[0]->str, v);
		x = !v || !strcmp(v, "true") || !strcmp(v, "1");
	} else if (given) {
		char *end;
		errno = 0;
		x = v ? strtoll(v, &end, 0) : 0;
		if (!v || !*v || *end || errno)
			return kl_error(m->d, n->span, "--%s takes an integer, not '%s'", n->kids[0]->str, v ? v : "");
	}
	n->kind = KT_INT;
	n->num = x;
	n->nkids = 0;
	n->type = kt_t_int(8, true);
	return 0;
}

/* ---- the dialects' meanings (docs/trace.md's table) ---- */

/* pid, tid, cpu, rand: uint32 in bpftrace 0.26, 64 bits in 0.17. */
void kt_dialect_builtin(const struct sm *m, struct kt_node *n)
{
	static const char *const u32s[] = { "pid", "tid", "cpu", "rand" };
	for (size_t i = 0; m->s->dialect == KT_DIALECT_026 && i < sizeof(u32s) / sizeof(u32s[0]); i++)
		if (!strcmp(n->name, u32s[i]))
			n->type = kt_t_int(4, false);
}

/* $N whose text is no number: a string in bpftrace 0.26 (`print(($1, $2))` prints p1), an
 * error in 0.17 (str($N) reads it). 0: n is the string literal, 1: not this dialect. */
int kt_dialect_posparam(const struct sm *m, struct kt_node *n, const char *text)
{
	if (m->s->dialect != KT_DIALECT_026)
		return 1;
	n->kind = KT_STR;
	n->str = text;
	n->strlen = (uint32_t)strlen(text);
	n->type = kt_t_str(n->strlen + 1);
	return 0;
}

/* The arithmetic operators, whose result bpftrace 0.26 sizes by the operands. */
static bool arith_op(int op)
{
	return op == '+' || op == '-' || op == '*' || op == '/' || op == '%' || op == '&' || op == '|' || op == '^' ||
	       op == KT_OP_SHL || op == KT_OP_SHR;
}

/* The promoted result's size and sign of a OP b (0: 64 bits, as 0.17): the larger operand's
 * size, a literal taking the other side's (0.26's literals are flexible); operands of
 * different signs need a signed type that holds both, int64 when the unsigned one is as wide. */
static uint32_t promoted(const struct kt_node *n, bool *sign)
{
	const struct kt_node *l = n->a, *r = n->b;
	bool llit = l->kind == KT_INT, rlit = r->kind == KT_INT;
	if (llit && rlit)
		return 0;
	if (llit || rlit) {   /* the literal must fit the other side's type, else 64 bits */
		const struct kt_node *lit = llit ? l : r, *o = llit ? r : l;
		uint32_t bits = o->type.size * 8;
		if (bits >= 64 || (o->type.is_signed ? lit->num >= -(1LL << (bits - 1)) && lit->num < (1LL << (bits - 1))
						    : lit->num >= 0 && lit->num < (1LL << bits)))
			return o->type.size;
		return 0;
	}
	if (l->type.is_signed == r->type.is_signed)
		return l->type.size > r->type.size ? l->type.size : r->type.size;
	const struct kt_type *sg = l->type.is_signed ? &l->type : &r->type, *un = l->type.is_signed ? &r->type : &l->type;
	*sign = true;
	return sg->size > un->size ? sg->size : 0;
}

/* a OP b in bpftrace 0.26 (after sema's typing and pointer arithmetic): - gives a signed
 * result whatever the operands (as a + (-b)); the arithmetic operators compute in the
 * promoted operands' width, so n becomes a cast of the 64-bit operation to that type (a
 * uint8 255 + 1 is 0). The operation inside is marked (var_id -2, unused by binary
 * operators) so that sema's later passes do not wrap it again. 0.17 computes in 64 bits,
 * unsigned unless both operands are signed. */
void kt_dialect_binop(struct sm *m, struct kt_node *n)
{
	static const char *const names[2][5] = { { 0, "uint8", "uint16", 0, "uint32" }, { 0, "int8", "int16", 0, "int32" } };
	if (m->s->dialect != KT_DIALECT_026 || n->var_id == -2 || n->type.pointee || n->type.tname || !arith_op(n->op))
		return;
	if (n->op == '-')
		n->type.is_signed = true;
	bool sign = n->type.is_signed;
	uint32_t size = promoted(n, &sign);
	if (size != 1 && size != 2 && size != 4)
		return;
	struct kt_node *op = kl_arena_new(m->a, struct kt_node);
	*op = *n;
	op->var_id = -2;
	op->type.is_signed = sign;
	*n = (struct kt_node){ .kind = KT_CAST, .span = n->span, .len = n->len, .name = names[sign][size], .a = op,
			       .map_id = -1, .var_id = -1, .type = kt_t_int(size, sign) };
}

/* strlen(s): the bytes before its NUL (a string, a char array) */
static int strlen_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_STR)
		return kt_sm_err(m, n->span, "%s", "strlen() takes a string");
	n->type = kt_t_int(8, false);
	return 0;
}

/* strstr(haystack, "needle"): the needle's first index, -1 when absent (a literal needle) */
static int strstr_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 2 || n->kids[0]->type.kind != KTT_STR || n->kids[1]->type.kind != KTT_STR)
		return kt_sm_err(m, n->span, "%s", "strstr() takes two strings");
	if (n->kids[1]->kind != KT_STR)
		return kt_sm_err(m, n->kids[1]->span, "%s", "strstr() with a computed needle is not supported yet by kiln trace");
	n->type = kt_t_int(8, true);
	return 0;
}

/* n's value when it is made of integer literals (the parser bounds the depth): true */
static bool const_eval(const struct kt_node *n, int64_t *v, int depth)
{
	int64_t a, b;
	if (n->kind == KT_INT) {
		*v = n->num;
		return true;
	}
	if (depth > 128)
		return false;
	if (n->kind == KT_UNOP && (n->op == '!' || n->op == '-' || n->op == '~') && const_eval(n->a, &a, depth + 1)) {
		*v = n->op == '!' ? !a : n->op == '-' ? -a : ~a;
		return true;
	}
	if (n->kind != KT_BINOP || !const_eval(n->a, &a, depth + 1) || !const_eval(n->b, &b, depth + 1))
		return false;
	switch (n->op) {
	case '+': *v = a + b; return true;
	case '-': *v = a - b; return true;
	case '*': *v = a * b; return true;
	case '/': if (!b) return false; *v = a / b; return true;
	case '%': if (!b) return false; *v = a % b; return true;
	case '&': *v = a & b; return true;
	case '|': *v = a | b; return true;
	case '^': *v = a ^ b; return true;
	case '<': *v = a < b; return true;
	case '>': *v = a > b; return true;
	case KT_OP_LE: *v = a <= b; return true;
	case KT_OP_GE: *v = a >= b; return true;
	case KT_OP_EQ: *v = a == b; return true;
	case KT_OP_NE: *v = a != b; return true;
	case KT_OP_AND: *v = a && b; return true;
	case KT_OP_OR: *v = a || b; return true;
	default: return false;
	}
}

/* static_assert(cond, "message"): cond a constant once typed; false is the message, here */
static int static_assert_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 2 || n->kids[1]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "static_assert() takes a condition and a message literal");
	int64_t v;
	if (!const_eval(n->kids[0], &v, 0))
		return kt_sm_err(m, n->kids[0]->span, "%s", "static_assert()'s condition must be known when compiling");
	if (!v)
		return kl_error(m->d, n->span, "static_assert failed: %s", n->kids[1]->str);
	to_int(n, 0, 8, false);
	return 0;
}

/* fail("fmt", literals...): the formatted message is an error where the call is (a script
 * reaching one fails to compile: kiln has no compile-time branches to leave it out) */
static int fail_check(struct sm *m, struct kt_node *n)
{
	if (!n->nkids || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "fail() takes a format literal and literal arguments");
	char msg[1024];
	size_t o = 0;
	uint32_t k = 1;
	for (const char *f = n->kids[0]->str; *f && o + 1 < sizeof(msg); f++) {
		if (*f != '%' || f[1] == '%' || !f[1]) {
			msg[o++] = *f;
			f += *f == '%' && f[1] == '%';
			continue;
		}
		f += strspn(f + 1, "-+ #0123456789.lhz");
		f++;
		struct kt_node *a = k < n->nkids ? n->kids[k++] : NULL;
		if (!a || (a->kind != KT_INT && a->kind != KT_STR))
			return kt_sm_err(m, n->span, "%s", "fail()'s arguments must be literals, one per conversion");
		int w = a->kind == KT_INT ? snprintf(msg + o, sizeof(msg) - o, "%lld", (long long)a->num)
					  : snprintf(msg + o, sizeof(msg) - o, "%s", a->str);
		o += w > 0 && (size_t)w < sizeof(msg) - o ? (size_t)w : 0;
	}
	msg[o] = 0;
	return kt_sm_err(m, n->span, "%s", msg);
}

/* usermode: whether the probe interrupted user code (x86-64: pt_regs' cs, at 136, has
 * privilege level 3); in the probes whose context is pt_regs */
static int usermode_check(struct sm *m, struct kt_node *n)
{
	enum kt_pkind k = m->first->kind;
	if (n->nkids)
		return kt_sm_err(m, n->span, "%s", "usermode() takes no arguments");
	if (!m->has_args && k != KP_PROFILE && k != KP_INTERVAL && k != KP_SOFTWARE && k != KP_HARDWARE)
		return kt_sm_err(m, n->span, "%s", "usermode is only in kprobe, uprobe, profile, interval, software and hardware probes");
	n->kind = KT_CALL;
	n->name = "usermode";
	n->type = kt_t_int(1, false);
	return 0;
}

/* memcmp(left, right, n): strings (or arrays), or pointers to kernel memory, n a literal */
static int memcmp_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 3)
		return kt_sm_err(m, n->span, "%s", "memcmp() takes two values and a count");
	for (uint32_t i = 0; i < 2; i++)
		if (n->kids[i]->type.kind != KTT_STR && n->kids[i]->type.kind != KTT_INT)
			return kt_sm_err(m, n->kids[i]->span, "%s", "memcmp() compares strings, arrays or pointers");
	if (n->kids[2]->kind != KT_INT || n->kids[2]->num < 0 || n->kids[2]->num > KT_MEMCMP_MAX)
		return kl_error(m->d, n->kids[2]->span, "memcmp()'s count must be an integer literal from 0 to %d here (kiln trace)",
				KT_MEMCMP_MAX);
	n->type = kt_t_int(8, true);
	return 0;
}

/* ---- gen ---- */

/* One side of memcmp at buffer b: a string written there, or size bytes a pointer points at. */
static void memcmp_side(struct g *g, const struct kt_node *k, const char *b, uint32_t size)
{
	if (k->type.kind == KTT_STR) {
		kt_gen_str(g, k, kt_atom(&g->b, b), size);
		return;
	}
	kt_emit(&g->b, "(probe-read-kernel %s %u ", b, size);
	kt_gen_int(g, k);
	kt_emit(&g->b, ")");
}

/* The first differing byte's difference, 0 when the count's bytes are equal. */
static void memcmp_value(struct g *g, const struct kt_node *n)
{
	uint32_t cnt = (uint32_t)n->kids[2]->num;
	if (!cnt) {
		kt_emit(&g->b, "0");
		return;
	}
	const char *a = kt_fresh(g, "ma"), *b = kt_fresh(g, "mb"), *r = kt_fresh(g, "mr"), *i = kt_fresh(g, "mi");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u)) (%s (stack-buffer %u)) (%s 0)) ", a, kt_round8(cnt), b, kt_round8(cnt), r);
	memcmp_side(g, n->kids[0], a, cnt);
	memcmp_side(g, n->kids[1], b, cnt);
	kt_emit(&g->b, " (dotimes (%s %u) (when (= %s 0) (setf %s (- (load u8 %s %s) (load u8 %s %s))))) %s)", i, cnt, r, r, a, i,
		b, i, r);
}

static void usermode_value(struct g *g, const struct kt_node *n)
{
	(void)n;
	kt_emit(&g->b, "(if (= (logand (ctx u64 136) 3) 3) 1 0)");
}

/* The haystack in a buffer, then each start before its NUL compared with the needle's bytes. */
static void strstr_value(struct g *g, const struct kt_node *n)
{
	const struct kt_node *needle = n->kids[1];
	uint32_t size = n->kids[0]->type.size ? n->kids[0]->type.size : 1, len = needle->strlen;
	if (!len || len >= size) {
		kt_emit(&g->b, "%d", len ? -1 : 0);
		return;
	}
	const char *b = kt_fresh(g, "hs"), *r = kt_fresh(g, "hr"), *dead = kt_fresh(g, "hd"), *i = kt_fresh(g, "hi");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u)) (%s -1) (%s 0)) ", b, kt_round8(size), r, dead);
	kt_gen_str(g, n->kids[0], kt_atom(&g->b, b), size);
	kt_emit(&g->b, " (dotimes (%s %u) (when (= (load u8 %s %s) 0) (setf %s 1)) (when (and (= %s -1) (= %s 0)", i,
		size - len, b, i, dead, r, dead);
	for (uint32_t j = 0; j < len; j++)
		kt_emit(&g->b, " (= (load u8 %s (+ %s %u)) %u)", b, i, j, (unsigned char)needle->str[j]);
	kt_emit(&g->b, ") (setf %s %s))) %s)", r, i, r);
}

/* The string in a stack buffer, then the first NUL's index found by an unrolled scan. */
static void strlen_value(struct g *g, const struct kt_node *n)
{
	uint32_t size = n->kids[0]->type.size ? n->kids[0]->type.size : 1;
	const char *b = kt_fresh(g, "sl"), *r = kt_fresh(g, "sr"), *i = kt_fresh(g, "si");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u)) (%s %u)) ", b, kt_round8(size), r, size);
	kt_gen_str(g, n->kids[0], kt_atom(&g->b, b), size);
	kt_emit(&g->b, " (dotimes (%s %u) (when (and (= %s %u) (= (load u8 %s %s) 0)) (setf %s %s))) %s)", i, size, r, size,
		b, i, r, i, r);
}

static void has_key_value(struct g *g, const struct kt_node *n)
{
	bool opened;
	const char *k = kt_open_key(g, n->kids[0], &opened);
	kt_emit(&g->b, "(if (map-lookup m%d %s) 1 0)", n->kids[0]->map_id, k);
	kt_close_key(g, opened);
}

static void jiffies_value(struct g *g, const struct kt_node *n)
{
	(void)n;
	kt_emit(&g->b, "(jiffies64)");
}

static void nsecs_value(struct g *g, const struct kt_node *n)
{
	struct timespec tai, boot;
	if (clocks[n->num].lisp) {
		kt_emit_fixed(&g->b, clocks[n->num].lisp);
		return;
	}
	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	long long off = (long long)(tai.tv_sec - boot.tv_sec) * 1000000000LL + (tai.tv_nsec - boot.tv_nsec);
	kt_emit(&g->b, "(+ (ktime-get-boot-ns) %lld)", off);
}

static void len_value(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "(for-each-map-elem m%d (function kt-len-cb) 0 0)", n->kids[0]->map_id);
}

static const struct kt_fn fns[] = {
	/* name      check          own    stmt  value          str   site */
	{ "has_key", has_key_check, false, NULL, has_key_value, NULL, NULL },
	{ "len", len_check, false, NULL, len_value, NULL, NULL },
	{ "getopt", getopt_check, true, NULL, NULL, NULL, NULL },
	{ "ppid", task_alias_check, true, NULL, NULL, NULL, NULL },
	{ "pcomm", task_alias_check, true, NULL, NULL, NULL, NULL },
	{ "leader_tid", task_alias_check, true, NULL, NULL, NULL, NULL },
	{ "leader_comm", task_alias_check, true, NULL, NULL, NULL, NULL },
	{ "has_cpid", literal_check, true, NULL, NULL, NULL, NULL },
	{ "default_str_length", literal_check, true, NULL, NULL, NULL, NULL },
	{ "probetype", literal_check, true, NULL, NULL, NULL, NULL },
	{ "static_assert", static_assert_check, false, NULL, NULL, NULL, NULL },
	{ "fail", fail_check, true, NULL, NULL, NULL, NULL },
	{ "usermode", usermode_check, true, NULL, usermode_value, NULL, NULL },
	{ "memcmp", memcmp_check, false, NULL, memcmp_value, NULL, NULL },
	{ "strstr", strstr_check, false, NULL, strstr_value, NULL, NULL },
	{ "strlen", strlen_check, false, NULL, strlen_value, NULL, NULL },
	{ "jiffies", jiffies_check, true, NULL, jiffies_value, NULL, NULL },
	{ "pid", pid_check, true, NULL, NULL, NULL, NULL },
	{ "tid", pid_check, true, NULL, NULL, NULL, NULL },
	{ "nsecs", nsecs_check, true, NULL, nsecs_value, NULL, NULL },
	{ "is_literal", is_check, true, NULL, NULL, NULL, NULL },
	{ "is_integer", is_check, true, NULL, NULL, NULL, NULL },
	{ "is_unsigned_integer", is_check, true, NULL, NULL, NULL, NULL },
	{ "is_str", is_check, true, NULL, NULL, NULL, NULL },
	{ "is_ptr", is_check, true, NULL, NULL, NULL, NULL },
	{ "is_array", is_check, true, NULL, NULL, NULL, NULL },
	{ "ncpus", ncpus_check, true, NULL, NULL, NULL, NULL },
};
const struct kt_fn_table kt_fns_v026 = { fns, sizeof(fns) / sizeof(fns[0]) };
