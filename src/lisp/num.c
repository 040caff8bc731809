/* num.c — the core's numbers: 64-bit integers and floats (single and double, as Common Lisp
 * has them: 0.1 reads as a single, 0.1d0 as a double), the arithmetic on them with Common
 * Lisp's contagion (an integer with a float gives a float, a single with a double a double),
 * exact comparisons, the conversions to integers (floor, ceiling, truncate, round), sqrt, exp,
 * log, expt, and a float's text for the printer and format's ~F ~E ~$.
 *
 * Integers past 64 bits: the host's Lisp (L->strict_ints) makes them an error (but ash may
 * fill a u64's 64 bits, its pattern, as decoders of bytes do), as it does a
 * ratio (an integer / that is not exact), for it has neither bignums nor ratios and would
 * otherwise be silently wrong; the compiler's macros wrap at 64 bits and truncate, as the BPF
 * code they write computes. A float that overflows, or a result that is no real number (the
 * square root of a negative number), is an error in both: there are no infinities.
 *
 * kiln does not link libm: loading it would cost every start of every command (~0.2 ms, a
 * sixth of a session's); sqrt, exp, log, expt and a float's mod open it at their first use. */
#include "lisp.h"
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

typedef double (*math_fn)(double);
typedef double (*math_fn2)(double, double);

/* libm's function name, NULL with the error raised when libm cannot be opened (a cached
 * handle: the same in every interpreter, opened once) */
static void *libm(struct lisp *h, const struct kl_node *c, const char *name)
{
	static void *lib;
	if (!lib && !(lib = dlopen("libm.so.6", RTLD_LAZY | RTLD_LOCAL)))
		lib = dlopen("libm.so", RTLD_LAZY | RTLD_LOCAL);
	void *f = lib ? dlsym(lib, name) : NULL;
	if (!f)
		lv_err(h, c, "%s: the C math library (libm.so.6) cannot be opened", name);
	return f;
}

/* floor, ceiling, truncate and round-half-even of a finite d without libm */
static double f_trunc(double d)
{
	return fabs(d) < 0x1p52 ? (double)(int64_t)d : d;    /* past 2^52 a double is integral */
}
static double f_floor(double d) { double t = f_trunc(d); return t > d ? t - 1 : t; }
static double f_ceil(double d) { double t = f_trunc(d); return t < d ? t + 1 : t; }
static double f_round(double d)
{
	double f = f_floor(d), rest = d - f;                 /* exact */
	if (rest > 0.5 || (rest == 0.5 && f_trunc(f / 2) != f / 2))
		return f + 1;
	return f;
}

/* a number taken apart: an integer (fl false) or a float of its type */
struct num { bool fl, single; int64_t i; double d; };

static bool get_num(struct lisp *h, const struct kl_node *c, const struct lv *v, const char *fn, struct num *x)
{
	if (v->k == LV_INT)
		*x = (struct num){ false, false, v->u.i, 0 };
	else if (v->k == LV_FLOAT)
		*x = (struct num){ true, v->u.fl.single, 0, v->u.fl.d };
	else
		return lv_err(h, c, "%s: %s is not a number", fn, lv_brief(h, v)), false;
	return true;
}

static bool get_int(struct lisp *h, const struct kl_node *c, const struct lv *v, const char *fn, int64_t *i)
{
	if (v->k != LV_INT)
		return lv_err(h, c, "%s: %s is not an integer", fn, lv_brief(h, v)), false;
	*i = v->u.i;
	return true;
}

static struct lv *of_num(struct lisp *h, const struct num *x)
{
	return x->fl ? lv_float(h, x->d, x->single) : lv_int(h, x->i);
}

/* x as a float of the given type (an integer converted first, as contagion does) */
static double as_float(const struct num *x, bool single)
{
	if (x->fl)
		return x->d;
	return single ? (double)(float)x->i : (double)x->i;
}

