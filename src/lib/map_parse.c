/* map_parse.c — keys and values from text, typed by the map's BTF (kiln_map_parse_key and
 * kiln_map_parse_value): integers range-checked for their width, structs as JSON objects,
 * arrays as JSON arrays, char arrays as strings, ipv4_addr/ipv6_addr as addresses, lpm-trie
 * keys as ADDRESS/PREFIXLEN, per-CPU values once for every CPU or one per CPU. The types are
 * read as the event decoder reads them (kl_event_classify), so what `kiln map get` and events
 * print is what reads back in. Without BTF: an integer, or 0x and every byte in hex. */
#include "kiln/map.h"
#include "kiln/event.h"
#include "compiler/nearest.h"
#include "event_internal.h"
#include "fail.h"
#include "json.h"
#include "map_internal.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- without BTF ------------------------------------------------------------------------ */

/* A whole number: decimal or 0x hex, with an optional sign. */
static int read_number(const char *s, bool *neg, bool *hex, uint64_t *mag)
{
	*neg = *s == '-';
	s += *s == '-' || *s == '+';
	*hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (*hex)
		s += 2;
	if (!*s)
		return -EINVAL;
	uint64_t v = 0;
	for (; *s; s++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' : *hex && isxdigit((unsigned char)*s)
				? tolower((unsigned char)*s) - 'a' + 10 : -1;
		if (d < 0)
			return -EINVAL;
		unsigned base = *hex ? 16 : 10;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*mag = v;
	return 0;
}

int kl_map_parse_raw(const char *s, void *out, size_t size)
{
	memset(out, 0, size);
	if (!size)
		return -EINVAL;
	const char *hex = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2) ? s + 2 : NULL;
	if (hex && size > 8) {
		/* wider than an integer: the bytes in the order written, e.g. a 16-byte key */
		if (strlen(hex) != 2 * size)
			return -EINVAL;
		for (size_t i = 0; i < size; i++) {
			char two[3] = { hex[2 * i], hex[2 * i + 1], 0 };
			if (!isxdigit((unsigned char)two[0]) || !isxdigit((unsigned char)two[1]))
				return -EINVAL;
			((uint8_t *)out)[i] = (uint8_t)strtoul(two, NULL, 16);
		}
		return 0;
	}
	size_t n = size > 8 ? 8 : size;   /* an integer into the first 8 bytes of a wider value */
	bool neg, ishex;
	uint64_t mag;
	int err = read_number(s, &neg, &ishex, &mag);
	if (err)
		return err;
	if (neg ? n < 8 && mag > (1ull << (8 * n - 1)) : n < 8 && mag >> (8 * n))
		return -ERANGE;
	if (neg && mag > (1ull << 63))
		return -ERANGE;
	uint64_t v = neg ? 0 - mag : mag;
	memcpy(out, &v, n);
	return 0;
}

int kiln_map_parse_raw(const char *s, void *out, size_t size)
{
	return kl_map_parse_raw(s, out, size);
}

/* ---- by BTF ----------------------------------------------------------------------------- */

struct ctx {
	const char *what;           /* "key" or "value" */
	char path[160];             /* the field being written ("dport", "inner.port"); "" at the top */
};

/* "key field 'dport'" or "key". */
static const char *where(const struct ctx *c, char *buf, size_t n)
{
	if (c->path[0])
		snprintf(buf, n, "%s field '%s'", c->what, c->path);
	else
		snprintf(buf, n, "%s", c->what);
	return buf;
}

