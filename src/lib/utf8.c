/* utf8.c — UTF-8 validation and the escaping of strings for JSON, Prometheus label values and
 * text (utf8.h). */
#include "utf8.h"
#include <stdio.h>
#include <string.h>

size_t kl_utf8_len(const unsigned char *p, size_t n)
{
	if (p[0] < 0x80)
		return 1;
	/* lead bytes: C2..DF two, E0..EF three, F0..F4 four; 80..C1 and F5..FF lead nothing */
	size_t k = p[0] >= 0xf5 ? 0 : p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, UTF-16 surrogates, code points past U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
	    (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return k;
}

bool kl_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, k; i < n; i += k)
		if (!(k = kl_utf8_len(p + i, n - i)))
			return false;
	return true;
}

/* Characters escaped by name: the character, and what follows the backslash. */
static const char named[][2] = {
	{ '"', '"' }, { '\\', '\\' }, { '\n', 'n' }, { '\t', 't' }, { '\r', 'r' }, { '\b', 'b' }, { '\f', 'f' },
};

static const struct style {
	unsigned named;       /* which of named[] (bit i: named[i]) the style escapes by name */
	const char *ctrl;     /* printf format of another control character (0x00..0x1f, 0x7f) */
	const char *bad;      /* printf format of a byte that is not UTF-8 (NULL: bad_text) */
	const char *bad_text; /* what stands for such a byte, when it is not printed in hex */
} styles[] = {
	[KL_ESC_JSON] = { 0x7f, "\\u%04x", NULL, "\\ufffd" },
	[KL_ESC_PROM] = { 0x07, "\\\\x%02x", "\\\\x%02x", NULL },
	[KL_ESC_TEXT] = { 0x0f, "\\x%02x", "\\x%02x", NULL },
};

struct sink {
	char *buf;
	size_t len, pos;
};

static void emit(struct sink *o, const char *s, size_t n)
{
	if (o->pos < o->len)
		memcpy(o->buf + o->pos, s, n < o->len - o->pos ? n : o->len - o->pos);
	o->pos += n;
}

size_t kl_escape(char *buf, size_t len, const char *s, size_t n, enum kl_esc style)
{
	const struct style *st = &styles[style];
	const unsigned char *p = (const unsigned char *)s;
	struct sink o = { buf, buf ? len : 0, 0 };
	size_t run = 0;   /* the start of the pending run of bytes that pass as they are */
	for (size_t i = 0, k; i < n; i += k) {
		unsigned char c = p[i];
		k = kl_utf8_len(p + i, n - i);
		bool ctrl = c < 0x20 || c == 0x7f;
		size_t e = 0;
		while (e < sizeof(named) / sizeof(named[0]) && !((st->named >> e & 1) && named[e][0] == (char)c))
			e++;
		bool by_name = e < sizeof(named) / sizeof(named[0]);
		if (k && !ctrl && !by_name)
			continue;
		emit(&o, s + run, i - run);
		char tmp[16];
		if (by_name) {
			tmp[0] = '\\';
			tmp[1] = named[e][1];
			emit(&o, tmp, 2);
		} else if (k || st->bad) {
			int w = snprintf(tmp, sizeof(tmp), k ? st->ctrl : st->bad, c);
			emit(&o, tmp, (size_t)w);
		} else {
			emit(&o, st->bad_text, strlen(st->bad_text));
		}
		k = 1;
		run = i + 1;
	}
	emit(&o, s + run, n - run);
	return o.pos;
}

size_t kl_json_string(char *buf, size_t len, const char *s, size_t n)
{
	n = strnlen(s, n);
	if (len)
		buf[0] = '"';
	size_t pos = 1, room = len > 1 ? len - 1 : 0;
	pos += kl_escape(room ? buf + 1 : NULL, room, s, n, KL_ESC_JSON);
	if (pos < len)
		buf[pos] = '"';
	pos++;
	if (len)
		buf[pos < len ? pos : len - 1] = 0;
	return pos;
}
