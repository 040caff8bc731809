/* trace_out.c — `kiln trace`'s printing (trace.h). bpftrace 0.17's output is the reference:
 * keys in brackets joined by ", ", values in decimal, maps of integers sorted by value,
 * maps of strings by key, hist and lhist maps by their total count, with bars 52 columns
 * wide under a 16-column label and an 8-column count; avg and stats by their average. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include "trace_fmt.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int64_t rd64(const uint8_t *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* A key's elements as text, joined by sep. */
static void put_key_elems(FILE *out, const struct kt_map *m, const uint8_t *key, struct trace_out *o,
			  const char *sep)
{
	if (m->key.kind != KTT_TUPLE) {
		trace_put_value(out, &m->key, key, o, 4);
		return;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < m->key.nelems; i++) {
		if (i)
			fputs(sep, out);
		trace_put_value(out, &m->key.elems[i], key + off, o, 4);
		off += kt_type_size(&m->key.elems[i]);
	}
}

static void put_key(FILE *out, const struct kt_map *m, const uint8_t *key, struct trace_out *o)
{
	fprintf(out, "@%s", m->name);
	if (m->key.kind == KTT_NONE)
		return;
	fputc('[', out);
	put_key_elems(out, m, key, o, ", ");
	fputc(']', out);
}

/* ---- printf ---- */

void trace_printf(FILE *out, const struct kt_site *site, struct trace_out *o, const uint8_t *rec, size_t size)
{
	const char *f = site->fmt;
	uint32_t arg = 0;
	while (*f) {
		if (*f != '%') {
			fputc(*f++, out);
			continue;
		}
		if (f[1] == '%') {
			fputc('%', out);
			f += 2;
			continue;
		}
		/* %[flags][width][.prec][length]conv, rebuilt for the C library with the right length */
		char spec[32];
		struct trace_conv c;
		trace_fmt_spec(&f, spec, &c);
		size_t k = c.k;
		int longs = c.longs, shorts = c.shorts;
		char conv = c.conv;
		if (!conv)
			break;
		if (arg >= site->nargs) {   /* sema checks counts in bpftrace; be safe */
			fputs("?", out);
			continue;
		}
		const struct kt_arg *a = &site->args[arg++];
		if (a->offset + kt_type_size(&a->type) > size)
			break;
		const uint8_t *p = rec + a->offset;
		if (conv == 's' && kt_is_stack(&a->type)) {
			trace_put_value(out, &a->type, p, o, 8);
		} else if (conv == 's') {   /* the value's text, then the width and precision */
			char *tmp = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&tmp, &len);
			if (m) {
				if (a->type.kind == KTT_INT)
					fprintf(m, "%" PRId64, rd64(p));
				else
					trace_put_value(m, &a->type, p, o, 8);
				fclose(m);
			}
			spec[k++] = 's';
			spec[k] = 0;
			tmp = trace_for_terminal(o, tmp);
			fprintf(out, spec, tmp ? tmp : "");
			free(tmp);
		} else if (strchr("diuxXoc", conv)) {
			if (a->type.kind == KTT_STR) {
				trace_put_value(out, &a->type, p, o, 8);
				continue;
			}
			/* bpftrace hands the C library its 64-bit value with the script's own length:
			 * %d reads the low 32 bits as an int, %hd as a short, %ld all of them (a
			 * uretprobe's int -1 is 0xffffffff in the register and prints as -1) */
			int64_t v = rd64(p);
			bool sign = conv == 'd' || conv == 'i';
			if (!longs && shorts >= 2)
				v = sign ? (int64_t)(signed char)v : (int64_t)(unsigned char)v;
			else if (!longs && shorts == 1)
				v = sign ? (int64_t)(short)v : (int64_t)(unsigned short)v;
			else if (!longs)
				v = sign ? (int64_t)(int)v : (int64_t)(unsigned int)v;
			if (conv == 'c') {
				spec[k++] = 'c';
				spec[k] = 0;
				fprintf(out, spec, (int)(char)v);
			} else {
				spec[k++] = 'l';
				spec[k++] = 'l';
				spec[k++] = conv;
				spec[k] = 0;
				fprintf(out, spec, (long long)v);
			}
		} else if (conv == 'r' && a->type.kind == KTT_BUF) {   /* %r, %rx, %rh */
			char how = *f == 'x' || *f == 'h' ? *f++ : 'r';
			trace_put_buf(out, &a->type, p, how);
		} else if (conv == 'p') {
			fprintf(out, "0x%" PRIx64, (uint64_t)rd64(p));
		} else {
			fputc('%', out);
			fputc(conv, out);
		}
	}
}

