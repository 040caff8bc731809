/* json.c — the small JSON reader of json.h: recursive descent over a string, a tree of
 * malloc'd nodes. Numbers are tokens checked loosely (a sign, then letters, digits and dots)
 * and read by the caller, who knows the width and whether 0x hex is fine. */
#include "json.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct rd {
	const char *s, *p;
	char *err;
	size_t errlen;
	bool failed;
};

static int fail(struct rd *r, const char *want)
{
	if (!r->failed)
		snprintf(r->err, r->errlen, "at offset %zu: %s", (size_t)(r->p - r->s), want);
	r->failed = true;
	return -EINVAL;
}

static void skip_ws(struct rd *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static void node_clear(struct kl_json *j)
{
	for (size_t i = 0; i < j->n; i++)
		node_clear(&j->items[i]);
	free(j->items);
	free(j->text);
	free(j->key);
}

void kl_json_free(struct kl_json *j)
{
	if (!j)
		return;
	node_clear(j);
	free(j);
}

static const char *const kind_names[] = {
	[KL_JSON_NULL] = "null",     [KL_JSON_BOOL] = "a boolean", [KL_JSON_NUMBER] = "a number",
	[KL_JSON_STRING] = "a string", [KL_JSON_ARRAY] = "an array", [KL_JSON_OBJECT] = "an object",
};

const char *kl_json_kind_name(enum kl_json_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return -1;
		v = v * 16 + d;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80)
		return o[0] = (char)cp, 1;
	if (cp < 0x800)
		return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), 2;
	if (cp < 0x10000)
		return o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		       o[2] = (char)(0x80 | (cp & 0x3f)), 3;
	return o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
	       o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), o[3] = (char)(0x80 | (cp & 0x3f)), 4;
}

/* Escapes by the character after the backslash (\u is read apart). */
static const char escapes[][2] = {
	{ '"', '"' }, { '\\', '\\' }, { '/', '/' }, { 'b', '\b' }, { 'f', '\f' }, { 'n', '\n' }, { 'r', '\r' }, { 't', '\t' },
};

/* A string at r->p (the opening quote) into a malloc'd buffer: never longer than its source. */
static int read_string(struct rd *r, char **out, size_t *len)
{
	const char *start = ++r->p;
	char *buf = malloc(strlen(start) + 1);
	size_t n = 0;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		unsigned char c = (unsigned char)*r->p;
		if (c == '"')
			break;
		if (!c || c < 0x20) {
			free(buf);
			return fail(r, c ? "a control character in a string (write it escaped)" : "an unterminated string");
		}
		r->p++;
		if (c != '\\') {
			buf[n++] = (char)c;
			continue;
		}
		char e = *r->p++;
		size_t i = 0;
		while (i < sizeof(escapes) / sizeof(escapes[0]) && escapes[i][0] != e)
			i++;
		if (i < sizeof(escapes) / sizeof(escapes[0])) {
			buf[n++] = escapes[i][1];
			continue;
		}
		unsigned cp, lo;
		if (e != 'u' || hex4(r->p, &cp)) {
			r->p--;
			free(buf);
			return fail(r, "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
		}
		r->p += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && r->p[0] == '\\' && r->p[1] == 'u' && !hex4(r->p + 2, &lo) &&
		    lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);   /* a surrogate pair */
			r->p += 6;
		} else if (cp >= 0xd800 && cp < 0xe000) {
			cp = 0xfffd;                                          /* half of one */
		}
		n += put_utf8(buf + n, cp);   /* at most 4 bytes for 6 or 12 read */
	}
	r->p++;
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

static bool word_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' ||
	       c == '-' || c == '_';
}

static int read_value(struct rd *r, struct kl_json *j, int depth);

/* The elements of an array or members of an object, after its opening bracket. */
static int read_items(struct rd *r, struct kl_json *j, char close, int depth)
{
	size_t cap = 0;
	r->p++;
	skip_ws(r);
	if (*r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (j->n == cap) {
			cap = cap ? cap * 2 : 4;
			struct kl_json *ni = realloc(j->items, cap * sizeof(*ni));
			if (!ni)
				return -ENOMEM;
			j->items = ni;
		}
		struct kl_json *it = &j->items[j->n];
		memset(it, 0, sizeof(*it));
		j->n++;
		skip_ws(r);
		if (close == '}') {
			size_t klen;
			if (*r->p != '"')
				return fail(r, "a member name in double quotes");
			int err = read_string(r, &it->key, &klen);
			if (err)
				return err;
			skip_ws(r);
			if (*r->p != ':')
				return fail(r, "':' after the member name");
			r->p++;
		}
		int err = read_value(r, it, depth + 1);
		if (err)
			return err;
		skip_ws(r);
		if (*r->p == close) {
			r->p++;
			return 0;
		}
		if (*r->p != ',')
			return fail(r, close == '}' ? "',' or '}'" : "',' or ']'");
		r->p++;
	}
}

static int read_value(struct rd *r, struct kl_json *j, int depth)
{
	if (depth > MAX_DEPTH)
		return fail(r, "less nesting (32 levels at most)");
	skip_ws(r);
	char c = *r->p;
	if (c == '{' || c == '[') {
		j->kind = c == '{' ? KL_JSON_OBJECT : KL_JSON_ARRAY;
		return read_items(r, j, c == '{' ? '}' : ']', depth);
	}
	if (c == '"') {
		j->kind = KL_JSON_STRING;
		return read_string(r, &j->text, &j->len);
	}
	const char *start = r->p;
	while (word_char(*r->p))
		r->p++;
	size_t n = (size_t)(r->p - start);
	if (!n) {
		return fail(r, "a value (an object, array, string or number)");
	}
	if ((j->text = strndup(start, n)) == NULL)
		return -ENOMEM;
	j->len = n;
	if (!strcmp(j->text, "true") || !strcmp(j->text, "false"))
		j->kind = KL_JSON_BOOL;
	else if (!strcmp(j->text, "null"))
		j->kind = KL_JSON_NULL;
	else if ((start[0] >= '0' && start[0] <= '9') || ((start[0] == '-' || start[0] == '+') && n > 1))
		j->kind = KL_JSON_NUMBER;
	else {
		r->p = start;
		return fail(r, "a value (strings are written in double quotes)");
	}
	return 0;
}

int kl_json_parse(const char *text, struct kl_json **out, char *err, size_t errlen)
{
	struct rd r = { text, text, err, errlen, false };
	struct kl_json *j = calloc(1, sizeof(*j));
	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (!j) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = read_value(&r, j, 0);
	if (!rc) {
		skip_ws(&r);
		if (*r.p)
			rc = fail(&r, "the end of the text");
	}
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		kl_json_free(j);
		return rc;
	}
	*out = j;
	return 0;
}
