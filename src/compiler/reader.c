/* reader.c — the tokenizer and list reader: source text becomes nodes with spans.
 * Quote, backquote and comma read as (quote x), (quasiquote x), (unquote x), (unquote-splicing x). */
#include "reader.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	struct kl_arena *a;
	struct kl_diag *d;
	const struct kl_source *src;
	const char *p, *end;
	uint32_t line, col;
	uint32_t depth;           /* lists open now: bounded so deep input cannot exhaust the stack */
	uint32_t forms;           /* forms read so far (atoms and lists) */
};

#define MAX_DEPTH 1000
/* A source of more forms than this is refused as soon as it is read that far: each costs some
 * hundred bytes through the stages, and no program the kernel would load (at most 1,000,000
 * instructions) needs as many; a million statements failed after seconds and a gigabyte. */
#define MAX_FORMS 1000000
/* BTF's string section, which holds the source lines of line info and the names, is at most
 * 16 MiB; half of it for the source leaves room for both. */
#define MAX_SOURCE (8 << 20)
/* Names become BTF names (structs, fields, maps, functions), which the kernel takes up to
 * KSYM_NAME_LEN (512) bytes; 255 leaves room for what kiln adds. */
#define MAX_NAME 255

static struct kl_span here(struct rd *r)
{
	return (struct kl_span){ r->src, r->line, r->col };
}

static void adv(struct rd *r)
{
	if (*r->p == '\n') {
		r->line++;
		r->col = 1;
	} else {
		r->col++;
	}
	r->p++;
}

/* Skip blanks and comments; -1 on an unterminated block comment. */
static int skip(struct rd *r)
{
	while (r->p < r->end) {
		char c = *r->p;
		if (isspace((unsigned char)c)) {
			adv(r);
		} else if (c == ';') {
			while (r->p < r->end && *r->p != '\n')
				adv(r);
		} else if (c == '#' && r->p + 1 < r->end && r->p[1] == '|') {
			struct kl_span start = here(r);
			int depth = 0;
			do {
				if (r->p + 1 < r->end && r->p[0] == '#' && r->p[1] == '|') {
					depth++;
					adv(r);
				} else if (r->p + 1 < r->end && r->p[0] == '|' && r->p[1] == '#') {
					depth--;
					adv(r);
				}
				adv(r);
			} while (depth > 0 && r->p < r->end);
			if (depth > 0)
				return kl_error(r->d, start, "unterminated block comment '#|'");
		} else {
			break;
		}
	}
	return 0;
}

static bool is_delim(char c)
{
	return isspace((unsigned char)c) || c == '(' || c == ')' || c == '[' || c == ']' ||
	       c == '"' || c == ';' || c == '\'' || c == '`' || c == ',';
}

static struct kl_node *node(struct rd *r, enum kl_node_kind k, struct kl_span s)
{
	struct kl_node *n = kl_arena_new(r->a, struct kl_node);
	n->kind = k;
	n->span = s;
	return n;
}

/* Parse an integer token in the given base; false if it is not one. */
static bool parse_int(const char *s, int base, int64_t *out)
{
	bool neg = false;
	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	if (!*s)
		return false;
	char *e;
	errno = 0;
	unsigned long long v = strtoull(s, &e, base);
	if (*e || errno || !isalnum((unsigned char)*s))
		return false;
	*out = (int64_t)(neg ? 0 - (uint64_t)v : (uint64_t)v);   /* wraps as the machine does: -#x8000000000000000 too */
	return true;
}

/* A float token as Common Lisp reads one: [sign] digits [. digits] [marker [sign] digits], with
 * a digit after the point or an exponent (1. is the integer 1), the marker e s f (a single) or
 * d l (a double). 1 with *d and *single set; 0 when tok is no float; -1 when it is one out of
 * range. */
