/* gen.c — kiln trace's code generator: the typed tree as kiln Lisp (gen.h). Integers are
 * kiln's 64-bit values; strings are written where they go (a record field, a map key
 * buffer, a $variable's stack buffer) by gen_str, so no string is ever a value. The code is
 * written as text, from readable templates, with a mark wherever a probe, statement or
 * expression begins and ends; gen_spans.c reads it back into nodes that carry those script
 * spans, which the compiler is handed (the text is what -d prints). */
#define _GNU_SOURCE
#include "trace/gen_priv.h"
#include "trace/funcs.h"
#include "trace/usdt.h"
#include <kiln/stack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_int(struct g *g, const struct kt_node *n);
static void gen_str(struct g *g, const struct kt_node *n, const char *dest, uint32_t size);
static void gen_block(struct g *g, const struct kt_node *b);
static bool jumps(const struct kt_node *s);

static const char *fresh(struct g *g, const char *prefix)
{
	return kl_arena_printf(g->a, "%s%u", prefix, g->tmp++);
}


/* From here on the code written is the script's construct at `at`: the span it replaces. */
static struct kl_span enter(struct g *g, struct kl_span at)
{
	return kt_span_enter(g->a, &g->marks, (size_t)ftello(g->o), at);
}

static void leave(struct g *g, struct kl_span prev)
{
	kt_span_leave(g->a, &g->marks, (size_t)ftello(g->o), prev);
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
			gen_str(g, elems[i], kl_arena_printf(g->a, "(+ %s %u)", kb, off), t->size);
		} else {
			fprintf(g->o, "(store u64 %s %u ", kb, off);
			gen_int(g, elems[i]);
			fprintf(g->o, ")");
		}
		off += kt_type_size(t);
	}
}

/* Opens "(let ((K ...)) fill" for a buffered key and returns K, or returns the inline
 * integer expression's text (and opens nothing). *opened tells which. For hist maps the
 * buffer has room for the bucket after the user key. */
static const char *open_key(struct g *g, const struct kt_node *mn, bool *opened)
{
	const struct kt_map *m = map_at(g, mn);
	*opened = false;
	if (inline_key(m) && !mn->a)
		return "0";
	const char *k = fresh(g, "k");
	if (inline_key(m)) {
		fprintf(g->o, "(let ((%s ", k);
		gen_int(g, mn->a);
		fprintf(g->o, ")) ");
	} else {
		fprintf(g->o, "(let ((%s (stack-buffer %u))) ", k, m->key_size);
		fill_key(g, m, mn->a, k);
	}
	*opened = true;
	return k;
}

static void close_key(struct g *g, bool opened)
{
	if (opened)
		fprintf(g->o, ")");
}

/* ---- integers ---- */

/* "(HEAD A [B [C]])" with the operands as integers. */
static void int_form(struct g *g, const char *head, const struct kt_node *a, const struct kt_node *b,
		     const struct kt_node *c)
{
	fprintf(g->o, "(%s", head);
	for (const struct kt_node *const *k = (const struct kt_node *const[]){ a, b, c, NULL }; *k; k++) {
		fputc(' ', g->o);
		gen_int(g, *k);
	}
	fputc(')', g->o);
}

/* "(HEAD COND BLOCK [BLOCK])": if and while. */
static void cond_form(struct g *g, const char *head, const struct kt_node *cond, const struct kt_node *b1,
		      const struct kt_node *b2)
{
	fprintf(g->o, "(%s ", head);
	gen_int(g, cond);
	fputc(' ', g->o);
	gen_block(g, b1);
	if (b2) {
		fputc(' ', g->o);
		gen_block(g, b2);
	}
	fputc(')', g->o);
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
	{ "cpu", "(get-smp-processor-id)" }, { "cgroup", "(get-current-cgroup-id)" }, { "curtask", "(current-task)" }, { "retval", "(pt-regs-ret)" },
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
	fprintf(g->o, "(let ((%s (stack-buffer %u))) ", b, (size + 7) & ~7u);
	gen_str(g, other, b, size);
	fprintf(g->o, "(%s", n->op == KT_OP_EQ ? "and" : "not (and");
	uint32_t upto = lit->strlen + 1 < size ? lit->strlen + 1 : size;
	if (lit->strlen + 1 > size && lit->strlen >= size)   /* longer than the buffer: never equal */
		fprintf(g->o, " 0");
	for (uint32_t i = 0; i < upto; i++)
		fprintf(g->o, " (= (load u8 %s %u) %u)", b, i, i < lit->strlen ? (unsigned char)lit->str[i] : 0);
	fprintf(g->o, "%s))", n->op == KT_OP_EQ ? "" : ")");
}

