/* builtins.c — the core's functions, as a table: lists, sequences, strings and output to
 * streams (the numbers' are num.c's). Arguments arrive evaluated. A layer adds its own
 * (struct lisp_layer's builtin). */
#include "lisp.h"
#include <stdlib.h>
#include <string.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

static bool ints(struct lisp *h, const struct kl_node *c, struct lv **a, int n, const char *fn)
{
	for (int i = 0; i < n; i++)
		if (a[i]->k != LV_INT) {
			lv_err(h, c, "%s: %s is not an integer", fn, lv_brief(h, a[i]));
			return false;
		}
	return true;
}

B(b_not) { (void)h, (void)c, (void)n; return lv_bool(!lv_true(a[0])); }
B(b_eql) { (void)h, (void)c, (void)n; return lv_bool(lv_eql(a[0], a[1])); }
B(b_equal)
{
	(void)n;
	int r = lv_equal(h, c, a[0], a[1]);
	return r < 0 ? NULL : lv_bool(r);
}

static struct lv *kind_is(struct lv *v, enum lv_kind k) { return lv_bool(v->k == k); }
B(b_integerp) { (void)h, (void)c, (void)n; return kind_is(a[0], LV_INT); }
B(b_stringp) { (void)h, (void)c, (void)n; return kind_is(a[0], LV_STR); }
B(b_symbolp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_SYM || a[0]->k == LV_NIL || a[0]->k == LV_T || a[0]->k == LV_KEY); }
B(b_consp) { (void)h, (void)c, (void)n; return kind_is(a[0], LV_CONS); }
B(b_listp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_CONS || a[0]->k == LV_NIL); }
B(b_vectorp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_VEC || a[0]->k == LV_STR); }
B(b_functionp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_FN || a[0]->k == LV_BUILTIN); }

/* ---- lists ---------------------------------------------------------------------- */

/* l if it is a list, not a circular one (functions that walk it to its end) */
static struct lv *list_arg(struct lisp *h, const struct kl_node *c, struct lv *l, const char *fn)
{
	if (l->k != LV_CONS && l->k != LV_NIL)
		return lv_err(h, c, "%s: %s is not a list", fn, lv_brief(h, l));
	return lv_list_len(h, c, l, fn) < 0 ? NULL : l;
}
B(b_car) { (void)n; if (!list_arg(h, c, a[0], "car")) return NULL; return a[0]->k == LV_CONS ? a[0]->u.cons.car : LNIL; }
B(b_cdr) { (void)n; if (!list_arg(h, c, a[0], "cdr")) return NULL; return a[0]->k == LV_CONS ? a[0]->u.cons.cdr : LNIL; }
B(b_cons) { (void)c, (void)n; return lv_cons(h, a[0], a[1]); }
B(b_list)
{
	(void)c;
	struct lv *l = LNIL;
	for (int i = n - 1; i >= 0; i--)
		l = lv_cons(h, a[i], l);
	return l;
}
static struct lv *nth(struct lisp *h, const struct kl_node *c, struct lv *l, int64_t k)
{
	if (!list_arg(h, c, l, "nth"))
		return NULL;
	for (; k > 0 && l->k == LV_CONS; k--)
		l = l->u.cons.cdr;
	return l->k == LV_CONS ? l->u.cons.car : LNIL;
}
B(b_first) { (void)n; return nth(h, c, a[0], 0); }
B(b_second) { (void)n; return nth(h, c, a[0], 1); }
B(b_third) { (void)n; return nth(h, c, a[0], 2); }
B(b_fourth) { (void)n; return nth(h, c, a[0], 3); }
B(b_nth) { (void)n; if (!ints(h, c, a, 1, "nth")) return NULL; return nth(h, c, a[1], a[0]->u.i); }
B(b_nthcdr)
{
	(void)n;
	if (!ints(h, c, a, 1, "nthcdr") || !list_arg(h, c, a[1], "nthcdr"))
		return NULL;
	struct lv *l = a[1];
	for (int64_t k = a[0]->u.i; k > 0 && l->k == LV_CONS; k--)
		l = l->u.cons.cdr;
	return l;
}
B(b_last)
{
	(void)n;
	if (!list_arg(h, c, a[0], "last"))
		return NULL;
	struct lv *l = a[0];
	while (l->k == LV_CONS && l->u.cons.cdr->k == LV_CONS)
		l = l->u.cons.cdr;
	return l;
}
B(b_reverse)
{
	(void)n;
	if (a[0]->k == LV_VEC) {
		struct lv *v = lv_vec(h, a[0]->u.vec.len);
		for (size_t i = 0; i < v->u.vec.len; i++)
			v->u.vec.items[i] = a[0]->u.vec.items[v->u.vec.len - 1 - i];
		return v;
	}
	if (!list_arg(h, c, a[0], "reverse"))
		return NULL;
	struct lv *r = LNIL;
	for (struct lv *l = a[0]; l->k == LV_CONS; l = l->u.cons.cdr)
		r = lv_cons(h, l->u.cons.car, r);
	return r;
}
B(b_append)
{
	struct lv *head = LNIL, **tail = &head;
	for (int i = 0; i < n; i++) {
		if (i == n - 1) {
			*tail = a[i];
			break;
		}
		if (!list_arg(h, c, a[i], "append"))
			return NULL;
		for (struct lv *l = a[i]; l->k == LV_CONS; l = l->u.cons.cdr) {
			*tail = lv_cons(h, l->u.cons.car, LNIL);
			tail = &(*tail)->u.cons.cdr;
		}
	}
	return head;
}