static int parse_float(const char *tok, double *d, bool *single)
{
	const char *p = tok + (*tok == '-' || *tok == '+');
	size_t ip = strspn(p, "0123456789"), fp = 0, ep = 0;
	p += ip;
	if (*p == '.')
		p++, fp = strspn(p, "0123456789"), p += fp;
	if (!ip && !fp)
		return 0;
	char m = (char)tolower((unsigned char)*p);
	*single = m != 'd' && m != 'l';
	if (*p && strchr("esfdl", m)) {
		p++;
		p += *p == '-' || *p == '+';
		if (!(ep = strspn(p, "0123456789")))
			return 0;
		p += ep;
	}
	if (*p || (!fp && !ep))
		return 0;
	char buf[128];
	size_t len = strlen(tok);
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, tok, len + 1);
	char *mk = strpbrk(buf, "sfdlSFDL");
	if (mk)
		*mk = 'e';
	errno = 0;
	*d = strtod(buf, NULL);
	if (*single) {
		float f = (float)*d;
		if (isinf(f) || (f == 0 && *d != 0))
			return -1;
		*d = f;
	}
	return isinf(*d) || (errno == ERANGE && *d == 0) ? -1 : 1;   /* a denormal is a float */
}

static struct kl_node *read_form(struct rd *r);

const char *kl_fold_case(struct kl_arena *a, const char *s)
{
	const char *p = s;
	while (*p && !isupper((unsigned char)*p))
		p++;
	if (!*p)
		return s;
	char *f = kl_arena_strdup(a, s);
	for (char *q = f + (p - s); *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return f;
}

void kl_set_name(struct kl_arena *a, struct kl_node *n, const char *written)
{
	n->name = written;
	n->str = kl_fold_case(a, written);
}

static struct kl_node *read_list(struct rd *r, char close)
{
	struct kl_span start = here(r);
	if (++r->depth > MAX_DEPTH) {
		kl_error(r->d, start, "forms nest deeper than %d levels", MAX_DEPTH);
		return NULL;
	}
	adv(r);
	KL_VEC(struct kl_node *) items = { 0 };
	for (;;) {
		if (skip(r))
			return NULL;
		if (r->p >= r->end) {
			kl_error(r->d, start, "unbalanced '%c': no matching '%c' before the end of the file",
				 close == ')' ? '(' : '[', close);
			return NULL;
		}
		if (*r->p == ')' || *r->p == ']') {
			if (*r->p != close) {
				kl_error(r->d, here(r), "'%c' closes the '%c' opened at line %u, column %u",
					 *r->p, close == ')' ? '(' : '[', start.line, start.col);
				return NULL;
			}
			adv(r);
			r->depth--;
			break;
		}
		struct kl_node *n = read_form(r);
		if (!n)
			return NULL;
		kl_vec_push(r->a, &items, n);
	}
	struct kl_node *l = node(r, KL_N_LIST, start);
	l->items = items.items;
	l->nitems = (uint32_t)items.len;
	l->vector = close == ']';
	return l;
}

static struct kl_node *read_string(struct rd *r)
{
	struct kl_span start = here(r);
	adv(r);
	KL_VEC(char) buf = { 0 };
	while (r->p < r->end && *r->p != '"') {
		char c = *r->p;
		if (c == '\\') {
			adv(r);
			if (r->p >= r->end)
				break;
			switch (*r->p) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '0': c = '\0'; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			default:
				kl_error(r->d, here(r), "unknown escape '\\%c' in string", *r->p);
				return NULL;
			}
		}
		kl_vec_push(r->a, &buf, c);
		adv(r);
	}
	if (r->p >= r->end) {
		kl_error(r->d, start, "unterminated string");
		return NULL;
	}
	adv(r);
	kl_vec_push(r->a, &buf, '\0');
	struct kl_node *n = node(r, KL_N_STR, start);
	n->str = buf.items;
	n->ival = (int64_t)buf.len - 1;
	return n;
}

static struct kl_node *wrap(struct rd *r, const char *head, struct kl_span s)
{
	if (++r->depth > MAX_DEPTH) {
		kl_error(r->d, s, "forms nest deeper than %d levels", MAX_DEPTH);
		return NULL;
	}
	struct kl_node *inner = read_form(r);
	r->depth--;
	if (!inner)
		return NULL;
	struct kl_node *h = node(r, KL_N_SYM, s);
	h->str = head;
	struct kl_node *l = node(r, KL_N_LIST, s);
	l->items = kl_arena_array(r->a, struct kl_node *, 2);
	l->items[0] = h;
	l->items[1] = inner;
	l->nitems = 2;
	return l;
}

