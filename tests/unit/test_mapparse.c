/* test_mapparse.c — kiln_map_parse_key/_value on the maps of tests/lib/mapkeys.lisp (compiled
 * in memory and loaded): the flow key, a value of every kind (u8 u16 u32 u64 i32,
 * ipv6, char[16], a nested struct, a u32 array) parsed, written, looked up, and compared byte
 * for byte with the same struct laid out by the C compiler; a struct key; per-CPU values once
 * or per CPU; signed ranges and hex bit patterns; an lpm prefix; the errors, in the type's
 * words; bitfields, on a map created with BTF built here; a map without BTF (integers and
 * hex as before). */
#include "check.h"
#include <kiln/kiln.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tests/lib/mapkeys.lisp's structs as C lays them out (the BTF kiln writes agrees) */
struct flow {
	uint8_t saddr[4], daddr[4];
	uint16_t sport, dport;
};
struct rec {
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;
	int32_t e;
	uint8_t addr6[16];
	char name[16];
	struct flow inner;
	uint32_t nums[4];
};
_Static_assert(sizeof(struct flow) == 12 && sizeof(struct rec) == 80, "mapkeys.lisp's layouts");

static const char rec_json[] =
	"{\"a\":255,\"b\":65535,\"c\":4294967295,\"d\":18446744073709551615,\"e\":-2147483648,"
	"\"addr6\":\"fd00::1\",\"name\":\"hello world\",\"inner\":{\"saddr\":\"192.168.1.2\","
	"\"daddr\":\"10.1.2.3\",\"sport\":1234,\"dport\":443},\"nums\":[1,2,3]}";

/* The failure of parsing text as m's key (or value): the errno, and the message holding want. */
static void check_error(const char *name, struct kiln_map *m, bool key, const char *text, int want_err,
			const char *want)
{
	uint8_t buf[4096];
	int err = key ? kiln_map_parse_key(m, text, buf, sizeof(buf)) : kiln_map_parse_value(m, text, buf, sizeof(buf));
	CHECK(name, err == want_err && strstr(kiln_errmsg(), want), "%d '%s' (wanted %d '%s')", err, kiln_errmsg(),
	      want_err, want);
}

static void test_flow(struct kiln_object *obj)
{
	struct kiln_map *m = kiln_object_find_map(obj, "flows");
	struct flow key, want = { .saddr = { 10, 0, 0, 1 }, .dport = 80 };
	uint64_t v = 0, got = 0;
	int err = kiln_map_parse_key(m, "{\"saddr\": \"10.0.0.1\", \"dport\": 80}", &key, sizeof(key));
	CHECK("flow key: the issue's example parses", !err, "%s", kiln_errmsg());
	CHECK("flow key: its bytes", !memcmp(&key, &want, sizeof(key)), "saddr %u.%u.%u.%u dport %u", key.saddr[0],
	      key.saddr[1], key.saddr[2], key.saddr[3], key.dport);
	err = err ? err : kiln_map_parse_value(m, "1", &v, sizeof(v));
	err = err ? err : kiln_map_update(m, &key, &v, BPF_ANY);
	err = err ? err : kiln_map_lookup(m, &want, &got);
	CHECK("flow key: written and found by the C struct", !err && got == 1, "%d %s", err, kiln_errmsg());
	/* the integer a reader without BTF shows for an ipv4 field reads back the same */
	uint32_t n;
	memcpy(&n, want.saddr, 4);
	char text[96];
	snprintf(text, sizeof(text), "{\"saddr\":%u,\"dport\":80}", n);
	err = kiln_map_parse_key(m, text, &key, sizeof(key));
	CHECK("flow key: an ipv4 as the integer of its bytes", !err && !memcmp(&key, &want, sizeof(key)), "%s",
	      kiln_errmsg());
	check_error("error: u16 out of range", m, true, "{\"saddr\": \"10.0.0.1\", \"dport\": 70000}", -ERANGE,
		    "key field 'dport' is a u16: 70000 is out of range (0..65535)");
	check_error("error: unknown field, nearest named", m, true, "{\"sadr\": 1}", -ENOENT,
		    "key: struct flow has no field 'sadr'; did you mean saddr or daddr?");
	check_error("error: not an address", m, true, "{\"daddr\": \"10.0.0\"}", -EINVAL,
		    "key field 'daddr' is an ipv4 address (10.0.0.1): '10.0.0' is not a dotted address");
	check_error("error: a string for a number", m, true, "{\"dport\": \"http\"}", -EINVAL,
		    "key field 'dport' is a u16: 'http' is not a number");
	check_error("error: an object for a number", m, true, "{\"dport\": {}}", -EINVAL,
		    "key field 'dport' is a u16: an object is not a number");
	check_error("error: not JSON", m, true, "{\"dport\" 1}", -EINVAL, "is not JSON: at offset 9: ':'");
	check_error("error: a word for a struct", m, true, "x", -EINVAL,
		    "key is a struct flow (a JSON object): 'x' is neither a JSON object nor 0x and its 12 bytes in hex");
	uint8_t small[4];
	err = kiln_map_parse_key(m, "{}", small, sizeof(small));
	CHECK("error: a buffer too small is refused", err == -ENOSPC && strstr(kiln_errmsg(), "keys are 12 bytes, the buffer 4"),
	      "%d %s", err, kiln_errmsg());
	/* today's spelling still reads: 0x and every byte */
	err = kiln_map_parse_key(m, "0x0a0000010000000000005000", &key, sizeof(key));
	CHECK("flow key: 0x and every byte, as before", !err && !memcmp(&key, &want, sizeof(key)), "%s", kiln_errmsg());
}

