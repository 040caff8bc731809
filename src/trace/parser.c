/* parser.c — recursive descent over bpftrace 0.17's grammar (its parser.yy is the
 * reference for what is a program; this is kiln's own reading of it): probes with several
 * attach points and a predicate, blocks of statements (an expression statement needs a ';'
 * unless it is the last; if/unroll/while blocks need none), C's operator precedence with
 * the ternary at the top, casts `(type)` and `(struct X *)`, tuples, maps, $variables,
 * positional parameters, calls. */
#include "trace/parser.h"
#include "trace/lexer.h"
#include "trace/limits.h"
#include "trace/macro.h"
#include <stdlib.h>
#include <string.h>

struct ps {
	struct kt_lexer lx;
	struct kl_arena *a;
	struct kl_diag *d;
	struct kt_tok tok;          /* the lookahead, when have */
	bool have;
	bool failed;
	bool in_pred;               /* a '/' followed by '{' ends the predicate */
	uint32_t depth;             /* nesting now (limits.h's KT_MAX_NEST) */
};

static struct kt_tok *peek(struct ps *p)
{
	if (!p->have) {
		p->tok = kt_lex_next(&p->lx);
		p->have = true;
		if (p->tok.kind == KT_TOK_ERROR)
			p->failed = true;
	}
	return &p->tok;
}

static struct kt_tok take(struct ps *p)
{
	struct kt_tok t = *peek(p);
	p->have = false;
	return t;
}

static bool accept(struct ps *p, int kind)
{
	if (peek(p)->kind != kind)
		return false;
	take(p);
	return true;
}

static void *fail(struct ps *p, struct kl_span at, const char *what)
{
	if (!p->failed)
		kl_error(p->d, at, "syntax error: %s", what);
	p->failed = true;
	return NULL;
}

/* One level deeper, at `at`: false (the error recorded) past KT_MAX_NEST. Every recursion
 * of the parser goes through here, and leave() after it. */
static bool enter(struct ps *p, struct kl_span at)
{
	if (++p->depth <= KT_MAX_NEST)
		return true;
	if (!p->failed)
		kl_error(p->d, at, "nested too deeply: kiln trace takes at most %d levels of nesting", KT_MAX_NEST);
	p->failed = true;
	return false;
}

static void leave(struct ps *p)
{
	p->depth--;
}

static void *unexpected(struct ps *p, const char *wanted)
{
	struct kt_tok *t = peek(p);
	if (p->failed)
		return NULL;
	char msg[160];
	if (t->kind == KT_TOK_IDENT || t->kind == KT_TOK_MAP || t->kind == KT_TOK_VAR)
		snprintf(msg, sizeof(msg), "unexpected %s '%s%s', expected %s", kt_tok_name(t->kind),
			 t->kind == KT_TOK_MAP ? "@" : t->kind == KT_TOK_VAR ? "$" : "", t->s, wanted);
	else
		snprintf(msg, sizeof(msg), "unexpected %s, expected %s", kt_tok_name(t->kind), wanted);
	return fail(p, t->span, msg);
}

static bool expect(struct ps *p, int kind, const char *wanted)
{
	if (accept(p, kind))
		return true;
	unexpected(p, wanted);
	return false;
}

static struct kt_node *node(struct ps *p, enum kt_kind kind, struct kl_span at)
{
	return kt_node_new(p->a, kind, at);
}

typedef KL_VEC(struct kt_node *) nodevec;
typedef KL_VEC(struct kt_macro) macrovec;

static void set_kids(struct kt_node *n, nodevec *v)
{
	n->kids = v->items;
	n->nkids = (uint32_t)v->len;
}

static struct kt_node *expr(struct ps *p);
static struct kt_node *cast_expr(struct ps *p);
static struct kt_node *block(struct ps *p);

/* expr {, expr} up to `close` (consumed). */
static bool args(struct ps *p, int close, nodevec *v)
{
	if (accept(p, close))
		return true;
	do {
		struct kt_node *e = expr(p);
		if (!e)
			return false;
		kl_vec_push(p->a, v, e);
	} while (accept(p, ','));
	return expect(p, close, close == ')' ? "',' or ')'" : "',' or ']'");
}

static const char *const type_names[] = {
	"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "int", "char",
	"short", "long", "unsigned", "bool", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"void", "size_t", "pid_t", "uid_t", "gid_t",
};

static bool is_type_name(const char *s)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (!strcmp(s, type_names[i]))
			return true;
	return !strcmp(s, "struct") || !strcmp(s, "union") || !strcmp(s, "enum");
}

