/* cdefine.c — integer #defines of a bpftrace script and of the system headers it includes
 * (cdefine.h says what is read and what is not). */
#include "trace/cdefine.h"
#include "trace/cstruct.h"
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* headers: nesting, files in all, bytes of one; names a #define's value may go through */
enum { MAX_DEPTH = 8, MAX_FILES = KT_CDEF_MAX_FILES, MAX_HEADER = 1 << 20, MAX_ALIAS = 8 };

struct kt_cdef {
	char *name, *value;
};

/* Where <H> is looked for: the multiarch directory first, as gcc does on Debian. */
static const char *const include_dirs[] = {
#if defined(__x86_64__)
	"/usr/include/x86_64-linux-gnu",
#elif defined(__aarch64__)
	"/usr/include/aarch64-linux-gnu",
#endif
	"/usr/include",
};

void kt_cdef_free(struct kt_cdefs *c)
{
	for (size_t i = 0; i < c->ndefs; i++) {
		free(c->defs[i].name);
		free(c->defs[i].value);
	}
	free(c->defs);
	for (size_t i = 0; i < c->nseen; i++)
		free(c->seen[i]);
	kt_cs_free(c->structs);
	*c = (struct kt_cdefs){ 0 };
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* The directive of a `#  word rest` line: WORD's length, *rest past it; 0 when not one. */
static size_t directive(const char *p, const char *end, const char **word, const char **rest)
{
	p = skip_ws(p, end);
	if (p >= end || *p != '#')
		return 0;
	p = skip_ws(p + 1, end);
	const char *w = p;
	while (p < end && is_ident((unsigned char)*p))
		p++;
	*word = w;
	*rest = skip_ws(p, end);
	return (size_t)(p - w);
}

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(w, s, n);
}

/* `NAME VALUE` after #define: recorded unless NAME is function-like or already known. */
static void add_define(struct kt_cdefs *c, const char *p, const char *end)
{
	const char *name = p;
	while (p < end && is_ident((unsigned char)*p))
		p++;
	size_t nlen = (size_t)(p - name);
	if (!nlen || (p < end && *p == '('))
		return;
	const char *v = skip_ws(p, end), *vend = v;
	/* the value stops at a comment */
	while (vend < end && !(vend[0] == '/' && vend + 1 < end && (vend[1] == '*' || vend[1] == '/')))
		vend++;
	while (vend > v && isspace((unsigned char)vend[-1]))
		vend--;
	for (size_t i = 0; i < c->ndefs; i++)
		if (strlen(c->defs[i].name) == nlen && !memcmp(c->defs[i].name, name, nlen))
			return;
	if (c->ndefs == c->capdefs) {
		size_t cap = c->capdefs ? c->capdefs * 2 : 256;
		struct kt_cdef *nd = realloc(c->defs, cap * sizeof *nd);
		if (!nd)
			return;
		c->defs = nd;
		c->capdefs = cap;
	}
	c->defs[c->ndefs].name = strndup(name, nlen);
	c->defs[c->ndefs].value = strndup(v, (size_t)(vend - v));
	if (c->defs[c->ndefs].name && c->defs[c->ndefs].value)
		c->ndefs++;
}

static int scan_header(struct kt_cdefs *c, const char *h, size_t hlen, unsigned level, const char **why);

/* `<H>` after #include: H's path, scanned once. -1 (*why says why) when no include
 * directory has it as a regular file, or H is refused. */
static int include(struct kt_cdefs *c, const char *p, const char *end, unsigned level, const char **why)
{
	if (p >= end || *p != '<')
		return 0;           /* "local.h": relative to the script, which kiln does not read */
	const char *h = ++p;
	while (p < end && *p != '>')
		p++;
	if (p >= end)
		return 0;
	return scan_header(c, h, (size_t)(p - h), level, why);
}

/* H stays under the include directory: relative, no ".." component. */
static bool confined(const char *h, size_t hlen)
{
	if (!hlen || *h == '/' || memchr(h, 0, hlen))
		return false;
	for (size_t i = 0; i < hlen; i++)
		if ((i == 0 || h[i - 1] == '/') && i + 1 < hlen && h[i] == '.' && h[i + 1] == '.' &&
		    (i + 2 == hlen || h[i + 2] == '/'))
			return false;
	return true;
}

/* path opened for reading if it is a regular file of at most MAX_HEADER bytes: never
 * blocks (O_NONBLOCK: a FIFO), never reads a device. NULL otherwise, *why set when the file
 * exists but is refused. */
