/* print.c — printing values as princ/prin1 do, output streams, and format's directives
 * (~a ~s ~d ~x ~o ~b ~c ~% ~& ~~ ~{ ~} ~^ ~* ~newline, with mincol and padchar). */
#include "lisp.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ------------------------------------------------------------------------- */

bool lv_text_put(struct lisp *h, struct lv_text *t, const char *s, size_t len)
{
	h->steps += h->max_steps ? len >> 12 : 0;      /* a budget counts the text made too */
	if (t->full || len > h->max_str - t->len) {
		t->full = true;
		return false;
	}
	if (t->len + len + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 64;
		while (cap < t->len + len + 1)
			cap *= 2;
		t->p = kl_arena_ext_grow(&h->a, t->p, t->cap, cap);
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, len);
	t->len += len;
	t->p[t->len] = 0;
	return true;
}

void lv_text_free(struct lisp *h, struct lv_text *t)
{
	kl_arena_ext_free(&h->a, t->p);
	*t = (struct lv_text){ 0 };
}

/* ---- printing -------------------------------------------------------------------- */

/* The printer's limits: lists and vectors 64 deep, and at most max bytes in all (then "..."
 * ends the text); a circular list prints its elements until the walk has gone round, then
 * "...)". */
#define PRINT_DEPTH 64

struct lv_printer {
	struct lisp *h;
	struct lv_text *t;
	bool readably, cut;
	size_t max;
	int depth;                 /* of the foreign value being printed (lv_printer_value) */
};

static void pr_put(struct lv_printer *p, const char *s, size_t len)
{
	if (p->cut)
		return;
	if (len > p->max - p->t->len || !lv_text_put(p->h, p->t, s, len)) {
		p->cut = true;
		lv_text_put(p->h, p->t, "...", 3);
	}
}

static void pr_str(struct lv_printer *p, const char *s) { pr_put(p, s, strlen(s)); }

static void print_to(struct lv_printer *p, const struct lv *v, int depth);

static void print_list(struct lv_printer *p, const struct lv *v, int depth)
{
	pr_put(p, "(", 1);
	const struct lv *slow = v;
	for (uint64_t i = 1; !p->cut; i++) {
		print_to(p, v->u.cons.car, depth + 1);
		v = v->u.cons.cdr;
		if (!(i & 1))
			slow = slow->u.cons.cdr;
		if (v->k != LV_CONS) {
			if (v->k != LV_NIL) {
				pr_put(p, " . ", 3);
				print_to(p, v, depth + 1);
			}
			break;
		}
		if (v == slow) {         /* circular: it has gone round at least once */
			pr_put(p, " ...", 4);
			break;
		}
		pr_put(p, " ", 1);
	}
	pr_put(p, ")", 1);
}

static void print_to(struct lv_printer *p, const struct lv *v, int depth)
{
	char num[64];
	if (p->cut)
		return;
	if (depth > PRINT_DEPTH) {
		pr_put(p, "...", 3);
		return;
	}
	switch (v->k) {
	case LV_NIL: pr_str(p, !p->h->print_written ? "NIL" : v->written ? v->written : "()"); break;
	case LV_T: pr_str(p, !p->h->print_written ? "T" : v->written ? v->written : "t"); break;
	case LV_INT: snprintf(num, sizeof(num), "%lld", (long long)v->u.i); pr_str(p, num); break;
	case LV_FLOAT: lv_float_text(num, sizeof(num), v->u.fl.d, v->u.fl.single); pr_str(p, num); break;
	case LV_STR:
		if (!p->readably) {
			pr_put(p, v->u.str.s, v->u.str.len);
			break;
		}
		pr_put(p, "\"", 1);
		for (size_t i = 0, from = 0; i <= v->u.str.len; i++)
			if (i == v->u.str.len || v->u.str.s[i] == '"' || v->u.str.s[i] == '\\') {
				pr_put(p, v->u.str.s + from, i - from);
				if (i < v->u.str.len)
					pr_put(p, "\\", 1);
				from = i;
			}
		pr_put(p, "\"", 1);
		break;
	case LV_KEY: pr_put(p, ":", 1); /* fall through */
	case LV_SYM:
		if (p->h->print_written) {
			pr_str(p, v->written ? v->written : v->u.name);
			break;
		}
		for (const char *s = v->u.name; *s; s++) {
			char ch = (char)toupper((unsigned char)*s);
			pr_put(p, &ch, 1);
		}
		break;
	case LV_CONS: print_list(p, v, depth); break;
	case LV_VEC:
	case LV_MV:
		pr_str(p, v->k == LV_VEC ? "#(" : "");
		for (size_t i = 0; i < v->u.vec.len && !p->cut; i++) {
			if (i)
				pr_put(p, " ", 1);
			print_to(p, v->u.vec.items[i], depth + 1);
		}
		pr_str(p, v->k == LV_VEC ? ")" : "");
		break;
	case LV_FN:
	case LV_BUILTIN:
		pr_str(p, "#<FUNCTION ");
		pr_str(p, v->k == LV_BUILTIN ? v->u.bi.name : v->u.fn.name ? v->u.fn.name : "LAMBDA");
		pr_str(p, ">");
		break;
	case LV_STREAM: pr_str(p, "#<STREAM>"); break;
	case LV_FOREIGN:
		p->depth = depth;
		if (v->u.foreign.type->print) {
			v->u.foreign.type->print(p, v);
			break;
		}
		pr_str(p, "#<");
		pr_str(p, v->u.foreign.type->name);
		pr_str(p, ">");
		break;
	case LV_COND: pr_str(p, v->u.cond.msg); break;
	}
}