/* After '(' IDENT: is this a cast? The lexer is saved and restored around the look. */
static bool looks_like_cast(struct ps *p)
{
	struct kt_tok *t = peek(p);
	if (t->kind != KT_TOK_IDENT)
		return false;
	struct kt_lexer save = p->lx;
	struct kt_tok tsave = p->tok;
	bool cast = false;
	if (!strcmp(t->s, "struct") || !strcmp(t->s, "union") || !strcmp(t->s, "enum")) {
		cast = true;
	} else if (is_type_name(t->s)) {
		struct kt_tok n = kt_lex_next(&p->lx);
		while (n.kind == '*')
			n = kt_lex_next(&p->lx);
		cast = n.kind == ')' || n.kind == '[';
	} else {
		/* a typedef'd kernel type is a cast only when written as a pointer: (sk_buff_t *) */
		struct kt_tok n = kt_lex_next(&p->lx);
		if (n.kind == '*') {
			while (n.kind == '*')
				n = kt_lex_next(&p->lx);
			cast = n.kind == ')';
		}
	}
	p->lx = save;
	p->tok = tsave;
	p->have = true;
	return cast;
}

/* A type up to its ')': its name (*name), pointer stars (n->is_ptr_cast), array count (n->num). */
static bool type_after_paren(struct ps *p, struct kt_node *n, const char **name)
{
	struct kt_tok t = take(p);
	*name = t.s;
	if (!strcmp(t.s, "struct") || !strcmp(t.s, "union") || !strcmp(t.s, "enum")) {
		struct kt_tok id = take(p);
		if (id.kind != KT_TOK_IDENT)
			return fail(p, id.span, "expected a struct name after 'struct'");
		*name = kl_arena_printf(p->a, "%s %s", t.s, id.s);
	}
	while (accept(p, '*')) {
		n->is_ptr_cast = true;
		if (n->ptr_stars < 8)
			n->ptr_stars++;
	}
	if (accept(p, '[')) {       /* (int8[4]) */
		struct kt_tok c = take(p);
		if (c.kind != KT_TOK_INT || !expect(p, ']', "']'"))
			return fail(p, c.span, "expected an array size");
		n->num = c.num;
	}
	return expect(p, ')', "')' after the type");
}

static struct kt_node *cast_after_paren(struct ps *p, struct kl_span at)
{
	struct kt_node *n = node(p, KT_CAST, at);
	if (!type_after_paren(p, n, &n->name))
		return NULL;
	n->len = (uint32_t)(p->lx.col > at.col ? p->lx.col - at.col : 1);
	if (!enter(p, at))
		return NULL;
	n->a = cast_expr(p);
	leave(p);
	return n->a ? n : NULL;
}

/* A node for a token that is all of it: a literal, a parameter, a variable, a map's name. */
static struct kt_node *leaf(struct ps *p, enum kt_kind kind, const struct kt_tok *t)
{
	struct kt_node *n = node(p, kind, t->span);
	n->num = t->num;
	n->len = t->len;
	if (kind == KT_STR) {
		n->str = t->s;
		n->strlen = t->n;
	} else {
		n->name = t->s;
	}
	return n;
}

/* After "sizeof(" or "offsetof(": a type (n->str, "struct X" or "uint32"; is_ptr_cast for
 * a pointer) or, for sizeof, an expression (n->a); offsetof's fields are n->kids. */
static struct kt_node *sizeof_args(struct ps *p, struct kt_node *n)
{
	if (!looks_like_cast(p)) {
		if (n->kind == KT_OFFSETOF)
			return fail(p, n->span, "offsetof() takes a struct type and a field");
		if (!(n->a = expr(p)) || !expect(p, ')', "')'"))
			return NULL;
		return n;
	}
	struct kt_tok t = take(p);
	n->str = t.s;
	if (!strcmp(t.s, "struct") || !strcmp(t.s, "union") || !strcmp(t.s, "enum")) {
		struct kt_tok id = take(p);
		if (id.kind != KT_TOK_IDENT)
			return fail(p, id.span, "expected a struct name after 'struct'");
		n->str = kl_arena_printf(p->a, "%s %s", t.s, id.s);
	}
	while (accept(p, '*'))
		n->is_ptr_cast = true;
	if (n->kind == KT_OFFSETOF) {
		nodevec v = { 0 };
		if (!expect(p, ',', "','"))
			return NULL;
		do {
			struct kt_tok f = take(p);
			if (f.kind != KT_TOK_IDENT)
				return fail(p, f.span, "expected a field name");
			kl_vec_push(p->a, &v, leaf(p, KT_IDENT, &f));
		} while (accept(p, '.'));
		set_kids(n, &v);
	}
	return expect(p, ')', "')'") ? n : NULL;
}