/* A read through a kernel struct, `p->a.b` (KT_FIELD over KT_ARROW over a pointer): opens
 * "(HEAD (kernel-ptr T P) a b" (CORE_ARROW), "(HEAD (kernel-ptr T P) T a b" (CORE_STR:
 * core-read-str names the type again) or "(HEAD P (core-field-offset T a b)" (CORE_OFFSET)
 * for the caller to close: the fields down to the first `->`, the pointer under it read first. */
enum core_mode { CORE_ARROW, CORE_STR, CORE_OFFSET };
static void gen_core_path(struct g *g, const struct kt_node *n, const char *head, enum core_mode mode)
{
	const char *names[16];
	int k = 0;
	for (; k < 16; n = n->a) {
		names[k++] = n->name;
		if (n->kind == KT_ARROW)
			break;
	}
	const char *t = n->a->type.tname;
	if (mode == CORE_OFFSET)
		fprintf(g->o, "(%s ", head);
	else
		fprintf(g->o, "(%s (kernel-ptr %s ", head, t);
	gen_int(g, n->a);
	fputs(mode == CORE_OFFSET ? " (core-field-offset " : ")", g->o);
	if (mode != CORE_ARROW)
		fprintf(g->o, " %s", t);
	while (k)
		fprintf(g->o, " %s", names[--k]);
	if (mode == CORE_OFFSET)
		fputs(")", g->o);
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
		fputs("0", g->o);
		return;
	}
	if (ua.kind == KT_UA_IMM) {
		fprintf(g->o, "%lld", (long long)ua.value);
		return;
	}
	fprintf(g->o, "(cast %c%u ", ua.is_signed ? 'i' : 'u', ua.size * 8);
	if (ua.kind == KT_UA_REG) {
		fprintf(g->o, "(ctx u64 %u))", ua.reg);
		return;
	}
	const char *b = fresh(g, "u");
	fprintf(g->o, "(let ((%s (stack-buffer 8))) (store u64 %s 0 0) (probe-read-user %s %u (+ (ctx u64 %u) %lld)) (load u%u %s 0)))",
		b, b, b, ua.size, ua.reg, (long long)ua.value, ua.size * 8, b);
}

/* The builtins read from the context that depend on the probe kind: a raw tracepoint's
 * arguments (u64s at ctx), a kretfunc's retval (after the arguments, typed by BTF). 1 if n
 * was one. */
static bool gen_ctx_builtin(struct g *g, const struct kt_node *n)
{
	if (g->t->kind == KP_RAWTRACEPOINT && !strncmp(n->name, "arg", 3)) {
		fprintf(g->o, "(load u64 ctx %d)", (n->name[3] - '0') * 8);
		return true;
	}
	if (g->t->kind == KP_USDT && !strncmp(n->name, "arg", 3)) {
		gen_usdt_arg(g, n);
		return true;
	}
	if (g->t->kind == KP_KRETFUNC && !strcmp(n->name, "retval")) {
		fputs("(retval)", g->o);
		return true;
	}
	return false;
}