/* d as a float result: rounded to a single when single; an error when it is no finite number */
static bool float_result(struct lisp *h, const struct kl_node *c, const char *fn, double d, bool single, struct num *r)
{
	if (single)
		d = (double)(float)d;
	if (isnan(d))
		return lv_raise(h, c, "arithmetic-error", kl_arena_printf(&h->a, "%s: the result is not a real number "
				"(kiln's Lisp has no complex numbers)", fn)), false;
	if (isinf(d))
		return lv_raise(h, c, "floating-point-overflow", kl_arena_printf(&h->a, "%s: the result overflows a %s-float",
				fn, single ? "single" : "double")), false;
	*r = (struct num){ true, single, 0, d };
	return true;
}

static bool int_overflow(struct lisp *h, const struct kl_node *c, const char *fn, int64_t x, int64_t y)
{
	lv_raise(h, c, "arithmetic-error", kl_arena_printf(&h->a, "%s: %lld and %lld give an integer past 64 bits "
		 "(kiln's host Lisp has no bignums; use floats for such numbers)", fn, (long long)x, (long long)y));
	return false;
}

static bool div_zero(struct lisp *h, const struct kl_node *c)
{
	lv_raise(h, c, "division-by-zero", "division by zero");
	return false;
}

/* truncating and floor division of integers; -1 as the divisor negates (INT64_MIN / -1 wraps) */
static int64_t quot(int64_t x, int64_t y) { return y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y; }
static int64_t floor_div(int64_t x, int64_t y)
{
	int64_t q = quot(x, y);
	return (y != -1 && x % y && ((x < 0) != (y < 0))) ? q - 1 : q;
}

/* x OP y for integers: wrapping, or with strict_ints an error past 64 bits or for a ratio */
static bool int_op(struct lisp *h, const struct kl_node *c, char op, int64_t x, int64_t y, int64_t *r)
{
	bool over = false;
	const char fn[2] = { op, 0 };
	switch (op) {
	case '+': over = __builtin_add_overflow(x, y, r); break;
	case '-': over = __builtin_sub_overflow(x, y, r); break;
	case '*': over = __builtin_mul_overflow(x, y, r); break;
	default:
		if (!y)
			return div_zero(h, c);
		over = x == INT64_MIN && y == -1;
		*r = quot(x, y);
		if (h->strict_ints && x % (y == -1 ? 1 : y))
			return lv_raise(h, c, "arithmetic-error", kl_arena_printf(&h->a, "/: %lld/%lld is a ratio, which "
					"kiln's host Lisp does not have: use floor, truncate or round for an integer, "
					"or a float (/ %lld %lld.0)", (long long)x, (long long)y, (long long)x,
					(long long)y)), false;
	}
	if (over && h->strict_ints)
		return int_overflow(h, c, fn, x, y);
	return true;
}

/* x OP y with contagion; r may be x */
static bool arith2(struct lisp *h, const struct kl_node *c, char op, const struct num *x, const struct num *y, struct num *r)
{
	if (!x->fl && !y->fl) {
		int64_t i;
		if (!int_op(h, c, op, x->i, y->i, &i))
			return false;
		*r = (struct num){ false, false, i, 0 };
		return true;
	}
	bool single = (!x->fl || x->single) && (!y->fl || y->single);
	double a = as_float(x, single), b = as_float(y, single);
	if (op == '/' && b == 0)
		return div_zero(h, c);
	double d = op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b : a / b;
	return float_result(h, c, (const char[2]){ op, 0 }, d, single, r);
}

/* (OP a...), folded left to right; identity the value of (OP), unary OP x is (OP identity x)
 * for - and / */
