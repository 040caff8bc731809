/* hist.c — histograms drawn as bpftrace 0.17 draws hist() and lhist(): one line a bucket from
 * the first non-empty to the last, a 16-column label ("[4K, 8K)"), an 8-column count and a
 * bar of up to 52 '@' scaled to the biggest bucket; or as JSON, a list of {"min","max",
 * "count"}. Shared by `kiln trace` (its hist/lhist maps) and `kiln run` (maps declared with
 * :display). Buckets are indexed as bpftrace's: log2 0 below zero, 1 for 0, 2 for 1, i for
 * [2^(i-2), 2^(i-1)); linear 0 below lo, i for [lo+(i-1)*step, lo+i*step), the last from hi. */
#include "cli.h"
#include <errno.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

static void log2_label(char *buf, size_t n, int power)
{
	static const char suffix[] = " KMGT";
	int s = 0;
	while (power >= 10 && s < 4) {
		power -= 10;
		s++;
	}
	snprintf(buf, n, "%llu%.*s", 1ull << power, s ? 1 : 0, s ? suffix + s : "");
}

static void linear_label(char *buf, size_t n, int64_t v)
{
	if (v != 0 && v % 1048576 == 0)
		snprintf(buf, n, "%lldM", (long long)(v / 1048576));
	else if (v != 0 && v % 1024 == 0)
		snprintf(buf, n, "%lldK", (long long)(v / 1024));
	else
		snprintf(buf, n, "%lld", (long long)v);
}

static int64_t linear_buckets(const struct cli_hist *h)
{
	return (h->hi - h->lo) / h->step;
}

static void bucket_label(char *label, size_t n, const struct cli_hist *h, int i)
{
	char a[24], b[24];
	if (h->linear) {
		int64_t nb = linear_buckets(h);
		if (i == 0) {
			linear_label(a, sizeof(a), h->lo);
			snprintf(label, n, "(..., %s)", a);
		} else if (i == nb + 1) {
			linear_label(a, sizeof(a), h->hi);
			snprintf(label, n, "[%s, ...)", a);
		} else {
			linear_label(a, sizeof(a), (i - 1) * h->step + h->lo);
			linear_label(b, sizeof(b), i * h->step + h->lo);
			snprintf(label, n, "[%s, %s)", a, b);
		}
	} else if (i == 0) {
		snprintf(label, n, "(..., 0)");
	} else if (i == 2 && h->zero_in_one) {
		snprintf(label, n, "[0, 2)");
	} else if (i == 1 || i == 2) {
		snprintf(label, n, "[%d]", i - 1);
	} else {
		log2_label(a, sizeof(a), i - 2);
		log2_label(b, sizeof(b), i - 1);
		snprintf(label, n, "[%s, %s)", a, b);
	}
}

/* the first and last non-empty buckets (-1, -1 when all are) and the biggest count */
static uint64_t extent(const uint64_t *bk, uint32_t n, int *lo, int *hi)
{
	uint64_t max = 0;
	*lo = *hi = -1;
	for (uint32_t i = 0; i < n; i++) {
		if (bk[i] > max)
			max = bk[i];
		if (bk[i]) {
			if (*lo < 0)
				*lo = (int)i;
			*hi = (int)i;
		}
	}
	return max;
}

void cli_hist_print(FILE *out, const struct cli_hist *h, const uint64_t *bk, uint32_t n, uint64_t div)
{
	int lo, hi;
	uint64_t max = extent(bk, n, &lo, &hi);
	for (int i = lo; lo >= 0 && i <= hi; i++) {
		char label[64], bar[53];
		bucket_label(label, sizeof(label), h, i);
		int width = max ? (int)((float)bk[i] / (float)max * 52) : 0;
		memset(bar, '@', (size_t)width);
		bar[width] = 0;
		/* bpftrace divides hist counts by print()'s div, not lhist's */
		fprintf(out, "%-16s%8" PRIu64 " |%-52s|\n", label, bk[i] / (h->linear ? 1 : div), bar);
	}
}

void cli_hist_json(FILE *out, const struct cli_hist *h, const uint64_t *bk, uint32_t n, uint64_t div)
{
	int lo, hi;
	extent(bk, n, &lo, &hi);
	int64_t nb = h->linear ? linear_buckets(h) : 0;
	fputc('[', out);
	for (int i = lo; lo >= 0 && i <= hi; i++) {
		fputs(i > lo ? ", {" : "{", out);
		if (!h->linear) {
			if (i == 0)
				fputs("\"max\": -1, ", out);
			else if (i == 2 && h->zero_in_one)
				fputs("\"min\": 0, \"max\": 1, ", out);
			else if (i <= 2)
				fprintf(out, "\"min\": %d, \"max\": %d, ", i - 1, i - 1);
			else
				fprintf(out, "\"min\": %llu, \"max\": %llu, ", 1ull << (i - 2), (1ull << (i - 1)) - 1);
		} else if (i == 0) {
			fprintf(out, "\"max\": %" PRId64 ", ", h->lo - 1);
		} else if (i == nb + 1) {
			fprintf(out, "\"min\": %" PRId64 ", ", h->hi);
		} else {
			fprintf(out, "\"min\": %" PRId64 ", \"max\": %" PRId64 ", ", (i - 1) * h->step + h->lo,
				i * h->step + h->lo - 1);
		}
		fprintf(out, "\"count\": %" PRIu64 "}", bk[i] / (h->linear ? 1 : div));
	}
	fputc(']', out);
}