/* What the BTF type wants, with its article: "a u16", "an i32", "a char[16]"... */
static const char *type_desc(const struct kiln_event_field *f, char *buf, size_t n)
{
	char t[96];
	switch (f->kind) {
	case KILN_FIELD_INT:
		if (f->bit_size)
			snprintf(t, sizeof(t), "%u-bit %s bitfield", f->bit_size, f->is_signed ? "signed" : "unsigned");
		else
			snprintf(t, sizeof(t), "%c%u", f->is_signed ? 'i' : 'u', f->size * 8);
		break;
	case KILN_FIELD_CHARS:
		snprintf(t, sizeof(t), "char[%u] (a string)", f->count);
		break;
	case KILN_FIELD_ARRAY:
		snprintf(t, sizeof(t), "array of %u %c%u", f->count, f->is_signed ? 'i' : 'u', f->elem_size * 8);
		break;
	case KILN_FIELD_STRUCT:
		snprintf(t, sizeof(t), "struct %s (a JSON object)", kiln_event_name(f->sub));
		break;
	case KILN_FIELD_BYTES:
		snprintf(t, sizeof(t), "%u bytes of no readable type (0x and their hex)", f->size);
		break;
	case KILN_FIELD_IPV4:
		snprintf(t, sizeof(t), "ipv4 address (10.0.0.1)");
		break;
	case KILN_FIELD_IPV6:
		snprintf(t, sizeof(t), "ipv6 address (fd00::1)");
		break;
	default:
		snprintf(t, sizeof(t), "%s (an integer)", kiln_field_kind_name(f->kind));
		break;
	}
	snprintf(buf, n, "%s %s", strchr("aeio8", t[0]) ? "an" : "a", t);
	return buf;
}

/* "key field 'dport' is a u16: WHY" as the failure (-EINVAL unless err says otherwise). */
__attribute__((format(printf, 4, 5))) static int bad(const struct ctx *c, const struct kiln_event_field *f,
						     int err, const char *fmt, ...)
{
	char w[200], d[128], why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return kl_fail_msg(err ? err : -EINVAL, "%s is %s: %s", where(c, w, sizeof(w)), type_desc(f, d, sizeof(d)), why);
}

/* The text of a scalar: a number or a string as written; NULL for anything else. */
static const char *scalar(const struct kl_json *j)
{
	return j->kind == KL_JSON_NUMBER || j->kind == KL_JSON_STRING ? j->text : NULL;
}

/* Little-endian stores, the host's order, as programs read them; bitfields merged in. */
static void store_int(const struct kiln_event_field *f, uint8_t *base, uint64_t v)
{
	if (!f->bit_size) {
		memcpy(base + f->offset, &v, f->size < 8 ? f->size : 8);
		return;
	}
	uint32_t first = f->bit_offset / 8, shift = f->bit_offset % 8, nbytes = (shift + f->bit_size + 7) / 8;
	unsigned __int128 w = 0, mask = ((unsigned __int128)1 << f->bit_size) - 1;
	memcpy(&w, base + first, nbytes);
	w = (w & ~(mask << shift)) | (((unsigned __int128)v & mask) << shift);
	memcpy(base + first, &w, nbytes);
}

static int put_int(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	const char *s = scalar(j);
	uint32_t bits = f->bit_size ? f->bit_size : f->size * 8;
	if (j->kind == KL_JSON_BOOL) {
		store_int(f, base, j->text[0] == 't');
		return 0;
	}
	if (!s)
		return bad(c, f, 0, "%s is not a number", kl_json_kind_name(j->kind));
	bool neg, hex;
	uint64_t mag;
	int err = read_number(s, &neg, &hex, &mag);
	if (err == -EINVAL)
		return bad(c, f, 0, "'%s' is not a number (decimal, 0x hex, negative)", s);
	/* signed: -2^(bits-1) .. 2^(bits-1)-1, or in hex any bit pattern of its width */
	uint64_t top = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	uint64_t pos_max = f->is_signed && !hex ? top >> 1 : top;
	uint64_t neg_max = f->is_signed ? (top >> 1) + 1 : 0;
	if (err || (neg ? mag > neg_max : mag > pos_max)) {
		if (f->is_signed)
			return bad(c, f, -ERANGE, "%s is out of range (%lld..%llu)", s,
				   bits >= 64 ? (long long)INT64_MIN : -(long long)neg_max, (unsigned long long)(top >> 1));
		return bad(c, f, -ERANGE, "%s is out of range (0..%llu)", s, (unsigned long long)top);
	}
	store_int(f, base, neg ? 0 - mag : mag);
	return 0;
}