/* :test and :key keyword arguments after the fixed ones */
static struct lv *kwarg(struct lv **a, int n, int from, const char *key)
{
	for (int i = from; i + 1 < n; i += 2)
		if (a[i]->k == LV_KEY && !strcmp(a[i]->u.name, key))
			return a[i + 1];
	return NULL;
}

static struct lv *test_eq(struct lisp *h, const struct kl_node *c, struct lv *test, struct lv *x, struct lv *y, bool *ok)
{
	if (!test) {
		*ok = lv_eql(x, y);
		return LT;
	}
	struct lv *args[2] = { x, y }, *r = lv_apply(h, c, test, args, 2);
	if (r)
		*ok = lv_true(r);
	return r;
}

static struct lv *keyed(struct lisp *h, const struct kl_node *c, struct lv *key, struct lv *x)
{
	return key ? lv_primary(lv_apply(h, c, key, &x, 1)) : x;
}

B(b_assoc)
{
	struct lv *test = kwarg(a, n, 2, "test");
	if (!list_arg(h, c, a[1], "assoc"))
		return NULL;
	for (struct lv *l = a[1]; l->k == LV_CONS; l = l->u.cons.cdr) {
		struct lv *e = l->u.cons.car;
		bool ok = false;
		if (e->k == LV_CONS && !test_eq(h, c, test, a[0], e->u.cons.car, &ok))
			return NULL;
		if (ok)
			return e;
	}
	return LNIL;
}
B(b_member)
{
	struct lv *test = kwarg(a, n, 2, "test");
	if (!list_arg(h, c, a[1], "member"))
		return NULL;
	for (struct lv *l = a[1]; l->k == LV_CONS; l = l->u.cons.cdr) {
		bool ok;
		if (!test_eq(h, c, test, a[0], l->u.cons.car, &ok))
			return NULL;
		if (ok)
			return l;
	}
	return LNIL;
}

