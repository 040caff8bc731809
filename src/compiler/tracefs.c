/* tracefs.c — tracepoint names checked against tracefs's own, and the "field:TYPE NAME[N];
 * offset:O; size:S; signed:G;" lines of a tracepoint's format file parsed. */
#include "tracefs.h"
#include "mounts.h"
#include "nearest.h"
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The events directory of the tracefs mounted (mounted now if missing and we may), or NULL. */
static const char *events_root(void)
{
	return kl_tracefs_events();
}

/* Whether name is one tracefs could have: letters, digits and '_' only (no '.', no '/'). */
static bool name_ok(const char *name, size_t len)
{
	if (!len || len > 255)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

/* Whether dir has a subdirectory name; if not, the nearest names in hint. */
static bool has_entry(const char *dir, const char *name, char *hint, size_t hintsz)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return true;
	struct kl_nearest nb;
	kl_nearest_init(&nb, name);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			kl_nearest_add(&nb, e->d_name);
	if (d)
		closedir(d);
	kl_nearest_hint(&nb, hint, hintsz);
	return false;
}

int kl_tracepoint_check(const char *event, char *msg, size_t msgsz)
{
	const char *slash = strchr(event, '/');
	if (!slash || !name_ok(event, (size_t)(slash - event)) || !name_ok(slash + 1, strlen(slash + 1))) {
		snprintf(msg, msgsz, "'%.200s' is not a tracepoint name: CATEGORY/EVENT, each of letters, "
			 "digits and '_' as tracefs names them (sched/sched_switch)", event);
		return -1;
	}
	const char *root = events_root();
	if (!root) {
		snprintf(msg, msgsz, "no tracefs at /sys/kernel/tracing to read tracepoint %s from, and kiln could "
			 "not mount one (as root: mount -t tracefs tracefs /sys/kernel/tracing)", event);
		return 1;
	}
	char cat[256], dir[512], hint[400];
	snprintf(cat, sizeof(cat), "%.*s", (int)(slash - event), event);
	if (!has_entry(root, cat, hint, sizeof(hint))) {
		snprintf(msg, msgsz, "no tracepoint category '%s' in %s%s%s", cat, root, hint[0] ? "; " : "", hint);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", root, cat);
	if (!has_entry(dir, slash + 1, hint, sizeof(hint))) {
		snprintf(msg, msgsz, "no tracepoint '%s' in %s%s%s", event, dir, hint[0] ? "; " : "", hint);
		return -1;
	}
	return 0;
}

/* The whole file in the arena. It is read with kl_arena_try_alloc so that running out of
 * memory closes it before the jump (arena.h); format files are a few KiB. */
static char *read_format(struct kl_arena *a, FILE *f)
{
	size_t cap = 8192, len = 0;
	char *buf = kl_arena_try_alloc(a, cap);
	while (buf) {
		len += fread(buf + len, 1, cap - 1 - len, f);
		if (len < cap - 1)
			break;
		char *more = kl_arena_try_alloc(a, cap * 2);
		if (more)
			memcpy(more, buf, len);
		buf = more;
		cap *= 2;
	}
	fclose(f);
	if (!buf)
		kl_arena_oom(a);
	buf[len] = 0;
	return buf;
}

int kl_tracepoint_format(struct kl_arena *a, const char *event, struct kl_tp_field **fields, uint32_t *n,
			 char *path, size_t pathsz)
{
	if (kl_tracepoint_check(event, path, pathsz))
		return -1;
	snprintf(path, pathsz, "%s/%s/format", events_root(), event);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(path, pathsz, "cannot read the format of tracepoint %s (%s/%s/format)", event,
			 events_root(), event);
		return -1;
	}
	KL_VEC(struct kl_tp_field) out = { 0 };
	for (char *line = read_format(a, f), *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *field = strstr(line, "field:"), *semi = field ? strchr(field, ';') : NULL;
		if (!semi)
			continue;
		*semi = 0;
		char *end = semi;
		uint32_t count = 0;
		if (end > field && end[-1] == ']') {       /* char comm[16] */
			while (end > field && *--end != '[')
				;
			count = (uint32_t)strtoul(end + 1, NULL, 10);
			if (!count)
				count = 1;
		}
		char *start = end;
		while (start > field + 6 && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
			start--;
		unsigned off, size;
		int sg;
		if (start == end || sscanf(semi + 1, " offset:%u; size:%u; signed:%d;", &off, &size, &sg) != 3)
			continue;
		const char *ct = field + 6, *ce = start;
		while (*ct == ' ' || *ct == '\t')
			ct++;
		while (ce > ct && (ce[-1] == ' ' || ce[-1] == '\t'))
			ce--;
		struct kl_tp_field tf = { kl_arena_strndup(a, start, (size_t)(end - start)), off, size, count, sg != 0,
					  strstr(field, "__data_loc") != NULL, kl_arena_strndup(a, ct, (size_t)(ce - ct)) };
		kl_vec_push(a, &out, tf);
	}
	*fields = out.items;
	*n = (uint32_t)out.len;
	return 0;
}
