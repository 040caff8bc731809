/* hist.c — histograms drawn as bpftrace 0.17 draws hist() and lhist(): one line a bucket from
 * the first non-empty to the last, a 16-column label ("[4K, 8K)"), an 8-column count and a
 * bar of up to 52 '@' scaled to the biggest bucket; or as JSON, a list of {"min","max",
 * "count"}. Shared by `kiln trace` (its hist/lhist maps) and `kiln run` (maps declared with
 * :display). Buckets are indexed as bpftrace's: log2 0 below zero, 1 for 0, 2 for 1, i for
 * [2^(i-2), 2^(i-1)); linear 0 below lo, i for [lo+(i-1)*step, lo+i*step), the last from hi. */
#include "cli.h"
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
