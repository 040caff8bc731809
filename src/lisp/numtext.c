/* numtext.c — a float's text: as the printer writes it (SBCL's way, so that a session prints
 * what it prints under SBCL) and as format's ~F ~E ~$ lay it out. */
#include "lisp.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* d's neighbours (d > 0, a single's when single) */
static void neighbours(double d, bool single, long double *lo, long double *hi)
{
	if (single) {
		float f = (float)d, g;
		uint32_t u;
		memcpy(&u, &f, sizeof(u));
		u--, memcpy(&g, &u, sizeof(g)), *lo = g;
		u += 2, memcpy(&g, &u, sizeof(g)), *hi = g;
	} else {
		double g;
		uint64_t u;
		memcpy(&u, &d, sizeof(u));
		u--, memcpy(&g, &u, sizeof(g)), *lo = g;
		u += 2, memcpy(&g, &u, sizeof(g)), *hi = g;
	}
	if (isinf(*hi))
		*hi = (long double)d + ((long double)d - *lo);
}

/* Does the decimal text c read back as d? Inclusive: c may lie on the edge of d's rounding
 * interval too (SBCL's ~F takes such digits: 2235120000 for the single 2235119872). */
static bool reads_back(const char *c, double d, bool single, bool inclusive)
{
	if (!inclusive) {
		double back = strtod(c, NULL);
		return single ? (float)back == (float)d : back == d;
	}
	long double x = strtold(c, NULL), lo, hi;
	neighbours(d, single, &lo, &hi);
	return x >= ((long double)d + lo) / 2 && x <= ((long double)d + hi) / 2;
}

/* "D.DDDe+X" (p digits) of d rounded up: d's p+1 digits end in a 5 followed only by zeros
 * (a tie, which printf rounds to even), then the digit before it carried. False when no tie. */
static bool tie_up(double d, int p, char *buf, size_t size)
{
	char x[128];
	snprintf(x, sizeof(x), "%.*e", p + 60, d);
	char *ex = strchr(x, 'e'), *t = x + p + 1;      /* the digit after the p-th */
	if (*t != '5' || (int)strspn(t + 1, "0") != ex - t - 1)
		return false;
	int e = atoi(ex + 1);
	*t = 0;
	char *q = t - 1;
	for (; q >= x; q--) {
		if (*q == '.')
			continue;
		if (*q != '9') {
			++*q;
			break;
		}
		*q = '0';
	}
	if (q < x)             /* 9.99 up to 10.0: 1.00, one more in the exponent */
		x[0] = '1', e++;
	snprintf(buf, size, "%se%+d", x, e);
	return true;
}

/* The shortest decimal digits of d (> 0) that read back as d (as a single when single), a
 * tie between two such rounded up, as SBCL's printer picks (271872.125 is 271872.13): dig
 * holds them (no point, no trailing zero but the first), the value d1.d2d3... x 10^e. */
static void shortest(double d, bool single, bool inclusive, char dig[32], int *e)
{
	char buf[160], up[160];
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, d);
		if (tie_up(d, p, up, sizeof(up)) && reads_back(up, d, single, inclusive)) {
			memcpy(buf, up, sizeof(buf));
			break;
		}
		if (reads_back(buf, d, single, inclusive))
			break;
	}
	size_t k = 0;
	char *p = buf;
	for (; *p && *p != 'e' && k < 31; p++)
		if (*p != '.')
			dig[k++] = *p;
	while (k > 1 && dig[k - 1] == '0')
		k--;
	dig[k] = 0;
	*e = atoi(p + 1);
}

/* digits dig (x 10^e, the first before the point) in fixed notation: at least one digit on
 * each side of the point */
static void fixed(char *buf, size_t size, const char *dig, int e)
{
	size_t n = strlen(dig), o = 0;
	char out[400];
	if (e < 0) {
		o += (size_t)snprintf(out, sizeof(out), "0.");
		for (int i = -1; i > e && o < sizeof(out) - 40; i--)
			out[o++] = '0';
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s", dig);
	} else {
		for (int i = 0; i <= e && o < sizeof(out) - 40; i++)
			out[o++] = (size_t)i < n ? dig[i] : '0';
		out[o++] = '.';
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s", (size_t)e + 1 < n ? dig + e + 1 : "0");
	}
	out[o] = 0;
	snprintf(buf, size, "%s", out);
}

void lv_float_text(char *buf, size_t size, double d, bool single)
{
	const char *sign = signbit(d) ? "-" : "";
	d = fabs(d);
	if (d == 0) {
		snprintf(buf, size, "%s0.0%s", sign, single ? "" : "d0");
		return;
	}
	char dig[32], body[400];
	int e;
	shortest(d, single, false, dig, &e);
	if (d >= 1e-3 && d < 1e7) {
		fixed(body, sizeof(body), dig, e);
		snprintf(buf, size, "%s%s%s", sign, body, single ? "" : "d0");
	} else {
		snprintf(buf, size, "%s%c.%s%c%d", sign, dig[0], dig[1] ? dig + 1 : "0", single ? 'e' : 'd', e);
	}
}