/* ---- maps ---- */

struct entry {
	uint8_t *key;
	uint8_t *value;
	int64_t sort;               /* what bpftrace sorts by */
	uint64_t *buckets;          /* hist/lhist: counts by bucket */
	uint32_t nbuckets;
};

struct collect {
	const struct kt_map *m;
	struct entry *e;
	size_t n, cap;
	uint32_t ksize, vsize;
	int err;
};

static int collect_one(const void *key, const void *value, void *arg)
{
	struct collect *c = arg;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct entry *e = realloc(c->e, cap * sizeof(*e));
		if (!e)
			return c->err = -ENOMEM;
		c->e = e;
		c->cap = cap;
	}
	struct entry *e = &c->e[c->n];
	*e = (struct entry){ 0 };
	if (!(e->key = malloc(c->ksize)) || !(e->value = malloc(c->vsize))) {
		free(e->key);
		return c->err = -ENOMEM;
	}
	memcpy(e->key, key, c->ksize);
	memcpy(e->value, value, c->vsize);
	c->n++;
	return 0;
}

/* ---- -f json: bpftrace's JSON lines ---- */

void trace_json_message(FILE *out, const char *type, const char *text, size_t n)
{
	fprintf(out, "{\"type\": \"%s\", \"data\": ", type);
	trace_json_str(out, text, n);
	fputs("}\n", out);
}

/* A key as bpftrace writes it in JSON: its elements as text joined by ",", quoted. */
static void json_key(FILE *out, const struct kt_map *m, const uint8_t *key, struct trace_out *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	put_key_elems(f, m, key, o, ",");
	fclose(f);
	trace_json_str(out, buf, len);
	fputs(": ", out);
	free(buf);
}

/* By key, element by element: integers as unsigned (as bpftrace compares them), strings by
 * strncmp. */
static int key_cmp(const uint8_t *a, const uint8_t *b, const struct kt_type *t)
{
	if (t->kind == KTT_TUPLE) {
		uint32_t off = 0;
		for (uint32_t i = 0; i < t->nelems; i++) {
			int r = key_cmp(a + off, b + off, &t->elems[i]);
			if (r)
				return r;
			off += kt_type_size(&t->elems[i]);
		}
		return 0;
	}
	if (t->kind == KTT_STR)
		return strncmp((const char *)a, (const char *)b, t->size);
	if (kt_is_bytes(t))   /* ntop(), buf(), macaddr() */
		return memcmp(a, b, t->size);
	if (t->kind == KTT_NONE)
		return 0;
	uint64_t x = (uint64_t)rd64(a), y = (uint64_t)rd64(b);
	return (x > y) - (x < y);
}

/* qsort_r's comparator; arg is the map. */
static int by_sort(const void *pa, const void *pb, void *arg)
{
	const struct entry *a = pa, *b = pb;
	const struct kt_map *m = arg;
	/* bpftrace sorts by value only maps of integers: strings, tuples, stacks, symbols
	 * and timestamps by key */
	if (m->kind == KM_STR || m->kind == KM_TUPLE || kt_is_symbolic(&m->value))
		return key_cmp(a->key, b->key, &m->key);
	bool sg = m->kind != KM_COUNT && !(m->kind == KM_INT && !m->value.is_signed);
	int r = sg ? (a->sort > b->sort) - (a->sort < b->sort)
		   : ((uint64_t)a->sort > (uint64_t)b->sort) - ((uint64_t)a->sort < (uint64_t)b->sort);
	/* ties (bpftrace leaves them in hash order) by key, so output is reproducible */
	return r ? r : key_cmp(a->key, b->key, &m->key);
}

static struct cli_hist hist_of(const struct kt_map *m)
{
	return (struct cli_hist){ .linear = m->kind == KM_LHIST, .lo = m->lmin, .hi = m->lmax, .step = m->lstep };
}

/* One map as one JSON line: {"type": "map"|"hist"|"stats", "data": {"@name": VALUE or
 * {"key": VALUE, ...}}}; nothing for an empty map, as bpftrace. */