/* A key that is an ipv4_addr itself: dotted, or the integer a reader without BTF shows. */
static void test_addr_key(struct kiln_object *obj)
{
	struct kiln_map *m = kiln_object_find_map(obj, "by-addr");
	uint8_t k[4], want[4] = { 10, 0, 0, 1 };
	int err = kiln_map_parse_key(m, "10.0.0.1", k, sizeof(k));
	CHECK("ipv4 key: dotted", !err && !memcmp(k, want, 4), "%s", kiln_errmsg());
	err = kiln_map_parse_key(m, "16777226", k, sizeof(k));
	CHECK("ipv4 key: as a bare integer", !err && !memcmp(k, want, 4), "%s", kiln_errmsg());
	check_error("ipv4 key: 10.0.0", m, true, "10.0.0", -EINVAL, "key is an ipv4 address (10.0.0.1): '10.0.0' is not");
}

static void test_rec(struct kiln_object *obj)
{
	struct kiln_map *m = kiln_object_find_map(obj, "recs");
	struct rec v, got, want = {
		.a = 255, .b = 65535, .c = UINT32_MAX, .d = UINT64_MAX, .e = INT32_MIN,
		.addr6 = { 0xfd, [15] = 1 }, .name = "hello world",
		.inner = { .saddr = { 192, 168, 1, 2 }, .daddr = { 10, 1, 2, 3 }, .sport = 1234, .dport = 443 },
		.nums = { 1, 2, 3 },
	};
	uint32_t k;
	memset(&v, 0xaa, sizeof(v));   /* the parse zeroes what the text leaves out, padding too */
	int err = kiln_map_parse_key(m, "7", &k, sizeof(k));
	err = err ? err : kiln_map_parse_value(m, rec_json, &v, sizeof(v));
	CHECK("rec: every kind parses", !err, "%s", kiln_errmsg());
	CHECK("rec: the bytes C lays out", !memcmp(&v, &want, sizeof(v)), "a %u b %u c %u e %d name %.16s nums %u,%u,%u,%u",
	      v.a, v.b, v.c, v.e, v.name, v.nums[0], v.nums[1], v.nums[2], v.nums[3]);
	err = err ? err : kiln_map_update(m, &k, &v, BPF_ANY);
	memset(&got, 0, sizeof(got));
	err = err ? err : kiln_map_lookup(m, &k, &got);
	CHECK("rec: written and read back", !err && k == 7 && !memcmp(&got, &want, sizeof(got)), "%d %s", err,
	      kiln_errmsg());
	/* what kiln_map_format_kv writes (JSON) reads back to the same bytes */
	char text[2048];
	int n = kiln_map_format_kv(m, &k, &got, KILN_MAP_FMT_JSON, text, sizeof(text));
	char *val = n > 0 ? strstr(text, ",\"value\":") : NULL;
	if (val) {
		val += strlen(",\"value\":");
		val[strlen(val) - 1] = 0;   /* the closing brace of {"key":..,"value":..} */
	}
	err = val ? kiln_map_parse_value(m, val, &v, sizeof(v)) : -1;
	CHECK("rec: the decoder's JSON reads back", !err && !memcmp(&v, &want, sizeof(v)), "%d %s: %s", err,
	      kiln_errmsg(), val ? val : text);
	err = kiln_map_parse_value(m, "{\"name\":\"0123456789abcdef\",\"addr6\":[253,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}",
				   &v, sizeof(v));
	CHECK("rec: a string of 16 bytes fills char[16]; an ipv6 as 16 bytes", !err && !memcmp(v.name, "0123456789abcdef", 16) &&
	      !memcmp(v.addr6, want.addr6, 16), "%s", kiln_errmsg());
	err = kiln_map_parse_value(m, "{\"e\":0xffffffff,\"inner\":{\"dport\":true}}", &v, sizeof(v));
	CHECK("rec: hex fills an i32's bits; true is 1", !err && v.e == -1 && v.inner.dport == 1, "%d %s", v.e,
	      kiln_errmsg());
	check_error("error: char[16] too long", m, false, "{\"name\":\"0123456789abcdefg\"}", -E2BIG,
		    "value field 'name' is a char[16] (a string): \"0123456789abcdefg\" is 17 bytes, 16 at most");
	check_error("error: i32 too big", m, false, "{\"e\":2147483648}", -ERANGE,
		    "value field 'e' is an i32: 2147483648 is out of range (-2147483648..2147483647)");
	check_error("error: i32 too small", m, false, "{\"e\":-2147483649}", -ERANGE, "is an i32: -2147483649 is out of range");
	check_error("error: u8 negative", m, false, "{\"a\":-1}", -ERANGE, "value field 'a' is a u8: -1 is out of range (0..255)");
	check_error("error: u64 beyond 64 bits", m, false, "{\"d\":18446744073709551616}", -ERANGE,
		    "value field 'd' is a u64: 18446744073709551616 is out of range");
	check_error("error: nested field named by its path", m, false, "{\"inner\":{\"sport\":65536}}", -ERANGE,
		    "value field 'inner.sport' is a u16: 65536 is out of range");
	check_error("error: nested unknown field", m, false, "{\"inner\":{\"dprt\":1}}", -ENOENT,
		    "value field 'inner': struct flow has no field 'dprt'; did you mean dport or sport?");
	check_error("error: array too long", m, false, "{\"nums\":[1,2,3,4,5]}", -E2BIG,
		    "value field 'nums' is an array of 4 u32: 5 elements given, 4 at most");
	check_error("error: array element", m, false, "{\"nums\":[1,-2]}", -ERANGE, "value field 'nums[1]' is a u32: -2");
	check_error("error: ipv6", m, false, "{\"addr6\":\"fd00::g\"}", -EINVAL,
		    "value field 'addr6' is an ipv6 address (fd00::1): 'fd00::g' is not an address");
	/* a struct key */
	struct kiln_map *br = kiln_object_find_map(obj, "by-rec");
	struct rec rk, rwant = { .name = "k", .inner.dport = 7 };
	struct flow fv, fwant = { .saddr = { 1, 2, 3, 4 }, .sport = 9 };
	err = kiln_map_parse_key(br, "{\"name\":\"k\",\"inner\":{\"dport\":7}}", &rk, sizeof(rk));
	err = err ? err : kiln_map_parse_value(br, "{\"saddr\":\"1.2.3.4\",\"sport\":9}", &fv, sizeof(fv));
	err = err ? err : kiln_map_update(br, &rk, &fv, BPF_ANY);
	memset(&fv, 0, sizeof(fv));
	err = err ? err : kiln_map_lookup(br, &rwant, &fv);
	CHECK("struct key: written, found by the C struct", !err && !memcmp(&fv, &fwant, sizeof(fv)), "%d %s", err,
	      kiln_errmsg());
}