static int put_chars(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	const char *s = scalar(j);
	if (!s)
		return bad(c, f, 0, "%s is not a string", kl_json_kind_name(j->kind));
	if (j->len > f->count)
		return bad(c, f, -E2BIG, "\"%s\" is %zu bytes, %u at most", s, j->len, f->count);
	memset(base + f->offset, 0, f->size);
	memcpy(base + f->offset, s, j->len);
	return 0;
}

/* One element of an integer array (or a byte of an ipv6 address) as a field of its own. */
static struct kiln_event_field element(const struct kiln_event_field *f, uint32_t i)
{
	return (struct kiln_event_field){ .name = f->name, .kind = KILN_FIELD_INT, .offset = f->offset + i * f->elem_size,
					  .size = f->elem_size, .elem_size = f->elem_size, .count = 1,
					  .is_signed = f->is_signed };
}

static int put_array(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	if (j->kind != KL_JSON_ARRAY)
		return bad(c, f, 0, "%s is not an array", kl_json_kind_name(j->kind));
	if (j->n > f->count)
		return bad(c, f, -E2BIG, "%zu elements given, %u at most", j->n, f->count);
	size_t at = strlen(c->path);
	int err = 0;
	for (size_t i = 0; !err && i < j->n; i++) {
		struct kiln_event_field e = element(f, (uint32_t)i);
		snprintf(c->path + at, sizeof(c->path) - at, "[%zu]", i);
		err = put_int(c, &e, base, &j->items[i]);
	}
	if (!err)
		c->path[at] = 0;
	return err;
}

static int put_ipv4(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	struct in_addr a;
	if (j->kind == KL_JSON_STRING && inet_pton(AF_INET, j->text, &a) == 1) {
		memcpy(base + f->offset, &a, 4);
		return 0;
	}
	if (j->kind == KL_JSON_NUMBER || (j->kind == KL_JSON_STRING && isdigit((unsigned char)j->text[0]) &&
					  !strchr(j->text, '.'))) {
		/* the integer the bytes make on this host, as a reader without BTF shows them
		 * (a bare word of digits too: `kiln map get` prints an ipv4 key so) */
		struct kiln_event_field u = *f;
		u.kind = KILN_FIELD_INT;
		u.is_signed = false;
		return put_int(c, &u, base, j);
	}
	return bad(c, f, 0, "%s%s%s is not a dotted address", j->kind == KL_JSON_STRING ? "'" : "",
		   j->kind == KL_JSON_STRING ? j->text : kl_json_kind_name(j->kind), j->kind == KL_JSON_STRING ? "'" : "");
}

static int put_ipv6(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	struct in6_addr a;
	if (j->kind == KL_JSON_STRING && inet_pton(AF_INET6, j->text, &a) == 1) {
		memcpy(base + f->offset, &a, 16);
		return 0;
	}
	if (j->kind == KL_JSON_ARRAY && j->n == 16) {
		/* its 16 bytes, as a reader without BTF shows an ipv6_addr (__u8[16]) */
		struct kiln_event_field b = *f;
		b.kind = KILN_FIELD_ARRAY;
		b.count = 16;
		b.elem_size = 1;
		b.is_signed = false;
		return put_array(c, &b, base, j);
	}
	return bad(c, f, 0, "%s%s%s is not an address", j->kind == KL_JSON_STRING ? "'" : "",
		   j->kind == KL_JSON_STRING ? j->text : kl_json_kind_name(j->kind), j->kind == KL_JSON_STRING ? "'" : "");
}