static struct kt_node *primary(struct ps *p)
{
	struct kt_tok t = take(p);
	struct kt_node *n;
	switch (t.kind) {
	case KT_TOK_INT:
		return leaf(p, KT_INT, &t);
	case KT_TOK_STR:
		return leaf(p, KT_STR, &t);
	case KT_TOK_PARAM:
		return leaf(p, KT_POSPARAM, &t);
	case KT_TOK_VAR:
		return leaf(p, KT_VAR, &t);
	case KT_TOK_MAP:
		n = leaf(p, KT_MAP, &t);
		if (accept(p, '[')) {
			nodevec v = { 0 };
			if (!args(p, ']', &v))
				return NULL;
			if (!v.len)
				return fail(p, t.span, "a map key needs at least one expression");
			if (v.len == 1) {
				n->a = v.items[0];
			} else {
				struct kt_node *tu = node(p, KT_TUPLE, v.items[0]->span);
				set_kids(tu, &v);
				tu->op = 1;   /* several keys, not a tuple value: printed without parens */
				n->a = tu;
			}
		}
		return n;
	case KT_TOK_IDENT:
		if (peek(p)->kind == '(') {
			take(p);
			if (!strcmp(t.s, "sizeof") || !strcmp(t.s, "offsetof")) {
				n = node(p, !strcmp(t.s, "sizeof") ? KT_SIZEOF : KT_OFFSETOF, t.span);
				n->name = t.s;
				n->len = t.len;
				return sizeof_args(p, n);
			}
			n = node(p, KT_CALL, t.span);
			n->name = t.s;
			n->len = t.len;
			nodevec v = { 0 };
			if (!args(p, ')', &v))
				return NULL;
			set_kids(n, &v);
			return n;
		}
		n = node(p, KT_IDENT, t.span);   /* a builtin, or an enum/constant name: sema decides */
		n->name = t.s;
		n->len = t.len;
		return n;
	case '(': {
		if (looks_like_cast(p))
			return cast_after_paren(p, t.span);
		struct kt_node *e = expr(p);
		if (!e)
			return NULL;
		if (accept(p, ')'))
			return e;
		if (peek(p)->kind != ',')
			return unexpected(p, "')'");
		nodevec v = { 0 };
		kl_vec_push(p->a, &v, e);
		take(p);
		if (!args(p, ')', &v))
			return NULL;
		n = node(p, KT_TUPLE, t.span);
		set_kids(n, &v);
		return n;
	}
	case KT_TOK_ERROR:
		p->failed = true;
		return NULL;
	}
	p->have = true;   /* put it back for the message */
	p->tok = t;
	return unexpected(p, "an expression");
}

static struct kt_node *postfix(struct ps *p)
{
	struct kt_node *e = primary(p);
	while (e) {
		struct kt_tok *t = peek(p);
		if (t->kind == '.' || t->kind == KT_OP_ARROW) {
			struct kt_tok op = take(p);
			struct kt_tok f = take(p);
			/* 0.26's args.NAME is 0.17's args->NAME */
			bool args = e->kind == KT_IDENT && !strcmp(e->name, "args");
			struct kt_node *n = node(p, op.kind == '.' && !args ? KT_FIELD : KT_ARROW, e->span);
			n->a = e;
			if (f.kind == KT_TOK_INT && op.kind == '.') {
				n->num = f.num;   /* tuple element */
				n->name = NULL;
			} else if (f.kind == KT_TOK_IDENT) {
				n->name = f.s;
			} else {
				return fail(p, f.span, "expected a field name");
			}
			e = n;
		} else if (t->kind == '[') {
			take(p);
			struct kt_node *n = node(p, KT_INDEX, e->span);
			n->a = e;
			if (!(n->b = expr(p)) || !expect(p, ']', "']'"))
				return NULL;
			e = n;
		} else if ((t->kind == KT_OP_INC || t->kind == KT_OP_DEC) && (e->kind == KT_MAP || e->kind == KT_VAR)) {
			struct kt_tok op = take(p);
			struct kt_node *n = node(p, KT_INCDEC, op.span);
			n->op = op.kind;
			n->a = e;
			e = n;
		} else {
			break;
		}
	}
	return e;
}

static struct kt_node *unary(struct ps *p)
{
	struct kt_tok *t = peek(p);
	int k = t->kind;
	if (k == '*' || k == '~' || k == '!' || k == '-' || k == '&') {
		struct kt_tok op = take(p);
		if (k == '-' && peek(p)->kind == KT_TOK_INT) {   /* a negative literal */
			struct kt_tok i = take(p);
			struct kt_node *n = node(p, KT_INT, op.span);
			n->num = (int64_t)(~(uint64_t)i.num + 1);
			n->len = op.len + i.len;
			return n;
		}
		struct kt_node *n = node(p, KT_UNOP, op.span);
		n->op = k;
		if (!enter(p, op.span))
			return NULL;
		n->a = cast_expr(p);
		leave(p);
		return n->a ? n : NULL;
	}
	if (k == KT_OP_INC || k == KT_OP_DEC) {
		struct kt_tok op = take(p);
		struct kt_node *n = node(p, KT_INCDEC, op.span);
		n->op = -op.kind;
		if (!(n->a = postfix(p)))
			return NULL;
		if (n->a->kind != KT_MAP && n->a->kind != KT_VAR)
			return fail(p, op.span, k == KT_OP_INC ? "the ++ operator must be applied to a map or variable"
							   : "the -- operator must be applied to a map or variable");
		return n;
	}
	return postfix(p);
}

