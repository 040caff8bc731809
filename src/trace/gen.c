/* gen.c — kiln trace's code generator: the typed tree as kiln Lisp nodes (gen.h). Integers
 * are kiln's 64-bit values; strings are written where they go (a record field, a map key
 * buffer, a $variable's stack buffer) by gen_str, so no string is ever a value. The nodes
 * are made from readable templates (gen_build.h), never text: each takes the span of the
 * probe, statement or expression being generated, so the compiler's and the verifier's
 * errors point into the script; -d prints the nodes. */
#define _GNU_SOURCE
#include "trace/gen_priv.h"
#include "trace/gen_cstruct.h"
#include "trace/gen_check.h"
#include "trace/funcs.h"
#include "trace/usdt.h"
#include <kiln/stack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_int(struct g *g, const struct kt_node *n);
static void gen_str(struct g *g, const struct kt_node *n, const struct kl_node *dest, uint32_t size);
static void gen_block(struct g *g, const struct kt_node *b);
static bool jumps(const struct kt_node *s);

static const char *fresh(struct g *g, const char *prefix)
{
	return kl_arena_printf(g->a, "%s%u", prefix, g->tmp++);
}


/* From here on the code made is the script's construct at `at`: the span it replaces. */
static struct kl_span enter(struct g *g, struct kl_span at)
{
	return kt_build_enter(&g->b, at);
}

static void leave(struct g *g, struct kl_span prev)
{
	kt_build_enter(&g->b, prev);
}
/* A comment -d prints after the top-level form being made (or the one just made). */
static void note(struct g *g, const char *text)
{
	uint32_t form = (uint32_t)g->b.forms.len - (g->b.open.len ? 0 : 1);
	kl_vec_push(g->a, &g->notes, ((struct kt_note){ form, text }));
}

static int gen_err(struct g *g, struct kl_span at, const char *msg)
{
	if (!g->err)
		g->err = kl_error(g->d, at, "%s", msg);
	return -1;
}

/* ---- map keys ---- */

static const struct kt_map *map_at(const struct g *g, const struct kt_node *mn)
{
	return &g->s->maps[mn->map_id];
}

/* The map's user key (without a hist bucket) is passed inline as an integer. */
static bool inline_key(const struct kt_map *m)
{
	return m->kind != KM_HIST && m->kind != KM_LHIST && (m->key.kind == KTT_NONE || m->key.kind == KTT_INT ||
							     m->key.kind == KTT_PROBE || kt_is_symbolic(&m->key));
}

/* Store the key's elements into buffer kb (zeroed stack memory). */
static void fill_key(struct g *g, const struct kt_map *m, const struct kt_node *key, const char *kb)
{
	if (!key)
		return;
	const struct kt_node *const *elems = (const struct kt_node *const *)&key;
	uint32_t n = 1;
	if (key->kind == KT_TUPLE) {
		elems = (const struct kt_node *const *)key->kids;
		n = key->nkids;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct kt_type *t = m->key.kind == KTT_TUPLE ? &m->key.elems[i] : &m->key;
		if (kt_is_bytes(t)) {
			gen_str(g, elems[i], kt_form(&g->b, "(+ %s %u)", kb, off), t->size);
		} else {
			kt_emit(&g->b, "(store u64 %s %u ", kb, off);
			gen_int(g, elems[i]);
			kt_emit(&g->b, ")");
		}
		off += kt_type_size(t);
	}
}

/* Opens "(let ((K ...)) fill" for a buffered key and returns K, or returns the inline key
 * "0" (opening nothing): either is an atom for a template. *opened tells which. For hist
 * maps the buffer has room for the bucket after the user key. */
static const char *open_key(struct g *g, const struct kt_node *mn, bool *opened)
{
	const struct kt_map *m = map_at(g, mn);
	*opened = false;
	if (inline_key(m) && !mn->a)
		return "0";
	const char *k = fresh(g, "k");
	if (inline_key(m)) {
		kt_emit(&g->b, "(let ((%s ", k);
		gen_int(g, mn->a);
		kt_emit(&g->b, ")) ");
	} else {
		kt_emit(&g->b, "(let ((%s (stack-buffer %u))) ", k, m->key_size);
		fill_key(g, m, mn->a, k);
	}
	*opened = true;
	return k;
}

static void close_key(struct g *g, bool opened)
{
	if (opened)
		kt_emit(&g->b, ")");
}

/* ---- integers ---- */

/* "(HEAD A [B [C]])" with the operands as integers. */
static void int_form(struct g *g, const char *head, const struct kt_node *a, const struct kt_node *b,
		     const struct kt_node *c)
{
	kt_emit(&g->b, "(%s", head);
	for (const struct kt_node *const *k = (const struct kt_node *const[]){ a, b, c, NULL }; *k; k++) {
		gen_int(g, *k);
	}
	kt_emit(&g->b, ")");
}

