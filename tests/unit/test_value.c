/* test_value.c — libkiln's one value printer (kiln/value.h) alone, on BTF built here: integers
 * of each width and signedness, enums, bools, char arrays as strings (and as hex when they are
 * not text), integer arrays, a nested struct, an ipv4_addr, a bitfield and padding members, in
 * both spellings (KILN_VALUE_C as `kiln map` prints, KILN_VALUE_FIELDS as events decode) and
 * both outputs (text and JSON); one field of a layout alone (the metrics exporter's labels);
 * the rules the styles differ by (anonymous members, arrays of structs, byte arrays, arrays of
 * addresses, stack ids, wide integers, pointers); values without a type; snprintf's
 * convention; a short value; a record of each struct decoded (by its layout's plan) as the
 * struct's value prints, and a short record; numbers of every length. */
#include "check.h"
#include <kiln/kiln.h>
#include <bpf/btf.h>
#include <errno.h>
#include <string.h>

static struct btf *btf;
static struct kiln_events *layouts;
static char out[1024];

/* Layouts point into the BTF's strings, which adding a type may move: the tests add types as
 * they go, so each check that reads layouts makes them again from the BTF as it is now. */
static void relayout(void)
{
	kiln_events_free(layouts);
	layouts = NULL;
	int err = kiln_events_from_btf(btf, &layouts);
	CHECK("value: layouts of the BTF as it is now", !err, "%d", err);
}

/* the value as style and json print it; its return value in *rc */
static const char *fmt(uint32_t id, const void *data, size_t size, enum kiln_value_style style, bool json, int *rc)
{
	struct kiln_value_fmt f = { .sz = sizeof(f), .json = json, .style = style, .layouts = layouts };
	*rc = kiln_value_format(btf, id, data, size, &f, out, sizeof(out));
	return out;
}

static void expect(const char *name, uint32_t id, const void *data, size_t size, enum kiln_value_style style,
		   bool json, const char *want)
{
	int rc;
	const char *got = fmt(id, data, size, style, json, &rc);
	CHECK(name, rc == (int)strlen(want) && !strcmp(got, want), "rc %d: got '%s', want '%s'", rc, got, want);
}

/* each style in text and JSON */
static void expect4(const char *name, uint32_t id, const void *data, size_t size, const char *c_text,
		    const char *c_json, const char *f_text, const char *f_json)
{
	char n[128];
	relayout();
	snprintf(n, sizeof(n), "value: %s (C, text)", name);
	expect(n, id, data, size, KILN_VALUE_C, false, c_text);
	snprintf(n, sizeof(n), "value: %s (C, JSON)", name);
	expect(n, id, data, size, KILN_VALUE_C, true, c_json);
	snprintf(n, sizeof(n), "value: %s (fields, text)", name);
	expect(n, id, data, size, KILN_VALUE_FIELDS, false, f_text);
	snprintf(n, sizeof(n), "value: %s (fields, JSON)", name);
	expect(n, id, data, size, KILN_VALUE_FIELDS, true, f_json);
}

/* A record of struct `name` decodes (kiln_event_format, by the layout's plan) to what the
 * walk prints of it as a value (KILN_VALUE_FIELDS), after the event's name. */
static void same_as_record(const char *name, const void *data, size_t size)
{
	relayout();
	const struct kiln_event *ev = kiln_events_find(layouts, name);
	for (int json = 0; json < 2; json++) {
		char want[2048], got[2048], n[96];
		int rc;
		uint32_t id = (uint32_t)btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
		fmt(id, data, size, KILN_VALUE_FIELDS, json, &rc);
		size_t len = strlen(out);
		if (json)
			snprintf(want, sizeof(want), "{\"event\":\"%s\"%s%s", name, len > 2 ? "," : "", out + 1);
		else
			snprintf(want, sizeof(want), "%s%s%.*s", name, len > 2 ? " " : "", (int)(len - 2), out + 1);
		struct kiln_event_fmt ef = { .sz = sizeof(ef), .json = json, .cpu = -1 };
		rc = ev ? kiln_event_format(ev, data, size, &ef, got, sizeof(got)) : -1;
		snprintf(n, sizeof(n), "value: a record of %s as its value prints (%s)", name, json ? "JSON" : "text");
		CHECK(n, rc == (int)strlen(want) && !strcmp(got, want), "%d: got '%s', want '%s'", rc, got, want);
	}
}