/* sequences: lists, vectors and strings (is_seq refuses a circular list), element i */
static size_t seq_len(struct lisp *h, const struct lv *s)
{
	return s->k == LV_VEC ? s->u.vec.len : s->k == LV_STR ? s->u.str.len : (size_t)lv_list_len(h, NULL, s, NULL);
}
static struct lv *seq_at(struct lisp *h, struct lv *s, size_t i)
{
	if (s->k == LV_VEC)
		return s->u.vec.items[i];
	if (s->k == LV_STR)
		return lv_int(h, (unsigned char)s->u.str.s[i]);
	for (; i; i--)
		s = s->u.cons.cdr;
	return s->u.cons.car;
}
static bool is_seq(struct lisp *h, const struct kl_node *c, struct lv *s, const char *fn)
{
	if (s->k == LV_VEC || s->k == LV_STR)
		return true;
	if (s->k == LV_CONS || s->k == LV_NIL)
		return lv_list_len(h, c, s, fn) >= 0;
	lv_err(h, c, "%s: %s is not a sequence", fn, lv_brief(h, s));
	return false;
}
B(b_length) { (void)n; if (!is_seq(h, c, a[0], "length")) return NULL; return lv_int(h, (int64_t)seq_len(h, a[0])); }
B(b_aref)
{
	(void)n;
	if (!is_seq(h, c, a[0], "aref") || !ints(h, c, a + 1, 1, "aref"))
		return NULL;
	if (a[1]->u.i < 0 || (size_t)a[1]->u.i >= seq_len(h, a[0]))
		return lv_err(h, c, "index %lld out of range (length %zu)", (long long)a[1]->u.i, seq_len(h, a[0]));
	return seq_at(h, a[0], (size_t)a[1]->u.i);
}
B(b_position)
{
	if (!is_seq(h, c, a[1], "position"))
		return NULL;
	struct lv *test = kwarg(a, n, 2, "test");
	for (size_t i = 0, len = seq_len(h, a[1]); i < len; i++) {
		bool ok;
		if (!test_eq(h, c, test, a[0], seq_at(h, a[1], i), &ok))
			return NULL;
		if (ok)
			return lv_int(h, (int64_t)i);
	}
	return LNIL;
}
B(b_find)
{
	struct lv *p = b_position(h, c, a, n);
	return !p || p->k == LV_NIL ? p : seq_at(h, a[1], (size_t)p->u.i);
}
B(b_subseq)
{
	if (!is_seq(h, c, a[0], "subseq") || !ints(h, c, a + 1, n - 1, "subseq"))
		return NULL;
	size_t len = seq_len(h, a[0]);
	int64_t s = a[1]->u.i, e = n > 2 ? a[2]->u.i : (int64_t)len;
	if (s < 0 || e < s || (size_t)e > len)
		return lv_err(h, c, "subseq %lld..%lld out of range (length %zu)", (long long)s, (long long)e, len);
	if (a[0]->k == LV_STR)
		return lv_str(h, a[0]->u.str.s + s, (size_t)(e - s));
	struct lv *v = lv_vec(h, (size_t)(e - s));
	for (int64_t i = s; i < e; i++)
		v->u.vec.items[i - s] = seq_at(h, a[0], (size_t)i);
	if (a[0]->k == LV_VEC)
		return v;
	struct lv *l = LNIL;
	for (size_t i = v->u.vec.len; i > 0; i--)
		l = lv_cons(h, v->u.vec.items[i - 1], l);
	return l;
}
B(b_vector)
{
	(void)c;
	struct lv *v = lv_vec(h, (size_t)n);
	for (int i = 0; i < n; i++)
		v->u.vec.items[i] = a[i];
	return v;
}
B(b_make_array)
{
	if (!ints(h, c, a, 1, "make-array"))
		return NULL;
	if (a[0]->u.i < 0 || (uint64_t)a[0]->u.i > h->max_elems)
		return lv_err(h, c, "make-array: %lld elements (kiln's Lisp makes 0 to %zu)",
			      (long long)a[0]->u.i, h->max_elems);
	struct lv *init = kwarg(a, n, 1, "initial-element");
	struct lv *v = lv_vec(h, (size_t)a[0]->u.i), *x = init ? init : lv_int(h, 0);
	for (size_t i = 0; i < v->u.vec.len; i++)
		v->u.vec.items[i] = x;
	return v;
}