/* "(HEAD COND BLOCK [BLOCK])": if and while. */
static void cond_form(struct g *g, const char *head, const struct kt_node *cond, const struct kt_node *b1,
		      const struct kt_node *b2)
{
	kt_emit(&g->b, "(%s ", head);
	gen_int(g, cond);
	gen_block(g, b1);
	if (b2) {
		gen_block(g, b2);
	}
	kt_emit(&g->b, ")");
}

struct binop {
	int op;
	const char *lisp, *signed_lisp;
};
static const struct binop binops[] = {
	{ '+', "+", "+" }, { '-', "-", "-" }, { '*', "*", "*" }, { '/', "/", "/" }, { '%', "mod", "mod" },
	{ '&', "logand", "logand" }, { '|', "logior", "logior" }, { '^', "logxor", "logxor" },
	{ KT_OP_SHL, "<<", "<<" }, { KT_OP_SHR, ">>", ">>>" }, { KT_OP_EQ, "=", "=" }, { KT_OP_NE, "/=", "/=" },
	{ '<', "<", "s<" }, { '>', ">", "s>" }, { KT_OP_LE, "<=", "s<=" }, { KT_OP_GE, ">=", "s>=" },
	{ KT_OP_AND, "and", "and" }, { KT_OP_OR, "or", "or" },
};

static const struct { const char *name, *lisp; } builtin_code[] = {
	{ "pid", "(>> (get-current-pid-tgid) 32)" }, { "tid", "(logand (get-current-pid-tgid) #xffffffff)" },
	{ "uid", "(logand (get-current-uid-gid) #xffffffff)" }, { "gid", "(>> (get-current-uid-gid) 32)" },
	{ "username", "(logand (get-current-uid-gid) #xffffffff)" }, { "rand", "(get-prandom-u32)" },
	{ "nsecs", "(ktime-get-ns)" }, { "cpid", "(getmap " KT_START_MAP " 1)" }, { "elapsed", "(- (ktime-get-ns) (getmap " KT_START_MAP " 0))" },
	{ "cpu", "(get-smp-processor-id)" }, { "numaid", "(get-numa-node-id)" }, { "ctx", "(ctx-ptr)" }, { "cgroup", "(get-current-cgroup-id)" }, { "curtask", "(current-task)" }, { "retval", "(pt-regs-ret)" },
	{ "arg0", "(pt-regs-parm1)" }, { "arg1", "(pt-regs-parm2)" }, { "arg2", "(pt-regs-parm3)" },
	{ "arg3", "(pt-regs-parm4)" }, { "arg4", "(pt-regs-parm5)" }, { "arg5", "(pt-regs-parm6)" },
};

/* A string compared with a literal: the computed side into a buffer, then byte by byte up to
 * and including the literal's NUL (or the buffer's end). */
static void gen_strcmp(struct g *g, const struct kt_node *n)
{
	if (n->a->kind != KT_STR && n->b->kind != KT_STR) {
		kt_gen_strcmp2(g, n);
		return;
	}
	const struct kt_node *lit = n->b->kind == KT_STR ? n->b : n->a, *other = lit == n->b ? n->a : n->b;
	uint32_t size = other->type.size;
	const char *b = fresh(g, "s");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u))) ", b, (size + 7) & ~7u);
	gen_str(g, other, kt_atom(&g->b, b), size);
	kt_emit(&g->b, n->op == KT_OP_EQ ? "(and" : "(not (and");
	uint32_t upto = lit->strlen + 1 < size ? lit->strlen + 1 : size;
	if (lit->strlen + 1 > size && lit->strlen >= size)   /* longer than the buffer: never equal */
		kt_emit(&g->b, " 0");
	for (uint32_t i = 0; i < upto; i++)
		kt_emit(&g->b, " (= (load u8 %s %u) %u)", b, i, i < lit->strlen ? (unsigned char)lit->str[i] : 0);
	kt_emit(&g->b, n->op == KT_OP_EQ ? "))" : ")))");
}

/* A read through a kernel struct, `p->a.b` (KT_FIELD over KT_ARROW over a pointer): after
 * the "(HEAD ..." the caller opened, "(kernel-ptr T P) a b" (CORE_ARROW), "(kernel-ptr T P)
 * T a b" (CORE_STR: core-read-str names the type again) or "P (core-field-offset T a b)"
 * (CORE_OFFSET), for the caller to close: the fields down to the first `->`, the pointer
 * under it read first. */
enum core_mode { CORE_ARROW, CORE_STR, CORE_OFFSET };
static void gen_core_path(struct g *g, const struct kt_node *n, enum core_mode mode)
{
	const char *names[16];
	int k = 0;
	for (; k < 16; n = n->a) {
		names[k++] = n->name;
		if (n->kind == KT_ARROW)
			break;
	}
	const char *t = n->a->type.tname;
	if (mode != CORE_OFFSET)
		kt_emit(&g->b, "(kernel-ptr %s ", t);
	gen_int(g, n->a);
	kt_emit(&g->b, mode == CORE_OFFSET ? " (core-field-offset " : ")");
	if (mode != CORE_ARROW)
		kt_emit(&g->b, " %s", t);
	while (k)
		kt_emit(&g->b, " %s", names[--k]);
	if (mode == CORE_OFFSET)
		kt_emit(&g->b, ")");
}