static void gen_int_code(struct g *g, const struct kt_node *n)
{
	if (is_core(n) && n->type.user) {   /* the CO-RE offset, then a read of user memory */
		const char *b = fresh(g, "u");
		fprintf(g->o, "(let ((%s (stack-buffer 8))) ", b);
		gen_core_path(g, n, kl_arena_printf(g->a, "probe-read-user %s %u (+", b, n->type.size), CORE_OFFSET);
		fprintf(g->o, ")) ");
		if (n->type.is_signed && n->type.size < 8)
			fprintf(g->o, "(cast i%u (load u%u %s 0)))", n->type.size * 8, n->type.size * 8, b);
		else
			fprintf(g->o, "(load u%u %s 0))", n->type.size * 8, b);
		return;
	}
	if (is_core(n)) {
		gen_core_path(g, n, "->", CORE_ARROW);
		fputs(")", g->o);
		return;
	}
	switch (n->kind) {
	case KT_INT:
		fprintf(g->o, "%lld", (long long)n->num);
		return;
	case KT_FIELD:   /* a tuple's element */
		kt_gen_elem_int(g, n);
		return;
	case KT_INDEX:
		kt_gen_deref(g, n);
		return;
	case KT_BUILTIN:
		if (!strcmp(n->name, "probe")) {
			fprintf(g->o, "%u", g->target);
			return;
		}
		/* REUSE_STACKID: a new stack whose hash collides replaces the old one (bpftrace's
		 * choice too) rather than giving no stack; a ustack carries its pid above the id,
		 * for the symbolizer */
		if (n->type.kind == KTT_KSTACK) {
			fputs("(get-stackid ctx " KT_STACKS " BPF_F_REUSE_STACKID)", g->o);
			return;
		}
		if (n->type.kind == KTT_USTACK) {
			fputs("(logior (logand (get-stackid ctx " KT_STACKS " (logior BPF_F_USER_STACK BPF_F_REUSE_STACKID)) "
			      "#xffffffff) (logand (get-current-pid-tgid) #xffffffff00000000))", g->o);
			return;
		}
		if (gen_ctx_builtin(g, n))
			return;
		if (!strncmp(n->name, "sarg", 4)) {   /* sargN: 8 bytes at sp + 8 * (N + 1), read from the probe's side */
			const char *b = fresh(g, "sa");
			fprintf(g->o, "(let ((%s (stack-buffer 8))) (store u64 %s 0 0) (probe-read-%s %s 8 (+ (ctx u64 152) %d)) (load u64 %s 0))",
				b, b, g->t->kind == KP_UPROBE ? "user" : "kernel", b, 8 * (n->name[4] - '0' + 1), b);
			return;
		}
		for (size_t i = 0; i < sizeof(builtin_code) / sizeof(builtin_code[0]); i++)
			if (!strcmp(n->name, builtin_code[i].name)) {
				fputs(builtin_code[i].lisp, g->o);
				return;
			}
		break;
	case KT_VAR:
		fprintf(g->o, "v%d", n->var_id);
		return;
	case KT_CALL: {
		const struct kt_fn *fn = kt_fn_find(n->name);
		if (fn && fn->value) {
			fn->value(g, n);
			return;
		}
		break;
	}
	case KT_MAP: {
		bool opened;
		const char *k = open_key(g, n, &opened);
		fprintf(g->o, "(getmap m%d %s)", n->map_id, k);
		close_key(g, opened);
		return;
	}
	case KT_BINOP:
		if (n->a->type.kind == KTT_STR) {
			gen_strcmp(g, n);
			return;
		}
		if (n->a->type.kind == KTT_BUF) {
			kt_buf_compare(g, n);
			return;
		}
		if (n->type.pointee) {   /* p + i, p - i: scaled by the pointee's size */
			fprintf(g->o, "(%c ", n->op);
			gen_int(g, n->a);
			fprintf(g->o, " (* %u ", n->type.pointee->size);
			gen_int(g, n->b);
			fputs("))", g->o);
			return;
		}
		for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
			if (binops[i].op == n->op) {
				bool sg = n->a->type.is_signed && n->b->type.is_signed;
				int_form(g, sg ? binops[i].signed_lisp : binops[i].lisp, n->a, n->b, NULL);
				return;
			}
		break;
	case KT_UNOP:
		if (n->op == '*') {
			kt_gen_deref(g, n);
			return;
		}
		int_form(g, n->op == '!' ? "not" : n->op == '~' ? "lognot" : "-", n->a, NULL, NULL);
		return;
	case KT_TERNARY:
		int_form(g, "if", n->a, n->b, n->c);
		return;
	case KT_CAST:
		if (n->type.tname) {   /* (struct X *)p: the same number, typed for -> */
			gen_int(g, n->a);
			return;
		}
		int_form(g, kl_arena_printf(g->a, "cast %c%u", n->type.is_signed ? 'i' : 'u', n->type.size * 8), n->a, NULL,
			 NULL);
		return;
	case KT_ARROW: {
		struct kl_tp_field f;
		char msg[1024];
		if (g->t->kind == KP_KFUNC || g->t->kind == KP_KRETFUNC) {   /* args->NAME: sema's index */
			fprintf(g->o, "(arg %lld)", (long long)n->num);
			return;
		}
		if (kt_tp_field(g->s, g->a, g->t->event, n->name, &f, msg, sizeof(msg))) {
			gen_err(g, n->span, msg);
			fputs("0", g->o);
			return;
		}
		if (f.count)   /* an array: the address of its first element, for [i] */
			fprintf(g->o, "(+ (ctx-ptr) %u)", f.offset);
		else if (f.is_signed && f.size < 8)
			fprintf(g->o, "(cast i%u (ctx u%u %u))", f.size * 8, f.size * 8, f.offset);
		else
			fprintf(g->o, "(ctx u%u %u)", f.size * 8, f.offset);
		return;
	}
	case KT_INCDEC: {
		bool post = n->op > 0;
		int op = post ? n->op : -n->op;
		const char *how = op == KT_OP_INC ? "incf" : "decf";
		if (n->a->kind == KT_VAR) {
			fprintf(g->o, "(progn (%s v%d) %sv%d%s)", how, n->a->var_id, post ? (op == KT_OP_INC ? "(- " : "(+ ") : "",
				n->a->var_id, post ? " 1)" : "");
			return;
		}
		bool opened;
		const char *k = open_key(g, n->a, &opened);
		fprintf(g->o, "(progn (%s (getmap m%d %s)) ", how, n->a->map_id, k);
		if (post)
			fprintf(g->o, "(%s (getmap m%d %s) 1))", op == KT_OP_INC ? "-" : "+", n->a->map_id, k);
		else
			fprintf(g->o, "(getmap m%d %s))", n->a->map_id, k);
		close_key(g, opened);
		return;
	}
	default:
		break;
	}
	gen_err(g, n->span, "kiln trace cannot compute this expression as an integer yet");
	fputs("0", g->o);
}

