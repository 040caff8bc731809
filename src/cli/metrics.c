/* metrics.c — `kiln run --metrics ADDR:PORT`: the maps as Prometheus text exposition (format
 * 0.0.4), read at scrape time (metrics.h). Maps of u64 values become counters, one series a
 * key with labels from the key's BTF (an integer key is label `key`; a struct's integer fields
 * decimal, ipv4/ipv6 fields as addresses, char arrays as strings); maps declared with :display
 * become histograms. What each map is served as is worked out once, before serving, in the
 * thread that owns the object and its layouts; a scrape then reads only that plan (immutable)
 * and the maps through handles of its own: it shares no user-space state with kiln run's loop.
 * Label values are valid UTF-8 whatever the keys hold: a byte that is not (a comm any process
 * may set) is the text \xHH (lib/utf8.h). */
#include "metrics.h"
#include <kiln/value.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One map as it is served. */
struct metric {
	char *name;                       /* the object's name for it (the kernel keeps 15 chars) */
	struct kiln_map *m;               /* the plan's own handle (a dup of the object's fd) */
	bool hist;                        /* a :display map, h its kind; else a counter or gauge */
	struct cli_hist h;
	bool counter;                     /* u64 values; else a gauge */
	const struct kiln_event *key_ev;  /* a struct key's layout; NULL: an integer key */
	bool key_signed, value_signed;
	size_t key_size, value_size, stride, ncpu;
};

struct cli_metrics_plan {
	struct metric *v;
	size_t n;
};

/* metric and label names: [a-zA-Z0-9_:] (labels without ':'), not starting with a digit */
static void put_name(FILE *out, const char *s, bool label)
{
	if (label && *s >= '0' && *s <= '9')
		fputc('_', out);
	for (; *s; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			  *s == '_' || (!label && *s == ':');
		fputc(ok ? *s : '_', out);
	}
}

static void put_label_value(FILE *out, const char *s)
{
	fputc('"', out);
	cli_escape(out, s, strlen(s), KL_ESC_PROM);
	fputc('"', out);
}

/* one label of a key's field (false: the field is not one a label shows): a string as it is,
 * integers and addresses as the one value printer writes them (kiln/value.h) */
static bool field_label(FILE *out, const struct kiln_event_field *f, const void *key, size_t key_size, bool first)
{
	char buf[256];
	switch (f->kind) {
	case KILN_FIELD_CHARS:
		kiln_event_field_str(f, key, buf, sizeof(buf));
		break;
	case KILN_FIELD_IPV4:
	case KILN_FIELD_IPV6:
	case KILN_FIELD_INT:
	case KILN_FIELD_KSTACK:
	case KILN_FIELD_USTACK:
		if (kiln_value_format_field(f, key, key_size, false, buf, sizeof(buf)) < 0)
			return false;
		break;
	default:
		return false;
	}
	fputs(first ? "" : ",", out);
	put_name(out, f->name, true);
	fputc('=', out);
	put_label_value(out, buf);
	return true;
}

struct series {
	FILE *out;
	const struct metric *mt;
};

/* An integer of n (1..8) bytes at p, sign-extended when signed. */
static uint64_t int_at(const uint8_t *p, size_t n, bool sign)
{
	uint64_t v = 0;
	memcpy(&v, p, n);
	if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return v;
}

static int put_series(const void *key, const void *value, void *arg)
{
	const struct metric *mt = ((struct series *)arg)->mt;
	FILE *out = ((struct series *)arg)->out;
	uint64_t sum = 0;
	for (size_t c = 0; c < mt->ncpu; c++)
		sum += int_at((const uint8_t *)value + c * mt->stride, mt->value_size, mt->value_signed);
	fputs("kiln_", out);
	put_name(out, mt->name, false);
	fputc('{', out);
	if (mt->key_ev) {
		bool first = true;
		for (size_t i = 0; i < kiln_event_field_count(mt->key_ev); i++) {
			const struct kiln_event_field *f = kiln_event_field(mt->key_ev, i);
			if (!f->is_padding && field_label(out, f, key, mt->key_size, first))
				first = false;
		}
	} else {
		uint64_t k = int_at(key, mt->key_size, mt->key_signed);
		if (mt->key_signed)
			fprintf(out, "key=\"%lld\"", (long long)k);
		else
			fprintf(out, "key=\"%llu\"", (unsigned long long)k);
	}
	if (mt->value_signed)
		fprintf(out, "} %lld\n", (long long)sum);
	else
		fprintf(out, "} %llu\n", (unsigned long long)sum);
	return 0;
}