static void put(struct lisp *h, struct lv_text *t, const char *s)
{
	lv_text_put(h, t, s, strlen(s));
}

/* v (>= 0) with p digits after the point, a tie rounded away from zero (as SBCL's ~F and ~$
 * round: 0.125 to 0.13, 2.5 to 3), else to the nearest: printf's digits, but for a tie, whose
 * exact expansion has p+1 digits after the point (the last a 5), one more digit and that 5
 * carried. SBCL's digit generation stops early at a tie whose lower neighbour ends in a 0
 * (10.5 is 10., 11.5 is 12.); with p > 0 the digit before a tie's 5 is a 2 or a 7 (the
 * ending of k/2^n), so only p = 0 meets it. */
static void fixed_digits(char *out, size_t size, double v, int p)
{
	int m = 0;                     /* v's digits after the point: the least m with v*2^m whole */
	for (double x = v; m <= p + 1 && !(x >= 0x1p52 || (double)(int64_t)x == x); m++)
		x *= 2;
	if (m != p + 1) {
		snprintf(out, size, "%.*f", p, v);
		return;
	}
	char buf[400];
	int len = snprintf(buf, sizeof(buf), "%.*f", p + 1, v);
	if (len <= 1 || (size_t)len >= sizeof(buf) - 1) {
		snprintf(out, size, "%.*f", p, v);
		return;
	}
	buf[--len] = 0;                /* the 5 dropped, the digit before it carried */
	if (p == 0)
		buf[--len] = 0;        /* and the point */
	if (p == 0 && buf[len - 1] == '0' && strcmp(buf, "0")) {
		snprintf(out, size, "%s", buf);         /* SBCL's digits stop at 10 of 10.5: down */
		return;
	}
	int i = len - 1;
	for (; i >= 0; i--) {
		if (buf[i] == '.')
			continue;
		if (buf[i] != '9') {
			buf[i]++;
			break;
		}
		buf[i] = '0';
	}
	snprintf(out, size, "%s%s", i < 0 ? "1" : "", buf);
}

/* v (>= 0) with p digits after the point, as SBCL's ~,pF writes it: the float's shortest
 * digits with zeros after them when they end before the p-th (1e22 is 10000000000000000000000.0,
 * not the double's exact 9999999999999999778...), else rounded there (fixed_digits); ~,0F
 * keeps the point: 3. */
static void rounded_fixed(char *out, size_t size, double v, bool single, int p)
{
	char dig[32];
	int e = 0;
	if (v != 0)
		shortest(v, single, true, dig, &e);
	int frac = v == 0 ? 0 : (int)strlen(dig) - 1 - e;     /* the shortest digits after the point */
	if (frac > p) {
		fixed_digits(out, size, v, p);
	} else if (v == 0) {
		snprintf(out, size, "0.%.*s", p, "0000000000000000000000000000000000000000000000000000000000000000"
			 "000000000000000000000000000000000000");
	} else {
		char body[400];
		fixed(body, sizeof(body), dig, e);               /* at least one digit after the point */
		size_t have = strlen(body) - strcspn(body, ".") - 1;
		if (p == 0 && body[strlen(body) - 1] == '0' && have == 1)
			body[strlen(body) - 1] = 0;              /* 3.0 to 3. */
		snprintf(out, size, "%s%.*s", body, p > (int)have ? p - (int)have : 0,
			 "0000000000000000000000000000000000000000000000000000000000000000"
			 "000000000000000000000000000000000000");
	}
	if (p == 0 && !strchr(out, '.') && strlen(out) + 1 < size)
		strcat(out, ".");
}

/* s padded on the left with padc to w columns */
static void padded(struct lisp *h, struct lv_text *t, const char *s, long w, char padc)
{
	for (long k = w - (long)strlen(s); k > 0 && !t->full; k--)
		lv_text_put(h, t, &padc, 1);
	put(h, t, s);
}

/* ~w,d,kF: d digits after the point (rounded), else as many as the float needs; k scales by
 * 10^k */
static void format_fixed(char *s, size_t size, double d, bool single, const struct fmt_float *ff)
{
	for (long k = ff->k; k > 0 && k <= 400 && fabs(d) < 1e300; k--)   /* no libm (num.c); */
		d *= 10;                                                    /* never to inf */
	if (single && fabs(d) > 3.4028234663852886e38)        /* scaled past a single's range */
		single = false;
	for (long k = ff->k; k < 0 && k >= -400; k++)
		d /= 10;
	const char *sign = signbit(d) ? "-" : ff->atsign ? "+" : "";
	d = fabs(d);
	char body[512];
	if (ff->d >= 0) {
		rounded_fixed(body, sizeof(body), d, single, (int)(ff->d > 100 ? 100 : ff->d));
	} else if (d == 0) {
		snprintf(body, sizeof(body), "0.0");
	} else {
		char dig[32];
		int e;
		shortest(d, single, false, dig, &e);
		fixed(body, sizeof(body), dig, e);
	}
	snprintf(s, size, "%s%s", sign, body);
}