static void gen_int(struct g *g, const struct kt_node *n)
{
	struct kl_span prev = enter(g, n->span);
	gen_int_code(g, n);
	leave(g, prev);
}

/* ---- strings, written at dest (an address expression) in at most size bytes ---- */

static void gen_str_code(struct g *g, const struct kt_node *n, const char *dest, uint32_t size)
{
	const char *d = fresh(g, "d");
	fprintf(g->o, "(let ((%s %s)) ", d, dest);
	if (is_core(n)) {   /* a char array of a kernel struct */
		gen_core_path(g, n, kl_arena_printf(g->a, "core-read-str %s %u", d, size), CORE_STR);
		fputs("))", g->o);
		return;
	}
	switch (n->kind) {
	case KT_STR: {
		uint32_t len = n->strlen + 1 < size ? n->strlen + 1 : size;
		for (uint32_t i = 0; i < len; i++)
			fprintf(g->o, "(store u8 %s %u %u)", d, i, i < n->strlen && i + 1 < size ? (unsigned char)n->str[i] : 0);
		break;
	}
	case KT_BUILTIN:   /* comm, func (the name of this program's function) */
		if (!strcmp(n->name, "func")) {
			const char *f = g->t->event;
			for (uint32_t i = 0; i < size; i++) {
				fprintf(g->o, "(store u8 %s %u %u)", d, i, i + 1 < size ? (unsigned char)f[i] : 0);
				if (!f[i])
					break;
			}
			break;
		}
		fprintf(g->o, "(get-current-comm %s %u)", d, size < 16 ? size : 16);
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
		fprintf(g->o, "(memcpy %s 0 v%d 0 %u)", d, n->var_id, want);
		break;
	}
	case KT_MAP: {
		bool opened;
		const char *k = open_key(g, n, &opened);
		const char *p = fresh(g, "p");
		uint32_t want = n->type.size < size ? n->type.size : size;
		fprintf(g->o, "(let ((%s (map-lookup m%d %s))) (if %s (memcpy %s 0 %s 0 %u) (store u8 %s 0 0)))", p,
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
			fprintf(g->o, "(probe-read-kernel-str %s %u (+ (ctx-ptr) (logand (ctx u32 %u) #xffff)))", d, size, f.offset);
			break;
		}
		uint32_t want = f.size < size ? f.size : size;
		fprintf(g->o, "(probe-read-kernel %s %u (+ (ctx-ptr) %u))", d, want, f.offset);
		if (want == size)
			fprintf(g->o, "(store u8 %s %u 0)", d, size - 1);
		break;
	}
	case KT_FIELD:   /* a tuple's element */
		kt_gen_elem_str(g, n, d, size);
		break;
	case KT_TERNARY:
		fprintf(g->o, "(if ");
		gen_int(g, n->a);
		fputc(' ', g->o);
		gen_str(g, n->b, d, size);
		fputc(' ', g->o);
		gen_str(g, n->c, d, size);
		fputc(')', g->o);
		break;
	default:
		gen_err(g, n->span, "kiln trace cannot compute this string yet");
	}
	fprintf(g->o, ")");
}

static void gen_str(struct g *g, const struct kt_node *n, const char *dest, uint32_t size)
{
	struct kl_span prev = enter(g, n->span);
	gen_str_code(g, n, dest, size);
	leave(g, prev);
}

