/* lexer.c — bpftrace's tokens: identifiers, integers (decimal, hex, octal, 1_000, 1e6, and
 * 0.26's durations 5us, 100ms, 1s written as nanoseconds), strings with C escapes, @maps, $variables and $N
 * positional parameters, C operators; comments // and block comments. */
#include "trace/lexer.h"
#include "trace/cdefine.h"
#include "trace/cstruct.h"
#include "trace/limits.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void kt_lex_init(struct kt_lexer *lx, const struct kl_source *src, struct kl_arena *a, struct kl_diag *d)
{
	*lx = (struct kt_lexer){ .src = src, .a = a, .d = d, .line = 1, .col = 1 };
}

static int peekc(const struct kt_lexer *lx, size_t k)
{
	return lx->pos + k < lx->src->len ? (unsigned char)lx->src->text[lx->pos + k] : 0;
}

static void adv(struct kt_lexer *lx)
{
	if (lx->pos >= lx->src->len)
		return;
	if (lx->src->text[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static struct kl_span here(const struct kt_lexer *lx)
{
	return (struct kl_span){ lx->src, lx->line, lx->col };
}

/* Blanks and comments; an unterminated block comment is an error (-1). */
static int skip_blank(struct kt_lexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			adv(lx);
		} else if (c == '/' && peekc(lx, 1) == '/') {
			while (peekc(lx, 0) && peekc(lx, 0) != '\n')
				adv(lx);
		} else if (c == '/' && peekc(lx, 1) == '*') {
			struct kl_span at = here(lx);
			adv(lx);
			adv(lx);
			while (peekc(lx, 0) && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/'))
				adv(lx);
			if (!peekc(lx, 0))
				return kl_error(lx->d, at, "unterminated comment");
			adv(lx);
			adv(lx);
		} else {
			return 0;
		}
	}
}

static void skip_line(struct kt_lexer *lx)
{
	while (peekc(lx, 0) && peekc(lx, 0) != '\n') {
		if (peekc(lx, 0) == '\\' && peekc(lx, 1) == '\n')
			adv(lx);
		adv(lx);
	}
}

/* `struct NAME { ... };` (or union, enum) at the top level: a C definition bpftrace hands to
 * clang. Read over, braces balanced, and its text handed to kiln's reader (cstruct.h). */
static int skip_c_definition(struct kt_lexer *lx)
{
	struct kl_span at = here(lx);
	size_t start = lx->pos;
	int depth = 0;
	while (peekc(lx, 0)) {
		int c = peekc(lx, 0);
		adv(lx);
		if (c == '{')
			depth++;
		else if (c == '}' && --depth == 0)
			break;
	}
	if (depth)
		return kl_error(lx->d, at, "unterminated C definition");
	char why[512];   /* the script's structs (not in an #if branch not taken), before the kernel's */
	size_t off;
	if (lx->cdefs && !lx->cdefs->skip_mask &&
	    kt_cs_define(&lx->cdefs->structs, lx->src->text + start, lx->pos - start, &off, why, sizeof(why)))
		return kl_error(lx->d, kt_cs_span(at, lx->src->text + start, off), "%s", why);
	skip_blank(lx);
	if (peekc(lx, 0) == ';')
		adv(lx);
	return 0;
}

static bool word_at(const struct kt_lexer *lx, const char *w)
{
	size_t n = strlen(w);
	return lx->pos + n <= lx->src->len && !memcmp(lx->src->text + lx->pos, w, n) &&
	       !isalnum(peekc(lx, n)) && peekc(lx, n) != '_';
}

int kt_lex_top(struct kt_lexer *lx)
{
	for (;;) {
		if (skip_blank(lx))
			return -1;
		int c = peekc(lx, 0);
		if (!c)
			return 0;
		if (c == '#') {
			struct kl_span at = here(lx);
			size_t start = lx->pos;
			skip_line(lx);
			char why[512];
			if (kt_cdef_line(lx->cdefs, lx->src->text + start, lx->pos - start, why, sizeof why)) {
				kl_error(lx->d, at, "%s", why);
				return -1;
			}
		} else if ((word_at(lx, "struct") || word_at(lx, "union") || word_at(lx, "enum"))) {
			if (skip_c_definition(lx))
				return -1;
		} else {
			return 1;
		}
	}
}

/* Whether the attach point's part starting at PART (just after a ':'; the attach point starts
 * at AP) is a file path, in which a '/' does not start a predicate: a part starting with '/'
 * or '.' (uprobe:/bin/sh:f, uprobe:./testprogs/x:f, uretprobe:../y:main), and any second part
 * of a uprobe, uretprobe or usdt attach point (uprobe:bin/x:f). */
static bool part_is_path(const char *ap, const char *part)
{
	if (*part == '/' || *part == '.')
		return true;
	static const char *const user[] = { "uprobe:", "uretprobe:", "usdt:", "u:", "ur:", "U:" };
	for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++)
		if ((size_t)(part - ap) == strlen(user[i]) && !strncmp(ap, user[i], strlen(user[i])))
			return true;
	return false;
}

const char *kt_lex_attach(struct kt_lexer *lx, struct kl_span *span)
{
	if (skip_blank(lx))
		return NULL;
	*span = here(lx);
	size_t start = lx->pos;
	bool path = false;          /* the current ':'-separated part is a file path */
	for (;;) {
		int c = peekc(lx, 0);
		if (!c || isspace(c) || c == ',' || c == '{')
			break;
		if (lx->pos > start && lx->src->text[lx->pos - 1] == ':')
			path = part_is_path(lx->src->text + start, lx->src->text + lx->pos);
		if (c == '/' && !path)
			break;      /* a predicate */
		if (c == ':')
			path = false;
		if (c == '"') {     /* a quoted part: uprobe:"/a b/c":f */
			adv(lx);
			while (peekc(lx, 0) && peekc(lx, 0) != '"' && peekc(lx, 0) != '\n')
				adv(lx);
			if (peekc(lx, 0) != '"') {
				kl_error(lx->d, *span, "unterminated string in the attach point");
				return NULL;
			}
		}
		adv(lx);
	}
	if (lx->pos == start) {
		kl_error(lx->d, *span, "syntax error: expected an attach point (BEGIN, tracepoint:CAT:NAME, ...)");
		return NULL;
	}
	return kl_arena_strndup(lx->a, lx->src->text + start, lx->pos - start);
}

struct op {
	const char *text;
	int kind;
};
/* Longest first, so that "<<=" wins over "<<" and "<". */
static const struct op ops[] = {
	{ "<<=", KT_OP_SHLEQ }, { ">>=", KT_OP_SHREQ }, { "==", KT_OP_EQ }, { "!=", KT_OP_NE },
	{ "<=", KT_OP_LE }, { ">=", KT_OP_GE }, { "&&", KT_OP_AND }, { "||", KT_OP_OR }, { "<<", KT_OP_SHL },
	{ ">>", KT_OP_SHR }, { "++", KT_OP_INC }, { "--", KT_OP_DEC }, { "->", KT_OP_ARROW },
	{ "+=", KT_OP_ADDEQ }, { "-=", KT_OP_SUBEQ }, { "*=", KT_OP_MULEQ }, { "/=", KT_OP_DIVEQ },
	{ "..", KT_OP_RANGE }, { "%=", KT_OP_MODEQ }, { "&=", KT_OP_ANDEQ }, { "|=", KT_OP_OREQ }, { "^=", KT_OP_XOREQ },
};
static const char single[] = "{}()[];,.?:+-*/%&|^!~<>=";

const char *kt_tok_name(int kind)
{
	switch (kind) {
	case KT_TOK_EOF: return "end of input";
	case KT_TOK_IDENT: return "identifier";
	case KT_TOK_INT: return "integer";
	case KT_TOK_STR: return "string";
	case KT_TOK_MAP: return "map";
	case KT_TOK_VAR: return "variable";
	case KT_TOK_PARAM: return "positional parameter";
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].kind == kind)
			return ops[i].text;
	/* a single character of single[] above: "'c'", from a constant table */
	static const char quoted[][4] = {
#define Q(c) [c] = { '\'', c, '\'', 0 }
		Q('{'), Q('}'), Q('('), Q(')'), Q('['), Q(']'), Q(';'), Q(','), Q('.'), Q('?'), Q(':'), Q('+'),
		Q('-'), Q('*'), Q('/'), Q('%'), Q('&'), Q('|'), Q('^'), Q('!'), Q('~'), Q('<'), Q('>'), Q('='),
#undef Q
	};
	if (kind > 0 && (size_t)kind < sizeof(quoted) / sizeof(quoted[0]) && quoted[kind][0])
		return quoted[kind];
	return "token";
}