/* 10^n as SBCL's expt computes it for a double base: by squaring, a negative n as 1/10^-n */
static double pow10_sq(int n)
{
	if (n < 0)
		return 1 / pow10_sq(-n);
	double total = n & 1 ? 10 : 1, base = 10;
	for (int next = n >> 1; next; next >>= 1) {
		base *= base;
		if (next & 1)
			total = base * total;
	}
	return total;
}

/* x (> 0) as z x 10^ex with z in [0.1, 1), computed as SBCL's ~E computes it (in doubles, by
 * a guess of the exponent from the binary one and steps of 10), z then rounded to x's type:
 * the digits ~E prints are z's, so they are SBCL's (1234.5 ~,3E is 1.235e+3) */
static double scale_exponent(double x, bool single, int *ex)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	int bexp = (int)((u >> 52) & 0x7ff) - 1022, e;
	double g = bexp * 0.3010299914836512;   /* SBCL's (log 2d0 10): log 10 taken as a single */
	e = (int)(g < 0 ? g - 0.5 : g + 0.5);
	x = e < 0 ? x * 10.0 * pow10_sq(-e - 1) : x / 10.0 / pow10_sq(e - 1);
	double y = x;
	for (double d = 10; !(y < 1); d *= 10, e++)
		y = x / d;
	double z = y;
	for (double m = 10; !(z >= 0.1); m *= 10, e--)
		z = y * m;
	*ex = e;
	return single ? (double)(float)z : z;
}

/* ~w,d,eE: one digit before the point, d after (else as many as needed), the exponent signed
 * with at least e digits, marked e for a single and d for a double */
static void format_exp(char *s, size_t size, double d, bool single, const struct fmt_float *ff)
{
	const char *sign = signbit(d) ? "-" : ff->atsign ? "+" : "";
	d = fabs(d);
	char dig[32], mant[256];
	int e = 0;
	if (d == 0) {
		snprintf(mant, sizeof(mant), "0.%.*s", (int)(ff->d > 0 ? (ff->d > 100 ? 100 : ff->d) : 1),
			 "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
			 "000000000000000");
	} else {
		int ex;
		double z = scale_exponent(d, single, &ex);
		e = ex - 1;
		if (ff->d >= 0) {
			char buf[200];
			rounded_fixed(buf, sizeof(buf), z, single, (int)(ff->d > 100 ? 100 : ff->d) + 1);
			char *pt = strchr(buf, '.');       /* 0.DDDD to D.DDD; 1.000 (rounded up) to 10.00 */
			if (pt && pt[1] && buf[0] == '0')
				snprintf(mant, sizeof(mant), "%c.%s", pt[1], pt + 2);
			else
				snprintf(mant, sizeof(mant), "10.%s", pt && pt[1] ? pt + 2 : "");
		} else {
			int ez;
			shortest(z, single, false, dig, &ez);
			if (ez == -1)
				snprintf(mant, sizeof(mant), "%c.%s", dig[0], dig[1] ? dig + 1 : "0");
			else                                       /* z printed as 1.0: 10.0 scaled */
				snprintf(mant, sizeof(mant), "%c.%s", dig[0], dig[1] ? dig + 1 : "0"), e += ez + 1;
		}
	}
	int ew = (int)(ff->e > 0 ? (ff->e > 20 ? 20 : ff->e) : 1);
	snprintf(s, size, "%s%s%c%c%0*d", sign, mant, single ? 'e' : 'd', e < 0 ? '-' : '+', ew, abs(e));
}

/* ~d,n,w$: d digits after the point (2), at least n before it (1) */
static void format_money(char *s, size_t size, double d, bool single, const struct fmt_float *ff)
{
	const char *sign = signbit(d) ? "-" : ff->atsign ? "+" : "";
	char body[400];
	int digits = (int)(ff->d >= 0 ? (ff->d > 100 ? 100 : ff->d) : 2);
	rounded_fixed(body, sizeof(body), fabs(d), single, digits);
	long lead = (long)strcspn(body, "."), n = ff->n >= 0 ? (ff->n > 100 ? 100 : ff->n) : 1;
	snprintf(s, size, "%s%.*s%s", sign, (int)(n > lead ? n - lead : 0), "00000000000000000000000000000000000000"
		 "00000000000000000000000000000000000000000000000000000000000000", body);
}

void lv_format_float(struct lv_text *t, struct lisp *h, const struct lv *v, char dir, const struct fmt_float *ff)
{
	/* an integer as a single, as Common Lisp's ~F and ~E take a rational */
	double d = v->k == LV_FLOAT ? v->u.fl.d : (double)(float)v->u.i;
	bool single = v->k != LV_FLOAT || v->u.fl.single;
	char s[800];
	if (dir == 'f')
		format_fixed(s, sizeof(s), d, single, ff);
	else if (dir == 'e')
		format_exp(s, sizeof(s), d, single, ff);
	else
		format_money(s, sizeof(s), d, single, ff);
	padded(h, t, s, ff->w, ff->padc);
}