static bool is_core(const struct kt_node *n)
{
	return (n->kind == KT_FIELD && n->name) || (n->kind == KT_ARROW && n->a->type.tname);
}

/* A USDT argument where the compiler left it: a register of pt_regs, memory at a register
 * plus a displacement (the process's memory), or a constant; narrowed to its size. */
static void gen_usdt_arg(struct g *g, const struct kt_node *n)
{
	struct kt_usdt_arg ua;
	char msg[512];
	if (kt_usdt_arg(g->t->usdt_args, (uint32_t)(n->name[3] - '0'), &ua, msg, sizeof(msg))) {
		gen_err(g, n->span, msg);
		kt_emit(&g->b, "0");
		return;
	}
	if (ua.kind == KT_UA_IMM) {
		kt_emit(&g->b, "%lld", (long long)ua.value);
		return;
	}
	kt_emit(&g->b, "(cast %c%u ", ua.is_signed ? 'i' : 'u', ua.size * 8);
	if (ua.kind == KT_UA_REG) {
		kt_emit(&g->b, "(ctx u64 %u))", ua.reg);
		return;
	}
	const char *b = fresh(g, "u");
	kt_emit(&g->b, "(let ((%s (stack-buffer 8))) (store u64 %s 0 0) (probe-read-user %s %u (+ (ctx u64 %u) %lld)) (load u%u %s 0)))",
		b, b, b, ua.size, ua.reg, (long long)ua.value, ua.size * 8, b);
}

/* The builtins read from the context that depend on the probe kind: a raw tracepoint's
 * arguments (u64s at ctx), a kretfunc's retval (after the arguments, typed by BTF). 1 if n
 * was one. */
static bool gen_ctx_builtin(struct g *g, const struct kt_node *n)
{
	if (g->t->kind == KP_RAWTRACEPOINT && !strncmp(n->name, "arg", 3)) {
		kt_emit(&g->b, "(load u64 ctx %d)", (n->name[3] - '0') * 8);
		return true;
	}
	if (g->t->kind == KP_USDT && !strncmp(n->name, "arg", 3)) {
		gen_usdt_arg(g, n);
		return true;
	}
	if (g->t->kind == KP_KRETFUNC && !strcmp(n->name, "retval")) {
		kt_emit(&g->b, "(retval)");
		return true;
	}
	return false;
}

/* A kernel struct's integer member: the CO-RE read, or for user memory the CO-RE offset
 * and a read of the process's memory. */
static bool int_core(struct g *g, const struct kt_node *n)
{
	if (n->type.nelems && n->type.pointee) {   /* an array of integers: its address */
		kt_emit(&g->b, "(+ ");
		gen_core_path(g, n, CORE_OFFSET);
		kt_emit(&g->b, ")");
		return true;
	}
	if (!n->type.user) {
		kt_emit(&g->b, "(->");
		gen_core_path(g, n, CORE_ARROW);
		kt_emit(&g->b, ")");
		return true;
	}
	const char *b = fresh(g, "u");
	kt_emit(&g->b, "(let ((%s (stack-buffer 8))) (probe-read-user %s %u (+ ", b, b, n->type.size);
	gen_core_path(g, n, CORE_OFFSET);
	kt_emit(&g->b, ")) ");
	if (n->type.is_signed && n->type.size < 8)
		kt_emit(&g->b, "(cast i%u (load u%u %s 0)))", n->type.size * 8, n->type.size * 8, b);
	else
		kt_emit(&g->b, "(load u%u %s 0))", n->type.size * 8, b);
	return true;
}

static bool int_literal(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "%lld", (long long)n->num);
	return true;
}

static bool int_elem(struct g *g, const struct kt_node *n)   /* a tuple's element */
{
	kt_gen_elem_int(g, n);
	return true;
}

static bool int_deref(struct g *g, const struct kt_node *n)
{
	kt_gen_deref(g, n);
	return true;
}

/* REUSE_STACKID: a new stack whose hash collides replaces the old one (bpftrace's choice
 * too) rather than giving no stack; a ustack carries its pid above the id, for the
 * symbolizer. */
static bool int_stack(struct g *g, const struct kt_node *n)
{
	if (n->type.kind == KTT_KSTACK)
		kt_emit(&g->b, "(get-stackid ctx " KT_STACKS " BPF_F_REUSE_STACKID)");
	else
		kt_emit(&g->b, "(logior (logand (get-stackid ctx " KT_STACKS " (logior BPF_F_USER_STACK BPF_F_REUSE_STACKID)) "
		       "#xffffffff) (logand (get-current-pid-tgid) #xffffffff00000000))");
	return true;
}

