/* tracefs.c — parse "field:TYPE NAME[N]; offset:O; size:S; signed:G;" lines of a tracepoint
 * format file. */
#include "tracefs.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	static const char *const roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	FILE *f = NULL;
	for (size_t i = 0; !f && i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, pathsz, "%s/%s/format", roots[i], event);
		f = fopen(path, "r");
	}
	if (!f) {
		snprintf(path, pathsz, "%s/%s/format", roots[0], event);
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
		struct kl_tp_field tf = { kl_arena_strndup(a, start, (size_t)(end - start)), off, size, count, sg != 0 };
		kl_vec_push(a, &out, tf);
	}
	*fields = out.items;
	*n = (uint32_t)out.len;
	return 0;
}