static void test_ints(void)
{
	static const struct { const char *name; int size; bool sign; const char *all_ones; } ints[] = {
		{ "signed char", 1, true, "-1" },          { "unsigned char", 1, false, "255" },
		{ "short", 2, true, "-1" },                { "unsigned short", 2, false, "65535" },
		{ "int", 4, true, "-1" },                  { "unsigned int", 4, false, "4294967295" },
		{ "long long", 8, true, "-1" },            { "unsigned long long", 8, false, "18446744073709551615" },
	};
	uint8_t ones[8], small[8] = { 42 };
	memset(ones, 0xff, sizeof(ones));
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		int id = btf__add_int(btf, ints[i].name, ints[i].size, ints[i].sign ? BTF_INT_SIGNED : 0);
		char n[64];
		snprintf(n, sizeof(n), "%s all ones", ints[i].name);
		expect4(n, (uint32_t)id, ones, (size_t)ints[i].size, ints[i].all_ones, ints[i].all_ones, ints[i].all_ones,
			ints[i].all_ones);
		snprintf(n, sizeof(n), "%s 42", ints[i].name);
		expect4(n, (uint32_t)id, small, (size_t)ints[i].size, "42", "42", "42", "42");
	}
	/* every number of digits, each side of a power of ten */
	uint32_t ull = (uint32_t)btf__find_by_name(btf, "unsigned long long");
	uint64_t p = 1;
	for (int digits = 1; digits <= 20; digits++, p *= 10) {
		uint64_t vs[] = { p - 1, p, p + 1, p * 9 + 7 };
		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
			char want[32], n[64];
			snprintf(want, sizeof(want), "%llu", (unsigned long long)vs[i]);
			snprintf(n, sizeof(n), "value: %s", want);
			expect(n, ull, &vs[i], 8, KILN_VALUE_FIELDS, false, want);
		}
	}
}

static void test_enum_bool(void)
{
	int e = btf__add_enum(btf, "color", 4);
	btf__add_enum_value(btf, "RED", 0);
	btf__add_enum_value(btf, "BLUE", 3);
	uint32_t three = 3, ones = 0xffffffff;
	expect4("enum 3", (uint32_t)e, &three, 4, "3", "3", "3", "3");
	/* an enum of no negative value: `kiln map` has always read it signed, events unsigned */
	expect4("enum all ones", (uint32_t)e, &ones, 4, "-1", "-1", "4294967295", "4294967295");
	int b = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	uint8_t t = 1, f = 0;
	expect4("bool true", (uint32_t)b, &t, 1, "true", "true", "1", "1");
	expect4("bool false", (uint32_t)b, &f, 1, "false", "false", "0", "0");
}

static void test_strings(void)
{
	int ch = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	int arr = btf__add_array(btf, btf__find_by_name(btf, "int"), (uint32_t)ch, 8);
	char bash[8] = "bash", spaced[8] = "a b", ctrl[8] = "\001ab";
	expect4("char[8] text", (uint32_t)arr, bash, 8, "\"bash\"", "\"bash\"", "bash", "\"bash\"");
	expect4("char[8] with a space", (uint32_t)arr, spaced, 8, "\"a b\"", "\"a b\"", "\"a b\"", "\"a b\"");
	/* not text: `kiln map` shows the bytes, events escape them */
	expect("value: char[8] not text (C, text)", (uint32_t)arr, ctrl, 8, KILN_VALUE_C, false, "0x0161620000000000");
	expect("value: char[8] not text (C, JSON)", (uint32_t)arr, ctrl, 8, KILN_VALUE_C, true, "\"0x0161620000000000\"");
	expect("value: char[8] not text (fields, JSON)", (uint32_t)arr, ctrl, 8, KILN_VALUE_FIELDS, true,
	       "\"\\u0001ab\"");
}

/* struct outer { int x; char name[8]; int v[3]; enum color c; struct inner { short a;
 * unsigned char b; } in; ipv4_addr ip; unsigned int bits:3; _Bool ok; long long big; } */