/* sargN: 8 bytes at sp + 8 * (N + 1), read from the probe's side. */
static bool int_sarg(struct g *g, const struct kt_node *n)
{
	const char *b = fresh(g, "sa");
	kt_emit(&g->b, "(let ((%s (stack-buffer 8))) (store u64 %s 0 0) (probe-read-%s %s 8 (+ (ctx u64 152) %d)) (load u64 %s 0))",
		b, b, g->t->kind == KP_UPROBE ? "user" : "kernel", b, 8 * (n->name[4] - '0' + 1), b);
	return true;
}

static bool int_builtin(struct g *g, const struct kt_node *n)
{
	if (!strcmp(n->name, "probe")) {
		kt_emit(&g->b, "%u", g->target);
		return true;
	}
	if (n->type.kind == KTT_KSTACK || n->type.kind == KTT_USTACK)
		return int_stack(g, n);
	if (gen_ctx_builtin(g, n))
		return true;
	if (!strncmp(n->name, "sarg", 4))
		return int_sarg(g, n);
	for (size_t i = 0; i < sizeof(builtin_code) / sizeof(builtin_code[0]); i++)
		if (!strcmp(n->name, builtin_code[i].name)) {
			kt_emit_fixed(&g->b, builtin_code[i].lisp);
			return true;
		}
	return false;
}

static bool int_var(struct g *g, const struct kt_node *n)
{
	kt_emit(&g->b, "v%d", n->var_id);
	return true;
}

static bool int_call(struct g *g, const struct kt_node *n)
{
	const struct kt_fn *fn = kt_fn_find(n->name);
	if (!fn || !fn->value)
		return false;
	fn->value(g, n);
	return true;
}

static bool int_map(struct g *g, const struct kt_node *n)
{
	bool opened;
	const char *k = open_key(g, n, &opened);
	if (g->s->helper_checks > 1)   /* -kk: a key not there is reported (gen_check.c) */
		kt_check_lookup(g, n->map_id, k, n->span);
	else
		kt_emit(&g->b, "(getmap m%d %s)", n->map_id, k);
	close_key(g, opened);
	return true;
}

static bool int_binop(struct g *g, const struct kt_node *n)
{
	if (n->a->type.kind == KTT_STR) {
		gen_strcmp(g, n);
		return true;
	}
	if (n->a->type.kind == KTT_BUF) {
		kt_buf_compare(g, n);
		return true;
	}
	if (n->num) {   /* p + i, p - i, i + p: the integer scaled by the element's size (sema) */
		bool left = n->a->type.pointee || n->a->type.tname;
		kt_emit(&g->b, "(%c ", n->op);
		if (!left) {
			kt_emit(&g->b, "(* %u ", (unsigned)n->num);
			gen_int(g, n->a);
			kt_emit(&g->b, ") ");
			gen_int(g, n->b);
			kt_emit(&g->b, ")");
			return true;
		}
		gen_int(g, n->a);
		kt_emit(&g->b, " (* %u ", (unsigned)n->num);
		gen_int(g, n->b);
		kt_emit(&g->b, "))");
		return true;
	}
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (binops[i].op == n->op) {
			bool sg = n->a->type.is_signed && n->b->type.is_signed;
			int_form(g, sg ? binops[i].signed_lisp : binops[i].lisp, n->a, n->b, NULL);
			return true;
		}
	return false;
}

static bool int_unop(struct g *g, const struct kt_node *n)
{
	if (n->op == '*')
		kt_gen_deref(g, n);
	else
		int_form(g, n->op == '!' ? "not" : n->op == '~' ? "lognot" : "-", n->a, NULL, NULL);
	return true;
}

static bool int_ternary(struct g *g, const struct kt_node *n)
{
	int_form(g, "if", n->a, n->b, n->c);
	return true;
}

static bool int_cast(struct g *g, const struct kt_node *n)
{
	if (n->type.tname) {   /* (struct X *)p: the same number, typed for -> */
		gen_int(g, n->a);
		return true;
	}
	kt_emit(&g->b, "(cast %c%u ", n->type.is_signed ? 'i' : 'u', n->type.size * 8);
	gen_int(g, n->a);
	kt_emit(&g->b, ")");
	return true;
}

/* args->NAME: a kfunc's argument (sema's index) or a tracepoint's field. */
static bool int_arrow(struct g *g, const struct kt_node *n)
{
	struct kl_tp_field f;
	char msg[1024];
	if (g->t->kind == KP_KFUNC || g->t->kind == KP_KRETFUNC) {
		kt_emit(&g->b, "(arg %lld)", (long long)n->num);
		return true;
	}
	if (kt_tp_field(g->s, g->a, g->t->event, n->name, &f, msg, sizeof(msg))) {
		gen_err(g, n->span, msg);
		kt_emit(&g->b, "0");
		return true;
	}
	if (f.count)   /* an array: the address of its first element, for [i] */
		kt_emit(&g->b, "(+ (ctx-ptr) %u)", f.offset);
	else if (f.is_signed && f.size < 8)
		kt_emit(&g->b, "(cast i%u (ctx u%u %u))", f.size * 8, f.size * 8, f.offset);
	else
		kt_emit(&g->b, "(ctx u%u %u)", f.size * 8, f.offset);
	return true;
}