/* ---- statements ---- */

/* One ring buffer serves every CPU, so two events at once can interleave their records
 * (naptime's time() and printf()): each record says its CPU, and the reader writes the text of
 * what it reads at once CPU by CPU, as bpftrace drains its per-CPU buffers. */
const char *kt_rec_id(struct g *g, enum kt_ev kind, uint32_t index)
{
	if (index > 0xffff)
		kt_gen_err(g, (struct kl_span){ 0 }, "more than 65536 printf sites or maps");
	return kl_arena_printf(g->a, "(logior %llu (<< (get-smp-processor-id) 16))",
			       ((unsigned long long)kind << 32) | index);
}

/* A control record: exit, print(@m), clear(@m), zero(@m). */
void kt_gen_ctl(struct g *g, enum kt_ev kind, uint32_t index)
{
	const char *e = fresh(g, "e");
	fprintf(g->o, "(with-event (%s kt-ctl " KT_RINGBUF ") (setf (kt-ctl-id %s) %s))", e, e, kt_rec_id(g, kind, index));
}

static void bucket(struct g *g, const struct kt_map *m, const char *v)
{
	if (m->kind == KM_HIST) {
		fprintf(g->o, "(if (s< %s 0) 0 (if (= %s 0) 1 (+ (log2 %s) 2)))", v, v, v);
		return;
	}
	long long nb = (long long)((m->lmax - m->lmin) / m->lstep);
	fprintf(g->o, "(if (s< %s %lld) 0 (if (s>= %s %lld) %lld (+ (/ (- %s %lld) %lld) 1)))", v, (long long)m->lmin,
		v, (long long)m->lmax, nb + 1, v, (long long)m->lmin, (long long)m->lstep);
}

/* Opens "(let ((NAME EXPR)) ": the value is computed once, before the key. */
static void bind_int(struct g *g, const char *name, const struct kt_node *e)
{
	fprintf(g->o, "(let ((%s ", name);
	gen_int(g, e);
	fprintf(g->o, ")) ");
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
		fprintf(g->o, "(setf (getmap m%d %s) ", mn->map_id, k);
		gen_int(g, v);
		fputc(')', g->o);
		break;
	case KM_STR: case KM_TUPLE:
		k = open_key(g, mn, &opened);
		fprintf(g->o, "(let ((%s " KT_STR_VALUE ")) ", val);
		if (m->kind == KM_STR)
			gen_str(g, v, val, m->value_size);
		else
			kt_gen_tuple(g, v, val, &m->value);
		fprintf(g->o, "(map-update m%d %s %s 0))", mn->map_id, k, val);
		break;
	case KM_COUNT:
		k = open_key(g, mn, &opened);
		fprintf(g->o, "(incf (getmap m%d %s))", mn->map_id, k);
		break;
	case KM_SUM:
		k = open_key(g, mn, &opened);
		fprintf(g->o, "(incf (getmap m%d %s) ", mn->map_id, k);
		gen_int(g, v->kids[0]);
		fputc(')', g->o);
		break;
	case KM_MIN: case KM_MAX: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		const char *p = fresh(g, "p");
		fprintf(g->o, "(let ((%s (map-lookup m%d %s))) (if %s (when (%s %s (load u64 %s 0)) (store u64 %s 0 %s)) "
			      "(map-update m%d %s %s 0)))", p, mn->map_id, k, p, m->kind == KM_MIN ? "s<" : "s>", val, p, p,
			val, mn->map_id, k, val);
		close_key(g, opened);
		fputc(')', g->o);
		return;
	}
	case KM_AVG: case KM_STATS: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		const char *p = fresh(g, "p"), *b = fresh(g, "b");
		fprintf(g->o, "(let ((%s (map-lookup m%d %s))) (if %s (progn (atomic-add %s 0 1) (atomic-add %s 8 %s)) "
			      "(let ((%s (stack-buffer 16))) (store u64 %s 0 1) (store u64 %s 8 %s) (map-update m%d %s %s 0))))",
			p, mn->map_id, k, p, p, p, val, b, b, b, val, mn->map_id, k, b);
		close_key(g, opened);
		fputc(')', g->o);
		return;
	}
	case KM_HIST: case KM_LHIST: {
		bind_int(g, val, v->kids[0]);
		k = open_key(g, mn, &opened);
		fprintf(g->o, "(store u64 %s %u ", k, m->key_size - 8);
		bucket(g, m, val);
		fprintf(g->o, ") (incf (getmap m%d %s))", mn->map_id, k);
		close_key(g, opened);
		fputc(')', g->o);
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
		if (s->a->kind == KT_CALL)
			gen_call_stmt(g, s->a);
		else if (s->a->type.kind == KTT_INT || s->a->type.kind == KTT_PROBE || kt_is_symbolic(&s->a->type))
			gen_int(g, s->a);
		break;
	case KT_ASSIGN:
		if (s->a->kind == KT_MAP) {
			gen_assign_map(g, s);
		} else if (kt_is_bytes(&s->a->type)) {
			gen_str(g, s->b, kl_arena_printf(g->a, "v%d", s->a->var_id), s->a->type.size);
		} else if (s->a->type.kind == KTT_TUPLE) {
			kt_gen_tuple_var(g, s);
		} else {
			fprintf(g->o, "(setf v%d ", s->a->var_id);
			gen_int(g, s->b);
			fputc(')', g->o);
		}
		break;
	case KT_IF:
		cond_form(g, "if", s->a, s->b, s->c);
		break;
	case KT_UNROLL: {   /* in a while, a break or continue in it skips its later rounds too */
		bool guard = g->loop >= 0 && jumps(s->b);
		fprintf(g->o, "(dotimes (%s %lld) ", fresh(g, "i"), (long long)s->a->num);
		if (guard)
			fprintf(g->o, "(if (or b%d c%d) 0 ", g->loop, g->loop);
		gen_block(g, s->b);
		fputs(guard ? "))" : ")", g->o);
		break;
	}
	case KT_WHILE: {
		int outer = g->loop;
		g->loop = (int)g->tmp++;
		fprintf(g->o, "(let ((b%d 0) (c%d 0)) (loop :while (and (= b%d 0) ", g->loop, g->loop, g->loop);
		gen_int(g, s->a);
		fprintf(g->o, ") (setf c%d 0) ", g->loop);
		gen_block(g, s->b);
		fputs("))", g->o);
		g->loop = outer;
		break;
	}
	case KT_BREAK: case KT_CONTINUE:
		fprintf(g->o, "(setf %c%d 1)", s->kind == KT_BREAK ? 'b' : 'c', g->loop);
		break;
	case KT_RETURN:
		fprintf(g->o, "(return 0)");
		break;
	default:
		gen_err(g, s->span, "kiln trace cannot compile this statement yet");
	}
}