static void put_header(FILE *out, const struct metric *mt, const char *type, const char *help)
{
	fputs("# HELP kiln_", out);
	put_name(out, mt->name, false);
	fprintf(out, " %s ", help);
	put_name(out, mt->name, false);
	fputs("\n# TYPE kiln_", out);
	put_name(out, mt->name, false);
	fprintf(out, " %s\n", type);
}

/* a map of integer values keyed by an integer (of up to 8 bytes) or a named struct: u64 values
 * (counts, as kiln's incf makes them) as a counter, signed or narrower ones as a gauge; false
 * when it is not one */
static bool counter_of(struct kiln_object *obj, struct kiln_events *evs, struct kiln_map *m, struct metric *mt)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	struct btf *btf = bpf_object__btf(kiln_object_libbpf(obj));
	int kid = btf && info->btf_key_type_id ? btf__resolve_type(btf, info->btf_key_type_id) : -1;
	const struct btf_type *kt = kid > 0 ? btf__type_by_id(btf, (uint32_t)kid) : NULL;
	int vid = btf && info->btf_value_type_id ? btf__resolve_type(btf, info->btf_value_type_id) : -1;
	const struct btf_type *vt = vid > 0 ? btf__type_by_id(btf, (uint32_t)vid) : NULL;
	size_t vs = info->value_size;
	if (!kt || (vs != 1 && vs != 2 && vs != 4 && vs != 8) || (vt ? !btf_is_int(vt) : vs != 8))
		return false;
	mt->key_size = info->key_size;
	mt->value_size = vs;
	mt->value_signed = vt && (btf_int_encoding(vt) & BTF_INT_SIGNED);
	mt->counter = vs == 8 && !mt->value_signed;
	if (btf_is_int(kt) && info->key_size <= 8) {
		mt->key_signed = btf_int_encoding(kt) & BTF_INT_SIGNED;
		return true;
	}
	if (!btf_is_composite(kt) || !kt->name_off || !evs)
		return false;
	mt->key_ev = kiln_events_find(evs, btf__name_by_offset(btf, kt->name_off));
	return mt->key_ev && kiln_event_size(mt->key_ev) == info->key_size;
}

/* its series, read now */
static int put_counter(FILE *out, const struct metric *mt)
{
	put_header(out, mt, mt->counter ? "counter" : "gauge", mt->counter ? "u64 values of map" : "integer values of map");
	struct series s = { out, mt };
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
	int err = kiln_map_dump(mt->m, put_series, &s, &o, NULL);
	return err < 0 ? err : 0;
}

/* The upper bound (inclusive: the keys are integers) and lower bound of bucket i, in hist.c's
 * numbering; false for the last bucket (linear: from HI on; log2: 2^63 on), whose bound is +Inf. */
static bool bucket_bounds(const struct cli_hist *h, uint32_t i, uint32_t count, long long *le, double *lower)
{
	if (h->linear) {
		*le = i == 0 ? h->lo - 1 : h->lo + (int64_t)i * h->step - 1;
		*lower = i == 0 ? (double)*le : (double)(h->lo + (int64_t)(i - 1) * h->step);
		if (i + 1 == count)
			*lower = (double)h->hi;
	} else {
		/* the last bucket's bound, 2^64 - 1, is +Inf: no shift by 64 */
		*le = i <= 2 ? (long long)i - 1 : i - 1 < 64 ? (long long)((1ull << (i - 1)) - 1) : LLONG_MAX;
		*lower = i <= 2 ? (double)i - 1 : i - 2 < 64 ? (double)(1ull << (i - 2)) : 0x1p64;
		if (i == 2 && h->zero_in_one)
			*lower = 0;
	}
	return i + 1 < count;
}