static int put_bytes(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	const char *s = scalar(j);
	int err = s ? kl_map_parse_raw(s, base + f->offset, f->size) : -EINVAL;
	if (err)
		return bad(c, f, err, "'%s' is not 0x and %u bytes in hex", s ? s : kl_json_kind_name(j->kind), f->size);
	return 0;
}

static int put_node(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j);

static int put_struct(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	if (j->kind != KL_JSON_OBJECT)
		return bad(c, f, 0, "%s is not an object", kl_json_kind_name(j->kind));
	const struct kiln_event *ev = f->sub;
	size_t at = strlen(c->path);
	for (size_t i = 0; i < j->n; i++) {
		const struct kl_json *mj = &j->items[i];
		const struct kiln_event_field *mf = kiln_event_field_by_name(ev, mj->key);
		if (!mf) {
			struct kl_nearest nb;
			char hint[400], w[200];
			kl_nearest_init(&nb, mj->key);
			for (size_t k = 0; k < kiln_event_field_count(ev); k++)
				kl_nearest_add(&nb, kiln_event_field(ev, k)->name);
			kl_nearest_hint(&nb, hint, sizeof(hint));
			return kl_fail_msg(-ENOENT, "%s: struct %s has no field '%s'%s%s", where(c, w, sizeof(w)),
					   kiln_event_name(ev), mj->key, *hint ? "; " : "", hint);
		}
		snprintf(c->path + at, sizeof(c->path) - at, "%s%s", at ? "." : "", mf->name);
		int err = put_node(c, mf, base + f->offset, mj);
		if (err)
			return err;
		c->path[at] = 0;
	}
	return 0;
}

typedef int (*put_fn)(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j);

/* How each kind of field is written: the event decoder's kinds (kiln/event.h). */
static const put_fn putters[] = {
	[KILN_FIELD_INT] = put_int,     [KILN_FIELD_CHARS] = put_chars,   [KILN_FIELD_ARRAY] = put_array,
	[KILN_FIELD_IPV4] = put_ipv4,   [KILN_FIELD_IPV6] = put_ipv6,     [KILN_FIELD_KSTACK] = put_int,
	[KILN_FIELD_USTACK] = put_int,  [KILN_FIELD_STRUCT] = put_struct, [KILN_FIELD_PTR] = put_int,
	[KILN_FIELD_BYTES] = put_bytes,
};

static int put_node(struct ctx *c, const struct kiln_event_field *f, uint8_t *base, const struct kl_json *j)
{
	if ((unsigned)f->kind >= sizeof(putters) / sizeof(putters[0]) || !putters[f->kind])
		return put_bytes(c, f, base, j);
	return putters[f->kind](c, f, base, j);
}

/* ---- one key or value ------------------------------------------------------------------ */

/* text as a JSON value when it is written as one ({...}, [...], "..."), else as one bare
 * word (80, 10.0.0.1, fd00::1, a string without quotes) taken as a string. */
static int read_text(const char *what, const char *text, struct kl_json *bare, struct kl_json **out)
{
	char err[160];
	*out = NULL;
	if (text[0] != '{' && text[0] != '[' && text[0] != '"') {
		*bare = (struct kl_json){ .kind = KL_JSON_STRING, .text = (char *)text, .len = strlen(text) };
		*out = bare;
		return 0;
	}
	int rc = kl_json_parse(text, out, err, sizeof(err));
	if (rc == -ENOMEM)
		return kl_fail(ENOMEM, "reading %s '%s'", what, text);
	if (rc)
		return kl_fail_msg(-EINVAL, "%s '%s' is not JSON: %s", what, text, err);
	return 0;
}

static int raw_failure(const char *what, const char *text, size_t size, int err)
{
	return kl_fail_msg(err, "%s '%s' is not %s", what, text,
			   err == -ERANGE ? "in range for its size (out of range)" :
			   size > 8 ? "an integer or 0x with two hex digits per byte" : "an integer");
}