/* A foreign type's print writes through the printer printing it. */
void lv_printer_put(struct lv_printer *p, const char *s)
{
	pr_str(p, s);
}

void lv_printer_value(struct lv_printer *p, const struct lv *v)
{
	int depth = p->depth;
	print_to(p, v, depth + 1);
	p->depth = depth;
}

/* v printed into t, at most max bytes of it (then "...") */
static void print_text(struct lisp *h, struct lv_text *t, const struct lv *v, bool readably, size_t max)
{
	struct lv_printer p = { .h = h, .t = t, .readably = readably, .max = max };
	print_to(&p, v, 0);
}

void lv_print_text(struct lisp *h, struct lv_text *t, const struct lv *v, bool readably)
{
	print_text(h, t, v, readably, h->max_str - 3);
}

static char *to_text(struct lisp *h, const struct lv *v, bool readably, size_t max)
{
	struct lv_text t = { 0 };
	print_text(h, &t, v, readably, max);
	char *s = kl_arena_strndup(&h->a, t.p ? t.p : "", t.len);
	lv_text_free(h, &t);
	return s;
}

void lv_print(struct lisp *h, FILE *f, const struct lv *v, bool readably)
{
	struct lv_text t = { 0 };
	print_text(h, &t, v, readably, h->max_str - 3);
	fwrite(t.p ? t.p : "", 1, t.len, f);
	lv_text_free(h, &t);
}

char *lv_to_text(struct lisp *h, const struct lv *v, bool readably)
{
	return to_text(h, v, readably, h->max_str - 3);
}

char *lv_brief(struct lisp *h, const struct lv *v)
{
	return to_text(h, v, true, 200);
}

/* ---- streams ---------------------------------------------------------------------- */

bool lv_stream_put(struct lisp *h, const struct kl_node *at, struct lv *s, const char *p, size_t len)
{
	if (!len)
		return true;
	if (s->u.stream.string) {
		if (lv_text_put(h, &s->u.stream.text, p, len))
			return true;
		lv_err(h, at, "a string stream passes %zu bytes", h->max_str);
		return false;
	}
	fwrite(p, 1, len, s->u.stream.f);
	*s->u.stream.bol = p[len - 1] == '\n';
	if (s->u.stream.f == stderr)
		fflush(stderr);
	return true;
}

static bool stream_bol(struct lv *s)
{
	if (s->u.stream.string)
		return !s->u.stream.text.len || s->u.stream.text.p[s->u.stream.text.len - 1] == '\n';
	return *s->u.stream.bol;
}

static struct lv *std_stream(struct lisp *h, FILE *f)
{
	struct lv *s = kl_arena_new(&h->a, struct lv);
	s->k = LV_STREAM;
	s->u.stream.f = f;
	s->u.stream.bol = f == stderr ? &h->err_bol : &h->out_bol;
	return s;
}

/* format's and print's destination: t (standard output), a stream (*error-output*, or one
 * with-output-to-string made) */
struct lv *lv_stream_of(struct lisp *h, const struct kl_node *at, struct lv *dest)
{
	if (dest->k == LV_STREAM)
		return dest;
	if (dest->k == LV_T) {
		struct lv_global *g = lv_global(h, "*standard-output*", true);
		if (!g->val)
			g->val = std_stream(h, stdout);
		return g->val;
	}
	return lv_err(h, at, "%s is not an output stream", lv_to_text(h, dest, true));
}

/* ---- format ------------------------------------------------------------------------ */

/* ~{ nests at most this deep; a count or mincol is at most FMT_MAX (past LV_MAX_STR: the
 * output's own limit ends it with an error) */
