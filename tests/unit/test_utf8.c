/* test_utf8.c — the one UTF-8 validator and escaper (src/lib/utf8.c) behind kiln's JSON and
 * Prometheus output: the validator on each kind of bad sequence (stray continuation, overlong,
 * surrogate, past U+10FFFF, cut short) and on good ones of every length; each style's exact
 * escapes; snprintf's length convention when the buffer is short (kl_escape and the quoted
 * kl_json_string); and, over 20,000 random
 * byte strings, that every JSON output is valid UTF-8 that libkiln's JSON reader parses back
 * (bad bytes as U+FFFD, good text unchanged) and every Prometheus output is valid UTF-8 with
 * no bare quote, newline or control character. */
#include "check.h"
#include "lib/json.h"
#include "lib/utf8.h"
#include <stdint.h>
#include <string.h>

static const struct {
	const char *what, *bytes;
	size_t n, len;   /* the sequence's length, and what kl_utf8_len says of it */
} seqs[] = {
	{ "ASCII", "a", 1, 1 },
	{ "two bytes (e-acute)", "\xc3\xa9", 2, 2 },
	{ "three bytes (euro)", "\xe2\x82\xac", 3, 3 },
	{ "four bytes (U+1F600)", "\xf0\x9f\x98\x80", 4, 4 },
	{ "U+10FFFF", "\xf4\x8f\xbf\xbf", 4, 4 },
	{ "stray continuation", "\x80", 1, 0 },
	{ "overlong two-byte (C0 80)", "\xc0\x80", 2, 0 },
	{ "overlong two-byte (C1 BF)", "\xc1\xbf", 2, 0 },
	{ "overlong three-byte", "\xe0\x80\xaf", 3, 0 },
	{ "overlong four-byte", "\xf0\x80\x80\xaf", 4, 0 },
	{ "surrogate D800", "\xed\xa0\x80", 3, 0 },
	{ "past U+10FFFF", "\xf4\x90\x80\x80", 4, 0 },
	{ "lead F5", "\xf5\x80\x80\x80", 4, 0 },
	{ "lead FF", "\xff", 1, 0 },
	{ "cut short", "\xe2\x82", 2, 0 },
	{ "continuation missing", "\xc3\x41", 2, 0 },
};

static const struct {
	enum kl_esc style;
	const char *what, *in, *out;
	size_t n;
} escapes[] = {
	{ KL_ESC_JSON, "json: quotes, backslash, named controls", "a\"b\\c\n\t\r\b\f", "a\\\"b\\\\c\\n\\t\\r\\b\\f", 10 },
	{ KL_ESC_JSON, "json: other controls as \\u00XX, DEL too", "\x01\x1f\x7f", "\\u0001\\u001f\\u007f", 3 },
	{ KL_ESC_JSON, "json: a NUL inside the count", "a\0b", "a\\u0000b", 3 },
	{ KL_ESC_JSON, "json: UTF-8 passes, bad bytes are U+FFFD", "\xc3\xa9x\xff\xc3", "\xc3\xa9x\\ufffd\\ufffd", 5 },
	{ KL_ESC_PROM, "prom: quote, backslash, newline", "a\"b\\c\nd", "a\\\"b\\\\c\\nd", 7 },
	{ KL_ESC_PROM, "prom: bad bytes and controls as the text \\xHH", "k\xff\x80\t\x01", "k\\\\xff\\\\x80\\\\x09\\\\x01", 5 },
	{ KL_ESC_PROM, "prom: UTF-8 passes", "\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80", 7 },
	{ KL_ESC_TEXT, "text: C escapes", "a\"\\\n\t\r\xff\xc3\xa9", "a\\\"\\\\\\n\\t\\x0d\\xff\xc3\xa9", 9 },
};