/* (map 'list|'vector|'string F SEQ), (mapcar F LIST), (mapc F LIST) */
static struct lv *mapped(struct lisp *h, const struct kl_node *c, struct lv *f, struct lv *seq, const char *type)
{
	if (!is_seq(h, c, seq, "map"))
		return NULL;
	size_t len = seq_len(h, seq);
	struct lv *v = lv_vec(h, len);
	for (size_t i = 0; i < len; i++) {
		struct lv *x = seq_at(h, seq, i);
		if (!(v->u.vec.items[i] = lv_primary(lv_apply(h, c, f, &x, 1))))   /* (floor x 2): one value */
			return NULL;
	}
	if (!strcmp(type, "vector"))
		return v;
	if (!strcmp(type, "string")) {
		char *s = kl_arena_alloc(&h->a, len + 1);
		for (size_t i = 0; i < len; i++) {
			if (v->u.vec.items[i]->k != LV_INT)
				return lv_err(h, c, "map 'string: an element is not a character");
			s[i] = (char)v->u.vec.items[i]->u.i;
		}
		return lv_str(h, s, len);
	}
	struct lv *l = LNIL;
	for (size_t i = len; i > 0; i--)
		l = lv_cons(h, v->u.vec.items[i - 1], l);
	return l;
}
B(b_map)
{
	(void)n;
	const char *type = a[0]->k == LV_SYM ? a[0]->u.name : "list";
	return mapped(h, c, a[1], a[2], type);
}
B(b_mapcar) { (void)n; return mapped(h, c, a[0], a[1], "list"); }
B(b_mapc) { (void)n; return mapped(h, c, a[0], a[1], "list") ? a[1] : NULL; }
B(b_funcall) { return lv_apply(h, c, a[0], a + 1, n - 1); }
B(b_apply)
{
	int64_t k = lv_list_len(h, c, a[n - 1], "apply");
	if (k < 0)
		return NULL;
	if (k > INT32_MAX - n)
		return lv_err(h, c, "apply: %lld arguments are too many", (long long)k);
	struct lv **args = kl_arena_array(&h->a, struct lv *, (size_t)(n - 2 + k + 1));
	int m = 0;
	for (int i = 1; i < n - 1; i++)
		args[m++] = a[i];
	for (struct lv *l = a[n - 1]; l->k == LV_CONS; l = l->u.cons.cdr)
		args[m++] = l->u.cons.car;
	return lv_apply(h, c, a[0], args, m);
}

/* (sort SEQ PRED [:key F]): a stable merge sort of the list (an error from PRED stops it) */
static struct lv *merge(struct lisp *h, const struct kl_node *c, struct lv *x, struct lv *y, struct lv *pred, struct lv *key)
{
	struct lv *head = LNIL, **tail = &head;
	while (x->k == LV_CONS && y->k == LV_CONS) {
		struct lv *args[2], *r;
		if (!(args[0] = keyed(h, c, key, y->u.cons.car)) || !(args[1] = keyed(h, c, key, x->u.cons.car)) ||
		    !(r = lv_apply(h, c, pred, args, 2)))
			return NULL;
		struct lv **take = lv_true(r) ? &y : &x;
		*tail = lv_cons(h, (*take)->u.cons.car, LNIL);
		tail = &(*tail)->u.cons.cdr;
		*take = (*take)->u.cons.cdr;
	}
	*tail = x->k == LV_CONS ? x : y;
	return head;
}
static struct lv *msort(struct lisp *h, const struct kl_node *c, struct lv *l, int64_t len, struct lv *pred, struct lv *key)
{
	if (len < 2)
		return l;
	struct lv *left = LNIL, **tail = &left, *right = l;
	for (int64_t i = 0; i < len / 2; i++) {
		*tail = lv_cons(h, right->u.cons.car, LNIL);
		tail = &(*tail)->u.cons.cdr;
		right = right->u.cons.cdr;
	}
	struct lv *x = msort(h, c, left, len / 2, pred, key), *y = x ? msort(h, c, right, len - len / 2, pred, key) : NULL;
	return x && y ? merge(h, c, x, y, pred, key) : NULL;
}
B(b_sort)
{
	if (!list_arg(h, c, a[0], "sort"))
		return NULL;
	return msort(h, c, a[0], lv_list_len(h, c, a[0], NULL), a[1], kwarg(a, n, 2, "key"));
}

/* ---- strings and characters --------------------------------------------------------- */

