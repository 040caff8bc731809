/* trace_val.c — one value of kiln trace as bpftrace prints it, by its type: a table of
 * printers (strings, probe names, stacks, kernel symbols; integers by sign), used for map
 * keys and values, printf's %s and -f json alike (trace.h). A new kind of value (ntop's
 * address, a buffer, ...) is one row here. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void trace_json_str(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	cli_escape(out, s, n, KL_ESC_JSON);
	fputc('"', out);
}

static int64_t rd64(const uint8_t *p)
{
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* ---- stacks ---- */

void trace_out_free(struct trace_out *o)
{
	kiln_syms_free(o->syms);
	o->syms = NULL;
}

/* o's symbolizer, made at its first use (NULL when it cannot be). */
static struct kiln_syms *syms_of(struct trace_out *o)
{
	if (!o->syms && kiln_syms_new(&o->syms))
		o->syms = NULL;
	return o->syms;
}

/* A kstack/ustack value as bpftrace prints it: a newline, then one frame a line, each
 * indented (8 in printf and as a map's value, 4 in a key): "func+OFFSET" with the offset in
 * decimal, or the address when nothing symbolizes it. Nothing for a failed stack id. */
static void put_stack(FILE *out, struct trace_out *o, const struct kt_type *t, uint64_t v, int indent)
{
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int32_t id = (int32_t)(uint32_t)v;
	int pid = (int)(v >> 32);
	int n = id < 0 || !o->stacks ? -ENOENT : kiln_stack_read(o->stacks, (uint32_t)id, ips, t->size);
	if (n < 0)
		return;
	struct kiln_syms *syms = syms_of(o);
	fputc('\n', out);
	for (int i = 0; i < n && ips[i]; i++) {
		struct kiln_frame f = { 0 };
		int err = !syms ? -ENOENT : t->kind == KTT_KSTACK ? kiln_syms_kernel(syms, ips[i], &f)
								: kiln_syms_user(syms, pid, ips[i], &f);
		if (t->perf)   /* perf's: a tab, the address, the symbol; for ustack its file */
			fprintf(out, "\t%" PRIx64 " ", ips[i]);
		else
			fprintf(out, "%*s", indent, "");
		if (!err && f.symbol)
			fprintf(out, "%s+%" PRIu64, f.symbol, f.offset);
		else
			fprintf(out, "0x%" PRIx64, ips[i]);
		if (t->perf && t->kind == KTT_USTACK)
			fprintf(out, " (%s)", !err && f.symbol && f.module ? f.module : "[unknown]");
		fputc('\n', out);
	}
}

/* ksym(), usym() (pid > 0): the function's name alone, or the address when nothing
 * symbolizes it (written as C++ streams write a pointer: a null one is "0"). */
static void put_sym(FILE *out, struct trace_out *o, uint64_t addr, int pid)
{
	struct kiln_frame f = { 0 };
	struct kiln_syms *syms = syms_of(o);
	int err = !syms ? -ENOENT : pid > 0 ? kiln_syms_user(syms, pid, addr, &f) : kiln_syms_kernel(syms, addr, &f);
	if (!err && f.symbol)
		fputs(f.symbol, out);
	else if (!addr)
		fputc('0', out);
	else
		fprintf(out, "0x%" PRIx64, addr);
}

/* The wall time at boot into o, once: CLOCK_REALTIME - CLOCK_BOOTTIME, read between two
 * realtime reads in one second (up to 5 tries; o->have_boot says whether it was). */
static void read_boot(struct trace_out *o)
{
	struct timespec a, b, bt;
	for (int i = 0; i < 5 && !o->have_boot; i++) {
		clock_gettime(CLOCK_REALTIME, &a);
		clock_gettime(CLOCK_BOOTTIME, &bt);
		clock_gettime(CLOCK_REALTIME, &b);
		if (a.tv_sec != b.tv_sec || b.tv_nsec < a.tv_nsec)
			continue;
		long mid = (a.tv_nsec + b.tv_nsec) / 2;
		o->boot.tv_sec = b.tv_sec - bt.tv_sec - (mid < bt.tv_nsec);
		o->boot.tv_nsec = mid - bt.tv_nsec + (mid < bt.tv_nsec ? 1000000000L : 0);
		o->have_boot = true;
	}
}

