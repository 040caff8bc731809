/* trace_user.c — the records of kiln trace's fn_user.c functions that user space carries
 * out (trace.h): print(value) prints the value as bpftrace prints a map's; system(FMT, ...)
 * runs the formatted command through the shell and prints its output; cat(FMT, ...) prints
 * the formatted file (at most BPFTRACE_CAT_BYTES_MAX bytes, 10240 by default). -f json
 * writes them as bpftrace's "value", "syscall" and "cat" messages. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* printf's formatting of the record, as a malloc'd string (NULL when out of memory). */
static char *format(const struct kt_site *site, const struct kt_sema *s, const uint8_t *rec, size_t size, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	trace_printf(f, site, s, rec, size);
	fclose(f);
	return buf;
}

/* Appends up to max bytes of what f gives to a memstream; the text. */
static char *slurp(FILE *f, size_t max, size_t *len)
{
	char *text = NULL, chunk[4096];
	FILE *m = open_memstream(&text, len);
	size_t n, got = 0;
	while (m && got < max && (n = fread(chunk, 1, max - got < sizeof(chunk) ? max - got : sizeof(chunk), f)) > 0) {
		fwrite(chunk, 1, n, m);
		got += n;
	}
	if (m)
		fclose(m);
	return text;
}

static void emit(FILE *out, const char *type, const char *text, size_t len)
{
	if (trace_json())
		trace_json_message(out, type, text, len);
	else
		fwrite(text, 1, len, out);
}

static void run_system(FILE *out, const char *cmd)
{
	fflush(out);
	FILE *p = popen(cmd, "r");
	if (!p) {
		fprintf(stderr, "ERROR: popen() failed: %s\n", strerror(errno));
		return;
	}
	size_t len = 0;
	char *text = slurp(p, SIZE_MAX, &len);
	pclose(p);
	emit(out, "syscall", text ? text : "", text ? len : 0);
	free(text);
}

static void cat_file(FILE *out, const char *path)
{
	const char *env = getenv("BPFTRACE_CAT_BYTES_MAX");
	char *end = NULL;
	unsigned long long max = env ? strtoull(env, &end, 10) : 10240;
	if (env && (*end || !*env))
		max = 10240;
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "ERROR: failed to open file '%s': %s\n", path, strerror(errno));
		return;
	}
	size_t len = 0;
	char *text = slurp(f, (size_t)max, &len);
	fclose(f);
	emit(out, "cat", text ? text : "", text ? len : 0);
	free(text);
}

void trace_user_record(FILE *out, const struct kt_site *site, const struct kt_sema *s, const uint8_t *rec, size_t size)
{
	if (site->kind == KT_EV_VALUE) {
		if (!site->nargs || site->args[0].offset + kt_type_size(&site->args[0].type) > size)
			return;
		const struct kt_type *t = &site->args[0].type;
		const uint8_t *p = rec + site->args[0].offset;
		if (trace_json()) {
			fputs("{\"type\": \"value\", \"data\": ", out);
			trace_json_value(out, t, p, s);
			fputs("}\n", out);
		} else {
			trace_put_value(out, t, p, s, 8);
			fputc('\n', out);
		}
		return;
	}
	size_t len = 0;
	char *text = format(site, s, rec, size, &len);
	if (!text)
		return;
	if (site->kind == KT_EV_SYSTEM)
		run_system(out, text);
	else if (site->kind == KT_EV_CAT)
		cat_file(out, text);
	free(text);
}