B(b_string_eq)
{
	(void)n;
	const char *x[2];
	size_t l[2];
	for (int i = 0; i < 2; i++) {
		struct lv *v = a[i];
		if (v->k == LV_STR) x[i] = v->u.str.s, l[i] = v->u.str.len;
		else if (v->k == LV_SYM || v->k == LV_KEY) x[i] = v->u.name, l[i] = strlen(v->u.name);
		else return lv_err(h, c, "string=: %s is not a string", lv_brief(h, v));
	}
	return lv_bool(l[0] == l[1] && !memcmp(x[0], x[1], l[0]));
}
B(b_string)
{
	(void)n;
	if (a[0]->k == LV_STR)
		return a[0];
	if (a[0]->k == LV_INT) {
		char ch = (char)a[0]->u.i;
		return lv_str(h, &ch, 1);
	}
	if (a[0]->k == LV_SYM || a[0]->k == LV_KEY || a[0]->k == LV_NIL || a[0]->k == LV_T) {
		char *s = lv_to_text(h, a[0], false);
		return lv_cstr(h, s);
	}
	return lv_err(h, c, "string: %s is not a string designator", lv_brief(h, a[0]));
}
static struct lv *recase(struct lisp *h, const struct kl_node *c, struct lv *v, int (*f)(int))
{
	struct lv *s = b_string(h, c, &v, 1);
	if (!s)
		return NULL;
	struct lv *r = lv_str(h, s->u.str.s, s->u.str.len);
	for (size_t i = 0; i < r->u.str.len; i++)
		r->u.str.s[i] = (char)f((unsigned char)r->u.str.s[i]);
	return r;
}
#include <ctype.h>
B(b_upcase) { (void)n; return recase(h, c, a[0], toupper); }
B(b_downcase) { (void)n; return recase(h, c, a[0], tolower); }
B(b_concatenate)
{
	size_t len = 0;
	for (int i = 1; i < n; i++) {
		if (a[i]->k != LV_STR && a[i]->k != LV_NIL)
			return lv_err(h, c, "concatenate: only strings are supported");
		len += a[i]->k == LV_STR ? a[i]->u.str.len : 0;
		if (len > h->max_str)
			return lv_err(h, c, "concatenate: the string passes %zu bytes", h->max_str);
	}
	char *s = kl_arena_alloc(&h->a, len + 1), *p = s;
	for (int i = 1; i < n; i++)
		if (a[i]->k == LV_STR)
			memcpy(p, a[i]->u.str.s, a[i]->u.str.len), p += a[i]->u.str.len;
	return lv_str(h, s, len);
}
B(b_code_char) { (void)c, (void)n; return a[0]; }       /* characters are their codes */
B(b_parse_integer)
{
	(void)n;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "parse-integer needs a string");
	char *end;
	long long v = strtoll(a[0]->u.str.s, &end, 10);
	while (*end == ' ')
		end++;
	if (end == a[0]->u.str.s || *end)
		return lv_err(h, c, "parse-integer: '%s' is not an integer", a[0]->u.str.s);
	return lv_int(h, v);
}

/* ---- output and the system -------------------------------------------------------------- */

