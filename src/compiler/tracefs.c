/* tracefs.c — tracepoint names checked against tracefs's own (the one check the compiler,
 * `kiln trace` and libkiln's attach share, a tracepoint's files confined to the events
 * directory), and the "field:TYPE NAME[N]; offset:O; size:S; signed:G;" lines of a
 * tracepoint's format file parsed. */
#include "tracefs.h"
#include "mounts.h"
#include "nearest.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether name is one tracefs could have: ASCII letters, digits and '_' only (no '.', no
 * '/', no '%'), whatever the locale. */
static bool name_ok(const char *name, size_t len)
{
	if (!len || len > 255)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!(c < 0x80 && isalnum(c)) && c != '_')
			return false;
	}
	return true;
}

bool kl_tracepoint_name_ok(const char *event)
{
	const char *slash = event ? strchr(event, '/') : NULL;
	return slash && name_ok(event, (size_t)(slash - event)) && name_ok(slash + 1, strlen(slash + 1));
}

/* The refusal of a name, its bytes outside printable ASCII shown as \xNN. */
static void bad_name(const char *event, char *msg, size_t msgsz)
{
	char shown[4 * 200 + 1];
	size_t n = 0;
	for (const char *p = event ? event : ""; *p && n + 5 < sizeof(shown); p++) {
		unsigned char c = (unsigned char)*p;
		n += (size_t)snprintf(shown + n, sizeof(shown) - n, c < 0x20 || c >= 0x7f ? "\\x%02x" : "%c", c);
	}
	shown[n] = 0;
	snprintf(msg, msgsz, "'%s' is not a tracepoint name: CATEGORY/EVENT, each of letters, digits and "
		 "'_' as tracefs names them (sched/sched_switch)", shown);
}

/* Whether dir has a subdirectory name (itself, not a symlink to one); if not, the nearest
 * names in hint. */
static bool has_entry(const char *dir, const char *name, char *hint, size_t hintsz)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
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

/* 0 if none of path's components after the first skip bytes is a symlink, else -ELOOP with
 * the symlink named in msg. */
static int no_symlinks(char *path, size_t skip, char *msg, size_t msgsz)
{
	struct stat st;
	for (char *p = path + skip;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = 0;
		int link = !lstat(path, &st) && S_ISLNK(st.st_mode);
		if (link)
			snprintf(msg, msgsz, "%s is a symlink; a tracepoint's files are tracefs's own", path);
		*p = c;
		if (link)
			return -ELOOP;
		if (!c)
			return 0;
	}
}

int kl_tracepoint_file(const char *events, const char *event, const char *file, char *path, size_t pathsz,
		       char *msg, size_t msgsz)
{
	if (!kl_tracepoint_name_ok(event)) {
		bad_name(event, msg, msgsz);
		return -EINVAL;
	}
	if (!events && !(events = kl_tracefs_events())) {
		snprintf(msg, msgsz, "no tracefs at /sys/kernel/tracing to find tracepoint %s in (mount one: "
			 "mount -t tracefs tracefs /sys/kernel/tracing)", event);
		return -ENODEV;
	}
	char root[PATH_MAX], real[PATH_MAX], joined[PATH_MAX];
	int n = snprintf(joined, sizeof(joined), "%s/%s%s%s", events, event, file ? "/" : "", file ? file : "");
	if (n < 0 || (size_t)n >= sizeof(joined) || (size_t)n >= pathsz) {
		snprintf(msg, msgsz, "the path of tracepoint %s under %s is too long", event, events);
		return -ENAMETOOLONG;
	}
	int err = no_symlinks(joined, strlen(events) + 1, msg, msgsz);
	if (err)
		return err;
	if (!realpath(events, root) || !realpath(joined, real)) {
		err = -errno;
		snprintf(msg, msgsz, "no tracepoint %s in tracefs (%s: %s)", event, joined, strerror(-err));
		return err;
	}
	size_t rl = strlen(root);
	if (strncmp(real, root, rl) || real[rl] != '/') {
		snprintf(msg, msgsz, "tracepoint %s resolves to %s, outside tracefs's %s", event, real, root);
		return -EXDEV;
	}
	memcpy(path, joined, (size_t)n + 1);
	return 0;
}

int kl_tracepoint_check(const char *event, char *msg, size_t msgsz)
{
	return kl_tracepoint_check_in(kl_tracefs_events(), event, msg, msgsz);
}

int kl_tracepoint_check_in(const char *root, const char *event, char *msg, size_t msgsz)
{
	if (!kl_tracepoint_name_ok(event)) {
		bad_name(event, msg, msgsz);
		return -1;
	}
	const char *slash = strchr(event, '/');
	if (!root) {
		snprintf(msg, msgsz, "no tracefs at /sys/kernel/tracing to read tracepoint %s from, and kiln could "
			 "not mount one (as root: mount -t tracefs tracefs /sys/kernel/tracing)", event);
		return 1;
	}
	char cat[256], dir[512], hint[400], path[PATH_MAX];
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
	return kl_tracepoint_file(root, event, NULL, path, sizeof(path), msg, msgsz) ? -1 : 0;
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
	char msg[1024];
	if (kl_tracepoint_check(event, path, pathsz))
		return -1;
	if (kl_tracepoint_file(NULL, event, "format", path, pathsz, msg, sizeof(msg))) {
		snprintf(path, pathsz, "cannot read the format of tracepoint %s: %s", event, msg);
		return -1;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(path, pathsz, "cannot read the format of tracepoint %s (%s/%s/format)", event,
			 kl_tracefs_events(), event);
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

/* a field's name against one as written: other characters than letters, digits and '_' are
 * '_' (kl_mangle's rule) */
static bool tp_name_is(const char *field, const char *name, bool any_case)
{
	for (; *field && *name; field++, name++) {
		char c = isalnum((unsigned char)*name) ? *name : '_';
		if (c != *field && !(any_case && tolower((unsigned char)c) == tolower((unsigned char)*field)))
			return false;
	}
	return *field == *name;
}

const struct kl_tp_field *kl_tracepoint_field(const struct kl_tp_field *fields, uint32_t n, const char *event,
					      const char *name, unsigned flags, char *msg, size_t msgsz)
{
	for (int any_case = 0; any_case <= !!(flags & KL_TPF_ANY_CASE); any_case++)
		for (uint32_t i = 0; i < n; i++)
			if (tp_name_is(fields[i].name, name, any_case) &&
			    ((flags & KL_TPF_COMMON) || strncmp(fields[i].name, "common_", 7)))
				return &fields[i];
	struct kl_nearest nb;
	char hint[512];
	kl_nearest_init(&nb, name);
	for (uint32_t i = 0; i < n; i++)
		if (strncmp(fields[i].name, "common_", 7))
			kl_nearest_add(&nb, fields[i].name);
	kl_nearest_hint(&nb, hint, sizeof(hint));
	size_t k = (size_t)snprintf(msg, msgsz, "tracepoint %s has no field '%s'; %s%s fields:", event, name, hint,
				    *hint ? " Its" : "its");
	for (uint32_t i = 0; i < n && k < msgsz; i++)
		if (strncmp(fields[i].name, "common_", 7))
			k += (size_t)snprintf(msg + k, msgsz - k, " %s", fields[i].name);
	return NULL;
}
