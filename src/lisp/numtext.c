/* numtext.c — a float's text: as the printer writes it (SBCL's way, so that a session prints
 * what it prints under SBCL) and as format's ~F ~E ~$ lay it out. */
#include "lisp.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest decimal digits of d (> 0) that read back as d (as a single when single):
 * dig holds them (no point, no trailing zero but the first), the value d1.d2d3... x 10^e. */
static void shortest(double d, bool single, char dig[32], int *e)
{
	char buf[48];
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, d);
		double back = strtod(buf, NULL);
		if (single ? (float)back == (float)d : back == d)
			break;
	}
	size_t k = 0;
	char *p = buf;
	for (; *p && *p != 'e'; p++)
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
	shortest(d, single, dig, &e);
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
 * round: 0.125 to 0.13), else to the nearest: printf's digits, but for a tie, whose exact
 * expansion has p+1 digits after the point (the last a 5), one more digit and that 5 carried */
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
	for (long k = ff->k; k > 0 && k <= 400; k--)      /* no libm (num.c) */
		d *= 10;
	for (long k = ff->k; k < 0 && k >= -400; k++)
		d /= 10;
	const char *sign = signbit(d) && d != 0 ? "-" : ff->atsign ? "+" : "";
	d = fabs(d);
	char body[512];
	if (ff->d >= 0) {
		fixed_digits(body, sizeof(body), d, (int)(ff->d > 100 ? 100 : ff->d));
		if (ff->d == 0)
			strcat(body, ".");      /* ~,0F keeps the point: 3. */
	} else if (d == 0) {
		snprintf(body, sizeof(body), "0.0");
	} else {
		char dig[32];
		int e;
		shortest(d, single, dig, &e);
		fixed(body, sizeof(body), dig, e);
	}
	snprintf(s, size, "%s%s", sign, body);
}

/* ~w,d,eE: one digit before the point, d after (else as many as needed), the exponent signed
 * with at least e digits, marked e for a single and d for a double */
static void format_exp(char *s, size_t size, double d, bool single, const struct fmt_float *ff)
{
	const char *sign = signbit(d) && d != 0 ? "-" : ff->atsign ? "+" : "";
	d = fabs(d);
	char dig[32], mant[256];
	int e = 0;
	if (ff->d >= 0) {
		char buf[200];
		snprintf(buf, sizeof(buf), "%.*e", (int)(ff->d > 100 ? 100 : ff->d), d);
		char *x = strchr(buf, 'e');
		*x = 0;
		e = atoi(x + 1);
		snprintf(mant, sizeof(mant), "%s%s", buf, ff->d == 0 ? "." : "");
	} else if (d == 0) {
		snprintf(mant, sizeof(mant), "0.0");
	} else {
		shortest(d, single, dig, &e);
		snprintf(mant, sizeof(mant), "%c.%s", dig[0], dig[1] ? dig + 1 : "0");
	}
	int ew = (int)(ff->e > 0 ? (ff->e > 20 ? 20 : ff->e) : 1);
	snprintf(s, size, "%s%s%c%c%0*d", sign, mant, single ? 'e' : 'd', e < 0 ? '-' : '+', ew, abs(e));
}

/* ~d,n,w$: d digits after the point (2), at least n before it (1) */
static void format_money(char *s, size_t size, double d, const struct fmt_float *ff)
{
	const char *sign = signbit(d) && d != 0 ? "-" : ff->atsign ? "+" : "";
	char body[400];
	int digits = (int)(ff->d >= 0 ? (ff->d > 100 ? 100 : ff->d) : 2);
	fixed_digits(body, sizeof(body), fabs(d), digits);
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
		format_money(s, sizeof(s), d, ff);
	padded(h, t, s, ff->w, ff->padc);
}