/* xorshift: the same strings every run */
static uint32_t rnd_state = 2463534242u;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* s with every byte that starts no valid sequence replaced by U+FFFD: what JSON should carry */
static size_t expect_json(const unsigned char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0, k; i < n; i += k) {
		k = kl_utf8_len(s + i, n - i);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			k = 1;
		}
	}
	return o;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		char name[96];
		snprintf(name, sizeof(name), "utf8: %s", seqs[i].what);
		size_t got = kl_utf8_len((const unsigned char *)seqs[i].bytes, seqs[i].n);
		CHECK(name, got == seqs[i].len && kl_utf8_valid(seqs[i].bytes, seqs[i].n) == (seqs[i].len == seqs[i].n),
		      "length %zu, want %zu", got, seqs[i].len);
	}
	for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
		char buf[128];
		size_t n = kl_escape(buf, sizeof(buf), escapes[i].in, escapes[i].n, escapes[i].style);
		buf[n < sizeof(buf) ? n : sizeof(buf) - 1] = 0;
		CHECK(escapes[i].what, n == strlen(escapes[i].out) && !strcmp(buf, escapes[i].out), "'%s'", buf);
	}
	char small[5] = "zzzzz";
	size_t n = kl_escape(small, 4, "ab\"cd", 5, KL_ESC_JSON);
	CHECK("escape: a short buffer gets what fits, the whole length returned",
	      n == 6 && !memcmp(small, "ab\\\"z", 5), "%zu '%.5s'", n, small);
	CHECK("escape: no buffer, the length only", kl_escape(NULL, 0, "\xff", 1, KL_ESC_JSON) == 6, "%s", "not 6");

	char q[16];
	n = kl_json_string(q, sizeof(q), "a\"b\0ignored", 12);
	CHECK("json string: quoted, escaped, stopped at the NUL", n == 6 && !strcmp(q, "\"a\\\"b\""), "%zu '%s'", n, q);
	memset(q, 'z', sizeof(q));
	n = kl_json_string(q, 4, "abcdef", 6);
	CHECK("json string: a short buffer holds what fits, NUL-terminated, the whole length returned",
	      n == 8 && !strcmp(q, "\"ab") && q[4] == 'z', "%zu '%.4s'", n, q);
	CHECK("json string: no buffer, the length only", kl_json_string(NULL, 0, "\xff", 1) == 8, "%s", "not 8");
	n = kl_json_string(q, sizeof(q), "", 0);
	CHECK("json string: empty is \"\"", n == 2 && !strcmp(q, "\"\""), "%zu '%s'", n, q);

	int json_bad = 0, prom_bad = 0;
	for (int t = 0; t < 20000; t++) {
		unsigned char s[24];
		size_t len = rnd() % sizeof(s);
		for (size_t i = 0; i < len; i++)   /* half ASCII, half anything: UTF-8 good and bad */
			s[i] = (unsigned char)(rnd() & 1 ? 0x20 + rnd() % 0x5f : rnd());
		char esc[6 * sizeof(s) + 3], want[3 * sizeof(s)];
		esc[0] = '"';
		size_t e = kl_escape(esc + 1, sizeof(esc) - 3, (const char *)s, len, KL_ESC_JSON);
		esc[e + 1] = '"';
		esc[e + 2] = 0;
		struct kl_json *j = NULL;
		char err[128];
		size_t wn = expect_json(s, len, want);
		if (e > 6 * len || !kl_utf8_valid(esc, e + 2) || kl_json_parse(esc, &j, err, sizeof(err)) ||
		    j->kind != KL_JSON_STRING || j->len != wn || memcmp(j->text, want, wn)) {
			if (!json_bad++)
				printf("json of %zu random bytes: '%s'\n", len, esc);
		}
		kl_json_free(j);
		e = kl_escape(esc, sizeof(esc), (const char *)s, len, KL_ESC_PROM);
		bool ok = e <= 6 * len && kl_utf8_valid(esc, e);
		for (size_t i = 0; ok && i < e; i++) {
			unsigned char c = (unsigned char)esc[i];
			if (c < 0x20 || c == 0x7f)
				ok = false;
			else if (c == '\\')   /* only \\ \" \n: the text format's escapes */
				ok = i + 1 < e && strchr("\\\"n", esc[++i]);
			else if (c == '"')
				ok = false;
		}
		if (!ok && !prom_bad++)
			printf("prometheus of %zu random bytes: '%.*s'\n", len, (int)e, esc);
	}
	CHECK("escape: 20,000 random strings as JSON parse back, bad bytes as U+FFFD", !json_bad, "%d wrong", json_bad);
	CHECK("escape: 20,000 random strings as Prometheus label values are valid", !prom_bad, "%d wrong", prom_bad);
	return CHECK_DONE();
}