#define FMT_DEPTH 64
#define FMT_MAX (1L << 30)

struct fmt {
	struct lisp *h;
	const struct kl_node *at;
	struct lv_text out;
	bool bol;              /* the destination's state before, for ~& at the start */
	int depth;             /* ~{ open */
};

static void fmt_emit(struct fmt *f, const char *s, size_t len)
{
	lv_text_put(f->h, &f->out, s, len);
}

static void emit_c(struct fmt *f, char c)
{
	lv_text_put(f->h, &f->out, &c, 1);
}

static const char *find_close(const char *p, const char *end)
{
	int depth = 0;
	for (; p < end; p++) {
		if (*p != '~' || p + 1 >= end)
			continue;
		const char *q = p + 1;
		while (q < end && (isdigit((unsigned char)*q) || *q == ',' || *q == ':' || *q == '@' || *q == '\'' ||
				   *q == 'v' || *q == 'V' || *q == '#'))
			q += *q == '\'' ? 2 : 1;
		if (q < end && *q == '{')
			depth++;
		if (q < end && *q == '}' && depth-- == 0)
			return p;
		p = q;
	}
	return NULL;
}

static void repeat(struct fmt *f, char c, long n)
{
	char run[256];
	memset(run, c, sizeof(run));
	for (; n > 0 && !f->out.full; n -= (long)sizeof(run))
		fmt_emit(f, run, n < (long)sizeof(run) ? (size_t)n : sizeof(run));
}

static void pad(struct fmt *f, const char *s, size_t len, long mincol, char padc, bool left)
{
	long n = mincol > (long)len ? mincol - (long)len : 0;
	if (left)
		repeat(f, padc, n);
	fmt_emit(f, s, len);
	if (!left)
		repeat(f, padc, n);
}

/* v printed, padded to mincol (kept apart from the arena: format in a loop holds no copies) */
static void pad_value(struct fmt *f, const struct lv *v, bool readably, long mincol, char padc, bool left)
{
	struct lv_text t = { 0 };
	print_text(f->h, &t, v, readably, f->h->max_str - 3);
	pad(f, t.p ? t.p : "", t.len, mincol, padc, left);
	lv_text_free(f->h, &t);
}

static bool at_bol(struct fmt *f)
{
	if (!f->out.len)
		return f->bol;
	return f->out.p[f->out.len - 1] == '\n';
}

/* ~d ~x ~o ~b: v in its base, ~:d with commas every three digits, ~@d with its sign, padded
 * to params[0] with padc (given as params[1]); a value that is no integer as ~a would print it. */
static void put_integer(struct fmt *f, struct lv *v, char d, const long *params, char padc, bool colon, bool atsign)
{
	if (v->k != LV_INT) {
		pad_value(f, v, false, params[0], ' ', true);
		return;
	}
	char tmp[80], *q = tmp + sizeof(tmp);
	*--q = 0;
	int base = d == 'd' ? 10 : d == 'x' ? 16 : d == 'o' ? 8 : 2;
	uint64_t u = v->u.i < 0 ? -(uint64_t)v->u.i : (uint64_t)v->u.i;
	int digits = 0;
	do {
		if (colon && digits && digits % 3 == 0)
			*--q = ',';
		*--q = "0123456789ABCDEF"[u % (unsigned)base];
		u /= (unsigned)base;
		digits++;
	} while (u);
	if (v->u.i < 0)
		*--q = '-';
	else if (atsign)
		*--q = '+';
	pad(f, q, strlen(q), params[0], params[1] >= 0 ? padc : ' ', true);
}

static int fmt_run(struct fmt *f, const char *p, const char *end, struct lv **args, int nargs, int *ai);

/* ~{...~} at *pp (just past the ~{): the body run over the list argument's elements (~@{: over
 * the arguments left), until they are used up or ~^ ends it; *pp then past the ~}. 0, or -1
 * with the error raised (no ~}, nested past FMT_DEPTH, a list too long or circular, Ctrl-C). */