static struct lv *put_printed(struct lisp *h, const struct kl_node *c, struct lv *v, struct lv *dest, bool readably, const char *pre, const char *post)
{
	struct lv *s = lv_stream_of(h, c, dest ? dest : LT);
	if (!s)
		return NULL;
	struct lv_text t = { 0 };
	lv_print_text(h, &t, v, readably);
	bool ok = lv_stream_put(h, c, s, pre, strlen(pre)) && lv_stream_put(h, c, s, t.p ? t.p : "", t.len) &&
		  lv_stream_put(h, c, s, post, strlen(post));
	lv_text_free(h, &t);
	return ok ? v : NULL;
}
B(b_princ) { return put_printed(h, c, a[0], n > 1 ? a[1] : NULL, false, "", ""); }
B(b_prin1) { return put_printed(h, c, a[0], n > 1 ? a[1] : NULL, true, "", ""); }
B(b_print) { return put_printed(h, c, a[0], n > 1 ? a[1] : NULL, true, "\n", " "); }
B(b_write_string)
{
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "write-string needs a string");
	return put_printed(h, c, a[0], n > 1 ? a[1] : NULL, false, "", "");
}
B(b_write_line)
{
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "write-line needs a string");
	return put_printed(h, c, a[0], n > 1 ? a[1] : NULL, false, "", "\n");
}
B(b_terpri) { struct lv *nl = lv_cstr(h, "\n"); return put_printed(h, c, nl, n ? a[0] : NULL, false, "", "") ? LNIL : NULL; }
B(b_finish_output) { (void)h, (void)c, (void)a, (void)n; fflush(stdout); fflush(stderr); return LNIL; }
B(b_error)
{
	if (a[0]->k == LV_STR) {
		struct lv **fa = kl_arena_array(&h->a, struct lv *, (size_t)n + 1);
		fa[0] = LNIL;
		memcpy(fa + 1, a, sizeof(*a) * (size_t)n);
		struct lv *msg = lv_format(h, c, fa, n + 1);
		return msg ? lv_raise(h, c, "error", msg->u.str.s) : NULL;
	}
	if (a[0]->k == LV_COND) {
		lv_raise(h, c, a[0]->u.cond.type, a[0]->u.cond.msg);
		return NULL;
	}
	return lv_raise(h, c, a[0]->k == LV_SYM ? a[0]->u.name : "error", lv_brief(h, a[0]));
}
B(b_eval) { (void)n; return lv_eval_value(h, a[0], c); }
B(b_values)
{
	(void)c;
	struct lv *v = lv_vec(h, (size_t)n);
	v->k = LV_MV;
	for (int i = 0; i < n; i++)
		v->u.vec.items[i] = a[i];
	return v;
}
B(b_keywordp) { (void)h, (void)c, (void)n; return kind_is(a[0], LV_KEY); }
B(b_atom) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k != LV_CONS); }
/* (list* A ... TAIL) */
B(b_list_star)
{
	(void)c;
	struct lv *l = a[n - 1];
	for (int i = n - 2; i >= 0; i--)
		l = lv_cons(h, a[i], l);
	return l;
}
/* (intern NAME): the symbol of that name (folded, as the reader folds, its spelling kept as
 * written), a keyword when NAME starts with ':' */
B(b_intern)
{
	(void)n;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "intern: %s is not a string", lv_brief(h, a[0]));
	const char *s = a[0]->u.str.s;
	bool key = s[0] == ':' && s[1];
	struct lv *v = lv_sym(h, kl_fold_case(&h->a, key ? s + 1 : s));
	if (v->k != LV_SYM && !key)
		return v;                /* nil, t */
	if (key || v->k != LV_SYM) {
		v = kl_arena_new(&h->a, struct lv);
		v->k = LV_KEY;
		v->u.name = kl_fold_case(&h->a, s + 1);
	}
	v->written = key ? s + 1 : s;    /* the spelling, printed as written (macros' names) */
	return v;
}
B(b_symbol_name)
{
	(void)n;
	if (a[0]->k != LV_SYM && a[0]->k != LV_KEY && a[0]->k != LV_NIL && a[0]->k != LV_T)
		return lv_err(h, c, "symbol-name: %s is not a symbol", lv_brief(h, a[0]));
	return lv_cstr(h, lv_to_text(h, a[0]->k == LV_KEY ? lv_sym(h, a[0]->u.name) : a[0], false));
}
/* (gensym [PREFIX]): a new symbol, %PREFIXn (G by default) */
B(b_gensym)
{
	if (n && a[0]->k != LV_STR)
		return lv_err(h, c, "gensym: %s is not a string", lv_brief(h, a[0]));
	return lv_sym(h, kl_arena_printf(&h->a, "%%%s%u", n ? a[0]->u.str.s : "G", ++h->gensyms));
}
B(b_identity) { (void)h, (void)c, (void)n; return a[0]; }
B(b_format) { return lv_format(h, c, a, n); }

