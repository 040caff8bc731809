/* test_json.c — libkiln's small JSON reader (src/lib/json.c), which kiln_map_parse_key/_value
 * read typed keys and values with: nesting, member order, escapes and \u sequences (a
 * surrogate pair to 4 UTF-8 bytes, a NUL kept with its length), numbers as their text (0x
 * too), and the errors: where, and what was wanted; the nesting limit. */
#include "check.h"
#include "lib/json.h"
#include <errno.h>
#include <string.h>

static struct kl_json *parse(const char *text, char *err, size_t errlen, int *rc)
{
	struct kl_json *j = NULL;
	*rc = kl_json_parse(text, &j, err, errlen);
	return j;
}

int main(void)
{
	char err[160];
	int rc;
	struct kl_json *j = parse(" {\"a\": [1, -2, 0x1f], \"b\": {\"c\": \"x\\ty\"}, \"d\": true, \"e\": null} ", err,
				  sizeof(err), &rc);
	CHECK("json: an object parses", !rc && j && j->kind == KL_JSON_OBJECT && j->n == 4, "%d %s", rc, err);
	if (!rc) {
		const struct kl_json *a = &j->items[0], *b = &j->items[1];
		CHECK("json: members in order, named", !strcmp(a->key, "a") && !strcmp(b->key, "b") &&
		      !strcmp(j->items[2].key, "d") && !strcmp(j->items[3].key, "e"), "%s %s", a->key, b->key);
		CHECK("json: an array of numbers as their text", a->kind == KL_JSON_ARRAY && a->n == 3 &&
		      a->items[0].kind == KL_JSON_NUMBER && !strcmp(a->items[1].text, "-2") &&
		      !strcmp(a->items[2].text, "0x1f"), "%zu", a->n);
		CHECK("json: a nested object, an escape", b->kind == KL_JSON_OBJECT && b->n == 1 &&
		      b->items[0].kind == KL_JSON_STRING && !strcmp(b->items[0].text, "x\ty"), "%d", (int)b->kind);
		CHECK("json: true and null", j->items[2].kind == KL_JSON_BOOL && !strcmp(j->items[2].text, "true") &&
		      j->items[3].kind == KL_JSON_NULL, "%d %d", (int)j->items[2].kind, (int)j->items[3].kind);
	}
	kl_json_free(j);

	j = parse("\"\\u00e9\\ud83d\\ude00\\u0000z\\/\"", err, sizeof(err), &rc);
	CHECK("json: \\u escapes to UTF-8, a surrogate pair, a NUL kept", !rc && j->kind == KL_JSON_STRING &&
	      j->len == 2 + 4 + 1 + 2 && !memcmp(j->text, "\xc3\xa9\xf0\x9f\x98\x80\0z/", 9), "%d %zu", rc, j ? j->len : 0);
	kl_json_free(j);

	j = parse("[]", err, sizeof(err), &rc);
	CHECK("json: an empty array", !rc && j->kind == KL_JSON_ARRAY && j->n == 0, "%d", rc);
	kl_json_free(j);
	j = parse("{}", err, sizeof(err), &rc);
	CHECK("json: an empty object", !rc && j->kind == KL_JSON_OBJECT && j->n == 0, "%d", rc);
	kl_json_free(j);

	static const struct { const char *text, *want; } bad[] = {
		{ "{\"a\":1,}", "at offset 7: a member name in double quotes" },
		{ "{\"a\" 1}", "at offset 5: ':' after the member name" },
		{ "[1 2]", "at offset 3: ',' or ']'" },
		{ "\"abc", "an unterminated string" },
		{ "\"a\\qb\"", "at offset 3: an escape" },
		{ "[1] x", "at offset 4: the end of the text" },
		{ "{\"a\": abc}", "at offset 6: a value (strings are written in double quotes)" },
		{ "", "at offset 0: a value" },
		{ "\"a\nb\"", "a control character" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[96];
		j = parse(bad[i].text, err, sizeof(err), &rc);
		snprintf(name, sizeof(name), "json: error %zu (%s)", i, bad[i].want);
		CHECK(name, rc == -EINVAL && !j && strstr(err, bad[i].want), "%d '%s'", rc, err);
	}

	char deep[200];
	memset(deep, '[', 40);
	memset(deep + 40, ']', 40);
	deep[80] = 0;
	j = parse(deep, err, sizeof(err), &rc);
	CHECK("json: nesting beyond 32 refused", rc == -EINVAL && strstr(err, "less nesting"), "%d %s", rc, err);
	deep[30] = 0;
	memset(deep, '[', 15);
	memset(deep + 15, ']', 15);
	j = parse(deep, err, sizeof(err), &rc);
	CHECK("json: nesting of 15 reads", !rc && j, "%d %s", rc, err);
	kl_json_free(j);
	return CHECK_DONE();
}