static int run_iteration(struct fmt *f, const char **pp, const char *end, struct lv **args, int nargs, int *ai,
			 bool atsign)
{
	struct lisp *h = f->h;
	const char *p = *pp, *close = find_close(p, end);
	if (!close) {
		lv_err(h, f->at, "format: ~{ without ~}");
		return -1;
	}
	if (f->depth >= FMT_DEPTH) {
		lv_err(h, f->at, "format: ~{ nested more than %d deep", FMT_DEPTH);
		return -1;
	}
	struct lv **items = args + *ai;
	int nitems = nargs - *ai, ii = 0;
	if (!atsign) {
		if (*ai >= nargs) {
			lv_err(h, f->at, "format: ~{ has no argument left");
			return -1;
		}
		struct lv *l = args[(*ai)++];
		int64_t len = lv_list_len(h, f->at, l, "format ~{");
		if (len < 0)
			return -1;
		if (len > INT32_MAX) {
			lv_err(h, f->at, "format ~{: the list is too long");
			return -1;
		}
		nitems = (int)len;
		items = kl_arena_array(&h->a, struct lv *, (size_t)nitems + 1);
		for (int i = 0; l->k == LV_CONS; l = l->u.cons.cdr)
			items[i++] = l->u.cons.car;
	}
	f->depth++;
	int r = 0;
	while (ii < nitems) {
		if (lv_stop(h, f->at)) {
			r = -1;
			break;
		}
		int before = ii, got = fmt_run(f, p, close, items, nitems, &ii);
		if (got < 0)
			r = -1;
		if (got || ii == before)
			break;
	}
	f->depth--;
	if (r)
		return -1;
	if (atsign)
		*ai = nargs;
	*pp = close + 2;
	return 0;
}

/* A directive read: ~ [params] [:] [@] letter (the letter lower-cased). */
struct directive {
	long params[4];
	bool colon, atsign;
	char padc;             /* a quoted second or fourth parameter: integers' padding */
	char d;
};

/* The directive after a ~ at *pp read into dv (v and # take their parameter from the
 * arguments), *pp moved past it. 0, or -1 with the error raised. */
static int read_directive(struct fmt *f, const char **pp, const char *end, struct lv **args, int nargs, int *ai,
			  struct directive *dv)
{
	const char *p = *pp;
	*dv = (struct directive){ { -1, -1, -1, -1 }, false, false, ' ', 0 };
	for (int np = 0;; np++, p++) {
		if (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))) {
			dv->params[np] = strtol(p, (char **)&p, 10);
		} else if (*p == '\'' && p + 1 < end) {
			dv->params[np] = (unsigned char)p[1];
			if (np == 1 || np == 3)
				dv->padc = p[1];
			p += 2;
		} else if (*p == 'v' || *p == 'V') {
			if (*ai < nargs && args[*ai]->k == LV_INT)
				dv->params[np] = (long)args[(*ai)++]->u.i;
			p++;
		} else if (*p == '#') {
			dv->params[np] = nargs - *ai;
			p++;
		}
		if (dv->params[np] > FMT_MAX || dv->params[np] < -FMT_MAX)
			dv->params[np] = dv->params[np] > 0 ? FMT_MAX : -FMT_MAX;
		if (*p != ',' || np >= 3)
			break;
	}
	while (p < end && (*p == ':' || *p == '@')) {
		dv->colon |= *p == ':';
		dv->atsign |= *p == '@';
		p++;
	}
	if (p >= end) {
		lv_err(f->h, f->at, "format: a directive is cut off at the end");
		return -1;
	}
	dv->d = (char)tolower((unsigned char)*p++);
	*pp = p;
	if (strchr("asdxobcfe$", dv->d) && *ai >= nargs) {
		lv_err(f->h, f->at, "format: ~%c has no argument left", dv->d);
		return -1;
	}
	return 0;
}

/* ~F ~E ~$ (numtext.c) of a number; anything else as ~wD prints it */
static void put_float(struct fmt *f, struct lv *v, const struct directive *dv)
{
	const long *p = dv->params;
	if (v->k != LV_INT && v->k != LV_FLOAT) {
		pad_value(f, v, false, dv->d == '$' ? p[2] : p[0], ' ', true);
		return;
	}
	struct fmt_float ff = { p[0], p[1], -1, 0, -1, ' ', dv->atsign };
	if (dv->d == 'f')               /* ~w,d,kF */
		ff.k = p[2] > 0 || p[2] < -1 ? p[2] : 0;
	else if (dv->d == 'e')          /* ~w,d,eE */
		ff.e = p[2];
	else                            /* ~d,n,w,padchar$ */
		ff = (struct fmt_float){ p[2], p[0], -1, 0, p[1], p[3] >= 0 ? (char)p[3] : ' ', dv->atsign };
	lv_format_float(&f->out, f->h, v, dv->d, &ff);
}

/* ~* : the argument *ai moved (back with :, to an absolute place with @). 0, or -1. */
static int goto_arg(struct fmt *f, const struct directive *dv, int nargs, int *ai)
{
	long n = dv->params[0] >= 0 ? dv->params[0] : 1;
	long to = dv->atsign ? 0 : *ai + n * (dv->colon ? -1 : 1);
	if (to < 0 || to > nargs) {
		lv_err(f->h, f->at, "format: ~* moves past the arguments");
		return -1;
	}
	*ai = (int)to;
	return 0;
}