/* One key or value of BTF type type_id (0: none) into buf (size bytes, zeroed first). */
static int parse_typed(struct kl_map_extra *x, const char *what, uint32_t type_id, const char *text,
		       uint8_t *buf, size_t size)
{
	memset(buf, 0, size);
	if (!x->layouts || !type_id) {
		int err = kl_map_parse_raw(text, buf, size);
		return err ? raw_failure(what, text, size, err) : 0;
	}
	struct kiln_event_field f;
	int err = kl_event_classify(x->layouts, type_id, &f);
	if (err)
		return err;
	if (f.size > size)
		return kl_fail_msg(-EINVAL, "the map's BTF %s type (%u bytes) is wider than its %s (%zu)", what,
				   f.size, what, size);
	bool top_bare = text[0] != '{' && text[0] != '[' && text[0] != '"';
	if (top_bare && (f.kind == KILN_FIELD_STRUCT || f.kind == KILN_FIELD_BYTES || f.kind == KILN_FIELD_ARRAY) &&
	    !kl_map_parse_raw(text, buf, size))
		return 0;   /* today's spelling of any key: an integer, or 0x and every byte */
	struct ctx c = { .what = what };
	if (top_bare && f.kind == KILN_FIELD_STRUCT)
		return bad(&c, &f, 0, "'%s' is neither a JSON object nor 0x and its %u bytes in hex", text, f.size);
	struct kl_json bare, *j;
	if ((err = read_text(what, text, &bare, &j)))
		return err;
	err = put_node(&c, &f, buf, j);
	if (j != &bare)
		kl_json_free(j);
	return err;
}

int kl_parse_field(const struct kiln_event_field *f, const char *what, const char *text, uint8_t *base)
{
	struct ctx c = { .what = what };
	struct kl_json bare, *j;
	int err = read_text(what, text, &bare, &j);
	if (err)
		return err;
	err = put_node(&c, f, base, j);
	if (j != &bare)
		kl_json_free(j);
	return err;
}

/* An lpm-trie key written ADDRESS/PREFIXLEN (10.0.0.0/8, fd00::/16): the prefix length as a
 * u32, then the address in network order, as struct bpf_lpm_trie_key lays it out. */
static int parse_prefix(const char *s, uint8_t *key, size_t size)
{
	char addr[64];
	const char *slash = strchr(s, '/');
	size_t n = (size_t)(slash - s);
	char *end;
	unsigned long len = strtoul(slash + 1, &end, 10);
	if (n >= sizeof(addr) || !isdigit((unsigned char)slash[1]) || *end)
		return kl_fail_msg(-EINVAL, "key '%s' is not ADDRESS/PREFIXLEN", s);
	memcpy(addr, s, n);
	addr[n] = 0;
	uint8_t bytes[16];
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET6 ? 16 : 4;
	if (inet_pton(family, addr, bytes) != 1 || len > alen * 8)
		return kl_fail_msg(-EINVAL, "key '%s': not an address and a prefix length (0..%zu)", s, alen * 8);
	if (4 + alen > size)
		return kl_fail_msg(-EINVAL, "key '%s': the map's %zu-byte keys are too short for an IPv%c prefix", s,
				   size, family == AF_INET6 ? '6' : '4');
	memset(key, 0, size);
	uint32_t plen = (uint32_t)len;
	memcpy(key, &plen, 4);
	memcpy(key + 4, bytes, alen);
	return 0;
}

static int map_extra(struct kiln_map *m, struct kl_map_extra **out)
{
	int err = kl_map_need_info(m);
	if (err)
		return err;
	*out = kl_map_extra(m);
	if (!*out)
		return -ENOMEM;
	return kl_map_load_btf(m, *out);
}

