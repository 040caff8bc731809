/* metrics.c — `kiln run --metrics ADDR:PORT`: the maps as Prometheus text exposition (format
 * 0.0.4), read at scrape time, served by a minimal HTTP/1.0 responder on a non-blocking
 * listening socket that kiln run polls with its reader. Maps of u64 values become counters, one
 * series a key with labels from the key's BTF (an integer key is label `key`; a struct's
 * integer fields decimal, ipv4/ipv6 fields as addresses, char arrays as strings); maps declared
 * with :display become histograms. */
#define _GNU_SOURCE   /* accept4 */
#include "cli.h"
#include <arpa/inet.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* ADDR:PORT ([V6]:PORT, or :PORT for every address) bound and listening, non-blocking. The
 * socket, or -1 after printing why. */
int cli_metrics_listen(const char *spec)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	size_t hl = colon ? (size_t)(colon - spec) : 0;
	if (!colon || !colon[1] || hl >= sizeof(host)) {
		fprintf(stderr, "kiln run: --metrics '%s' is not ADDR:PORT\n", spec);
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = 0;
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = 0;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int err = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai);
	if (err) {
		fprintf(stderr, "kiln run: --metrics '%s': %s\n", spec, gai_strerror(err));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		fprintf(stderr, "kiln run: --metrics %s: cannot listen: %s\n", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

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
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* one label of a key's field (false: the field is not one a label shows) */
static bool field_label(FILE *out, const struct kiln_event_field *f, const void *key, bool first)
{
	char buf[256];
	uint64_t u;
	int64_t i;
	switch (f->kind) {
	case KILN_FIELD_CHARS:
		kiln_event_field_str(f, key, buf, sizeof(buf));
		break;
	case KILN_FIELD_IPV4:
	case KILN_FIELD_IPV6:
		if (!inet_ntop(f->kind == KILN_FIELD_IPV4 ? AF_INET : AF_INET6, (const uint8_t *)key + f->offset, buf,
			       sizeof(buf)))
			return false;
		break;
	case KILN_FIELD_INT:
	case KILN_FIELD_KSTACK:
	case KILN_FIELD_USTACK:
		if (f->is_signed && !kiln_event_field_i64(f, key, &i))
			snprintf(buf, sizeof(buf), "%lld", (long long)i);
		else if (!kiln_event_field_u64(f, key, &u))
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
		else
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
	struct kiln_map *m;
	const struct kiln_event *key_ev;  /* a struct key's layout; NULL: an integer key */
	bool key_signed, value_signed;
	size_t key_size, value_size, stride, ncpu;
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
	struct series *s = arg;
	uint64_t sum = 0;
	for (size_t c = 0; c < s->ncpu; c++)
		sum += int_at((const uint8_t *)value + c * s->stride, s->value_size, s->value_signed);
	fputs("kiln_", s->out);
	put_name(s->out, kiln_map_name(s->m), false);
	fputc('{', s->out);
	if (s->key_ev) {
		bool first = true;
		for (size_t i = 0; i < kiln_event_field_count(s->key_ev); i++) {
			const struct kiln_event_field *f = kiln_event_field(s->key_ev, i);
			if (!f->is_padding && field_label(s->out, f, key, first))
				first = false;
		}
	} else {
		uint64_t k = 0;
		memcpy(&k, key, s->key_size);
		if (s->key_signed && s->key_size < 8 && (k >> (8 * s->key_size - 1)) & 1)
			k |= ~(uint64_t)0 << (8 * s->key_size);
		if (s->key_signed)
			fprintf(s->out, "key=\"%lld\"", (long long)k);
		else
			fprintf(s->out, "key=\"%llu\"", (unsigned long long)k);
	}
	if (s->value_signed)
		fprintf(s->out, "} %lld\n", (long long)sum);
	else
		fprintf(s->out, "} %llu\n", (unsigned long long)sum);
	return 0;
}

static void put_header(FILE *out, struct kiln_map *m, const char *type, const char *help)
{
	fputs("# HELP kiln_", out);
	put_name(out, kiln_map_name(m), false);
	fprintf(out, " %s %s\n# TYPE kiln_", help, kiln_map_name(m));
	put_name(out, kiln_map_name(m), false);
	fprintf(out, " %s\n", type);
}

/* a map of integer values keyed by an integer (of up to 8 bytes) or a named struct: u64 values
 * (counts, as kiln's incf makes them) as a counter, signed or narrower ones as a gauge; false
 * when it is not one */
static bool put_counter(FILE *out, struct kiln_object *obj, struct kiln_events *evs, struct kiln_map *m)
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
	struct series s = { .out = out, .m = m, .key_size = info->key_size, .value_size = vs,
			    .value_signed = vt && (btf_int_encoding(vt) & BTF_INT_SIGNED),
			    .stride = kiln_map_value_stride(m) };
	bool counter = vs == 8 && !s.value_signed;
	s.ncpu = kiln_map_is_percpu(m) ? kiln_map_value_buf_size(m) / s.stride : 1;
	if (btf_is_int(kt) && info->key_size <= 8) {
		s.key_signed = btf_int_encoding(kt) & BTF_INT_SIGNED;
	} else if (btf_is_composite(kt) && kt->name_off && evs) {
		s.key_ev = kiln_events_find(evs, btf__name_by_offset(btf, kt->name_off));
		if (!s.key_ev || kiln_event_size(s.key_ev) != info->key_size)
			return false;
	} else {
		return false;
	}
	put_header(out, m, counter ? "counter" : "gauge", counter ? "u64 values of map" : "integer values of map");
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
	if (kiln_map_dump(m, put_series, &s, &o, NULL) < 0)
		cli_fail("run");
	return true;
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
 * lower bounds (the values themselves are not kept), _count; false when it is not one */
static bool put_histogram(FILE *out, struct kiln_object *obj, struct kiln_map *m)
{
	struct cli_hist h;
	uint64_t *n;
	uint32_t count;
	if (!cli_hist_map_buckets(obj, m, &h, &n, &count))
		return false;
	if (!n)
		return true;
	put_header(out, m, "histogram", "buckets (sum approximate: from bucket lower bounds) of map");
	/* log2: negative keys and bucket 1 (unused: kiln's log2 of 0 is bucket 2) go with [0, 1] */
	uint32_t first = h.linear ? 0 : 2;
	uint64_t cum = 0;
	double sum = 0;
	for (uint32_t i = 0; i < count; i++) {
		long long le;
		double lower;
		bool bounded = bucket_bounds(&h, i, count, &le, &lower);
		cum += n[i];
		sum += (double)n[i] * lower;
		if (i < first || !bounded)
			continue;
		fputs("kiln_", out);
		put_name(out, kiln_map_name(m), false);
		fprintf(out, "_bucket{le=\"%lld\"} %llu\n", le, (unsigned long long)cum);
	}
	const char *suffix[] = { "_bucket{le=\"+Inf\"}", "_sum", "_count" };
	for (int k = 0; k < 3; k++) {
		fputs("kiln_", out);
		put_name(out, kiln_map_name(m), false);
		if (k == 1)
			fprintf(out, "%s %.17g\n", suffix[k], sum);
		else
			fprintf(out, "%s %llu\n", suffix[k], (unsigned long long)cum);
	}
	free(n);
	return true;
}

void cli_metrics_write(FILE *out, struct kiln_object *obj, struct kiln_events *evs, bool (*skip)(struct kiln_map *, void *),
		       void *arg)
{
	for (size_t i = 0; i < kiln_object_map_count(obj); i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		if (!skip(m, arg) && !put_histogram(out, obj, m))
			put_counter(out, obj, evs, m);
	}
}

static void respond(int fd, const char *status, const char *type, const char *body, size_t len)
{
	char head[256];
	int hn = snprintf(head, sizeof(head),
			  "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			  status, type, len);
	if (write(fd, head, (size_t)hn) != hn)
		return;
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, body + off, len - off);
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

/* Every connection waiting: its request read (up to a second; a slow client costs kiln run
 * that much at most, and a signal cuts it short), GET /metrics answered with the maps read
 * now, anything else 404 (405 for other methods). */
void cli_metrics_serve(int lfd, struct kiln_object *obj, struct kiln_events *evs,
		       bool (*skip)(struct kiln_map *, void *), void *arg)
{
	int fd;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		struct timeval tv = { 1, 0 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		char req[4096];
		size_t n = 0;
		while (n < sizeof(req) - 1) {
			ssize_t r = read(fd, req + n, sizeof(req) - 1 - n);
			if (r <= 0)
				break;
			n += (size_t)r;
			req[n] = 0;
			if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
				break;
		}
		req[n] = 0;
		const char *path = strchr(req, ' ');
		size_t plen = path ? strcspn(path + 1, " ?\r\n") : 0;
		if (strncmp(req, "GET ", 4)) {
			respond(fd, "405 Method Not Allowed", "text/plain", "GET only\n", 9);
		} else if (plen != 8 || strncmp(path + 1, "/metrics", 8)) {
			respond(fd, "404 Not Found", "text/plain", "not found: /metrics only\n", 25);
		} else {
			char *body = NULL;
			size_t len = 0;
			FILE *out = open_memstream(&body, &len);
			if (out) {
				cli_metrics_write(out, obj, evs, skip, arg);
				fclose(out);
				respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body, len);
			}
			free(body);
		}
		close(fd);
	}
}