/* Each statement's and expression's code carries its script span (gen_spans.h). */
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
	fprintf(g->o, "(progn");
	uint32_t guards = 0;
	for (uint32_t i = 0; i < b->nkids; i++) {
		fprintf(g->o, "\n    ");
		gen_stmt(g, b->kids[i]);
		if (g->loop >= 0 && i + 1 < b->nkids && jumps(b->kids[i])) {
			fprintf(g->o, " (if (or b%d c%d) 0 (progn", g->loop, g->loop);
			guards++;
		}
	}
	while (guards--)
		fputs(" 0))", g->o);
	fprintf(g->o, " 0)");
}

/* ---- printf sites: their record layouts, collected before the code ---- */

static void collect_sites(struct g *g, const struct kt_node *n)
{
	if (!n)
		return;
	if (n->kind == KT_CALL) {
		const struct kt_fn *fn = kt_fn_find(n->name);
		if (fn && fn->site)
			fn->site(g, n);
	}
	collect_sites(g, n->a);
	collect_sites(g, n->b);
	collect_sites(g, n->c);
	for (uint32_t i = 0; i < n->nkids; i++)
		collect_sites(g, n->kids[i]);
}

static const char *const map_kind_names[] = {
	[KM_INT] = "int", [KM_STR] = "string", [KM_TUPLE] = "tuple", [KM_COUNT] = "count", [KM_SUM] = "sum", [KM_MIN] = "min",
	[KM_MAX] = "max", [KM_AVG] = "avg", [KM_STATS] = "stats", [KM_HIST] = "hist", [KM_LHIST] = "lhist",
};