/* a map declared with :display as a histogram: cumulative le buckets, _sum from the buckets'
 * lower bounds (the values themselves are not kept), _count */
static int put_histogram(FILE *out, const struct metric *mt)
{
	uint64_t *n;
	uint32_t count;
	int err = cli_hist_read(mt->m, &mt->h, &n, &count);
	if (err)
		return err;
	put_header(out, mt, "histogram", "buckets (sum approximate: from bucket lower bounds) of map");
	/* log2: negative keys and bucket 1 (unused: kiln's log2 of 0 is bucket 2) go with [0, 1] */
	uint32_t first = mt->h.linear ? 0 : 2;
	uint64_t cum = 0;
	double sum = 0;
	for (uint32_t i = 0; i < count; i++) {
		long long le;
		double lower;
		bool bounded = bucket_bounds(&mt->h, i, count, &le, &lower);
		cum += n[i];
		sum += (double)n[i] * lower;
		if (i < first || !bounded)
			continue;
		fputs("kiln_", out);
		put_name(out, mt->name, false);
		fprintf(out, "_bucket{le=\"%lld\"} %llu\n", le, (unsigned long long)cum);
	}
	const char *suffix[] = { "_bucket{le=\"+Inf\"}", "_sum", "_count" };
	for (int k = 0; k < 3; k++) {
		fputs("kiln_", out);
		put_name(out, mt->name, false);
		if (k == 1)
			fprintf(out, "%s %.17g\n", suffix[k], sum);
		else
			fprintf(out, "%s %llu\n", suffix[k], (unsigned long long)cum);
	}
	free(n);
	return 0;
}

struct cli_metrics_plan *cli_metrics_plan(struct kiln_object *obj, struct kiln_events *evs,
					  bool (*skip)(struct kiln_map *, void *), void *arg)
{
	struct cli_metrics_plan *p = calloc(1, sizeof(*p));
	size_t nmaps = kiln_object_map_count(obj);
	if (!p || !(p->v = calloc(nmaps ? nmaps : 1, sizeof(*p->v)))) {
		free(p);
		fprintf(stderr, "kiln run: --metrics: out of memory\n");
		return NULL;
	}
	for (size_t i = 0; i < nmaps; i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		struct metric mt = { 0 };
		if (skip(m, arg))
			continue;
		mt.hist = cli_hist_of_map(obj, m, &mt.h);
		if (!mt.hist && !counter_of(obj, evs, m, &mt))
			continue;
		if (kiln_map_open_fd(kiln_map_fd(m), &mt.m) || !(mt.name = strdup(kiln_map_name(m)))) {
			fprintf(stderr, "kiln run: --metrics: %s\n", mt.m ? "out of memory" : kiln_errmsg());
			kiln_map_close(mt.m);
			cli_metrics_plan_free(p);
			return NULL;
		}
		mt.stride = kiln_map_value_stride(mt.m);
		mt.ncpu = kiln_map_is_percpu(mt.m) ? kiln_map_value_buf_size(mt.m) / mt.stride : 1;
		p->v[p->n++] = mt;
	}
	return p;
}

void cli_metrics_plan_free(struct cli_metrics_plan *p)
{
	for (size_t i = 0; p && i < p->n; i++) {
		kiln_map_close(p->v[i].m);
		free(p->v[i].name);
	}
	if (p)
		free(p->v);
	free(p);
}

int cli_metrics_write(FILE *out, struct cli_metrics_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct metric *mt = &p->v[i];
		int err = mt->hist ? put_histogram(out, mt) : put_counter(out, mt);
		if (err)
			return err;
	}
	return 0;
}