static struct lv *fold(struct lisp *h, const struct kl_node *c, struct lv **a, int n, char op)
{
	const char fn[2] = { op, 0 };
	struct num acc = { false, false, op == '+' || op == '-' ? 0 : 1, 0 }, x;
	int from = 0;
	if (n && (op == '+' || op == '*' || n > 1)) {
		if (!get_num(h, c, a[0], fn, &acc))
			return NULL;
		from = 1;
	}
	if (op == '-' && n == 1 && a[0]->k == LV_FLOAT)        /* (- 0.0) is -0.0 */
		return lv_float(h, -a[0]->u.fl.d, a[0]->u.fl.single);
	for (int i = from; i < n; i++)
		if (!get_num(h, c, a[i], fn, &x) || !arith2(h, c, op, &acc, &x, &acc))
			return NULL;
	return of_num(h, &acc);
}
B(b_add) { return fold(h, c, a, n, '+'); }
B(b_sub) { return fold(h, c, a, n, '-'); }
B(b_mul) { return fold(h, c, a, n, '*'); }
B(b_div) { return fold(h, c, a, n, '/'); }
static struct lv *step(struct lisp *h, const struct kl_node *c, struct lv *v, char op, const char *fn)
{
	struct num x, one = { false, false, 1, 0 };
	return get_num(h, c, v, fn, &x) && arith2(h, c, op, &x, &one, &x) ? of_num(h, &x) : NULL;
}
B(b_1p) { (void)n; return step(h, c, a[0], '+', "1+"); }
B(b_1m) { (void)n; return step(h, c, a[0], '-', "1-"); }
B(b_abs)
{
	(void)n;
	struct num x;
	if (!get_num(h, c, a[0], "abs", &x))
		return NULL;
	if (x.fl)
		return lv_float(h, fabs(x.d), x.single);
	if (x.i == INT64_MIN && h->strict_ints)
		return int_overflow(h, c, "abs", x.i, 0), NULL;
	return x.i < 0 ? lv_int(h, (int64_t)(0 - (uint64_t)x.i)) : a[0];
}

/* x against y exactly (an integer and a float compared by value, not by converting one):
 * -1, 0 or 1 */
static int cmp(const struct num *x, const struct num *y)
{
	if (!x->fl && !y->fl)
		return (x->i > y->i) - (x->i < y->i);
	if (x->fl && y->fl)
		return (x->d > y->d) - (x->d < y->d);
	if (!x->fl)
		return -cmp(y, x);
	double d = x->d;                     /* a float against an integer */
	if (d >= 0x1p63)
		return 1;
	if (d < -0x1p63)
		return -1;
	double t = f_trunc(d);
	int64_t ti = (int64_t)t;
	if (ti != y->i)
		return (ti > y->i) - (ti < y->i);
	return (d > t) - (d < t);
}

/* = < > <= >= /= chained */
static struct lv *compare(struct lisp *h, const struct kl_node *c, struct lv **a, int n, const char *op)
{
	struct num *x = kl_arena_array(&h->a, struct num, (size_t)n);
	for (int i = 0; i < n; i++)
		if (!get_num(h, c, a[i], op, &x[i]))
			return NULL;
	if (!strcmp(op, "/=")) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (!cmp(&x[i], &x[j]))
					return LNIL;
		return LT;
	}
	for (int i = 0; i + 1 < n; i++) {
		int r = cmp(&x[i], &x[i + 1]);
		bool ok = op[0] == '=' ? !r : op[0] == '<' ? (op[1] ? r <= 0 : r < 0) : (op[1] ? r >= 0 : r > 0);
		if (!ok)
			return LNIL;
	}
	return LT;
}
B(b_eq) { return compare(h, c, a, n, "="); }
B(b_lt) { return compare(h, c, a, n, "<"); }
B(b_gt) { return compare(h, c, a, n, ">"); }
B(b_le) { return compare(h, c, a, n, "<="); }
B(b_ge) { return compare(h, c, a, n, ">="); }
B(b_ne) { return compare(h, c, a, n, "/="); }
static struct lv *extreme(struct lisp *h, const struct kl_node *c, struct lv **a, int n, bool max)
{
	struct num m, x;
	int at = 0;
	if (!get_num(h, c, a[0], max ? "max" : "min", &m))
		return NULL;
	for (int i = 1; i < n; i++) {
		if (!get_num(h, c, a[i], max ? "max" : "min", &x))
			return NULL;
		if (max ? cmp(&x, &m) > 0 : cmp(&x, &m) < 0)
			m = x, at = i;
	}
	return a[at];
}
B(b_min) { return extreme(h, c, a, n, false); }
B(b_max) { return extreme(h, c, a, n, true); }
static struct lv *sign_is(struct lisp *h, const struct kl_node *c, struct lv *v, const char *fn, int want)
{
	struct num x, zero = { false, false, 0, 0 };
	return get_num(h, c, v, fn, &x) ? lv_bool(cmp(&x, &zero) == want) : NULL;
}
B(b_zerop) { (void)n; return sign_is(h, c, a[0], "zerop", 0); }
B(b_plusp) { (void)n; return sign_is(h, c, a[0], "plusp", 1); }
B(b_minusp) { (void)n; return sign_is(h, c, a[0], "minusp", -1); }
B(b_evenp) { (void)n; int64_t i; return get_int(h, c, a[0], "evenp", &i) ? lv_bool(i % 2 == 0) : NULL; }
B(b_oddp) { (void)n; int64_t i; return get_int(h, c, a[0], "oddp", &i) ? lv_bool(i % 2 != 0) : NULL; }
B(b_numberp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_INT || a[0]->k == LV_FLOAT); }
B(b_floatp) { (void)h, (void)c, (void)n; return lv_bool(a[0]->k == LV_FLOAT); }