static void gen_defs(struct g *g, const struct kt_program *prog)
{
	const struct kt_sema *s = g->s;
	fprintf(g->o, ";; generated by kiln trace from a bpftrace program\n");
	/* a ring buffer's size is a power of two pages */
	uint64_t rb = 4096;
	while (rb < (uint64_t)s->rb_pages * 4096)
		rb <<= 1;
	fprintf(g->o, "(defmap " KT_RINGBUF " :type :ringbuf :max-entries %llu)\n", (unsigned long long)rb);
	fprintf(g->o, "(defmap " KT_START_MAP " :type :array :max-entries 2 :key-size 4 :value-size 8)\n");
	if (s->has_stacks)
		fprintf(g->o, "(defmap " KT_STACKS " :type :stack-trace :key u32 :value-size %d :max-entries 4096)\n",
			8 * KILN_STACK_MAX_DEPTH);
	for (uint32_t i = 0; i < s->nmaps; i++) {
		enter(g, s->maps[i].span);   /* the map's first use */
		fprintf(g->o, "(defmap m%u :type :hash :max-entries %u :key-size %u :value-size %u) ; @%s %s\n", i,
			s->map_keys_max, s->maps[i].key_size, s->maps[i].value_size, s->maps[i].name, map_kind_names[s->maps[i].kind]);
	}
	fprintf(g->o, "(defevent kt-ctl [:id :u64])\n");
	for (uint32_t i = 0; i < g->sites.len; i++) {
		const struct kt_site *site = &g->sites.items[i];
		if (site->kind == KT_EV_PRINT || site->kind == KT_EV_TIME)   /* control records (kt-ctl) */
			continue;
		fprintf(g->o, "(defevent ev%u [:id :u64]", i);
		for (uint32_t k = 0; k < site->nargs; k++) {
			uint32_t sz = kt_round8(kt_type_size(&site->args[k].type));
			if (kt_is_bytes(&site->args[k].type) || site->args[k].type.kind == KTT_TUPLE)
				fprintf(g->o, " [:a%u :u8 %u]", k + 1, sz);
			else
				fprintf(g->o, " [:a%u :u64]", k + 1);
		}
		fprintf(g->o, ")\n");
	}
	(void)prog;
}

/* "+8" after a uprobe's or kprobe's function when the attach point gives an offset */
static const char *offset_text(struct g *g, const struct kt_target *t)
{
	return t->offset ? kl_arena_printf(g->a, "+%llu", (unsigned long long)t->offset) : "";
}

static void gen_prog(struct g *g, const struct kt_program *prog, uint32_t ti)
{
	const struct kt_target *t = &g->s->targets[ti];
	const struct kt_probe *pr = &prog->probes[t->probe_index];
	g->t = t;
	g->target = ti;
	enter(g, pr->span);   /* the program: its probe */
	switch (t->kind) {
	case KP_BEGIN: case KP_END:
		fprintf(g->o, "\n(defprog p%u (:type :raw-tracepoint :section \"raw_tracepoint/kiln_trace_%s\") ; %s\n  ", ti,
			t->kind == KP_BEGIN ? "begin" : "end", t->probe);
		break;
	case KP_TRACEPOINT:
		fprintf(g->o, "\n(defprog p%u (:type :tracepoint :section \"tracepoint/%s\") ; %s\n  ", ti, t->event, t->probe);
		break;
	case KP_INTERVAL: case KP_PROFILE:
		fprintf(g->o, "\n(defprog p%u (:type :perf-event) ; %s\n  ", ti, t->probe);
		break;
	case KP_UPROBE: case KP_URETPROBE: {   /* libkiln finds the function in the file at attach */
		const char *k = t->kind == KP_UPROBE ? "uprobe" : "uretprobe";
		fprintf(g->o, "\n(defprog p%u (:type :%s :section \"%s/%s:%s%s\") ; %s\n  ", ti, k, k, t->binary, t->event,
			offset_text(g, t), t->probe);
		break;
	}
	case KP_KPROBE: case KP_KRETPROBE: {
		const char *k = t->kind == KP_KPROBE ? "kprobe" : "kretprobe";
		fprintf(g->o, "\n(defprog p%u (:type :%s :section \"%s/%s%s\") ; %s\n  ", ti, k, k, t->event, offset_text(g, t),
			t->probe);
		break;
	}
	case KP_KFUNC: case KP_KRETFUNC: {   /* a trampoline: typed by the function's BTF */
		const char *k = t->kind == KP_KFUNC ? "fentry" : "fexit";
		fprintf(g->o, "\n(defprog p%u (:type :%s :section \"%s/%s\") ; %s\n  ", ti, k, k, t->event, t->probe);
		break;
	}
	case KP_RAWTRACEPOINT:
		fprintf(g->o, "\n(defprog p%u (:type :raw-tracepoint :section \"raw_tracepoint/%s\") ; %s\n  ", ti, t->event,
			t->probe);
		break;
	case KP_USDT:   /* a uprobe at the probe's file offset */
		fprintf(g->o, "\n(defprog p%u (:type :uprobe :section \"uprobe/%s:%#llx\") ; %s\n  ", ti, t->binary,
			(unsigned long long)t->offset, t->probe);
		break;
	case KP_SOFTWARE: case KP_HARDWARE:   /* the runtime opens the perf event */
		fprintf(g->o, "\n(defprog p%u (:type :perf-event) ; %s\n  ", ti, t->probe);
		break;
	}
	uint32_t nv = g->s->nvars[t->probe_index];
	const struct kt_var *vars = g->s->vars[t->probe_index];
	/* One buffer for every string stored into a map: it is filled and stored at once, and
	 * kiln gives each stack-buffer its own stack (capable.bt stores 40 strings in BEGIN). */
	uint32_t sv = 0;
	for (uint32_t i = 0; i < g->s->nmaps; i++)
		if ((g->s->maps[i].kind == KM_STR || g->s->maps[i].kind == KM_TUPLE) && g->s->maps[i].value_size > sv)
			sv = g->s->maps[i].value_size;
	/* a let binds at most LET_BINDINGS names (kiln's limit is 64): more nest */
	enum { LET_BINDINGS = 32 };
	uint32_t lets = 1, bound = sv ? 1 : 0;
	fprintf(g->o, "(let (");
	if (sv)
		fprintf(g->o, "(" KT_STR_VALUE " (stack-buffer %u))", kt_round8(sv));
	for (uint32_t i = 0; i < nv; i++, bound++) {
		if (bound == LET_BINDINGS) {
			fprintf(g->o, ")\n    (let (");
			lets++;
			bound = 0;
		}
		if (kt_is_bytes(&vars[i].type) || vars[i].type.kind == KTT_TUPLE)
			fprintf(g->o, "%s(v%u (stack-buffer %u))", bound ? " " : "", i,
				kt_round8(kt_type_size(&vars[i].type)));
		else
			fprintf(g->o, "%s(v%u 0)", bound ? " " : "", i);
	}
	fprintf(g->o, ")\n    ");
	if (pr->pred) {
		fprintf(g->o, "(when ");
		gen_int(g, pr->pred);
		fprintf(g->o, "\n    ");
	}
	gen_block(g, pr->block);
	fprintf(g->o, "%s", pr->pred ? ")" : "");
	while (lets--)
		fputc(')', g->o);
	fprintf(g->o, "\n  0)\n");
}