static bool int_incdec(struct g *g, const struct kt_node *n)
{
	bool post = n->op > 0;
	int op = post ? n->op : -n->op;
	const char *how = op == KT_OP_INC ? "incf" : "decf", *undo = op == KT_OP_INC ? "-" : "+";
	/* a pointer moves by its element's bytes (sema's n->num); an integer by 1 */
	unsigned step = n->num > 1 ? (unsigned)n->num : 1;
	if (n->a->kind == KT_VAR) {
		if (step > 1)
			kt_emit(&g->b, "(progn (%s v%d %u) ", how, n->a->var_id, step);
		else
			kt_emit(&g->b, "(progn (%s v%d) ", how, n->a->var_id);
		if (post)
			kt_emit(&g->b, "(%s v%d %u))", undo, n->a->var_id, step);
		else
			kt_emit(&g->b, "v%d)", n->a->var_id);
		return true;
	}
	bool opened;
	const char *k = open_key(g, n->a, &opened);
	if (step > 1)
		kt_emit(&g->b, "(progn (%s (getmap m%d %s) %u) ", how, n->a->map_id, k, step);
	else
		kt_emit(&g->b, "(progn (%s (getmap m%d %s)) ", how, n->a->map_id, k);
	if (post)
		kt_emit(&g->b, "(%s (getmap m%d %s) %u))", undo, n->a->map_id, k, step);
	else
		kt_emit(&g->b, "(getmap m%d %s))", n->a->map_id, k);
	close_key(g, opened);
	return true;
}

/* How each kind of expression is an integer: false when it cannot be (yet). */
static bool (*const int_kinds[])(struct g *g, const struct kt_node *n) = {
	[KT_INT] = int_literal, [KT_FIELD] = int_elem, [KT_INDEX] = int_deref, [KT_BUILTIN] = int_builtin,
	[KT_VAR] = int_var, [KT_CALL] = int_call, [KT_MAP] = int_map, [KT_BINOP] = int_binop, [KT_UNOP] = int_unop,
	[KT_TERNARY] = int_ternary, [KT_CAST] = int_cast, [KT_ARROW] = int_arrow, [KT_INCDEC] = int_incdec,
};

static void gen_int_code(struct g *g, const struct kt_node *n)
{
	if (kt_gen_cs_int(g, n))   /* a member of a script's struct */
		return;
	if (is_core(n) ? int_core(g, n)
	    : (size_t)n->kind < sizeof(int_kinds) / sizeof(int_kinds[0]) && int_kinds[n->kind] && int_kinds[n->kind](g, n))
		return;
	gen_err(g, n->span, "kiln trace cannot compute this expression as an integer yet");
	kt_emit(&g->b, "0");
}

static void gen_int(struct g *g, const struct kt_node *n)
{
	struct kl_span prev = enter(g, n->span);
	gen_int_code(g, n);
	leave(g, prev);
}

/* ---- strings, written at dest (an address expression) in at most size bytes ---- */

