/* trace_fmt.c — printf's formats compiled once per site (trace_fmt.h). The conversions are
 * those of trace_out.c's trace_printf: the 64-bit value narrowed to the script's length (%d
 * the low 32 bits as an int, %hd a short, %hhd a char, %ld all of them), then printed by the
 * C library with the flags, width and precision rebuilt, except the plain ones (%d %u %x
 * and their lengths, no flags) written here. */
#define _GNU_SOURCE
#include "trace_fmt.h"
#include "trace/sema.h"
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WIDTH 4096   /* the widest width or precision compiled */

enum piece_kind { P_TEXT, P_INT, P_SPEC, P_PTR, P_CHAR, P_MISSING };

struct piece {
	enum piece_kind kind;
	const char *text;           /* P_TEXT: the run; P_SPEC, P_CHAR: the C library's spec */
	uint32_t len;               /* P_TEXT: its bytes */
	uint32_t offset;            /* where the argument's 8 bytes are in the record */
	int width;                  /* 8, 16, 32 or 64: the bits the value is narrowed to */
	bool sign;                  /* %d %i */
	char conv;                  /* P_INT: 'd' 'u' 'x' 'X' 'o' */
};

struct trace_fmt {
	struct piece *p;
	uint32_t n;
	size_t bound;
	size_t need;                /* record bytes the arguments take */
	char *text;                 /* the runs and specs, one allocation */
};

void trace_fmt_free(struct trace_fmt *f)
{
	if (!f)
		return;
	free(f->p);
	free(f->text);
	free(f);
}

size_t trace_fmt_bound(const struct trace_fmt *f)
{
	return f->bound;
}

void trace_fmt_spec(const char **fp, char *spec, struct trace_conv *c)
{
	const char *f = *fp;
	size_t k = 0;
	spec[k++] = *f++;
	while (*f && strchr("-+ #0", *f) && k < 10)
		spec[k++] = *f++;
	while (*f >= '0' && *f <= '9' && k < 20)
		spec[k++] = *f++;
	if (*f == '.') {
		spec[k++] = *f++;
		while (*f >= '0' && *f <= '9' && k < 28)
			spec[k++] = *f++;
	}
	c->longs = c->shorts = 0;
	for (; *f && strchr("lhzjt", *f); f++) {
		c->longs += *f != 'h';
		c->shorts += *f == 'h';
	}
	c->conv = *f ? *f++ : 0;
	c->k = k;
	*fp = f;
}

/* One conversion at *fp (its '%'), as trace_printf reads it: its piece, the spec's bytes
 * copied to *tp. false when it has no compiled form. */
static bool compile_conv(const struct kt_site *site, const char **fp, char **tp, uint32_t *arg, struct piece *pc,
			 size_t *need)
{
	const char *f = *fp;
	char *spec = *tp;
	struct trace_conv c;
	trace_fmt_spec(&f, spec, &c);
	size_t k = c.k;
	int longs = c.longs, shorts = c.shorts;
	char conv = c.conv;
	if (!conv)
		return false;   /* trace_printf stops there: rare, left to it */
	*fp = f;
	if (*arg >= site->nargs) {
		pc->kind = P_MISSING;
		return strchr("diuxXocp", conv) != NULL;
	}
	const struct kt_arg *a = &site->args[(*arg)++];
	if (!strchr("diuxXocp", conv) || a->type.kind == KTT_STR)
		return false;
	size_t end = a->offset + kt_type_size(&a->type);
	if (end > *need)
		*need = end;
	pc->offset = a->offset;
	pc->sign = conv == 'd' || conv == 'i';
	pc->width = longs ? 64 : shorts >= 2 ? 8 : shorts == 1 ? 16 : 32;
	pc->conv = conv == 'i' ? 'd' : conv;
	if (conv == 'p') {
		pc->kind = P_PTR;
		return true;
	}
	if (conv == 'c') {
		pc->kind = P_CHAR;
		spec[k++] = 'c';
	} else if (k == 1 && conv != 'o') {
		pc->kind = P_INT;
		return true;
	} else {
		pc->kind = P_SPEC;
		spec[k++] = 'l';
		spec[k++] = 'l';
		spec[k++] = conv;
	}
	spec[k++] = 0;
	pc->text = spec;
	*tp = spec + k;
	return true;
}

/* The most bytes one piece writes. */
static size_t piece_bound(const struct piece *pc)
{
	switch (pc->kind) {
	case P_TEXT:
		return pc->len;
	case P_SPEC: case P_CHAR: {   /* the width or the precision, whichever is more, and the digits */
		size_t w = 0;
		for (const char *s = pc->text; *s; s++)
			if (*s >= '0' && *s <= '9') {
				size_t v = strtoul(s, NULL, 10);
				w = v > w ? v : w;
				while (s[1] >= '0' && s[1] <= '9')
					s++;
			}
		return w > MAX_WIDTH ? SIZE_MAX / 4 : w + 32;
	}
	default:
		return 32;
	}
}