/* ---- maps declared with :display ---- */

/* The map's BTF decl tag kiln.display:log2-hist or kiln.display:linear-hist:LO:HI:STEP. */
static bool display_of(const struct btf *btf, const char *map, struct cli_hist *h)
{
	for (uint32_t id = 1; btf && id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *tag = btf_is_decl_tag(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (!tag || strncmp(tag, "kiln.display:", 13))
			continue;
		const struct btf_type *var = btf__type_by_id(btf, t->type);
		const char *name = var && btf_is_var(var) ? btf__name_by_offset(btf, var->name_off) : NULL;
		if (!name || strcmp(name, map))
			continue;
		long long lo, hi, step;
		*h = (struct cli_hist){ .zero_in_one = true };
		if (!strcmp(tag + 13, "log2-hist"))
			return true;
		if (sscanf(tag + 13, "linear-hist:%lld:%lld:%lld", &lo, &hi, &step) == 3 && step > 0 && hi > lo) {
			*h = (struct cli_hist){ .linear = true, .lo = lo, .hi = hi, .step = step };
			return true;
		}
	}
	return false;
}

struct buckets {
	const struct cli_hist *h;
	uint64_t *n;
	uint32_t count;
	size_t key_size, stride, ncpu;
};

/* kiln's buckets into bpftrace's numbering: (log2 x) k is bucket k + 2; linear k is k + 1,
 * those from HI on the last */
static int add_bucket(const void *key, const void *value, void *arg)
{
	struct buckets *b = arg;
	uint64_t k = 0;
	memcpy(&k, key, b->key_size < 8 ? b->key_size : 8);
	if (b->h->key_signed && b->key_size < 8 && (k >> (8 * b->key_size - 1)) & 1)
		k |= ~(uint64_t)0 << (8 * b->key_size);
	int64_t sk = (int64_t)k;
	uint32_t i = sk < 0 ? 0 : b->h->linear ? (sk + 1 < (int64_t)b->count - 1 ? (uint32_t)sk + 1 : b->count - 1)
				 : (sk + 2 < (int64_t)b->count ? (uint32_t)sk + 2 : b->count - 1);
	for (size_t c = 0; c < b->ncpu; c++) {
		uint64_t v;
		memcpy(&v, (const uint8_t *)value + c * b->stride, 8);
		b->n[i] += v;
	}
	return 0;
}

bool cli_hist_of_map(struct kiln_object *obj, struct kiln_map *m, struct cli_hist *h)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	const struct btf *btf = bpf_object__btf(kiln_object_libbpf(obj));
	if (!display_of(btf, kiln_map_name(m), h) || info->value_size != 8 || !info->key_size || info->key_size > 8)
		return false;
	const struct btf_type *kt = btf ? btf__type_by_id(btf, info->btf_key_type_id) : NULL;
	int kid = kt ? btf__resolve_type(btf, info->btf_key_type_id) : -1;
	kt = kid > 0 ? btf__type_by_id(btf, (uint32_t)kid) : NULL;
	h->key_signed = kt && btf_is_int(kt) && (btf_int_encoding(kt) & BTF_INT_SIGNED);
	return true;
}

int cli_hist_read(struct kiln_map *m, const struct cli_hist *h, uint64_t **n, uint32_t *count)
{
	struct buckets b = { .h = h, .key_size = kiln_map_info(m)->key_size, .stride = kiln_map_value_stride(m) };
	b.ncpu = kiln_map_is_percpu(m) ? kiln_map_value_buf_size(m) / b.stride : 1;
	b.count = h->linear ? (uint32_t)((h->hi - h->lo) / h->step) + 2 : 66;
	*count = 0;
	if (!(*n = b.n = calloc(b.count, sizeof(*b.n))))
		return -ENOMEM;   /* no message: the caller says it (the CLI records none) */
	*count = b.count;
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
	int err = kiln_map_dump(m, add_bucket, &b, &o, NULL);
	if (err < 0) {
		free(b.n);
		*n = NULL;
	}
	return err < 0 ? err : 0;
}

bool cli_hist_map_buckets(struct kiln_object *obj, struct kiln_map *m, struct cli_hist *h, uint64_t **n,
			  uint32_t *count)
{
	if (!cli_hist_of_map(obj, m, h))
		return false;
	int err = cli_hist_read(m, h, n, count);
	if (err == -ENOMEM && !*count)
		fprintf(stderr, "kiln run: the buckets of %s: %s\n", kiln_map_name(m), strerror(ENOMEM));
	else if (err)
		cli_fail("run");
	return true;
}