static void gen_str_code(struct g *g, const struct kt_node *n, const struct kl_node *dest, uint32_t size)
{
	const char *d = fresh(g, "d");
	kt_emit(&g->b, "(let ((%s %p)) ", d, dest);
	if (kt_gen_cs_str(g, n, d, size)) {   /* a char array of a script's struct */
		kt_emit(&g->b, ")");
		return;
	}
	if (is_core(n) && n->type.user) {   /* ... in user memory, at its CO-RE offset */
		kt_emit(&g->b, "(probe-read-user-str %s %u (+ ", d, size);
		gen_core_path(g, n, CORE_OFFSET);
		kt_emit(&g->b, ")))");
		return;
	}
	if (is_core(n)) {   /* a char array of a kernel struct */
		kt_emit(&g->b, "(core-read-str %s %u ", d, size);
		gen_core_path(g, n, CORE_STR);
		kt_emit(&g->b, "))");
		return;
	}
	switch (n->kind) {
	case KT_STR: {
		uint32_t len = n->strlen + 1 < size ? n->strlen + 1 : size;
		for (uint32_t i = 0; i < len; i++)
			kt_emit(&g->b, "(store u8 %s %u %u)", d, i, i < n->strlen && i + 1 < size ? (unsigned char)n->str[i] : 0);
		break;
	}
	case KT_BUILTIN:   /* comm, func (the name of this program's function) */
		if (!strcmp(n->name, "func")) {
			const char *f = g->t->event;
			for (uint32_t i = 0; i < size; i++) {
				kt_emit(&g->b, "(store u8 %s %u %u)", d, i, i + 1 < size ? (unsigned char)f[i] : 0);
				if (!f[i])
					break;
			}
			break;
		}
		kt_emit(&g->b, "(get-current-comm %s %u)", d, size < 16 ? size : 16);
		break;
	case KT_CALL: {
		const struct kt_fn *fn = kt_fn_find(n->name);
		if (fn && fn->str)
			fn->str(g, n, d, size);
		else
			gen_err(g, n->span, "kiln trace cannot compute this string yet");
		break;
	}
	case KT_VAR: {
		uint32_t want = n->type.size < size ? n->type.size : size;
		kt_emit(&g->b, "(memcpy %s 0 v%d 0 %u)", d, n->var_id, want);
		break;
	}
	case KT_MAP: {
		bool opened;
		const char *k = open_key(g, n, &opened);
		const char *p = fresh(g, "p");
		uint32_t want = n->type.size < size ? n->type.size : size;
		kt_emit(&g->b, "(let ((%s (map-lookup m%d %s))) (if %s (memcpy %s 0 %s 0 %u) (store u8 %s 0 0)))", p,
			n->map_id, k, p, d, p, want, d);
		close_key(g, opened);
		break;
	}
	case KT_ARROW: {
		struct kl_tp_field f;
		char msg[1024];
		if (kt_tp_field(g->s, g->a, g->t->event, n->name, &f, msg, sizeof(msg))) {
			gen_err(g, n->span, msg);
			break;
		}
		if (f.data_loc) {   /* the bytes are further in the record: offset in the low 16 bits */
			kt_emit(&g->b, "(probe-read-kernel-str %s %u (+ (ctx-ptr) (logand (ctx u32 %u) #xffff)))", d, size, f.offset);
			break;
		}
		uint32_t want = f.size < size ? f.size : size;
		kt_emit(&g->b, "(probe-read-kernel %s %u (+ (ctx-ptr) %u))", d, want, f.offset);
		if (want == size)
			kt_emit(&g->b, "(store u8 %s %u 0)", d, size - 1);
		break;
	}
	case KT_FIELD:   /* a tuple's element */
		kt_gen_elem_str(g, n, d, size);
		break;
	case KT_TERNARY:
		kt_emit(&g->b, "(if ");
		gen_int(g, n->a);
		gen_str(g, n->b, kt_atom(&g->b, d), size);
		gen_str(g, n->c, kt_atom(&g->b, d), size);
		kt_emit(&g->b, ")");
		break;
	default:
		gen_err(g, n->span, "kiln trace cannot compute this string yet");
	}
	kt_emit(&g->b, ")");
}

static void gen_str(struct g *g, const struct kt_node *n, const struct kl_node *dest, uint32_t size)
{
	struct kl_span prev = enter(g, n->span);
	gen_str_code(g, n, dest, size);
	leave(g, prev);
}

/* ---- statements ---- */

/* One ring buffer serves every CPU, so two events at once can interleave their records
 * (naptime's time() and printf()): each record says its CPU, and the reader writes the text of
 * what it reads at once CPU by CPU, as bpftrace drains its per-CPU buffers. */
struct kl_node *kt_rec_id(struct g *g, enum kt_ev kind, uint32_t index)
{
	if (index > 0xffff)
		kt_gen_err(g, (struct kl_span){ 0 }, "more than 65536 printf sites or maps");
	return kt_form(&g->b, "(logior %llu (<< (get-smp-processor-id) 16))", ((unsigned long long)kind << 32) | index);
}

/* A control record: exit, print(@m), clear(@m), zero(@m). */
void kt_gen_ctl(struct g *g, enum kt_ev kind, uint32_t index)
{
	const char *e = fresh(g, "e");
	kt_emit(&g->b, "(with-event (%s kt-ctl " KT_RINGBUF ") (setf (kt-ctl-id %s) %p))", e, e, kt_rec_id(g, kind, index));
}

static void bucket(struct g *g, const struct kt_map *m, const char *v)
{
	if (m->kind == KM_HIST) {
		kt_emit(&g->b, "(if (s< %s 0) 0 (if (= %s 0) 1 (+ (log2 %s) 2)))", v, v, v);
		return;
	}
	long long nb = (long long)((m->lmax - m->lmin) / m->lstep);
	kt_emit(&g->b, "(if (s< %s %lld) 0 (if (s>= %s %lld) %lld (+ (/ (- %s %lld) %lld) 1)))", v, (long long)m->lmin,
		v, (long long)m->lmax, nb + 1, v, (long long)m->lmin, (long long)m->lstep);
}

/* Opens "(let ((NAME EXPR)) ": the value is computed once, before the key. */
static void bind_int(struct g *g, const char *name, const struct kt_node *e)
{
	kt_emit(&g->b, "(let ((%s ", name);
	gen_int(g, e);
	kt_emit(&g->b, ")) ");
}