static int escape(struct kt_lexer *lx, char *out)
{
	int c = peekc(lx, 0);
	static const char from[] = "ntr0\\\"'ae", to[] = "\n\t\r\0\\\"'\a\033";
	const char *p = c ? strchr(from, c) : NULL;
	if (p) {
		*out = to[p - from];
		adv(lx);
		return 0;
	}
	if (c == 'x' && isxdigit(peekc(lx, 1))) {
		adv(lx);
		int v = 0;
		for (int k = 0; k < 2 && isxdigit(peekc(lx, 0)); k++) {
			int d = peekc(lx, 0);
			v = v * 16 + (isdigit(d) ? d - '0' : tolower(d) - 'a' + 10);
			adv(lx);
		}
		*out = (char)v;
		return 0;
	}
	if (c >= '0' && c <= '7') {
		int v = 0;
		for (int k = 0; k < 3 && peekc(lx, 0) >= '0' && peekc(lx, 0) <= '7'; k++) {
			v = v * 8 + peekc(lx, 0) - '0';
			adv(lx);
		}
		*out = (char)v;
		return 0;
	}
	return kl_error(lx->d, here(lx), "invalid escape sequence '\\%c'", c ? c : ' ');
}

static struct kt_tok lex_string(struct kt_lexer *lx, struct kt_tok t)
{
	adv(lx);
	size_t cap = 64, n = 0;
	char *buf = kl_arena_alloc(lx->a, cap);
	for (;;) {
		int c = peekc(lx, 0);
		if (!c || c == '\n') {
			kl_error(lx->d, t.span, "unterminated string");
			t.kind = KT_TOK_ERROR;
			return t;
		}
		if (c == '"') {
			adv(lx);
			break;
		}
		char ch = (char)c;
		if (c == '\\') {
			adv(lx);
			if (escape(lx, &ch)) {
				t.kind = KT_TOK_ERROR;
				return t;
			}
		} else {
			adv(lx);
		}
		if (n == KT_MAX_STRLIT) {
			kl_error(lx->d, t.span, "string too long: kiln trace takes at most %d bytes in a string literal",
				 KT_MAX_STRLIT);
			t.kind = KT_TOK_ERROR;
			return t;
		}
		if (n + 2 > cap) {
			buf = kl_arena_grow(lx->a, buf, cap, cap * 2);
			cap *= 2;
		}
		buf[n++] = ch;
	}
	buf[n] = 0;
	t.kind = KT_TOK_STR;
	t.s = buf;
	t.n = (uint32_t)n;
	return t;
}