static struct kt_node *cast_expr(struct ps *p)
{
	return unary(p);   /* casts are recognized in primary, after their '(' */
}

/* Binary operators by precedence level, loosest first (the ternary is above them). */
static const int levels[][5] = {
	{ KT_OP_OR }, { KT_OP_AND }, { '|' }, { '^' }, { '&' }, { KT_OP_EQ, KT_OP_NE },
	{ '<', '>', KT_OP_LE, KT_OP_GE }, { KT_OP_SHL, KT_OP_SHR }, { '+', '-' }, { '*', '/', '%' },
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

static bool at_level(int kind, size_t lvl)
{
	for (size_t i = 0; i < 5 && levels[lvl][i]; i++)
		if (levels[lvl][i] == kind)
			return true;
	return false;
}

/* At a '/' in a predicate: is it the predicate's end (a '{' follows)? */
static bool pred_end(struct ps *p)
{
	struct kt_lexer save = p->lx;
	struct kt_tok n = kt_lex_next(&p->lx);
	p->lx = save;
	return n.kind == '{' || n.kind == KT_TOK_EOF;
}

static struct kt_node *binary(struct ps *p, size_t lvl)
{
	if (lvl == NLEVELS)
		return cast_expr(p);
	struct kt_node *l = binary(p, lvl + 1);
	while (l && at_level(peek(p)->kind, lvl) && !(peek(p)->kind == '/' && p->in_pred && pred_end(p))) {
		struct kt_tok op = take(p);
		struct kt_node *n = node(p, KT_BINOP, op.span);
		n->op = op.kind;
		n->len = op.len;
		n->a = l;
		if (!(n->b = binary(p, lvl + 1)))
			return NULL;
		l = n;
	}
	return l;
}

static struct kt_node *ternary(struct ps *p);

static struct kt_node *expr(struct ps *p)
{
	if (!enter(p, peek(p)->span))
		return NULL;
	struct kt_node *n = ternary(p);
	leave(p);
	return n;
}

static struct kt_node *ternary(struct ps *p)
{
	struct kt_node *c = binary(p, 0);
	if (!c || peek(p)->kind != '?')
		return c;
	struct kt_tok q = take(p);
	struct kt_node *n = node(p, KT_TERNARY, q.span);
	n->a = c;
	if (!(n->b = expr(p)) || !expect(p, ':', "':' of the ternary") || !(n->c = expr(p)))
		return NULL;
	return n;
}

static bool is_kw(struct kt_tok *t, const char *kw)
{
	return t->kind == KT_TOK_IDENT && !strcmp(t->s, kw);
}

static struct kt_node *if_rest(struct ps *p, struct kt_tok kw);

static const int compound_ops[][2] = {
	{ KT_OP_ADDEQ, '+' }, { KT_OP_SUBEQ, '-' }, { KT_OP_MULEQ, '*' }, { KT_OP_DIVEQ, '/' },
	{ KT_OP_MODEQ, '%' }, { KT_OP_ANDEQ, '&' }, { KT_OP_OREQ, '|' }, { KT_OP_XOREQ, '^' },
	{ KT_OP_SHLEQ, KT_OP_SHL }, { KT_OP_SHREQ, KT_OP_SHR },
};

static struct kt_node *if_stmt(struct ps *p, struct kt_tok kw)
{
	if (!enter(p, kw.span))
		return NULL;
	struct kt_node *n = if_rest(p, kw);
	leave(p);
	return n;
}

static struct kt_node *if_rest(struct ps *p, struct kt_tok kw)
{
	struct kt_node *n = node(p, KT_IF, kw.span);
	/* 0.26 takes the condition without parentheses; `(c)` is then an expression like any */
	if (!(n->a = expr(p)) || !(n->b = block(p)))
		return NULL;
	if (is_kw(peek(p), "else")) {
		take(p);
		if (is_kw(peek(p), "if")) {
			struct kt_tok k2 = take(p);
			struct kt_node *blk = node(p, KT_BLOCK, k2.span);
			struct kt_node *inner = if_stmt(p, k2);
			if (!inner)
				return NULL;
			nodevec v = { 0 };
			kl_vec_push(p->a, &v, inner);
			set_kids(blk, &v);
			n->c = blk;
		} else if (!(n->c = block(p))) {
			return NULL;
		}
	}
	return n;
}

/* After `let $x:`: a type, uint32, struct X *, string; the cast that gives a value it (NULL
 * for string, which takes any string). */
static bool let_type(struct ps *p, struct kt_node **cast)
{
	struct kt_tok t = take(p);
	if (t.kind != KT_TOK_IDENT)
		return fail(p, t.span, "expected a type after ':'");
	struct kt_node *c = node(p, KT_CAST, t.span);
	c->name = t.s;
	c->len = t.len;
	if (!strcmp(t.s, "struct") || !strcmp(t.s, "union")) {
		struct kt_tok id = take(p);
		if (id.kind != KT_TOK_IDENT)
			return fail(p, id.span, "expected a struct name after 'struct'");
		c->name = kl_arena_printf(p->a, "%s %s", t.s, id.s);
	}
	while (accept(p, '*')) {
		c->is_ptr_cast = true;
		if (c->ptr_stars < 8)
			c->ptr_stars++;
	}
	*cast = strcmp(c->name, "string") || c->is_ptr_cast ? c : NULL;
	return true;
}

/* `let $x`, `let $x = e`, `let $x: TYPE [= e]` (0.26): a declaration. A typed one without a
 * value is the type's zero; an untyped one is typed by its first assignment. */
static struct kt_node *let_stmt(struct ps *p, struct kt_tok kw)
{
	struct kt_tok v = take(p);
	if (v.kind != KT_TOK_VAR)
		return fail(p, v.span, "expected a $variable after let");
	struct kt_node *var = leaf(p, KT_VAR, &v), *cast = NULL, *val = NULL;
	bool typed = accept(p, ':');
	if (typed && !let_type(p, &cast))
		return NULL;
	if (accept(p, '=') && !(val = expr(p)))
		return NULL;
	if (!val && !cast) {
		struct kt_node *n = node(p, KT_LET, kw.span);
		n->a = var;   /* let $s: string too: typed by its first assignment */
		return n;
	}
	if (!val) {
		val = node(p, KT_INT, kw.span);
		val->num = 0;
	}
	if (cast) {
		cast->a = val;
		val = cast;
	}
	struct kt_node *n = node(p, KT_ASSIGN, kw.span);
	n->a = var;
	n->b = val;
	n->is_let = true;
	return n;
}

/* `for ($i : START..END) BODY`, `for ($kv : @m) BODY` (0.26; the parentheses optional). */
static struct kt_node *for_stmt(struct ps *p, struct kt_tok kw)
{
	struct kt_node *n = node(p, KT_FOR, kw.span);
	bool paren = accept(p, '(');
	struct kt_tok v = take(p);
	if (v.kind != KT_TOK_VAR)
		return fail(p, v.span, "expected a $variable after for");
	n->a = leaf(p, KT_VAR, &v);
	if (!expect(p, ':', "':' after the for's variable"))
		return NULL;
	if (peek(p)->kind == KT_TOK_MAP) {
		struct kt_tok m = take(p);
		n->c = leaf(p, KT_MAP, &m);
	} else {
		nodevec r = { 0 };
		struct kt_node *lo = expr(p), *hi;
		if (!lo || !expect(p, KT_OP_RANGE, "'..' of a range") || !(hi = expr(p)))
			return NULL;
		kl_vec_push(p->a, &r, lo);
		kl_vec_push(p->a, &r, hi);
		set_kids(n, &r);
	}
	if ((paren && !expect(p, ')', "')'")) || !(n->b = block(p)))
		return NULL;
	return n;
}

/* One statement; *needs_semi says whether a ';' (or the block's end) must follow. */
static struct kt_node *statement(struct ps *p, bool *needs_semi)
{
	struct kt_tok *t = peek(p);
	*needs_semi = true;
	if (is_kw(t, "if")) {
		*needs_semi = false;
		return if_stmt(p, take(p));
	}
	if (is_kw(t, "unroll") || is_kw(t, "while")) {
		struct kt_tok kw = take(p);
		*needs_semi = false;
		struct kt_node *n = node(p, kw.s[0] == 'u' ? KT_UNROLL : KT_WHILE, kw.span);
		if (!expect(p, '(', "'('") || !(n->a = expr(p)) || !expect(p, ')', "')'") || !(n->b = block(p)))
			return NULL;
		return n;
	}
	if (is_kw(t, "let"))
		return let_stmt(p, take(p));
	if (is_kw(t, "for")) {
		*needs_semi = false;
		struct kt_tok kw = take(p);
		if (!enter(p, kw.span))
			return NULL;
		struct kt_node *n = for_stmt(p, kw);
		leave(p);
		return n;
	}
	if (is_kw(t, "break") || is_kw(t, "continue") || is_kw(t, "return")) {
		struct kt_tok kw = take(p);
		return node(p, kw.s[0] == 'b' ? KT_BREAK : kw.s[0] == 'c' ? KT_CONTINUE : KT_RETURN, kw.span);
	}
	struct kt_node *e = expr(p);
	if (!e)
		return NULL;
	int k = peek(p)->kind;
	if (k == '=' || (k >= KT_OP_ADDEQ && k <= KT_OP_SHREQ)) {
		struct kt_tok op = take(p);
		if (e->kind == KT_FIELD && !e->name)
			return fail(p, e->span, "tuples are immutable once created; create a new tuple and assign it instead");
		if (e->kind != KT_MAP && e->kind != KT_VAR)
			return fail(p, op.span, "only a map or a $variable can be assigned to");
		struct kt_node *n = node(p, KT_ASSIGN, op.span);
		n->a = e;
		struct kt_node *rhs = expr(p);
		if (!rhs)
			return NULL;
		if (k != '=') {
			struct kt_node *b = node(p, KT_BINOP, op.span);
			for (size_t i = 0; i < sizeof(compound_ops) / sizeof(compound_ops[0]); i++)
				if (compound_ops[i][0] == k)
					b->op = compound_ops[i][1];
			b->a = e;
			b->b = rhs;
			rhs = b;
		}
		n->b = rhs;
		return n;
	}
	struct kt_node *s = node(p, KT_EXPRSTMT, e->span);
	s->a = e;
	return s;
}

static struct kt_node *block_rest(struct ps *p, struct kt_tok open);

static struct kt_node *block(struct ps *p)
{
	struct kt_tok open = *peek(p);
	if (!expect(p, '{', "'{'") || !enter(p, open.span))
		return NULL;
	struct kt_node *b = block_rest(p, open);
	leave(p);
	return b;
}

static struct kt_node *block_rest(struct ps *p, struct kt_tok open)
{
	struct kt_node *b = node(p, KT_BLOCK, open.span);
	nodevec v = { 0 };
	while (!accept(p, '}')) {
		if (peek(p)->kind == KT_TOK_EOF)
			return fail(p, open.span, "unterminated block: '}' expected");
		if (accept(p, ';'))
			continue;
		bool semi;
		struct kt_node *s = statement(p, &semi);
		if (!s)
			return NULL;
		kl_vec_push(p->a, &v, s);
		if (semi && !accept(p, ';') && peek(p)->kind != '}')
			return unexpected(p, "';' or '}'");
	}
	set_kids(b, &v);
	return b;
}

static const char *const aliases[][2] = {
	{ "t", "tracepoint" }, { "k", "kprobe" }, { "kr", "kretprobe" }, { "u", "uprobe" },
	{ "ur", "uretprobe" }, { "U", "usdt" }, { "p", "profile" }, { "i", "interval" },
	{ "s", "software" }, { "h", "hardware" }, { "w", "watchpoint" }, { "f", "kfunc" },
	{ "fr", "kretfunc" }, { "rt", "rawtracepoint" }, { "it", "iter" },
	{ "begin", "BEGIN" }, { "end", "END" },   /* 0.26's spelling */
};

/* 0.26's interval:1s / interval:100ms / interval:N (nanoseconds), profile:99hz: one part
 * `COUNT UNIT` is 0.17's two, UNIT:COUNT (nanoseconds in microseconds when they divide). */
static void timed_split(struct kl_arena *a, struct kt_attach *ap)
{
	if ((strcmp(ap->provider, "interval") && strcmp(ap->provider, "profile")) || !ap->target || ap->func)
		return;
	const char *s = ap->target;
	size_t digits = strspn(s, "0123456789");
	if (!digits || digits > 18)
		return;
	const char *unit = s + digits;
	static const char *const units[] = { "s", "ms", "us", "hz" };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i])) {
			ap->func = kl_arena_strndup(a, s, digits);
			ap->target = units[i];
			return;
		}
	unsigned long long ns = strtoull(s, NULL, 10);
	if ((!*unit || !strcmp(unit, "ns")) && ns && ns % 1000 == 0) {
		ap->func = kl_arena_printf(a, "%llu", ns / 1000);
		ap->target = "us";
	}
}