/* The directive dv run (*pp: the text after it, which ~newline and ~{ move past). 0; 1 when
 * ~^ ends the iteration or the string; -1 with the error raised. */
static int run_directive(struct fmt *f, const struct directive *dv, const char **pp, const char *end,
			 struct lv **args, int nargs, int *ai)
{
	const long *params = dv->params;
	switch (dv->d) {
	case 'a':
	case 's':
		pad_value(f, args[(*ai)++], dv->d == 's', params[0], params[3] >= 0 ? (char)params[3] : ' ', dv->atsign);
		return 0;
	case 'd': case 'x': case 'o': case 'b':
		put_integer(f, args[(*ai)++], dv->d, params, dv->padc, dv->colon, dv->atsign);
		return 0;
	case 'f': case 'e': case '$':
		put_float(f, args[(*ai)++], dv);
		return 0;
	case 'c': {
		struct lv *v = args[(*ai)++];
		emit_c(f, v->k == LV_INT ? (char)v->u.i : '?');
		return 0;
	}
	case '%':
		repeat(f, '\n', params[0] >= 0 ? params[0] : 1);
		return 0;
	case '&':
		if (!at_bol(f))
			emit_c(f, '\n');
		repeat(f, '\n', params[0] - 1);
		return 0;
	case '~': emit_c(f, '~'); return 0;
	case '\n':
		while (*pp < end && isspace((unsigned char)**pp))
			++*pp;
		return 0;
	case '*': return goto_arg(f, dv, nargs, ai);
	case '^': return *ai >= nargs;
	case '{': return run_iteration(f, pp, end, args, nargs, ai, dv->atsign) ? -1 : 0;
	default:
		lv_err(f->h, f->at, "format: ~%c is not supported (kiln's Lisp has ~a ~s ~d ~x ~o ~b ~c ~f ~e ~$ "
		       "~%% ~& ~~ ~{~} ~^ ~*)", dv->d);
		return -1;
	}
}

static int fmt_run(struct fmt *f, const char *p, const char *end, struct lv **args, int nargs, int *ai)
{
	while (p < end) {
		if (f->out.full) {
			lv_err(f->h, f->at, "format: the output passes %zu bytes", f->h->max_str);
			return -1;
		}
		if (*p != '~') {
			const char *q = memchr(p, '~', (size_t)(end - p));
			fmt_emit(f, p, (size_t)((q ? q : end) - p));
			p = q ? q : end;
			continue;
		}
		if (++p >= end) {
			lv_err(f->h, f->at, "format: the control string ends with ~");
			return -1;
		}
		struct directive dv;
		int r = read_directive(f, &p, end, args, nargs, ai, &dv);
		if (!r)
			r = run_directive(f, &dv, &p, end, args, nargs, ai);
		if (r)
			return r;
	}
	return 0;
}

/* (format DEST CONTROL ARGS...): DEST nil gives a string; t, a stream, *error-output* print */
struct lv *lv_format(struct lisp *h, const struct kl_node *call, struct lv **args, int n)
{
	if (n < 2 || args[1]->k != LV_STR)
		return lv_err(h, call, "format needs a destination and a control string");
	struct lv *dest = args[0], *s = NULL;
	if (dest->k != LV_NIL && !(s = lv_stream_of(h, call, dest)))
		return NULL;
	struct fmt f = { h, call, { 0 }, s ? stream_bol(s) : true, 0 };
	int ai = 0;
	int r = fmt_run(&f, args[1]->u.str.s, args[1]->u.str.s + args[1]->u.str.len, args + 2, n - 2, &ai);
	if (r >= 0 && f.out.full)
		r = -1, lv_err(h, call, "format: the output passes %zu bytes", h->max_str);
	struct lv *v = NULL;
	if (r >= 0 && s)
		v = lv_stream_put(h, call, s, f.out.p ? f.out.p : "", f.out.len) ? LNIL : NULL;
	else if (r >= 0)
		v = lv_str(h, f.out.p ? f.out.p : "", f.out.len);
	lv_text_free(h, &f.out);
	return v;
}

void lv_std_streams(struct lisp *h)
{
	lv_global(h, "*standard-output*", true)->val = std_stream(h, stdout);
	lv_global(h, "*error-output*", true)->val = std_stream(h, stderr);
	lv_global(h, "*trace-output*", true)->val = lv_global(h, "*error-output*", false)->val;
}
