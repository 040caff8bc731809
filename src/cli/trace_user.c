/* trace_user.c — the records of kiln trace's fn_user.c functions that user space carries
 * out (trace.h): print(value) prints the value as bpftrace prints a map's; system(FMT, ...)
 * runs the formatted command through the shell and prints its output; cat(FMT, ...) prints
 * the formatted file (at most BPFTRACE_CAT_BYTES_MAX bytes, 10240 by default). -f json
 * writes them as bpftrace's "value", "syscall" and "cat" messages. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include <errno.h>
#include <fnmatch.h>
#include <fts.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* printf's formatting of the record, as a malloc'd string (NULL when out of memory). */
static char *format(const struct kt_site *site, struct trace_out *o, const uint8_t *rec, size_t size, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	trace_printf(f, site, o, rec, size);
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

static void emit(FILE *out, bool json, const char *type, const char *text, size_t len)
{
	if (json)
		trace_json_message(out, type, text, len);
	else
		fwrite(text, 1, len, out);
}

static void run_system(FILE *out, bool json, const char *cmd)
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
	emit(out, json, "syscall", text ? text : "", text ? len : 0);
	free(text);
}

static void cat_file(FILE *out, bool json, const char *path)
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
	emit(out, json, "cat", text ? text : "", text ? len : 0);
	free(text);
}

/* ---- cgroup_path() ---- */

/* The path under dir of its subdirectory whose inode is ino, malloc'd (NULL: none). fts
 * hands the walk's entries back one by one (nftw's callback would need statics for what it
 * looks for and finds); symbolic links are not followed, nor is the working directory
 * changed. */
static char *find_ino(const char *dir, ino_t ino)
{
	char *roots[] = { (char *)dir, NULL };
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	char *found = NULL;
	FTSENT *e;
	while (fts && !found && (e = fts_read(fts)))
		if (e->fts_info == FTS_D && e->fts_level > 0 && e->fts_statp->st_ino == ino)
			found = strdup(e->fts_path + strlen(dir));
	if (fts)
		fts_close(fts);
	return found;
}

struct hier {
	char name[64];
	char *path;                 /* the cgroup's, under the mount; NULL: not in this one */
};

static int by_hier(const void *a, const void *b)
{
	const struct hier *x = a, *y = b;
	bool ux = !strcmp(x->name, "unified"), uy = !strcmp(y->name, "unified");
	return ux != uy ? uy - ux : strcmp(x->name, y->name);
}

/* As bpftrace prints it: "NAME:PATH" for each cgroup hierarchy (cgroup2 is "unified", a
 * v1 one its mount directory's name) whose name matches the filter and that has a
 * directory whose inode is the id ("/" for its root), unified first, then by name, joined
 * by ",". */
void trace_put_cgroup_path(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	uint64_t id;
	memcpy(&id, p, 8);
	FILE *m = fopen("/proc/mounts", "re");
	char line[4096];
	struct hier h[64];
	size_t n = 0;
	while (m && n < 64 && fgets(line, sizeof(line), m)) {
		char dev[64], dir[2048], type[32];
		if (sscanf(line, "%63s %2047s %31s", dev, dir, type) != 3 || (strcmp(dev, "cgroup") && strcmp(dev, "cgroup2")))
			continue;
		const char *base = strrchr(dir, '/');
		snprintf(h[n].name, sizeof(h[n].name), "%.63s", !strcmp(dev, "cgroup2") ? "unified" : base ? base + 1 : dir);
		if (fnmatch(t->fmt ? t->fmt : "*", h[n].name, 0))
			continue;
		struct stat st;
		h[n].path = !stat(dir, &st) && st.st_ino == id ? strdup("/") : find_ino(dir, (ino_t)id);
		n++;
	}
	if (m)
		fclose(m);
	if (n > 1)
		qsort(h, n, sizeof(h[0]), by_hier);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (h[i].path && h[i].path[0])
			fprintf(out, "%s%s:%s", first ? "" : ",", h[i].name, h[i].path);
		first = first && !(h[i].path && h[i].path[0]);
		free(h[i].path);
	}
}

void trace_user_record(FILE *out, const struct kt_site *site, struct trace_out *o, const uint8_t *rec, size_t size)
{
	if (site->kind == KT_EV_VALUE) {
		if (!site->nargs || site->args[0].offset + kt_type_size(&site->args[0].type) > size)
			return;
		const struct kt_type *t = &site->args[0].type;
		const uint8_t *p = rec + site->args[0].offset;
		if (o->json) {
			fputs("{\"type\": \"value\", \"data\": ", out);
			trace_put_json_value(out, t, p, o);
			fputs("}\n", out);
		} else {
			trace_put_value(out, t, p, o, 8);
			fputc('\n', out);
		}
		return;
	}
	size_t len = 0;
	char *text = format(site, o, rec, size, &len);
	if (!text)
		return;
	if (site->kind == KT_EV_SYSTEM)
		run_system(out, o->json, text);
	else if (site->kind == KT_EV_CAT)
		cat_file(out, o->json, text);
	free(text);
}