/* strftime(): nanoseconds since boot on bpftrace's clock: the wall time at boot (read_boot),
 * though nsecs is CLOCK_MONOTONIC (they differ by the time suspended: bpftrace 0.17 adds them
 * so too). "%f" is the microseconds, then strftime(3) in local time; "(?)" when that fails. */
static void put_timestamp(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	if (!o->have_boot)
		read_boot(o);
	uint64_t ns = (uint64_t)rd64(p) + (uint64_t)o->boot.tv_nsec;
	time_t sec = o->boot.tv_sec + (time_t)(ns / 1000000000u);
	char fmt[256], buf[64], us[8];
	snprintf(us, sizeof(us), "%06" PRIu64, ns % 1000000000u / 1000u);
	size_t k = 0;
	for (const char *f = t->fmt ? t->fmt : ""; *f && k + 7 < sizeof(fmt); f++) {
		if (f[0] == '%' && f[1] == 'f') {
			memcpy(fmt + k, us, 6);
			k += 6;
			f++;
		} else {
			fmt[k++] = *f;
			if (f[0] == '%' && f[1])   /* "%%f" is a percent sign and an f */
				fmt[k++] = *++f;
		}
	}
	fmt[k] = 0;
	struct tm tm;
	if (!o->have_boot || !localtime_r(&sec, &tm) || !strftime(buf, sizeof(buf), fmt, &tm))
		fputs("(?)", out);
	else
		fputs(buf, out);
}

/* username: the uid's name in /etc/passwd (bpftrace reads that file, not NSS), "" when
 * it has none. */
static void put_strerror(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	fputs(strerror((int)rd64(p)), out);
}

static void put_username(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[1024];
	uint64_t uid = (uint64_t)rd64(p);
	while (f && fgets(line, sizeof(line), f)) {
		char *name = strtok(line, ":"), *pw = strtok(NULL, ":"), *id = strtok(NULL, ":");
		char *end;
		if (name && pw && id && (uint64_t)strtoull(id, &end, 10) == uid && !*end) {
			fputs(name, out);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* A string value (a comm, str(), a path): the system's bytes, which any process sets. Into a
 * pipe or a file they go as bpftrace writes them; on a terminal the control bytes that would
 * drive it (ESC, CR, BEL..., all but newline and tab) are written as \xHH. */
static void put_text(FILE *out, const uint8_t *p, size_t n, bool tty)
{
	size_t run = 0;
	for (size_t i = 0; tty && i < n; i++) {
		if ((p[i] >= 0x20 && p[i] != 0x7f) || p[i] == '\n' || p[i] == '\t')
			continue;
		fwrite(p + run, 1, i - run, out);
		fprintf(out, "\\x%02x", p[i]);
		run = i + 1;
	}
	fwrite(p + run, 1, n - run, out);
}

char *trace_for_terminal(const struct trace_out *o, char *text)
{
	if (!text || !o->terminal)
		return text;
	char *esc = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&esc, &len);
	if (!m)
		return text;
	put_text(m, (const uint8_t *)text, strlen(text), true);
	fclose(m);
	if (!esc)
		return text;
	free(text);
	return esc;
}


static void put_string(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	put_text(out, p, strnlen((const char *)p, t->size), o->terminal);
}

static void put_probe(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	uint64_t i = (uint64_t)rd64(p);
	fputs(i < o->s->ntargets ? o->s->targets[i].probe : "?", out);
}

static void put_stack_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	put_stack(out, o, t, (uint64_t)rd64(p), indent);
}

static void put_ksym_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	put_sym(out, o, (uint64_t)rd64(p), 0);
}

static void put_usym_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	int pid = (int)rd64(p + 8);
	put_sym(out, o, (uint64_t)rd64(p), pid > 0 ? pid : -1);
}

static void put_int(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	if (t->is_signed)
		fprintf(out, "%" PRId64, rd64(p));
	else
		fprintf(out, "%" PRIu64, (uint64_t)rd64(p));
}

/* ntop(): inet_ntop of the family's address (AF_INET: the first 4 of the 16 bytes). */
static void put_inet(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	char text[INET6_ADDRSTRLEN];
	int af = (int)rd64(p);
	if (inet_ntop(af == AF_INET6 ? AF_INET6 : AF_INET, p + 8, text, sizeof(text)))
		fputs(text, out);
}

/* buf(): printable ASCII as itself, every other byte as \xHH (printf's %r, keys, values). */
static void put_buf(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	trace_put_buf(out, t, p, 'r');
}