static void json_map(FILE *out, const struct kt_map *m, const struct entry *e, size_t from, size_t n, int64_t dv,
		     struct trace_out *o)
{
	if (from >= n)
		return;
	struct cli_hist hist = hist_of(m);
	const char *type = m->kind == KM_HIST || m->kind == KM_LHIST ? "hist"
			   : m->kind == KM_AVG || m->kind == KM_STATS ? "stats" : "map";
	fprintf(out, "{\"type\": \"%s\", \"data\": {", type);
	char name[256];
	int nl = snprintf(name, sizeof(name), "@%s", m->name);
	trace_json_str(out, name, nl < (int)sizeof(name) ? (size_t)nl : sizeof(name) - 1);
	fputs(m->key.kind == KTT_NONE ? ": " : ": {", out);
	for (size_t i = from; i < n; i++) {
		if (i > from)
			fputs(", ", out);
		if (m->key.kind != KTT_NONE)
			json_key(out, m, e[i].key, o);
		switch (m->kind) {
		case KM_HIST: case KM_LHIST:
			cli_hist_json(out, &hist, e[i].buckets, e[i].nbuckets, (uint64_t)dv);
			break;
		case KM_STR:
			if (m->value.kind == KTT_STR)
				trace_json_str(out, (const char *)e[i].value, strnlen((const char *)e[i].value, m->value_size));
			else   /* ntop(), buf(), macaddr(): their text; pton()'s bytes: an array */
				trace_put_json_value(out, &m->value, e[i].value, o);
			break;
		case KM_TUPLE:
			trace_put_json_value(out, &m->value, e[i].value, o);
			break;
		case KM_STATS:
			fprintf(out, "{\"count\": %" PRId64 ", \"average\": %" PRId64 ", \"total\": %" PRId64 "}",
				rd64(e[i].value), e[i].sort, rd64(e[i].value + 8));
			break;
		case KM_AVG:
			fprintf(out, "%" PRId64, e[i].sort / dv);
			break;
		case KM_COUNT:
			fprintf(out, "%" PRIu64, (uint64_t)rd64(e[i].value) / (uint64_t)dv);
			break;
		default:
			if (kt_is_symbolic(&m->value))
				trace_put_json_value(out, &m->value, e[i].value, o);
			else if (m->kind == KM_INT && !m->value.is_signed) {
				fprintf(out, "%" PRIu64, (uint64_t)rd64(e[i].value) / (uint64_t)dv);
			} else {
				fprintf(out, "%" PRId64, rd64(e[i].value) / dv);
			}
		}
	}
	fputs(m->key.kind == KTT_NONE ? "}}\n" : "}}}\n", out);
}

/* hist/lhist entries keyed by (user key, bucket) grouped into one entry per user key. */
static int group_buckets(struct collect *c)
{
	uint32_t uk = c->ksize - 8;
	uint32_t nb = c->m->kind == KM_HIST ? 66 : (uint32_t)((c->m->lmax - c->m->lmin) / c->m->lstep) + 2;
	size_t out = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t j = 0;
		while (j < out && memcmp(c->e[j].key, c->e[i].key, uk))
			j++;
		const struct entry *src = &c->e[i];
		if (j == out) {   /* a new user key: its entry moves to the front part */
			struct entry t = c->e[j];
			c->e[j] = c->e[i];
			c->e[i] = t;
			if (!(c->e[j].buckets = calloc(nb, sizeof(uint64_t))))
				return -ENOMEM;
			c->e[j].nbuckets = nb;
			src = &c->e[j];
			out++;
		}
		uint64_t b = (uint64_t)rd64(src->key + uk), v = (uint64_t)rd64(src->value);
		if (b < nb)
			c->e[j].buckets[b] += v;
		c->e[j].sort += (int64_t)v;
	}
	for (size_t i = out; i < c->n; i++) {
		free(c->e[i].key);
		free(c->e[i].value);
		free(c->e[i].buckets);
	}
	c->n = out;
	return 0;
}