static void gen_assign_map(struct g *g, const struct kt_node *s)
{
	const struct kt_node *mn = s->a, *v = s->b;
	const struct kt_map *m = map_at(g, mn);
	bool opened;
	const char *k;
	const char *val = fresh(g, "x");
	switch (m->kind) {
	case KM_INT:
		k = open_key(g, mn, &opened);
		kt_emit(&g->b, "(setf (getmap m%d %s) ", mn->map_id, k);
		gen_int(g, v);
		kt_emit(&g->b, ")");
		break;
	case KM_STR: case KM_TUPLE:
		k = open_key(g, mn, &opened);
		kt_emit(&g->b, "(let ((%s " KT_STR_VALUE ")) ", val);
		if (m->kind == KM_STR)
			gen_str(g, v, kt_atom(&g->b, val), m->value_size);
		else
			kt_gen_tuple(g, v, kt_atom(&g->b, val), &m->value);
		kt_emit(&g->b, "(map-update m%d %s %s 0))", mn->map_id, k, val);
		break;
	case KM_COUNT:
		k = open_key(g, mn, &opened);
		kt_emit(&g->b, "(incf (getmap m%d %s))", mn->map_id, k);
		break;
	case KM_SUM:
		k = open_key(g, mn, &opened);
		kt_emit(&g->b, "(incf (getmap m%d %s) ", mn->map_id, k);
		gen_int(g, v->kids[0]);
		kt_emit(&g->b, ")");
		break;
	case KM_MIN: case KM_MAX: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		const char *p = fresh(g, "p");
		kt_emit(&g->b, "(let ((%s (map-lookup m%d %s))) (if %s (when (%s %s (load u64 %s 0)) (store u64 %s 0 %s)) "
			      "(map-update m%d %s %s 0)))", p, mn->map_id, k, p, m->kind == KM_MIN ? "s<" : "s>", val, p, p,
			val, mn->map_id, k, val);
		close_key(g, opened);
		kt_emit(&g->b, ")");
		return;
	}
	case KM_AVG: case KM_STATS: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		const char *p = fresh(g, "p"), *b = fresh(g, "b");
		kt_emit(&g->b, "(let ((%s (map-lookup m%d %s))) (if %s (progn (atomic-add %s 0 1) (atomic-add %s 8 %s)) "
			      "(let ((%s (stack-buffer 16))) (store u64 %s 0 1) (store u64 %s 8 %s) (map-update m%d %s %s 0))))",
			p, mn->map_id, k, p, p, p, val, b, b, b, val, mn->map_id, k, b);
		close_key(g, opened);
		kt_emit(&g->b, ")");
		return;
	}
	case KM_HIST: case KM_LHIST: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		kt_emit(&g->b, "(store u64 %s %u ", k, m->key_size - 8);
		bucket(g, m, val);
		kt_emit(&g->b, ") (incf (getmap m%d %s))", mn->map_id, k);
		close_key(g, opened);
		kt_emit(&g->b, ")");
		return;
	}
	default:
		gen_err(g, s->span, "kiln trace cannot store this value yet");
		return;
	}
	close_key(g, opened);
}

static void gen_call_stmt(struct g *g, const struct kt_node *n)
{
	const struct kt_fn *fn = kt_fn_find(n->name);
	if (fn && fn->stmt)
		fn->stmt(g, n);
	else
		gen_int(g, n);
}

static void gen_stmt_code(struct g *g, const struct kt_node *s)
{
	switch (s->kind) {
	case KT_EXPRSTMT:
		if (s->a->kind == KT_CALL) {
			gen_call_stmt(g, s->a);
		} else if (s->a->kind == KT_TERNARY && s->a->type.kind == KTT_NONE) {   /* c ? call() : call() */
			kt_emit(&g->b, "(if ");
			gen_int(g, s->a->a);
			kt_emit(&g->b, " (progn ");
			gen_call_stmt(g, s->a->b);
			kt_emit(&g->b, " 0) (progn ");
			gen_call_stmt(g, s->a->c);
			kt_emit(&g->b, " 0))");
		} else if (s->a->type.kind == KTT_INT || s->a->type.kind == KTT_PROBE || kt_is_symbolic(&s->a->type))
			gen_int(g, s->a);
		break;
	case KT_ASSIGN:
		if (s->a->kind == KT_MAP) {
			gen_assign_map(g, s);
		} else if (kt_is_bytes(&s->a->type)) {
			gen_str(g, s->b, kt_form(&g->b, "v%d", s->a->var_id), s->a->type.size);
		} else if (s->a->type.kind == KTT_TUPLE) {
			kt_gen_tuple_var(g, s);
		} else {
			kt_emit(&g->b, "(setf v%d ", s->a->var_id);
			gen_int(g, s->b);
			kt_emit(&g->b, ")");
		}
		break;
	case KT_FOR:   /* gen_loop.c */
		kt_gen_for(g, s);
		break;
	case KT_BLOCK:   /* a macro's body (macro.c) */
		gen_block(g, s);
		break;
	case KT_LET:   /* let $x;: 0 (strings start empty) */
		if (g->s->vars[g->t->probe_index][s->a->var_id].type.kind == KTT_INT)
			kt_emit(&g->b, "(setf v%d 0)", s->a->var_id);
		break;
	case KT_IF:
		cond_form(g, "if", s->a, s->b, s->c);
		break;
	case KT_UNROLL: {   /* in a while, a break or continue in it skips its later rounds too */
		bool guard = g->loop >= 0 && jumps(s->b);
		kt_emit(&g->b, "(dotimes (%s %lld) ", fresh(g, "i"), (long long)s->a->num);
		if (guard)
			kt_emit(&g->b, "(if (or b%d c%d) 0 ", g->loop, g->loop);
		gen_block(g, s->b);
		kt_emit(&g->b, guard ? "))" : ")");
		break;
	}
	case KT_WHILE: {
		int outer = g->loop;
		g->loop = (int)g->tmp++;
		kt_emit(&g->b, "(let ((b%d 0) (c%d 0)) (loop :while (and (= b%d 0) ", g->loop, g->loop, g->loop);
		gen_int(g, s->a);
		kt_emit(&g->b, ") (setf c%d 0) ", g->loop);
		gen_block(g, s->b);
		kt_emit(&g->b, "))");
		g->loop = outer;
		break;
	}
	case KT_BREAK: case KT_CONTINUE:
		kt_emit(&g->b, "(setf %c%d 1)", s->kind == KT_BREAK ? 'b' : 'c', g->loop);
		break;
	case KT_RETURN:
		kt_emit(&g->b, "(return 0)");
		break;
	default:
		gen_err(g, s->span, "kiln trace cannot compile this statement yet");
	}
}