/* "provider:a:b:c" split at ':' outside quotes, quotes removed; the provider's one- and
 * two-letter aliases spelled out. */
void kt_attach_split(struct kl_arena *a, struct kt_attach *ap)
{
	const char *parts[4] = { 0 };
	int n = 0;
	const char *s = ap->text;
	while (*s && n < 4) {
		char buf[4096];
		size_t k = 0;
		bool q = false;
		for (; *s && (q || *s != ':' || n == 3); s++) {
			if (*s == '"')
				q = !q;
			else if (k < sizeof(buf) - 1)
				buf[k++] = *s;
		}
		buf[k] = 0;
		parts[n++] = kl_arena_strdup(a, buf);
		if (*s == ':')
			s++;
	}
	ap->provider = parts[0] ? parts[0] : "";
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(ap->provider, aliases[i][0]))
			ap->provider = aliases[i][1];
	ap->target = parts[1];
	ap->func = parts[2];
	ap->extra = parts[3];
	timed_split(a, ap);
}

static bool probe(struct ps *p, struct kt_probe *pr)
{
	KL_VEC(struct kt_attach) v = { 0 };
	for (;;) {
		struct kt_attach ap = { 0 };
		if (!(ap.text = kt_lex_attach(&p->lx, &ap.span))) {
			p->failed = true;
			return false;
		}
		kt_attach_split(p->a, &ap);
		kl_vec_push(p->a, &v, ap);
		if (!accept(p, ','))
			break;
	}
	pr->attach = v.items;
	pr->nattach = (uint32_t)v.len;
	pr->span = v.items[0].span;
	struct kt_tok *t = peek(p);
	if (t->kind == '/') {
		struct kt_tok open = take(p);
		p->in_pred = true;
		pr->pred = expr(p);
		p->in_pred = false;
		if (!pr->pred)
			return false;
		if (!accept(p, '/'))
			return fail(p, open.span, "unterminated predicate: '/' expected after its expression"), false;
	} else if (t->kind == KT_TOK_EOF) {
		return fail(p, t->span, "unexpected end of file, expected {"), false;
	}
	return (pr->block = block(p)) != NULL;
}