int kt_gen(const struct kt_program *prog, const struct kt_sema *s, struct kl_arena *a, struct kl_diag *d,
	   struct kt_gen *out)
{
	struct g g = { .s = s, .a = a, .d = d, .loop = -1 };
	*out = (struct kt_gen){ 0 };
	/* sites are per probe in the tree; a probe with several targets shares them */
	uint32_t *first_site = kl_arena_array(a, uint32_t, prog->nprobes + 1);
	for (uint32_t p = 0; p < prog->nprobes; p++) {
		first_site[p] = (uint32_t)g.sites.len;
		collect_sites(&g, prog->probes[p].pred);
		collect_sites(&g, prog->probes[p].block);
	}
	g.o = open_memstream(&out->text, &out->len);
	if (!g.o)
		return kl_error(d, (struct kl_span){ 0 }, "out of memory");
	gen_defs(&g, prog);
	for (uint32_t i = 0; i < s->ntargets && !g.err; i++) {
		g.site = first_site[s->targets[i].probe_index];
		gen_prog(&g, prog, i);
	}
	fclose(g.o);
	out->sites = g.sites.items;
	out->nsites = (uint32_t)g.sites.len;
	struct kl_span first = { prog->nprobes ? prog->probes[0].span.src : NULL, 1, 1 };
	if (!g.err && kt_spans_read(a, d, "kiln-trace.lisp", out->text, out->len, &g.marks, first, &out->forms,
				    &out->nforms))
		g.err = -1;
	if (g.err) {
		free(out->text);
		out->text = NULL;
		return -1;
	}
	return 0;
}

/* ---- for the files of functions (gen_priv.h) ---- */

void kt_gen_int(struct g *g, const struct kt_node *n)
{
	gen_int(g, n);
}

void kt_gen_str(struct g *g, const struct kt_node *n, const char *dest, uint32_t size)
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

bool kt_gen_core_into(struct g *g, const struct kt_node *n, const char *dest)
{
	if (!is_core(n) || n->type.user)
		return false;
	gen_core_path(g, n, kl_arena_printf(g->a, "core-read-into %s", dest), CORE_STR);
	fputs(")", g->o);
	return true;
}