static void test_per_cpu(struct kiln_object *obj)
{
	struct kiln_map *m = kiln_object_find_map(obj, "per-cpu");
	size_t stride = kiln_map_value_stride(m), size = kiln_map_value_buf_size(m), ncpu = size / stride;
	uint8_t *buf = calloc(1, size), *got = calloc(1, size);
	int err = buf && got ? kiln_map_parse_value(m, "7", buf, size) : -ENOMEM;
	bool all = !err;
	for (size_t c = 0; c < ncpu && all; c++)
		all = *(uint64_t *)(buf + c * stride) == 7;
	CHECK("per-CPU: one value for every CPU", all, "%d %s", err, kiln_errmsg());
	char list[4096] = "[";
	for (size_t c = 0; c < ncpu; c++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%zu", c ? "," : "", 10 + c);
	strcat(list, "]");
	uint32_t k = 1;
	err = err ? err : kiln_map_parse_value(m, list, buf, size);
	err = err ? err : kiln_map_update(m, &k, buf, BPF_ANY);
	err = err ? err : kiln_map_lookup(m, &k, got);
	all = !err;
	for (size_t c = 0; c < ncpu && all; c++)
		all = *(uint64_t *)(got + c * stride) == 10 + c;
	CHECK("per-CPU: a list of one per CPU, written and read back", all, "%d %s", err, kiln_errmsg());
	strcpy(list + strlen(list) - 1, ",99]");
	char want[64];
	snprintf(want, sizeof(want), "one per possible CPU (%zu), not of %zu", ncpu, ncpu + 1);
	check_error("per-CPU: a list of the wrong length", m, false, list, -EINVAL, want);
	/* a per-CPU struct value: a list of objects */
	struct kiln_map *pf = kiln_object_find_map(obj, "per-cpu-flows");
	size_t fs = kiln_map_value_buf_size(pf), fstride = kiln_map_value_stride(pf);
	uint8_t *fb = calloc(1, fs);
	strcpy(list, "[");
	for (size_t c = 0; c < ncpu; c++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s{\"dport\":%zu}", c ? "," : "", c + 1);
	strcat(list, "]");
	err = fb ? kiln_map_parse_value(pf, list, fb, fs) : -ENOMEM;
	all = !err;
	for (size_t c = 0; c < ncpu && all; c++)
		all = ((struct flow *)(fb + c * fstride))->dport == c + 1;
	CHECK("per-CPU: a list of structs", all, "%d %s", err, kiln_errmsg());
	free(fb);
	free(buf);
	free(got);
}

static void test_small_and_lpm(struct kiln_object *obj)
{
	struct kiln_map *m = kiln_object_find_map(obj, "small");
	int16_t k;
	uint8_t v;
	int err = kiln_map_parse_key(m, "-32768", &k, sizeof(k));
	CHECK("i16: its least", !err && k == INT16_MIN, "%d %s", k, kiln_errmsg());
	err = kiln_map_parse_key(m, "0xffff", &k, sizeof(k));
	CHECK("i16: hex as its bits", !err && k == -1, "%d %s", k, kiln_errmsg());
	check_error("i16: 32768 out of range", m, true, "32768", -ERANGE, "key is an i16: 32768 is out of range (-32768..32767)");
	check_error("i16: 0x10000 out of range", m, true, "0x10000", -ERANGE, "key is an i16: 0x10000 is out of range");
	err = kiln_map_parse_value(m, "255", &v, sizeof(v));
	CHECK("u8: 255", !err && v == 255, "%u", v);
	check_error("u8: 256", m, false, "256", -ERANGE, "value is a u8: 256 is out of range (0..255)");
	check_error("u8: not a number", m, false, "12a", -EINVAL, "value is a u8: '12a' is not a number");

	struct kiln_map *r = kiln_object_find_map(obj, "routes");
	uint8_t key[8], want[8] = { 16, 0, 0, 0, 10, 99, 0, 0 };
	uint32_t rv = 5, got = 0;
	err = kiln_map_parse_key(r, "10.99.0.0/16", key, sizeof(key));
	CHECK("lpm: ADDRESS/PREFIXLEN", !err && !memcmp(key, want, 8), "%s", kiln_errmsg());
	err = err ? err : kiln_map_update(r, key, &rv, BPF_ANY);
	uint8_t probe[8] = { 32, 0, 0, 0, 10, 99, 7, 7 };
	err = err ? err : kiln_map_lookup(r, probe, &got);
	CHECK("lpm: the kernel's longest match finds it", !err && got == 5, "%d %s", err, kiln_errmsg());
	err = kiln_map_parse_key(r, "{\"prefixlen\":16,\"addr\":25354}", key, sizeof(key));
	CHECK("lpm: the key as its struct too", !err && !memcmp(key, want, 8), "%s", kiln_errmsg());
	check_error("lpm: /33", r, true, "10.0.0.0/33", -EINVAL, "not an address and a prefix length (0..32)");
	check_error("lpm: IPv6 in 8 bytes", r, true, "fd00::/16", -EINVAL, "too short for an IPv6 prefix");
}

/* Bitfields: a hash map keyed by a struct of them, with BTF made here. */
struct bits {
	uint32_t lo : 3, flag : 1, hi : 28;
	uint16_t port;
};

static void test_bitfields(void)
{
	struct btf *btf = btf__new_empty();
	int u32 = btf__add_int(btf, "unsigned int", 4, 0), u16 = btf__add_int(btf, "unsigned short", 2, 0);
	int s = btf__add_struct(btf, "bits", sizeof(struct bits));
	btf__add_field(btf, "lo", u32, 0, 3);
	btf__add_field(btf, "flag", u32, 3, 1);
	btf__add_field(btf, "hi", u32, 4, 28);
	btf__add_field(btf, "port", u16, 32, 0);
	int err = btf__load_into_kernel(btf);
	CHECK("bitfields: BTF loads", !err, "%d", err);
	struct kiln_map_spec spec = { .sz = sizeof(spec), .name = "kl_bits", .type = BPF_MAP_TYPE_HASH,
				      .key_size = sizeof(struct bits), .value_size = 4, .max_entries = 2,
				      .btf_fd = btf__fd(btf), .btf_key_type_id = (uint32_t)s, .btf_value_type_id = (uint32_t)u32 };
	struct kiln_map *m = NULL;
	err = err ? err : kiln_map_create(&spec, &m);
	CHECK("bitfields: a map with them", !err, "%s", kiln_errmsg());
	if (!err) {
		struct bits k, want = { .lo = 5, .flag = 1, .hi = (1u << 28) - 1, .port = 2 };
		memset(&k, 0xff, sizeof(k));
		err = kiln_map_parse_key(m, "{\"lo\":5,\"flag\":1,\"hi\":268435455,\"port\":2}", &k, sizeof(k));
		CHECK("bitfields: each in its bits", !err && !memcmp(&k, &want, sizeof(k)), "%s lo %u flag %u hi %u",
		      kiln_errmsg(), k.lo, k.flag, k.hi);
		err = kiln_map_parse_key(m, "{\"hi\":1}", &k, sizeof(k));
		CHECK("bitfields: one set, its neighbours zero", !err && k.hi == 1 && !k.lo && !k.flag && !k.port, "%s",
		      kiln_errmsg());
		check_error("bitfields: too wide", m, true, "{\"lo\":8}", -ERANGE,
			    "key field 'lo' is a 3-bit unsigned bitfield: 8 is out of range (0..7)");
	}
	kiln_map_close(m);
	btf__free(btf);
}

/* A map without BTF: integers and hex, as kiln map read them before. */
static void test_no_btf(void)
{
	struct kiln_map_spec spec = { .sz = sizeof(spec), .name = "kl_nobtf", .type = BPF_MAP_TYPE_HASH, .key_size = 4,
				      .value_size = 16, .max_entries = 2 };
	struct kiln_map *m = NULL;
	int err = kiln_map_create(&spec, &m);
	CHECK("no BTF: a map", !err, "%s", kiln_errmsg());
	if (err)
		return;
	uint32_t k;
	uint8_t v[16], want[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	err = kiln_map_parse_key(m, "0x10", &k, sizeof(k));
	CHECK("no BTF: an integer in hex", !err && k == 16, "%u %s", k, kiln_errmsg());
	err = kiln_map_parse_key(m, "-1", &k, sizeof(k));
	CHECK("no BTF: a negative integer", !err && k == UINT32_MAX, "%u", k);
	err = kiln_map_parse_value(m, "0x000102030405060708090a0b0c0d0e0f", v, sizeof(v));
	CHECK("no BTF: 0x and every byte", !err && !memcmp(v, want, 16), "%s", kiln_errmsg());
	check_error("no BTF: out of range", m, true, "4294967296", -ERANGE, "key '4294967296' is not in range for its size");
	check_error("no BTF: not a number", m, true, "{\"a\":1}", -EINVAL, "is not an integer");
	kiln_map_close(m);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_mapparse: needs root (the tests load maps into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/mapkeys.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	err = err ? err : kiln_object_load(obj);
	CHECK("mapkeys.lisp: compiled in memory and loaded", !err, "%d %s", err, kiln_errmsg());
	if (!err) {
		test_flow(obj);
		test_rec(obj);
		test_addr_key(obj);
		test_per_cpu(obj);
		test_small_and_lpm(obj);
	}
	kiln_object_close(obj);
	test_bitfields();
	test_no_btf();
	CHECK("no fd leaked", check_open_fds() == fds_before, "%d then %d", fds_before, check_open_fds());
	return CHECK_DONE();
}