/* The nanoseconds in a duration suffix at s (ns, us, ms, s, m, h, d) not followed by a
 * letter, digit or '_': *n moves past it. 0 when there is none. */
static uint64_t duration_unit(const char *s, size_t *n)
{
	static const struct { const char *suffix; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000ull }, { "ms", 1000000ull }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i].suffix);
		if (!strncmp(s, units[i].suffix, k) && !isalnum((unsigned char)s[k]) && s[k] != '_') {
			*n += k;
			return units[i].ns;
		}
	}
	return 0;
}

static struct kt_tok lex_number(struct kt_lexer *lx, struct kt_tok t)
{
	const char *s = lx->src->text + lx->pos;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	size_t n = (size_t)(end - s);
	bool bad = errno == ERANGE;
	/* bpftrace allows 1_000_000 and a suffix-free integer only; a letter glued on is wrong */
	while (s[n] == '_' && isdigit((unsigned char)s[n + 1])) {
		size_t k = n + 1;
		while (isdigit((unsigned char)s[k]) || (s[k] == '_' && isdigit((unsigned char)s[k + 1])))
			k++;
		char digits[64];
		size_t m = 0;
		for (size_t i = 0; i < k && m < sizeof(digits) - 1; i++)
			if (s[i] != '_')
				digits[m++] = s[i];
		digits[m] = 0;
		v = strtoull(digits, NULL, 10);
		n = k;
	}
	if ((s[n] == 'e' || s[n] == 'E') && isdigit((unsigned char)s[n + 1])) {   /* 1e6 */
		size_t k = n + 1;
		unsigned long long e = 0;
		while (isdigit((unsigned char)s[k]))
			e = e * 10 + (unsigned long long)(s[k++] - '0');
		for (; e > 0 && !bad; e--) {
			bad = v > UINT64_MAX / 10;
			v *= 10;
		}
		n = k;
	}
	uint64_t unit = duration_unit(s + n, &n);
	if (unit > 1) {   /* 0.26's durations: 100ms is 100000000 (nanoseconds) */
		bad = bad || v > UINT64_MAX / unit;
		v *= unit;
	}
	while (!unit && (s[n] == 'u' || s[n] == 'U' || s[n] == 'l' || s[n] == 'L'))   /* C suffixes */
		n++;
	for (size_t i = 0; i < n; i++)
		adv(lx);
	if (isalpha((unsigned char)s[n]) || s[n] == '_' || bad) {
		kl_error(lx->d, t.span, bad ? "integer too large" : "syntax error: invalid integer");
		t.kind = KT_TOK_ERROR;
		return t;
	}
	t.kind = KT_TOK_INT;
	t.num = (int64_t)v;
	return t;
}