/* ---- to integers: floor, ceiling, truncate, round (two values: the quotient, the rest) ---- */

enum rounding { R_FLOOR, R_CEIL, R_TRUNC, R_ROUND };
static const char *const rounding_names[] = { "floor", "ceiling", "truncate", "round" };

/* integer x / y rounded as r */
static int64_t int_rounded(int64_t x, int64_t y, enum rounding r)
{
	int64_t q = quot(x, y), m = y == -1 ? 0 : x % y;
	if (!m)
		return q;
	bool neg = (x < 0) != (y < 0);
	switch (r) {
	case R_FLOOR: return neg ? q - 1 : q;
	case R_CEIL: return neg ? q : q + 1;
	case R_TRUNC: return q;
	default: {
		/* |2m| against |y|: past half away from zero, a half to the even quotient */
		uint64_t am = m < 0 ? 0 - (uint64_t)m : (uint64_t)m, ay = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;
		bool up = am > ay - am || (am == ay - am && (q & 1));
		return up ? (neg ? q - 1 : q + 1) : q;
	}
	}
}

static double float_rounded(double d, enum rounding r)
{
	return r == R_FLOOR ? f_floor(d) : r == R_CEIL ? f_ceil(d) : r == R_TRUNC ? f_trunc(d) : f_round(d);
}

static struct lv *to_integer(struct lisp *h, const struct kl_node *c, struct lv **a, int n, enum rounding r)
{
	const char *fn = rounding_names[r];
	struct num x, y = { false, false, 1, 0 }, q, rest;
	if (!get_num(h, c, a[0], fn, &x) || (n > 1 && !get_num(h, c, a[1], fn, &y)))
		return NULL;
	if (!x.fl && !y.fl) {
		if (!y.i)
			return div_zero(h, c), NULL;
		if (x.i == INT64_MIN && y.i == -1 && h->strict_ints)
			return int_overflow(h, c, fn, x.i, y.i), NULL;
		q = (struct num){ false, false, int_rounded(x.i, y.i, r), 0 };
		rest = (struct num){ false, false, (int64_t)((uint64_t)x.i - (uint64_t)q.i * (uint64_t)y.i), 0 };
	} else {
		bool single = (!x.fl || x.single) && (!y.fl || y.single);
		double b = as_float(&y, single), qd;
		if (b == 0)
			return div_zero(h, c), NULL;
		qd = float_rounded(single ? (double)(float)(as_float(&x, single) / b) : as_float(&x, single) / b, r);
		if (!(qd >= -0x1p63 && qd < 0x1p63))
			return lv_err(h, c, "%s: %s is past kiln's 64-bit integers", fn, lv_brief(h, a[0]));
		q = (struct num){ false, false, (int64_t)qd, 0 };
		struct num qf = { true, single, 0, as_float(&q, single) };
		if (!arith2(h, c, '*', &qf, &y, &qf) || !arith2(h, c, '-', &x, &qf, &rest))
			return NULL;
	}
	struct lv *v = lv_vec(h, 2);
	v->k = LV_MV;
	v->u.vec.items[0] = of_num(h, &q);
	v->u.vec.items[1] = of_num(h, &rest);
	return v;
}
B(b_floor) { return to_integer(h, c, a, n, R_FLOOR); }
B(b_ceiling) { return to_integer(h, c, a, n, R_CEIL); }
B(b_truncate) { return to_integer(h, c, a, n, R_TRUNC); }
B(b_round) { return to_integer(h, c, a, n, R_ROUND); }