static void test_struct(void)
{
	uint32_t i32 = (uint32_t)btf__find_by_name(btf, "int"), u32 = (uint32_t)btf__find_by_name(btf, "unsigned int");
	uint32_t i16 = (uint32_t)btf__find_by_name(btf, "short"), u8 = (uint32_t)btf__find_by_name(btf, "unsigned char");
	uint32_t chr = (uint32_t)btf__find_by_name(btf, "char"), col = (uint32_t)btf__find_by_name(btf, "color");
	uint32_t bl = (uint32_t)btf__find_by_name(btf, "_Bool"), i64 = (uint32_t)btf__find_by_name(btf, "long long");
	uint32_t name = (uint32_t)btf__add_array(btf, i32, chr, 8), v = (uint32_t)btf__add_array(btf, i32, i32, 3);
	uint32_t ip = (uint32_t)btf__add_typedef(btf, "ipv4_addr", u32);
	uint32_t inner = (uint32_t)btf__add_struct(btf, "inner", 4);
	btf__add_field(btf, "a", i16, 0, 0);
	btf__add_field(btf, "b", u8, 16, 0);
	uint32_t outer = (uint32_t)btf__add_struct(btf, "outer", 56);
	btf__add_field(btf, "x", i32, 0, 0);
	btf__add_field(btf, "name", name, 32, 0);
	btf__add_field(btf, "v", v, 96, 0);
	btf__add_field(btf, "c", col, 192, 0);
	btf__add_field(btf, "in", inner, 224, 0);
	btf__add_field(btf, "ip", ip, 256, 0);
	btf__add_field(btf, "bits", u32, 288, 3);
	btf__add_field(btf, "ok", bl, 320, 0);
	btf__add_field(btf, "big", i64, 384, 0);
	uint8_t d[56] = { 0 };
	int32_t x = -5, vv[3] = { 1, -2, 3 };
	uint32_t c = 3;
	int16_t a = -7;
	int64_t big = -9000000000LL;
	memcpy(d, &x, 4);
	memcpy(d + 4, "bash", 4);
	memcpy(d + 12, vv, 12);
	memcpy(d + 24, &c, 4);
	memcpy(d + 28, &a, 2);
	d[30] = 200;
	memcpy(d + 32, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	d[36] = 0xfd;              /* bits 0..2 hold 5; the bits above are not the field's */
	d[40] = 1;
	memcpy(d + 48, &big, 8);
	expect4("nested struct", outer, d, sizeof(d),
		"{x: -5, name: \"bash\", v: [1, -2, 3], c: 3, in: {a: -7, b: 200}, ip: 10.0.0.1, bits: 5, ok: true, "
		"big: -9000000000}",
		"{\"x\":-5,\"name\":\"bash\",\"v\":[1,-2,3],\"c\":3,\"in\":{\"a\":-7,\"b\":200},\"ip\":\"10.0.0.1\","
		"\"bits\":5,\"ok\":true,\"big\":-9000000000}",
		"{x=-5 name=bash v=[1 -2 3] c=3 in={a=-7 b=200} ip=10.0.0.1 bits=5 ok=1 big=-9000000000}",
		"{\"x\":-5,\"name\":\"bash\",\"v\":[1,-2,3],\"c\":3,\"in\":{\"a\":-7,\"b\":200},\"ip\":\"10.0.0.1\","
		"\"bits\":5,\"ok\":1,\"big\":-9000000000}");
	same_as_record("outer", d, sizeof(d));
	struct kiln_event_fmt ef = { .sz = sizeof(ef), .cpu = -1 };
	const struct kiln_event *oev = kiln_events_find(layouts, "outer");
	int n = oev ? kiln_event_format(oev, d, 40, &ef, out, sizeof(out)) : -1;
	CHECK("value: a short record stops before the first member it does not hold",
	      n > 0 && !strcmp(out, "outer x=-5 name=bash v=[1 -2 3] c=3 in={a=-7 b=200} ip=10.0.0.1 bits=5 (truncated)"),
	      "%d '%s'", n, out);

	/* padding: `kiln map` leaves padding* out of text only; events leave _* and pad* out */
	uint32_t pad = (uint32_t)btf__add_struct(btf, "padded", 12);
	btf__add_field(btf, "a", u32, 0, 0);
	btf__add_field(btf, "_reserved", u32, 32, 0);
	btf__add_field(btf, "padding1", u32, 64, 0);
	uint32_t pv[3] = { 1, 2, 3 };
	expect4("padding", pad, pv, sizeof(pv), "{a: 1, _reserved: 2}", "{\"a\":1,\"_reserved\":2,\"padding1\":3}",
		"{a=1}", "{\"a\":1}");
	same_as_record("padded", pv, sizeof(pv));

	int rc;
	fmt(outer, d, 40, KILN_VALUE_FIELDS, false, &rc);
	CHECK("value: a value short of its type is -ERANGE (fields)", rc == -ERANGE, "%d", rc);
	fmt(outer, d, 40, KILN_VALUE_C, false, &rc);
	CHECK("value: a value short of its type is bytes (C)", rc == 82 && !strncmp(out, "0x", 2), "%d %s", rc, out);

	/* one field of the layout, as the metrics exporter labels a series */
	const struct kiln_event *ev = kiln_events_find(layouts, "outer");
	static const struct { const char *field; bool json; const char *want; } one[] = {
		{ "x", false, "-5" }, { "ip", false, "10.0.0.1" }, { "ip", true, "\"10.0.0.1\"" },
		{ "bits", false, "5" }, { "name", false, "bash" }, { "in", false, "{a=-7 b=200}" },
	};
	for (size_t i = 0; ev && i < sizeof(one) / sizeof(one[0]); i++) {
		const struct kiln_event_field *fl = kiln_event_field_by_name(ev, one[i].field);
		rc = fl ? kiln_value_format_field(fl, d, sizeof(d), one[i].json, out, sizeof(out)) : -1;
		char n[96];
		snprintf(n, sizeof(n), "value: field %s alone (%s)", one[i].field, one[i].json ? "JSON" : "text");
		CHECK(n, rc == (int)strlen(one[i].want) && !strcmp(out, one[i].want), "%d '%s'", rc, out);
	}
	const struct kiln_event_field *big_f = ev ? kiln_event_field_by_name(ev, "big") : NULL;
	rc = big_f ? kiln_value_format_field(big_f, d, 50, false, out, sizeof(out)) : 0;
	CHECK("value: a field past the record is -ERANGE", rc == -ERANGE, "%d", rc);

	struct kiln_value_fmt f = { .sz = sizeof(f), .style = KILN_VALUE_C };
	char tiny[6];
	rc = kiln_value_format(btf, outer, d, sizeof(d), &f, tiny, sizeof(tiny));
	CHECK("value: snprintf's convention (the whole length, what fits, NUL-terminated)",
	      rc > 100 && !strcmp(tiny, "{x: -"), "%d '%s'", rc, tiny);
}

/* The rules the two styles differ by that the struct above does not show: anonymous members,
 * arrays of structs and of arrays, byte arrays (over 16, unsigned char, u8), arrays of
 * addresses, stack ids, integers of 16 bytes, pointers. */
static void test_rules(void)
{
	uint32_t i32 = (uint32_t)btf__find_by_name(btf, "int"), u32 = (uint32_t)btf__find_by_name(btf, "unsigned int");
	uint32_t i16 = (uint32_t)btf__find_by_name(btf, "short"), uchar = (uint32_t)btf__find_by_name(btf, "unsigned char");
	uint32_t ip = (uint32_t)btf__find_by_name(btf, "ipv4_addr");

	uint32_t anon = (uint32_t)btf__add_union(btf, NULL, 4);
	btf__add_field(btf, "b", i32, 0, 0);
	btf__add_field(btf, "c", u32, 0, 0);
	uint32_t with_anon = (uint32_t)btf__add_struct(btf, "with_anon", 8);
	btf__add_field(btf, "a", i32, 0, 0);
	btf__add_field(btf, NULL, anon, 32, 0);
	int32_t wa[2] = { 1, 2 };
	/* `kiln map` leaves anonymous members out; events read their members as the struct's */
	expect4("anonymous union", with_anon, wa, sizeof(wa), "{a: 1}", "{\"a\":1}", "{a=1 b=2 c=2}",
		"{\"a\":1,\"b\":2,\"c\":2}");
	same_as_record("with_anon", wa, sizeof(wa));

	uint32_t pt = (uint32_t)btf__add_struct(btf, "pt", 4);
	btf__add_field(btf, "x", i16, 0, 0);
	btf__add_field(btf, "y", i16, 16, 0);
	uint32_t pts = (uint32_t)btf__add_array(btf, i32, pt, 2);
	int16_t pv[4] = { 1, 2, 3, 4 };
	same_as_record("pt", pv, 4);
	expect4("array of structs", pts, pv, sizeof(pv), "[{x: 1, y: 2}, {x: 3, y: 4}]",
		"[{\"x\":1,\"y\":2},{\"x\":3,\"y\":4}]", "0x0100020003000400", "\"0x0100020003000400\"");
	uint32_t row = (uint32_t)btf__add_array(btf, i32, i32, 2), grid = (uint32_t)btf__add_array(btf, i32, row, 2);
	int32_t gv[4] = { 1, 2, 3, 4 };
	expect4("array of arrays", grid, gv, sizeof(gv), "[[1, 2], [3, 4]]", "[[1,2],[3,4]]",
		"0x01000000020000000300000004000000", "\"0x01000000020000000300000004000000\"");

	uint32_t u8 = (uint32_t)btf__add_typedef(btf, "u8", uchar);
	uint32_t u8_20 = (uint32_t)btf__add_array(btf, i32, u8, 20), u8_4 = (uint32_t)btf__add_array(btf, i32, u8, 4);
	uint32_t uc_4 = (uint32_t)btf__add_array(btf, i32, uchar, 4);
	uint8_t bytes[20];
	for (int i = 0; i < 20; i++)
		bytes[i] = (uint8_t)i;
	expect4("u8[20]", u8_20, bytes, sizeof(bytes), "0x000102030405060708090a0b0c0d0e0f10111213",
		"\"0x000102030405060708090a0b0c0d0e0f10111213\"", "[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19]",
		"[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]");
	uint8_t abc[4] = "abc";
	expect4("u8[4]", u8_4, abc, sizeof(abc), "[97, 98, 99, 0]", "[97,98,99,0]", "[97 98 99 0]", "[97,98,99,0]");
	expect4("unsigned char[4]", uc_4, abc, sizeof(abc), "\"abc\"", "\"abc\"", "[97 98 99 0]", "[97,98,99,0]");

	uint32_t ips = (uint32_t)btf__add_array(btf, i32, ip, 2);
	uint8_t iv[8] = { 10, 0, 0, 1, 10, 0, 0, 2 };
	expect4("ipv4_addr[2]", ips, iv, sizeof(iv), "[10.0.0.1, 10.0.0.2]", "[\"10.0.0.1\",\"10.0.0.2\"]",
		"[16777226 33554442]", "[16777226,33554442]");

	uint32_t ks = (uint32_t)btf__add_typedef(btf, "kstack_id", i32);
	int32_t sid = 7;
	/* a stack id: events symbolize it (here no stacks map: null in JSON) */
	expect4("kstack_id", ks, &sid, 4, "7", "7", "7", "null");

	uint32_t wide = (uint32_t)btf__add_int(btf, "__int128", 16, BTF_INT_SIGNED);
	uint8_t w16[16] = { 5 };
	expect4("__int128", wide, w16, 16, "0x05000000000000000000000000000000", "\"0x05000000000000000000000000000000\"",
		"5", "5");

	uint32_t ptr = (uint32_t)btf__add_ptr(btf, i32);
	uint64_t pval = 0x1234;
	expect4("pointer", ptr, &pval, 8, "0x1234", "\"0x1234\"", "0x1234", "\"0x1234\"");
}

static void test_untyped(void)
{
	uint8_t four[4] = { 1, 2, 0, 0 }, three[3] = { 1, 2, 3 };
	expect("value: no type, 4 bytes, as an integer (C)", 0, four, 4, KILN_VALUE_C, false, "513");
	expect("value: no type, 3 bytes, as hex (C)", 0, three, 3, KILN_VALUE_C, false, "0x010203");
	expect("value: no type, as quoted hex (C, JSON)", 0, three, 3, KILN_VALUE_C, true, "\"0x010203\"");
	expect("value: no type, as hex (fields)", 0, four, 4, KILN_VALUE_FIELDS, false, "0x01020000");
	uint32_t u32 = (uint32_t)btf__find_by_name(btf, "unsigned int");
	expect("value: a type of another size is an integer (C)", u32, three, 2, KILN_VALUE_C, false, "513");
}

int main(void)
{
	btf = btf__new_empty();
	int err = btf ? kiln_events_from_btf(btf, &layouts) : -1;
	CHECK("value: BTF and its layouts", btf && !err, "%d", err);
	if (!btf || err)
		return 1;
	test_ints();
	test_enum_bool();
	test_strings();
	test_struct();
	test_rules();
	test_untyped();
	kiln_events_free(layouts);
	btf__free(btf);
	return check_failures ? 1 : 0;
}