int kiln_map_parse_key(struct kiln_map *m, const char *text, void *buf, size_t len)
{
	struct kl_map_extra *x;
	int err = map_extra(m, &x);
	if (err)
		return err;
	const struct kiln_map_info *info = kiln_map_info(m);
	if (len < info->key_size)
		return kl_fail_msg(-ENOSPC, "%s's keys are %u bytes, the buffer %zu", kl_map_label(m), info->key_size, len);
	if (!info->key_size)
		return kl_fail_msg(-EINVAL, "%s (%s) has no keys", kl_map_label(m), kiln_map_type_name(info->type));
	if (info->type == BPF_MAP_TYPE_LPM_TRIE && text[0] != '{' && strchr(text, '/'))
		return parse_prefix(text, buf, info->key_size);
	return parse_typed(x, "key", info->btf_key_type_id, text, buf, info->key_size);
}

/* A per-CPU value given one per CPU: a JSON list whose elements are values (for a value that
 * is itself an array or an ipv6 address, a list of lists or strings). */
static bool per_cpu_list(struct kl_map_extra *x, uint32_t type_id, const char *text)
{
	if (text[0] != '[')
		return false;
	struct kiln_event_field f;
	if (!x->layouts || !type_id || kl_event_classify(x->layouts, type_id, &f))
		return true;
	if (f.kind != KILN_FIELD_ARRAY && f.kind != KILN_FIELD_IPV6 && f.kind != KILN_FIELD_BYTES)
		return true;
	const char *p = text + 1;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '[' || *p == '"';
}

/* Each element of a per-CPU list back to text, to go through parse_typed as one value. */
static int parse_per_cpu(struct kiln_map *m, struct kl_map_extra *x, const char *text, uint8_t *buf)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	size_t stride = kiln_map_value_stride(m), ncpu = kiln_map_value_buf_size(m) / stride;
	struct kl_json *j;
	char err[160];
	int rc = kl_json_parse(text, &j, err, sizeof(err));
	if (rc)
		return rc == -ENOMEM ? kl_fail(ENOMEM, "reading value '%s'", text)
				     : kl_fail_msg(-EINVAL, "value '%s' is not JSON: %s", text, err);
	if (j->n != ncpu) {
		size_t n = j->n;
		kl_json_free(j);
		return kl_fail_msg(-EINVAL, "a per-CPU value is one value for every CPU, or a list of one per possible "
				   "CPU (%zu), not of %zu", ncpu, n);
	}
	struct kiln_event_field f;
	bool typed = x->layouts && info->btf_value_type_id && !kl_event_classify(x->layouts, info->btf_value_type_id, &f);
	for (size_t cpu = 0; !rc && cpu < ncpu; cpu++) {
		uint8_t *v = buf + cpu * stride;
		memset(v, 0, stride);
		if (typed) {
			struct ctx c = { .what = "value" };
			rc = put_node(&c, &f, v, &j->items[cpu]);
		} else {
			const char *s = scalar(&j->items[cpu]);
			rc = s ? kl_map_parse_raw(s, v, info->value_size) : -EINVAL;
			if (rc)
				rc = raw_failure("value", s ? s : kl_json_kind_name(j->items[cpu].kind), info->value_size, rc);
		}
	}
	kl_json_free(j);
	return rc;
}

int kiln_map_parse_value(struct kiln_map *m, const char *text, void *buf, size_t len)
{
	struct kl_map_extra *x;
	int err = map_extra(m, &x);
	if (err)
		return err;
	const struct kiln_map_info *info = kiln_map_info(m);
	size_t need = kiln_map_value_buf_size(m), stride = kiln_map_value_stride(m);
	if (len < need)
		return kl_fail_msg(-ENOSPC, "%s's values take %zu bytes, the buffer %zu", kl_map_label(m), need, len);
	if (kiln_map_is_percpu(m) && per_cpu_list(x, info->btf_value_type_id, text))
		return parse_per_cpu(m, x, text, buf);
	memset(buf, 0, need);
	err = parse_typed(x, "value", info->btf_value_type_id, text, buf, info->value_size);
	for (size_t off = stride; !err && kiln_map_is_percpu(m) && off < need; off += stride)
		memcpy((uint8_t *)buf + off, buf, info->value_size);
	return err;
}