int trace_print_map(FILE *out, struct trace_out *o, uint32_t index, struct kiln_map *km, uint32_t top,
		    uint32_t div)
{
	const struct kt_map *m = &o->s->maps[index];
	bool json = o->json;
	struct cli_hist hist = hist_of(m);
	struct collect c = { .m = m, .ksize = m->key_size, .vsize = m->value_size };
	struct kiln_map_dump_opts dump = { .sz = sizeof(dump) };
	int err = kiln_map_dump(km, collect_one, &c, &dump, NULL);
	if (!err && c.err)
		err = c.err;
	if (!err && (m->kind == KM_HIST || m->kind == KM_LHIST))
		err = group_buckets(&c);
	for (size_t i = 0; !err && i < c.n; i++) {
		struct entry *e = &c.e[i];
		if (m->kind == KM_AVG || m->kind == KM_STATS) {
			int64_t n = rd64(e->value), total = rd64(e->value + 8);
			e->sort = n ? total / n : 0;
		} else if (m->kind != KM_HIST && m->kind != KM_LHIST && m->kind != KM_STR &&
			   m->kind != KM_TUPLE) {
			e->sort = rd64(e->value);
		}
	}
	if (!err) {
		if (c.n > 1)   /* an empty map has no array: qsort takes no NULL */
			qsort_r(c.e, c.n, sizeof(*c.e), by_sort, (void *)m);
		int64_t dv = div ? (int64_t)div : 1;
		if (json)
			json_map(out, m, c.e, top && c.n > top ? c.n - top : 0, c.n, dv, o);
		for (size_t i = top && c.n > top ? c.n - top : 0; !json && i < c.n; i++) {
			struct entry *e = &c.e[i];
			put_key(out, m, e->key, o);
			fputs(": ", out);
			switch (m->kind) {
			case KM_HIST: case KM_LHIST:
				fputc('\n', out);
				cli_hist_print(out, &hist, e->buckets, e->nbuckets, (uint64_t)dv);
				break;
			case KM_STR: case KM_TUPLE:   /* strings, usym, tuples */
				trace_put_value(out, &m->value, e->value, o, 8);
				break;
			case KM_COUNT:
				fprintf(out, "%" PRIu64, (uint64_t)rd64(e->value) / (uint64_t)dv);
				break;
			case KM_INT:
				if (kt_is_symbolic(&m->value))   /* a stack as a value: indented 8, as in printf */
					trace_put_value(out, &m->value, e->value, o, 8);
				else if (m->value.is_signed)
					fprintf(out, "%" PRId64, rd64(e->value) / dv);
				else
					fprintf(out, "%" PRIu64, (uint64_t)rd64(e->value) / (uint64_t)dv);
				break;
			case KM_AVG:
				fprintf(out, "%" PRId64, e->sort / dv);
				break;
			case KM_STATS:
				fprintf(out, "count %" PRId64 ", average %" PRId64 ", total %" PRId64, rd64(e->value), e->sort,
					rd64(e->value + 8));
				break;
			default:
				fprintf(out, "%" PRId64, rd64(e->value) / dv);
			}
			/* bpftrace joins the entries with a newline: after a histogram's own last
			 * line, that is a blank line between two keys' histograms */
			/* no delimiter after a stack (it ends in its newline) or a ksym: bpftrace's */
			if (i + 1 < c.n && !trace_value_joined(&m->value))
				fputc('\n', out);
		}
		if (!json)
			fputc('\n', out);
		if (!json && (m->kind == KM_AVG || m->kind == KM_STATS))
			fputc('\n', out);
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.e[i].key);
		free(c.e[i].value);
		free(c.e[i].buckets);
	}
	free(c.e);
	return err;
}

int trace_clear_map(struct kiln_map *km, bool zero)
{
	const struct kiln_map_info *info = kiln_map_info(km);
	struct collect c = { .ksize = info->key_size, .vsize = info->value_size };
	struct kiln_map_dump_opts o = { .sz = sizeof(o) };
	int err = kiln_map_dump(km, collect_one, &c, &o, NULL);
	if (!err)
		err = c.err;
	uint8_t *zeros = calloc(1, info->value_size);
	for (size_t i = 0; !err && i < c.n; i++) {
		int r = zero ? bpf_map_update_elem(kiln_map_fd(km), c.e[i].key, zeros, BPF_EXIST)
			     : bpf_map_delete_elem(kiln_map_fd(km), c.e[i].key);
		if (r && errno != ENOENT)
			err = -errno;
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.e[i].key);
		free(c.e[i].value);
	}
	free(c.e);
	free(zeros);
	return err;
}