static const struct { const char *name; lv_builtin_fn fn; int min, max; } builtins[] = {
	{ "not", b_not, 1, 1 }, { "null", b_not, 1, 1 }, { "eq", b_eql, 2, 2 }, { "eql", b_eql, 2, 2 },
	{ "equal", b_equal, 2, 2 }, { "integerp", b_integerp, 1, 1 }, { "rationalp", b_integerp, 1, 1 },
	{ "stringp", b_stringp, 1, 1 }, { "symbolp", b_symbolp, 1, 1 }, { "consp", b_consp, 1, 1 },
	{ "listp", b_listp, 1, 1 }, { "vectorp", b_vectorp, 1, 1 }, { "functionp", b_functionp, 1, 1 },
	{ "car", b_car, 1, 1 }, { "cdr", b_cdr, 1, 1 }, { "rest", b_cdr, 1, 1 }, { "cons", b_cons, 2, 2 },
	{ "list", b_list, 0, -1 }, { "first", b_first, 1, 1 }, { "second", b_second, 1, 1 },
	{ "third", b_third, 1, 1 }, { "fourth", b_fourth, 1, 1 }, { "nth", b_nth, 2, 2 },
	{ "nthcdr", b_nthcdr, 2, 2 }, { "last", b_last, 1, 1 }, { "reverse", b_reverse, 1, 1 },
	{ "nreverse", b_reverse, 1, 1 }, { "append", b_append, 0, -1 }, { "assoc", b_assoc, 2, 4 },
	{ "member", b_member, 2, 4 }, { "length", b_length, 1, 1 }, { "aref", b_aref, 2, 2 },
	{ "elt", b_aref, 2, 2 }, { "svref", b_aref, 2, 2 }, { "char", b_aref, 2, 2 },
	{ "position", b_position, 2, 4 }, { "find", b_find, 2, 4 }, { "subseq", b_subseq, 2, 3 },
	{ "vector", b_vector, 0, -1 }, { "make-array", b_make_array, 1, 5 }, { "map", b_map, 3, 3 },
	{ "mapcar", b_mapcar, 2, 2 }, { "mapc", b_mapc, 2, 2 }, { "funcall", b_funcall, 1, -1 },
	{ "apply", b_apply, 2, -1 }, { "sort", b_sort, 2, 4 }, { "stable-sort", b_sort, 2, 4 },
	{ "string=", b_string_eq, 2, 2 }, { "string", b_string, 1, 1 },
	{ "string-upcase", b_upcase, 1, 1 }, { "string-downcase", b_downcase, 1, 1 },
	{ "concatenate", b_concatenate, 1, -1 }, { "code-char", b_code_char, 1, 1 },
	{ "char-code", b_code_char, 1, 1 }, { "parse-integer", b_parse_integer, 1, 1 },
	{ "princ", b_princ, 1, 2 }, { "prin1", b_prin1, 1, 2 }, { "print", b_print, 1, 2 },
	{ "write-string", b_write_string, 1, 2 }, { "write-line", b_write_line, 1, 2 },
	{ "terpri", b_terpri, 0, 1 }, { "finish-output", b_finish_output, 0, 1 },
	{ "force-output", b_finish_output, 0, 1 }, { "error", b_error, 1, -1 }, { "eval", b_eval, 1, 1 },
	{ "keywordp", b_keywordp, 1, 1 }, { "atom", b_atom, 1, 1 }, { "list*", b_list_star, 1, -1 },
	{ "intern", b_intern, 1, 2 }, { "symbol-name", b_symbol_name, 1, 1 }, { "gensym", b_gensym, 0, 1 },
	{ "values", b_values, 0, -1 }, { "identity", b_identity, 1, 1 }, { "format", b_format, 2, -1 },
};

lv_builtin_fn lv_builtin_find(const char *name, int *min, int *max)
{
	lv_builtin_fn fn = lv_num_builtin_find(name, min, max);
	if (fn)
		return fn;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(name, builtins[i].name)) {
			*min = builtins[i].min;
			*max = builtins[i].max;
			return builtins[i].fn;
		}
	return NULL;
}

void lv_builtin_names(lv_name_fn fn, void *ctx)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		fn(ctx, builtins[i].name);
}

/* A function by name: a defun, then a builtin of the core, then one of the layer's. */
struct lv *lv_function(struct lisp *h, const char *name)
{
	struct lv_global *g = lv_global(h, name, false);
	if (g && g->fn)
		return g->fn;
	int min, max;
	const void *data = NULL;
	lv_builtin_fn fn = lv_builtin_find(name, &min, &max);
	if (!fn && h->layer && h->layer->builtin)
		fn = h->layer->builtin(h, name, &min, &max, &data);
	if (!fn)
		return NULL;
	struct lv *f = kl_arena_new(&h->a, struct lv);
	f->k = LV_BUILTIN;
	f->u.bi.name = name;
	f->u.bi.fn = fn;
	f->u.bi.min = min;
	f->u.bi.max = max;
	f->u.bi.data = data;
	return f;
}