/* Each statement's and expression's code carries its script span (gen_build.h). */
static void gen_stmt(struct g *g, const struct kt_node *s)
{
	struct kl_span prev = enter(g, s->span);
	gen_stmt_code(g, s);
	leave(g, prev);
}

/* Whether s may break or continue the innermost while (not one nested in it). */
static bool jumps(const struct kt_node *s)
{
	if (!s || s->kind == KT_WHILE)
		return false;
	if (s->kind == KT_BREAK || s->kind == KT_CONTINUE)
		return true;
	if (s->kind != KT_IF && s->kind != KT_UNROLL && s->kind != KT_BLOCK)
		return false;
	for (uint32_t i = 0; i < s->nkids; i++)
		if (jumps(s->kids[i]))
			return true;
	return jumps(s->b) || jumps(s->c);
}

/* In a while, the statements after one that may break or continue run only when it did
 * not (kiln's loop has no break: the flags say it). */
static void gen_block(struct g *g, const struct kt_node *b)
{
	kt_emit(&g->b, "(progn");
	uint32_t guards = 0;
	for (uint32_t i = 0; i < b->nkids; i++) {
		gen_stmt(g, b->kids[i]);
		if (g->loop >= 0 && i + 1 < b->nkids && jumps(b->kids[i])) {
			kt_emit(&g->b, " (if (or b%d c%d) 0 (progn", g->loop, g->loop);
			guards++;
		}
	}
	while (guards--)
		kt_emit(&g->b, " 0))");
	kt_emit(&g->b, " 0)");
}

/* ---- for the files of functions (gen_priv.h) ---- */

void kt_gen_int(struct g *g, const struct kt_node *n)
{
	gen_int(g, n);
}

void kt_gen_str(struct g *g, const struct kt_node *n, const struct kl_node *dest, uint32_t size)
{
	gen_str(g, n, dest, size);
}

const char *kt_fresh(struct g *g, const char *prefix)
{
	return fresh(g, prefix);
}

int kt_gen_err(struct g *g, struct kl_span at, const char *msg)
{
	return gen_err(g, at, msg);
}

const char *kt_open_key(struct g *g, const struct kt_node *mn, bool *opened)
{
	return open_key(g, mn, opened);
}

void kt_close_key(struct g *g, bool opened)
{
	close_key(g, opened);
}

bool kt_gen_core_into(struct g *g, const struct kt_node *n, const struct kl_node *dest)
{
	if (!is_core(n) || kt_gen_cs_member(g, n))
		return false;
	if (n->type.user) {   /* the bytes of an array in user memory, at its CO-RE offset */
		kt_emit(&g->b, "(probe-read-user %p %u (+ ", dest, n->type.size);
		gen_core_path(g, n, CORE_OFFSET);
		kt_emit(&g->b, "))");
		return true;
	}
	kt_emit(&g->b, "(core-read-into %p ", dest);
	gen_core_path(g, n, CORE_STR);
	kt_emit(&g->b, ")");
	return true;
}

void kt_gen_block(struct g *g, const struct kt_node *b)
{
	gen_block(g, b);
}

struct kl_span kt_gen_enter(struct g *g, struct kl_span at)
{
	return enter(g, at);
}

void kt_gen_note(struct g *g, const char *text)
{
	note(g, text);
}