static void put_mac(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	fprintf(out, "%02X:%02X:%02X:%02X:%02X:%02X", p[0], p[1], p[2], p[3], p[4], p[5]);
}

/* pton()'s bytes, as bpftrace prints an array of integers. */
static void put_bytes(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	fputc('[', out);
	for (uint32_t i = 0; i < t->nelems && i < t->size; i++)   /* nelems: the bytes, size: their u64 slots */
		fprintf(out, "%s%u", i ? "," : "", p[i]);
	fputc(']', out);
}

/* (1, a, (2, 3)): the elements as they print alone, each at its 8-aligned offset. */
static void put_tuple(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	fputc('(', out);
	uint32_t off = 0;
	for (uint32_t i = 0; i < t->nelems; i++) {
		if (i)
			fputs(", ", out);
		trace_put_value(out, &t->elems[i], p + off, o, indent);
		off += (kt_type_size(&t->elems[i]) + 7) & ~7u;   /* the layout of kt_elem_off */
	}
	fputc(')', out);
}

typedef void (*printer)(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent);
static const struct {
	printer put;
	bool quoted;                /* a JSON string (bpftrace's is_quoted_type) */
	bool joined;                /* map entries not separated by a newline (bpftrace's, for these) */
} printers[] = {
	[KTT_INT] = { put_int, false, false }, [KTT_STR] = { put_string, true, false },
	[KTT_PROBE] = { put_probe, true, false }, [KTT_KSTACK] = { put_stack_value, true, true },
	[KTT_USTACK] = { put_stack_value, true, true }, [KTT_KSYM] = { put_ksym_value, true, true },
	[KTT_INET] = { put_inet, true, false }, [KTT_BUF] = { put_buf, true, false }, [KTT_MAC] = { put_mac, true, false },
	[KTT_BYTES] = { put_bytes, false, false }, [KTT_TUPLE] = { put_tuple, false, false },
	[KTT_USYM] = { put_usym_value, true, true }, [KTT_TIMESTAMP] = { put_timestamp, false, false },
	[KTT_USERNAME] = { put_username, true, false }, [KTT_CGROUP_PATH] = { trace_put_cgroup_path, false, false },
	[KTT_STRERROR] = { put_strerror, true, false }, [KTT_STRUCT] = { trace_put_struct, false, false },
};

static bool has_row(const struct kt_type *t)
{
	return (size_t)t->kind < sizeof(printers) / sizeof(printers[0]) && printers[t->kind].put;
}

void trace_put_buf(FILE *out, const struct kt_type *t, const uint8_t *p, char how)
{
	uint64_t n = (uint64_t)rd64(p);
	if (n > t->size - 8)
		n = t->size - 8;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t c = p[8 + i];
		if (how == 'h')
			fprintf(out, "%s%02x", i ? " " : "", c);
		else if (how == 'r' && c >= 32 && c <= 126)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

void trace_put_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	(has_row(t) ? printers[t->kind].put : put_int)(out, t, p, o, indent);
}

bool trace_value_quoted(const struct kt_type *t)
{
	return has_row(t) && printers[t->kind].quoted;
}

bool trace_value_joined(const struct kt_type *t)
{
	return has_row(t) && printers[t->kind].joined;
}

/* -f json: integers as numbers, tuples as arrays ([1,"a",[2,3]], no spaces: bpftrace's),
 * anything else as its text, in a string when its row says quoted (pton()'s bytes print
 * as an array already). */
void trace_put_json_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o)
{
	if (t->kind == KTT_INT) {
		put_int(out, t, p, o, 0);
		return;
	}
	if (t->kind == KTT_TUPLE) {
		fputc('[', out);
		uint32_t off = 0;
		for (uint32_t i = 0; i < t->nelems; i++) {
			if (i)
				fputc(',', out);
			trace_put_json_value(out, &t->elems[i], p + off, o);
			off += (kt_type_size(&t->elems[i]) + 7) & ~7u;   /* the layout of kt_elem_off */
		}
		fputc(']', out);
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	trace_put_value(f, t, p, o, 8);
	fclose(f);
	if (trace_value_quoted(t))
		trace_json_str(out, buf, len);
	else   /* a timestamp, a cgroup path: the text as it is, as bpftrace writes them */
		fwrite(buf, 1, len, out);
	free(buf);
}