/* The i-th child of n (a, b, c, then kids), NULL past the last. */
static struct kt_node *child(const struct kt_node *n, uint32_t i)
{
	if (i < 3)
		return i == 0 ? n->a : i == 1 ? n->b : n->c;
	return i - 3 < n->nkids ? n->kids[i - 3] : NULL;
}

/* The tree under root is at most KT_MAX_NEST deep, or an error at the first node past it.
 * A walk with its own stack of KT_MAX_NEST frames: a chain of binary operators is as deep
 * as it is long, and recursion over it (sema's, gen's, kiln's compiler's over the Lisp
 * written from it) is safe only once this holds. */
static int check_height(struct kl_diag *d, struct kt_node *root)
{
	struct { struct kt_node *n; uint32_t next; } st[KT_MAX_NEST];
	if (!root)
		return 0;
	uint32_t sp = 0;
	st[sp++] = (typeof(st[0])){ root, 0 };
	while (sp) {
		struct kt_node *top = st[sp - 1].n;
		uint32_t i = st[sp - 1].next;
		if (i >= 3 + top->nkids) {
			sp--;
			continue;
		}
		st[sp - 1].next = i + 1;
		struct kt_node *c = child(top, i);
		if (!c)
			continue;
		if (sp == KT_MAX_NEST) {
			kl_error(d, c->span, "nested too deeply: kiln trace takes at most %d levels of nesting "
				 "(a chain of operators counts one per operator)", KT_MAX_NEST);
			return -1;
		}
		st[sp++] = (typeof(st[0])){ c, 0 };
	}
	return 0;
}