static const struct { const char *name; char c; } char_names[] = {
	{ "space", ' ' }, { "newline", '\n' }, { "tab", '\t' }, { "nul", 0 }, { "null", 0 },
	{ "return", '\r' }, { "linefeed", '\n' },
};

static struct kl_node *read_atom(struct rd *r)
{
	struct kl_span s = here(r);
	const char *start = r->p;
	/* #\c reads one character even if it is a delimiter */
	if (r->p + 2 < r->end + 1 && r->p[0] == '#' && r->p + 1 < r->end && r->p[1] == '\\') {
		adv(r);
		adv(r);
		if (r->p >= r->end) {
			kl_error(r->d, s, "character literal '#\\' needs a character");
			return NULL;
		}
		adv(r);
		while (r->p < r->end && !is_delim(*r->p))
			adv(r);
	} else {
		while (r->p < r->end && !is_delim(*r->p))
			adv(r);
	}
	size_t len = (size_t)(r->p - start);
	if (len > MAX_NAME && !isdigit((unsigned char)start[0])) {
		kl_error(r->d, s, "a name of %zu characters; names are at most %d (they become BTF names)",
			 len, MAX_NAME);
		return NULL;
	}
	char *tok = kl_arena_strndup(r->a, start, len);
	const char *why = NULL;
	struct kl_node *n = kl_atom_node(r->a, tok, len, s, &why);
	if (!n)
		kl_error(r->d, s, why, tok);
	return n;
}