/* mod (the sign of the divisor) and rem (the sign of the dividend) */
static struct lv *modulo(struct lisp *h, const struct kl_node *c, struct lv **a, bool rem)
{
	const char *fn = rem ? "rem" : "mod";
	struct num x, y;
	if (!get_num(h, c, a[0], fn, &x) || !get_num(h, c, a[1], fn, &y))
		return NULL;
	if (!x.fl && !y.fl) {
		if (!y.i)
			return div_zero(h, c), NULL;
		if (y.i == -1)
			return lv_int(h, 0);
		int64_t q = rem ? quot(x.i, y.i) : floor_div(x.i, y.i);
		return lv_int(h, (int64_t)((uint64_t)x.i - (uint64_t)q * (uint64_t)y.i));
	}
	bool single = (!x.fl || x.single) && (!y.fl || y.single);
	double b = as_float(&y, single), m;
	math_fn2 fmod_ = libm(h, c, "fmod");
	if (!fmod_)
		return NULL;
	if (b == 0)
		return div_zero(h, c), NULL;
	m = fmod_(as_float(&x, single), b);
	if (!rem && m != 0 && ((m < 0) != (b < 0)))
		m += b;
	struct num r;
	return float_result(h, c, fn, m, single, &r) ? of_num(h, &r) : NULL;
}
B(b_mod) { (void)n; return modulo(h, c, a, false); }
B(b_rem) { (void)n; return modulo(h, c, a, true); }

/* ---- floats: float, sqrt, exp, log, expt ---- */

/* (float X [PROTOTYPE]): a single, or the prototype's type; a float without one as it is */
B(b_float)
{
	struct num x, p = { true, true, 0, 0 };
	if (!get_num(h, c, a[0], "float", &x) || (n > 1 && !get_num(h, c, a[1], "float", &p)))
		return NULL;
	if (n > 1 && !p.fl)
		return lv_err(h, c, "float: the prototype %s is not a float", lv_brief(h, a[1]));
	if (x.fl && n == 1)
		return a[0];
	return lv_float(h, as_float(&x, p.single), p.single);
}

/* (coerce X 'float|'single-float|'double-float|'real|'number): numbers only */
B(b_coerce)
{
	(void)n;
	struct num x;
	const char *t = a[1]->k == LV_SYM ? a[1]->u.name : "";
	if (!get_num(h, c, a[0], "coerce", &x))
		return NULL;
	if (!strcmp(t, "real") || !strcmp(t, "number") || (!strcmp(t, "float") && x.fl))
		return a[0];
	if (!strcmp(t, "float") || !strcmp(t, "single-float") || !strcmp(t, "double-float")) {
		bool single = strcmp(t, "double-float") != 0;
		return lv_float(h, as_float(&x, single), single);
	}
	if (!strcmp(t, "integer") && !x.fl)
		return a[0];
	return lv_err(h, c, "coerce: %s to %s (kiln's Lisp coerces numbers to float, single-float or "
		      "double-float)", lv_brief(h, a[0]), lv_brief(h, a[1]));
}