/* `config = { KEY = VALUE; ... }`, after its word: the settings (sema_config.c reads them). */
static bool config_block(struct ps *p, struct kt_program *out)
{
	KL_VEC(struct kt_config) v = { 0 };
	if (!expect(p, '=', "'=' after config") || !expect(p, '{', "'{'"))
		return false;
	while (!accept(p, '}')) {
		if (accept(p, ';'))
			continue;
		struct kt_tok k = take(p);
		if (k.kind != KT_TOK_IDENT)
			return fail(p, k.span, "expected a config variable's name");
		if (!expect(p, '=', "'=' after the config variable"))
			return false;
		struct kt_tok val = take(p);
		struct kt_config c = { k.span, k.s, val.s };
		if (val.kind == KT_TOK_INT)
			c.value = kl_arena_printf(p->a, "%lld", (long long)val.num);
		else if (val.kind != KT_TOK_IDENT && val.kind != KT_TOK_STR)
			return fail(p, val.span, "expected a value: an integer, a word or a string");
		kl_vec_push(p->a, &v, c);
		if (peek(p)->kind != '}' && !expect(p, ';', "';' or '}'"))
			return false;
	}
	out->config = v.items;
	out->nconfig = (uint32_t)v.len;
	return true;
}

/* `let @m = TYPE(N);`, after `let`: a map's BPF type and entries. */
static bool map_decl(struct ps *p, struct kt_program *out, uint32_t *cap)
{
	struct kt_tok m = take(p);
	if (m.kind != KT_TOK_MAP)
		return fail(p, m.span, "expected a map after let at the top level");
	struct kt_tok t = take(p);
	if (t.kind != '=' || (t = take(p)).kind != KT_TOK_IDENT || !expect(p, '(', "'('"))
		return fail(p, t.span, "expected `let @map = TYPE(ENTRIES)`");
	struct kt_tok n = take(p);
	if (n.kind != KT_TOK_INT || !expect(p, ')', "')'") || !expect(p, ';', "';'"))
		return fail(p, n.span, "a map declaration takes its max entries, an integer");
	if (out->nmapdecls == *cap) {
		uint32_t nc = *cap ? 2 * *cap : 8;
		struct kt_mapdecl *nd = kl_arena_array(p->a, struct kt_mapdecl, nc);
		if (out->nmapdecls)
			memcpy(nd, out->mapdecls, out->nmapdecls * sizeof(*nd));
		out->mapdecls = nd;
		*cap = nc;
	}
	out->mapdecls[out->nmapdecls++] = (struct kt_mapdecl){ m.span, m.s, t.s, n.num };
	return true;
}