static FILE *open_header(const char *path, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat st;
	FILE *f = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_size > MAX_HEADER)
		*why = "larger than kiln trace reads (1 MiB)";
	else
		f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static int scan_header(struct kt_cdefs *c, const char *h, size_t hlen, unsigned level, const char **why)
{
	if (level > MAX_DEPTH || c->nseen == MAX_FILES)
		return 0;
	if (!confined(h, hlen)) {
		*why = "refused: a header is named relative to the include directories, without '..'";
		return -1;
	}
	char path[4096];
	FILE *f = NULL;
	*why = NULL;
	for (size_t i = 0; c->dirs && c->dirs[i] && !f && !*why; i++) {   /* -I DIR */
		snprintf(path, sizeof path, "%s/%.*s", c->dirs[i], (int)hlen, h);
		f = open_header(path, why);
	}
	for (size_t i = 0; i < sizeof include_dirs / sizeof *include_dirs && !f && !*why; i++) {
		snprintf(path, sizeof path, "%s/%.*s", include_dirs[i], (int)hlen, h);
		f = open_header(path, why);
	}
	if (!f) {
		if (!*why)
			*why = "file not found";
		return -1;
	}
	for (size_t i = 0; i < c->nseen; i++)
		if (!strcmp(c->seen[i], path)) {
			fclose(f);
			return 0;
		}
	c->seen[c->nseen] = strdup(path);
	if (c->seen[c->nseen])
		c->nseen++;
	char line[4096];
	const char *ignored;
	while (fgets(line, sizeof line, f)) {
		const char *end = line + strlen(line), *w, *rest;
		size_t n = directive(line, end, &w, &rest);
		if (word_is(w, n, "define"))
			add_define(c, rest, end);
		else if (word_is(w, n, "include"))
			include(c, rest, end, level + 1, &ignored);   /* what a header cannot find, it lacks */
	}
	fclose(f);
	return 0;
}

int kt_cdef_line(struct kt_cdefs *c, const char *line, size_t len, char *err, size_t errlen)
{
	const char *end = line + len, *w, *rest;
	size_t n = directive(line, end, &w, &rest);
	if (word_is(w, n, "ifdef") || word_is(w, n, "ifndef")) {
		const char *name = rest;
		while (rest < end && is_ident((unsigned char)*rest))
			rest++;
		bool btf = word_is(name, (size_t)(rest - name), "BPFTRACE_HAVE_BTF");
		/* other conditions are not evaluated: their lines are read as if taken */
		bool taken = !btf || word_is(w, n, "ifdef");
		if (c->depth < 32 && !taken)
			c->skip_mask |= 1u << c->depth;
		c->depth++;
		return 0;
	}
	if (word_is(w, n, "if")) {
		c->depth++;
		return 0;
	}
	if (word_is(w, n, "else") || word_is(w, n, "endif")) {
		if (!c->depth)
			return 0;
		unsigned bit = c->depth - 1 < 32 ? 1u << (c->depth - 1) : 0;
		if (word_is(w, n, "else")) {
			c->skip_mask ^= bit;
		} else {
			c->skip_mask &= ~bit;
			c->depth--;
		}
		return 0;
	}
	if (c->skip_mask)
		return 0;
	if (word_is(w, n, "define")) {
		add_define(c, rest, end);
	} else if (word_is(w, n, "include")) {
		const char *why;
		if (include(c, rest, end, 0, &why)) {
			snprintf(err, errlen, "%.*s: %s", (int)(end - rest), rest, why);
			return -1;
		}
	}
	return 0;
}

/* An integer literal with C's suffixes, in parentheses or not, or another name. */
static int eval(const struct kt_cdefs *c, const char *s, int64_t *v, unsigned alias)
{
	const char *end = s + strlen(s);
	for (;;) {
		while (s < end && isspace((unsigned char)*s))
			s++;
		while (end > s && isspace((unsigned char)end[-1]))
			end--;
		if (end - s < 2 || *s != '(' || end[-1] != ')')
			break;
		s++;
		end--;
	}
	if (s == end)
		return -1;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (isdigit((unsigned char)*s)) {
		char *e;
		unsigned long long u = strtoull(s, &e, 0);
		while (e < end && strchr("uUlL", *e))
			e++;
		if (e != end)
			return -1;
		*v = neg ? -(int64_t)u : (int64_t)u;
		return 0;
	}
	if (neg || alias >= MAX_ALIAS)
		return -1;
	for (const char *p = s; p < end; p++)
		if (!is_ident((unsigned char)*p))
			return -1;
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)(end - s), s);
	for (size_t i = 0; i < c->ndefs; i++)
		if (!strcmp(c->defs[i].name, name))
			return eval(c, c->defs[i].value, v, alias + 1);
	return -1;
}

int kt_cdef_value(const struct kt_cdefs *c, const char *name, int64_t *v)
{
	if (!c)
		return -1;
	for (size_t i = 0; i < c->ndefs; i++)
		if (!strcmp(c->defs[i].name, name))
			return eval(c, c->defs[i].value, v, 0);
	return -1;
}