struct trace_fmt *trace_fmt_compile(const struct kt_site *site)
{
	size_t flen = strlen(site->fmt);
	struct trace_fmt *f = calloc(1, sizeof(*f));
	if (!f || !(f->p = calloc(flen + 1, sizeof(*f->p))) || !(f->text = malloc(flen * 3 + 64))) {
		trace_fmt_free(f);
		return NULL;
	}
	const char *s = site->fmt;
	char *t = f->text;
	uint32_t arg = 0;
	bool ok = true;
	while (ok && *s) {
		struct piece *pc = &f->p[f->n];
		if (*s != '%' || s[1] == '%') {   /* a run of text; "%%" is one '%' */
			if (!(f->n && f->p[f->n - 1].kind == P_TEXT))
				*pc = (struct piece){ .kind = P_TEXT, .text = t }, f->n++;
			else
				pc = &f->p[f->n - 1];
			*t++ = *s;
			pc->len++;
			s += *s == '%' ? 2 : 1;
			continue;
		}
		*pc = (struct piece){ 0 };
		ok = compile_conv(site, &s, &t, &arg, pc, &f->need);
		f->n++;
	}
	for (uint32_t i = 0; ok && i < f->n; i++) {
		size_t b = piece_bound(&f->p[i]);
		ok = b <= MAX_WIDTH + 32;   /* a wider one is left to trace_printf */
		f->bound += b;
	}
	if (!ok) {
		trace_fmt_free(f);
		return NULL;
	}
	return f;
}

/* v's digits in base (10 or 16, upper or not) ending at end; the first. The bases are
 * constants in their loops: a multiplication and shifts, not a division a digit. */
static char *digits(char *end, uint64_t v, unsigned base, bool upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	if (base == 10) {
		do {
			*--end = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		return end;
	}
	do {
		*--end = dig[v & 15];
		v >>= 4;
	} while (v);
	return end;
}

static int64_t narrow(int64_t v, int width, bool sign)
{
	switch (width) {
	case 8: return sign ? (int64_t)(signed char)v : (int64_t)(unsigned char)v;
	case 16: return sign ? (int64_t)(short)v : (int64_t)(unsigned short)v;
	case 32: return sign ? (int64_t)(int)v : (int64_t)(unsigned int)v;
	default: return v;
	}
}

/* A plain %d %u %x %X of v. */
static size_t put_int(char *dst, int64_t v, const struct piece *pc)
{
	char tmp[24], *end = tmp + sizeof(tmp), *b;
	if (pc->conv == 'd' && v < 0) {
		b = digits(end, 0 - (uint64_t)v, 10, false);
		*--b = '-';
	} else {
		b = digits(end, (uint64_t)v, pc->conv == 'x' || pc->conv == 'X' ? 16 : 10, pc->conv == 'X');
	}
	memcpy(dst, b, (size_t)(end - b));
	return (size_t)(end - b);
}

size_t trace_fmt_put(const struct trace_fmt *f, const uint8_t *rec, size_t size, char *dst)
{
	if (size < f->need)
		return (size_t)-1;
	char *d = dst;
	for (uint32_t i = 0; i < f->n; i++) {
		const struct piece *pc = &f->p[i];
		int64_t v = 0;
		if (pc->kind != P_TEXT && pc->kind != P_MISSING) {
			memcpy(&v, rec + pc->offset, 8);
			v = narrow(v, pc->width, pc->sign);
		}
		int n;
		switch (pc->kind) {
		case P_TEXT:
			memcpy(d, pc->text, pc->len);
			d += pc->len;
			break;
		case P_MISSING:
			*d++ = '?';
			break;
		case P_INT:
			d += put_int(d, v, pc);
			break;
		case P_PTR:   /* all 64 bits, as trace_printf */
			memcpy(&v, rec + pc->offset, 8);
			n = snprintf(d, 32, "0x%" PRIx64, (uint64_t)v);
			d += n > 0 ? n : 0;
			break;
		case P_CHAR:
			n = snprintf(d, piece_bound(pc), pc->text, (int)(char)v);
			d += n <= 0 ? 0 : (size_t)n < piece_bound(pc) ? (size_t)n : piece_bound(pc) - 1;
			break;
		case P_SPEC:
			n = snprintf(d, piece_bound(pc), pc->text, (long long)v);
			d += n <= 0 ? 0 : (size_t)n < piece_bound(pc) ? (size_t)n : piece_bound(pc) - 1;
			break;
		}
	}
	return (size_t)(d - dst);
}