static const char *lex_word(struct kt_lexer *lx)
{
	size_t start = lx->pos;
	while (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_')
		adv(lx);
	return kl_arena_strndup(lx->a, lx->src->text + start, lx->pos - start);
}

struct kt_tok kt_lex_next(struct kt_lexer *lx)
{
	struct kt_tok t = { 0 };
	if (skip_blank(lx)) {
		t.kind = KT_TOK_ERROR;
		return t;
	}
	t.span = here(lx);
	size_t start = lx->pos;
	int c = peekc(lx, 0);
	if (!c) {
		t.kind = KT_TOK_EOF;
	} else if (c == '"') {
		t = lex_string(lx, t);
	} else if (isdigit(c)) {
		t = lex_number(lx, t);
	} else if (isalpha(c) || c == '_') {
		t.kind = KT_TOK_IDENT;
		t.s = lex_word(lx);
	} else if (c == '@') {
		adv(lx);
		t.kind = KT_TOK_MAP;
		t.s = lex_word(lx);
	} else if (c == '$' && peekc(lx, 1) == '#') {
		adv(lx);
		adv(lx);
		t.kind = KT_TOK_PARAM;
		t.num = 0;
	} else if (c == '$' && isdigit(peekc(lx, 1))) {
		adv(lx);
		t.kind = KT_TOK_PARAM;
		t.num = 0;
		while (isdigit(peekc(lx, 0))) {
			t.num = t.num * 10 + peekc(lx, 0) - '0';
			adv(lx);
			if (t.num > 1000000) {
				kl_error(lx->d, t.span, "positional parameter number too large");
				t.kind = KT_TOK_ERROR;
				return t;
			}
		}
		if (t.num == 0) {   /* $0 ($# is the count) */
			kl_error(lx->d, t.span, "param $0 is out of integer range [1, 9223372036854775807]");
			t.kind = KT_TOK_ERROR;
		}
	} else if (c == '$' && (isalpha(peekc(lx, 1)) || peekc(lx, 1) == '_')) {
		adv(lx);
		t.kind = KT_TOK_VAR;
		t.s = lex_word(lx);
	} else {
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			size_t n = strlen(ops[i].text);
			if (lx->pos + n <= lx->src->len && !memcmp(lx->src->text + lx->pos, ops[i].text, n)) {
				for (size_t k = 0; k < n; k++)
					adv(lx);
				t.kind = ops[i].kind;
				t.len = (uint32_t)n;
				return t;
			}
		}
		if (strchr(single, c)) {
			adv(lx);
			t.kind = c;
		} else {
			kl_error(lx->d, t.span, "syntax error: unexpected character '%c'", isprint(c) ? c : '?');
			t.kind = KT_TOK_ERROR;
		}
	}
	t.len = (uint32_t)(lx->pos - start);
	return t;
}