static struct lv *unary(struct lisp *h, const struct kl_node *c, struct lv *v, const char *fn)
{
	struct num x, r;
	math_fn f = libm(h, c, fn);
	if (!f || !get_num(h, c, v, fn, &x))
		return NULL;
	bool single = !x.fl || x.single;
	double d = as_float(&x, single);
	if (!strcmp(fn, "log") && d == 0)
		return div_zero(h, c), NULL;
	if (!strcmp(fn, "sqrt") && d < 0)
		return lv_raise(h, c, "arithmetic-error", kl_arena_printf(&h->a, "sqrt: the square root of %s is "
				"complex, which kiln's Lisp does not have", lv_brief(h, v)));
	return float_result(h, c, fn, f(d), single, &r) ? of_num(h, &r) : NULL;
}
B(b_sqrt) { (void)n; return unary(h, c, a[0], "sqrt"); }
B(b_exp) { (void)n; return unary(h, c, a[0], "exp"); }
/* (log X [BASE]): both logarithms in the type the two numbers' contagion gives (SBCL's: an
 * integer base of a double's log is taken as a double) */
B(b_log)
{
	struct num x, b, r;
	if (n == 1)
		return unary(h, c, a[0], "log");
	if (!get_num(h, c, a[0], "log", &x) || !get_num(h, c, a[1], "log", &b))
		return NULL;
	bool single = (!x.fl || x.single) && (!b.fl || b.single);
	struct lv *lx = unary(h, c, lv_float(h, as_float(&x, single), single), "log"), *lb;
	if (!lx || !(lb = unary(h, c, lv_float(h, as_float(&b, single), single), "log")))
		return NULL;
	if (lb->u.fl.d == 0)
		return div_zero(h, c), NULL;
	return float_result(h, c, "log", lx->u.fl.d / lb->u.fl.d, single, &r) ? of_num(h, &r) : NULL;
}
/* the error raised by a step of fn (a "*: ..." of arith2's) said as fn's; NULL */
static struct lv *renamed(struct lisp *h, const char *fn)
{
	const char *m = h->exc == LV_EXC_CONDITION ? h->cond->u.cond.msg : NULL;
	if (m && !strncmp(m, "*: ", 3))
		h->cond->u.cond.msg = kl_arena_printf(&h->a, "%s: %s", fn, m + 3);
	return NULL;
}

/* (expt BASE POWER): an integer to a non-negative integer power exactly, else a float */
B(b_expt)
{
	(void)n;
	struct num x, y, r = { false, false, 1, 0 };
	if (!get_num(h, c, a[0], "expt", &x) || !get_num(h, c, a[1], "expt", &y))
		return NULL;
	if (!y.fl && (!x.fl || y.i >= 0)) {
		struct num base = x;
		if (y.i < 0)        /* an integer to a negative power: 1 / x^-y */
			return lv_err(h, c, "expt: %lld to the power %lld is a ratio, which kiln's Lisp does not "
				      "have: write the base as a float", (long long)x.i, (long long)y.i);
		if (x.fl)
			r = (struct num){ true, x.single, 0, 1 };
		for (uint64_t e = (uint64_t)y.i; e; e >>= 1)        /* by squaring */
			if (((e & 1) && !arith2(h, c, '*', &r, &base, &r)) ||
			    (e > 1 && !arith2(h, c, '*', &base, &base, &base)))
				return renamed(h, "expt");
		return of_num(h, &r);
	}
	bool single = (!x.fl || x.single) && (!y.fl || y.single);
	double b = as_float(&x, single), e = as_float(&y, single);
	math_fn2 pow_ = libm(h, c, "pow");
	if (!pow_)
		return NULL;
	if (b == 0 && e < 0)
		return div_zero(h, c), NULL;
	return float_result(h, c, "expt", pow_(b, e), single, &r) ? of_num(h, &r) : NULL;
}

/* ---- integers only ---- */