/* `macro NAME(x, $v, @m) { BODY }`, after `macro`: kept in *v for kt_macro_expand. */
static bool macro_def(struct ps *p, struct kt_tok kw, macrovec *v)
{
	struct kt_tok name = take(p);
	if (name.kind != KT_TOK_IDENT || !expect(p, '(', "'(' after the macro's name"))
		return fail(p, name.span, "expected the macro's name");
	nodevec params = { 0 };
	if (!accept(p, ')')) {
		do {
			struct kt_tok t = take(p);
			if (t.kind != KT_TOK_IDENT && t.kind != KT_TOK_VAR && t.kind != KT_TOK_MAP)
				return fail(p, t.span, "a macro's parameter is a name, a $variable or a @map");
			kl_vec_push(p->a, &params, leaf(p, t.kind == KT_TOK_IDENT ? KT_IDENT : t.kind == KT_TOK_VAR ? KT_VAR : KT_MAP, &t));
		} while (accept(p, ','));
		if (!expect(p, ')', "',' or ')'"))
			return false;
	}
	struct kt_node *body = block(p);
	if (!body || check_height(p->d, body))
		return p->failed = true, false;
	struct kt_macro m = { kw.span, name.s, params.items, (uint32_t)params.len, body };
	kl_vec_push(p->a, v, m);
	return true;
}

/* A top-level item that is not a probe (config, a map declaration): 1 read, 0 none there
 * (the lexer left where it was), -1 an error. */
static int top_item(struct ps *p, struct kt_program *out, uint32_t *cap, macrovec *macros)
{
	struct kt_lexer save = p->lx;
	struct kl_diag scratch = { 0 };   /* a probe's attach point is no tokens: a look only */
	p->lx.d = &scratch;
	struct kt_tok t = kt_lex_next(&p->lx);
	struct kt_lexer after = p->lx;
	struct kt_tok n = kt_lex_next(&p->lx);
	p->lx = after;
	p->lx.d = p->d;
	bool ok;
	if (t.kind == KT_TOK_IDENT && !strcmp(t.s, "config") && n.kind == '=')
		ok = config_block(p, out);
	else if (t.kind == KT_TOK_IDENT && !strcmp(t.s, "let") && n.kind == KT_TOK_MAP)
		ok = map_decl(p, out, cap);
	else if (t.kind == KT_TOK_IDENT && !strcmp(t.s, "macro") && n.kind == KT_TOK_IDENT) {
		ok = macro_def(p, t, macros);
	}
	else {
		p->lx = save;
		return 0;
	}
	if (!ok || p->failed)
		return -1;
	if (p->have)   /* nothing may be left peeked: probes are read raw */
		return fail(p, p->tok.span, "unexpected token after a top-level item"), -1;
	return 1;
}

int kt_parse(const struct kl_source *src, struct kl_arena *a, struct kl_diag *d, struct kt_program *out)
{
	struct ps p = { .a = a, .d = d };
	kt_lex_init(&p.lx, src, a, d);
	p.lx.cdefs = out->cdefs;
	KL_VEC(struct kt_probe) v = { 0 };
	uint32_t decl_cap = 0;
	macrovec macros = { 0 };
	for (;;) {
		int r = kt_lex_top(&p.lx);
		if (r < 0)
			return -1;
		if (!r)
			break;
		int top = top_item(&p, out, &decl_cap, &macros);   /* config, let @m, macro: 0.26 */
		if (top < 0)
			return -1;
		if (top)
			continue;
		struct kt_probe pr = { 0 };
		if (!probe(&p, &pr) || p.failed) {
			if (!d->nerrors)
				kl_error(d, pr.span, "syntax error");
			return -1;
		}
		if (check_height(d, pr.pred) || check_height(d, pr.block))
			return -1;
		kl_vec_push(a, &v, pr);
		if (p.have)   /* the lexer is past the probe's '}' only if nothing was peeked */
			return fail(&p, p.tok.span, "unexpected token after a probe"), -1;
	}
	if (!v.len) {
		struct kl_span at = { src, p.lx.line, p.lx.col };
		kl_error(d, at, "syntax error: no probes in the program");
		return -1;
	}
	out->probes = v.items;
	out->nprobes = (uint32_t)v.len;
	if (!macros.len)
		return 0;
	if (kt_macro_expand(a, d, macros.items, (uint32_t)macros.len, out))
		return -1;
	for (uint32_t i = 0; i < out->nprobes; i++)   /* the expanded trees are bounded again */
		if (check_height(d, out->probes[i].pred) || check_height(d, out->probes[i].block))
			return -1;
	return 0;
}