struct kl_node *kl_atom_node(struct kl_arena *a, const char *tok, size_t len, struct kl_span s, const char **why)
{
	struct kl_node *n = kl_arena_new(a, struct kl_node);
	n->span = s;
	int64_t v;
	if (tok[0] == '#' && len >= 3 && tok[1] == '\\') {
		n->kind = KL_N_INT;
		if (len == 3) {
			n->ival = (unsigned char)tok[2];
			return n;
		}
		for (size_t i = 0; i < sizeof(char_names) / sizeof(char_names[0]); i++)
			if (!strcasecmp(char_names[i].name, tok + 2)) {
				n->ival = char_names[i].c;
				return n;
			}
		*why = "unknown character name '%s'";
		return NULL;
	}
	if (tok[0] == '#' && tok[1] == ':' && len > 2) {
		/* #:name, an uninterned symbol in Common Lisp: (in-package #:whistler) */
		n->kind = KL_N_SYM;
		kl_set_name(a, n, tok + 2);
		return n;
	}
	if (tok[0] == '#' && len >= 2) {
		int base = tok[1] == 'x' || tok[1] == 'X' ? 16 : tok[1] == 'b' || tok[1] == 'B' ? 2
			 : tok[1] == 'o' || tok[1] == 'O' ? 8 : 0;
		if (!base || !parse_int(tok + 2, base, &v)) {
			*why = "malformed number '%s'";
			return NULL;
		}
		n->kind = KL_N_INT;
		n->ival = v;
		return n;
	}
	bool single;
	int fl = parse_float(tok, &n->fval, &single);
	if (fl < 0) {
		*why = "a float out of range '%s'";
		return NULL;
	}
	if (fl) {
		n->kind = KL_N_FLOAT;
		n->fsingle = single;
		n->str = kl_arena_strdup(a, tok);
		return n;
	}
	/* 1+ and 1- are Common Lisp's names of functions, not numbers */
	if ((isdigit((unsigned char)tok[0]) ||
	     ((tok[0] == '-' || tok[0] == '+') && isdigit((unsigned char)tok[1]))) &&
	    strcmp(tok, "1+") && strcmp(tok, "1-")) {
		bool hex = (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'));
		char dec[32];                   /* 12. is the integer 12, as Common Lisp reads it */
		if (!hex && len > 1 && len < sizeof(dec) && tok[len - 1] == '.' && isdigit((unsigned char)tok[len - 2])) {
			memcpy(dec, tok, len - 1);
			dec[len - 1] = 0;
			tok = dec;
		}
		if (!parse_int(hex ? tok + 2 : tok, hex ? 16 : 10, &v)) {
			size_t num = strspn(tok + 1, "0123456789") + 1;
			*why = tok[num] == '/' && tok[num + 1] && strspn(tok + num + 1, "0123456789") == strlen(tok + num + 1)
				       ? "the ratio '%s': kiln's Lisp has no ratios (write a float, 0.5, or divide)"
				       : "malformed number '%s'";
			return NULL;
		}
		n->kind = KL_N_INT;
		n->ival = v;
		return n;
	}
	if (tok[0] == ':' && len > 1) {
		n->kind = KL_N_KEY;
		kl_set_name(a, n, tok + 1);
		return n;
	}
	n->kind = KL_N_SYM;
	kl_set_name(a, n, tok);
	return n;
}

static struct kl_node *read_form(struct rd *r)
{
	if (skip(r))
		return NULL;
	struct kl_span s = here(r);
	if (r->p >= r->end) {
		kl_error(r->d, s, "unexpected end of file");
		return NULL;
	}
	if ((size_t)(r->p - r->src->text) > MAX_SOURCE) {
		kl_error(r->d, s, "the source is larger than %d MiB; kiln reads at most that much (BTF keeps "
			 "its lines and names in at most 16 MiB)", MAX_SOURCE >> 20);
		return NULL;
	}
	if (++r->forms > MAX_FORMS) {
		kl_error(r->d, s, "the source has more than %d forms (atoms and lists); kiln reads at most "
			 "that many", MAX_FORMS);
		return NULL;
	}
	switch (*r->p) {
	case '(': return read_list(r, ')');
	case '[': return read_list(r, ']');
	case ')':
	case ']':
		kl_error(r->d, s, "unbalanced '%c': no form is open here", *r->p);
		return NULL;
	case '"': return read_string(r);
	case '\'': adv(r); return wrap(r, "quote", s);
	case '#':
		if (r->p + 1 < r->end && r->p[1] == '\'') {   /* #'f is (function f) */
			adv(r);
			adv(r);
			return wrap(r, "function", s);
		}
		return read_atom(r);
	case '`': adv(r); return wrap(r, "quasiquote", s);
	case ',':
		adv(r);
		if (r->p < r->end && *r->p == '@') {
			adv(r);
			return wrap(r, "unquote-splicing", s);
		}
		return wrap(r, "unquote", s);
	default: return read_atom(r);
	}
}

int kl_read(struct kl_arena *a, struct kl_diag *d, const struct kl_source *src,
	    struct kl_node ***forms, uint32_t *nforms)
{
	struct rd r = { a, d, src, src->text, src->text + src->len, 1, 1, 0, 0 };
	KL_VEC(struct kl_node *) out = { 0 };
	for (;;) {
		if (skip(&r))
			return -1;
		if (r.p >= r.end)
			break;
		struct kl_node *n = read_form(&r);
		if (!n)
			return -1;
		kl_vec_push(a, &out, n);
	}
	*forms = out.items;
	*nforms = (uint32_t)out.len;
	return 0;
}

int kl_read_one(struct kl_arena *a, struct kl_diag *d, const struct kl_source *src, uint32_t off,
		uint32_t line, uint32_t col, struct kl_node **form)
{
	struct rd r = { a, d, src, src->text + off, src->text + src->len, line, col, 0, 0 };
	if (skip(&r))
		return -1;
	*form = r.p < r.end ? read_form(&r) : NULL;
	return *form ? 0 : -1;
}

/* Where node_str writes: a buffer of a message (cut short, deep lists elided), or a file
 * (the whole node, strings escaped so it reads back). */
struct sink {
	char *p, *end;
	FILE *f;
};

static void put(struct sink *o, const char *s)
{
	if (o->f)
		fputs(s, o->f);
	while (!o->f && *s && o->p < o->end)
		*o->p++ = *s++;
}

static void put_str(struct sink *o, const char *s)
{
	put(o, "\"");
	for (; o->f && *s; s++)
		fputs(*s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : (char[2]){ *s, 0 }, o->f);
	if (!o->f)
		put(o, s);
	put(o, "\"");
}

static void node_str(const struct kl_node *n, struct sink *o, int depth)
{
	char tmp[32];
	switch (n->kind) {
	case KL_N_INT:
		snprintf(tmp, sizeof(tmp), "%lld", (long long)n->ival);
		put(o, tmp);
		break;
	case KL_N_FLOAT: put(o, n->str); break;
	case KL_N_SYM: put(o, kl_name(n)); break;
	case KL_N_KEY: put(o, ":"); put(o, kl_name(n)); break;
	case KL_N_STR: put_str(o, n->str); break;
	case KL_N_LIST:
		put(o, n->vector ? "[" : "(");
		for (uint32_t i = 0; i < n->nitems; i++) {
			if (i)
				put(o, " ");
			if (o->f ? depth >= MAX_DEPTH : depth > 2 || i > 6) {   /* a file's: deeper than read */
				put(o, "...");
				break;
			}
			node_str(n->items[i], o, depth + 1);
		}
		put(o, n->vector ? "]" : ")");
		break;
	}
}

void kl_node_str(const struct kl_node *n, char *buf, size_t size)
{
	struct sink o = { buf, buf + size - 1, NULL };
	node_str(n, &o, 0);
	*o.p = 0;
}

/* The width of n on one line, or more than cap (the count stops past it). */
static size_t flat_width(const struct kl_node *n, size_t cap)
{
	char tmp[32];
	switch (n->kind) {
	case KL_N_INT: return (size_t)snprintf(tmp, sizeof(tmp), "%lld", (long long)n->ival);
	case KL_N_FLOAT: return strlen(n->str);
	case KL_N_SYM: return strlen(kl_name(n));
	case KL_N_KEY: return 1 + strlen(kl_name(n));
	case KL_N_STR: return 2 + strlen(n->str);
	case KL_N_LIST: break;
	}
	size_t w = 1 + n->nitems;
	for (uint32_t i = 0; i < n->nitems && w <= cap; i++)
		w += flat_width(n->items[i], cap - w);
	return w;
}

/* n at column col: on one line when it fits in width, else its head and first item (and
 * the second too when the first is an atom and both fit: `(defprog p0 (:type ...)`, `(loop
 * :while (< i 4)`), then each further item on a line of its own, indented two past the
 * list's bracket. */
static void pretty(struct sink *o, const struct kl_node *n, size_t col, size_t width, int depth)
{
	if (n->kind != KL_N_LIST || n->nitems < 3 || depth >= MAX_DEPTH || col + flat_width(n, width) <= width) {
		node_str(n, o, depth);
		return;
	}
	put(o, n->vector ? "[" : "(");
	node_str(n->items[0], o, depth + 1);
	put(o, " ");
	size_t at = col + 2 + flat_width(n->items[0], width);
	uint32_t first = 2;
	if (n->items[1]->kind != KL_N_LIST && n->nitems > 3 &&
	    at + flat_width(n->items[1], width) + 1 + flat_width(n->items[2], width) <= width) {
		node_str(n->items[1], o, depth + 1);
		put(o, " ");
		node_str(n->items[2], o, depth + 1);
		first = 3;
	} else {
		pretty(o, n->items[1], at, width, depth + 1);
	}
	for (uint32_t i = first; i < n->nitems; i++) {
		fprintf(o->f, "\n%*s", (int)(col + 2), "");
		pretty(o, n->items[i], col + 2, width, depth + 1);
	}
	put(o, n->vector ? "]" : ")");
}

void kl_node_print(FILE *f, const struct kl_node *n, unsigned width)
{
	struct sink o = { NULL, NULL, f };
	if (width)
		pretty(&o, n, 0, width, 0);
	else
		node_str(n, &o, 0);
}