static struct lv *bits(struct lisp *h, const struct kl_node *c, struct lv **a, int n, char op, const char *fn)
{
	int64_t s = op == '&' ? -1 : 0, x;
	for (int i = 0; i < n; i++) {
		if (!get_int(h, c, a[i], fn, &x))
			return NULL;
		s = op == '&' ? s & x : op == '|' ? s | x : s ^ x;
	}
	return lv_int(h, s);
}
B(b_logand) { return bits(h, c, a, n, '&', "logand"); }
B(b_logior) { return bits(h, c, a, n, '|', "logior"); }
B(b_logxor) { return bits(h, c, a, n, '^', "logxor"); }
B(b_ash)
{
	(void)n;
	int64_t x, s;
	if (!get_int(h, c, a[0], "ash", &x) || !get_int(h, c, a[1], "ash", &s))
		return NULL;
	if (s <= 0)
		return lv_int(h, s <= -64 ? (x < 0 ? -1 : 0) : x >> -s);
	int64_t r = s >= 64 ? 0 : (int64_t)((uint64_t)x << s);
	/* a non-negative x may fill all 64 bits, as a u64 does (its pattern, read back as the
	 * host reads #xffffffffffffffff: decoders build u64s so); only bits shifted out are lost */
	bool lost = x >= 0 ? s >= 64 || ((uint64_t)r >> s) != (uint64_t)x : s >= 64 || (r >> s) != x;
	if (h->strict_ints && x && lost)
		return lv_raise(h, c, "arithmetic-error", kl_arena_printf(&h->a, "ash: %lld shifted left %lld gives an "
				"integer past 64 bits (kiln's host Lisp has no bignums)", (long long)x, (long long)s));
	return lv_int(h, r);
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } num_builtins[] = {
	{ "+", b_add, 0, -1 }, { "-", b_sub, 1, -1 }, { "*", b_mul, 0, -1 }, { "/", b_div, 1, -1 },
	{ "1+", b_1p, 1, 1 }, { "1-", b_1m, 1, 1 }, { "abs", b_abs, 1, 1 },
	{ "=", b_eq, 1, -1 }, { "<", b_lt, 1, -1 }, { ">", b_gt, 1, -1 }, { "<=", b_le, 1, -1 },
	{ ">=", b_ge, 1, -1 }, { "/=", b_ne, 1, -1 }, { "min", b_min, 1, -1 }, { "max", b_max, 1, -1 },
	{ "zerop", b_zerop, 1, 1 }, { "plusp", b_plusp, 1, 1 }, { "minusp", b_minusp, 1, 1 },
	{ "evenp", b_evenp, 1, 1 }, { "oddp", b_oddp, 1, 1 }, { "numberp", b_numberp, 1, 1 },
	{ "realp", b_numberp, 1, 1 }, { "floatp", b_floatp, 1, 1 },
	{ "floor", b_floor, 1, 2 }, { "ceiling", b_ceiling, 1, 2 }, { "truncate", b_truncate, 1, 2 },
	{ "round", b_round, 1, 2 }, { "mod", b_mod, 2, 2 }, { "rem", b_rem, 2, 2 },
	{ "float", b_float, 1, 2 }, { "coerce", b_coerce, 2, 2 }, { "sqrt", b_sqrt, 1, 1 }, { "exp", b_exp, 1, 1 }, { "log", b_log, 1, 2 },
	{ "expt", b_expt, 2, 2 },
	{ "logand", b_logand, 0, -1 }, { "logior", b_logior, 0, -1 }, { "logxor", b_logxor, 0, -1 },
	{ "ash", b_ash, 2, 2 },
};

lv_builtin_fn lv_num_builtin_find(const char *name, int *min, int *max)
{
	for (size_t i = 0; i < sizeof(num_builtins) / sizeof(num_builtins[0]); i++)
		if (!strcmp(name, num_builtins[i].name)) {
			*min = num_builtins[i].min;
			*max = num_builtins[i].max;
			return num_builtins[i].fn;
		}
	return NULL;
}
