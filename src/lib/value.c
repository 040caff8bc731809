/* value.c — the one printer of BTF-typed values (kiln/value.h): `kiln map` and `kiln run`'s map
 * entries (KILN_VALUE_C, walking the BTF type), kiln_map_format_kv and decoded event records
 * (KILN_VALUE_FIELDS, walking the layouts event.c reads from the same BTF), and the metrics
 * exporter's labels (one field of a layout), text or JSON; and kiln_event_format, a record's
 * frame (its event's name, cpu and pid) before its fields, and kiln_event_print.
 * The two styles are the two spellings users and tests have always read; they share the output
 * buffer, numbers, strings, hex and addresses here. Every JSON string goes through one writer
 * (kl_out_string: UTF-8 passes, the rest escaped, so the output always parses). */
#define _GNU_SOURCE
#include "kiln/value.h"
#include "kiln/event.h"
#include "event_internal.h"
#include "fail.h"
#include "utf8.h"
#include "value_internal.h"
#include <arpa/inet.h>
#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16      /* KILN_VALUE_C: types nested deeper print as raw bytes */

/* ---- the output ---------------------------------------------------------------------- */

void kl_out_put(struct kl_out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;
		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

void kl_out_puts(struct kl_out *o, const char *s)
{
	kl_out_put(o, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void putf(struct kl_out *o, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		kl_out_put(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

int kl_out_end(struct kl_out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = 0;
	return o->pos > INT32_MAX ? -EOVERFLOW : (int)o->pos;
}

/* Numbers by hand: vsnprintf was most of the cost of decoding a record. */
static void put_u64(struct kl_out *o, uint64_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *b = e;
	do
		*--b = (char)('0' + v % 10);
	while (v /= 10);
	kl_out_put(o, b, (size_t)(e - b));
}

void kl_out_i64(struct kl_out *o, int64_t v)
{
	if (v < 0) {
		kl_out_put(o, "-", 1);
		put_u64(o, 0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

static void put_hex(struct kl_out *o, const uint8_t *p, size_t n, bool json)
{
	static const char digits[] = "0123456789abcdef";
	kl_out_puts(o, json ? "\"0x" : "0x");
	for (size_t i = 0; i < n; i++) {
		char two[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
		kl_out_put(o, two, 2);
	}
	if (json)
		kl_out_put(o, "\"", 1);
}

void kl_out_string(struct kl_out *o, const char *s, size_t n, bool json)
{
	const unsigned char *p = (const unsigned char *)s;
	n = strnlen(s, n);
	bool bare = !json && n > 0;
	for (size_t i = 0; bare && i < n; i++)
		if (p[i] <= ' ' || p[i] == '"' || p[i] == '\\' || p[i] == '=' || p[i] >= 0x7f)
			bare = false;
	if (bare) {
		kl_out_put(o, s, n);
		return;
	}
	kl_out_put(o, "\"", 1);
	size_t room = o->pos < o->len ? o->len - o->pos : 0;
	o->pos += kl_escape(room ? o->buf + o->pos : NULL, room, s, n, json ? KL_ESC_JSON : KL_ESC_TEXT);
	kl_out_put(o, "\"", 1);
}

/* An address in network order as people write it; JSON quotes it. */
static void put_addr(struct kl_out *o, int family, const uint8_t *p, bool json)
{
	char text[INET6_ADDRSTRLEN] = "";
	inet_ntop(family, p, text, sizeof(text));
	if (json)
		kl_out_put(o, "\"", 1);
	kl_out_puts(o, text);
	if (json)
		kl_out_put(o, "\"", 1);
}

static uint64_t load_uint(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n < 8 ? n : 8);     /* little-endian host: the BPF maps' own order */
	return v;
}

static int64_t sign_extend(uint64_t v, size_t n)
{
	if (n >= 8 || !n)
		return (int64_t)v;
	unsigned shift = (unsigned)(64 - 8 * n);
	return (int64_t)(v << shift) >> shift;
}

/* ---- KILN_VALUE_C: walking the BTF type ------------------------------------------------ */

/* Bytes without BTF: an integer when it fits in 8 bytes, else hex. */
static void c_raw(struct kl_out *o, const uint8_t *p, size_t n, bool json)
{
	if (n <= 8 && (n & (n - 1)) == 0)
		put_u64(o, load_uint(p, n));
	else
		put_hex(o, p, n, json);
}

/* An element that is text: a char INT (char, unsigned char...), not one reached through a
 * byte typedef (u8, __u8, kiln's own u8 chain), which holds numbers. */
static bool c_is_char(const struct btf *btf, uint32_t id)
{
	static const char *const bytes[] = { "u8", "__u8", "s8", "__s8", "uint8_t", "int8_t" };
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int guard = 0; t && guard < 32 && (btf_is_mod(t) || btf_is_typedef(t)); guard++) {
		const char *n = btf_is_typedef(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		for (size_t i = 0; n && i < sizeof(bytes) / sizeof(bytes[0]); i++)
			if (!strcmp(n, bytes[i]))
				return false;
		t = btf__type_by_id(btf, t->type);
	}
	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	const char *name = btf__name_by_offset(btf, t->name_off);
	return (btf_int_encoding(t) & BTF_INT_CHAR) || (name && strstr(name, "char"));
}

static bool printable_string(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n && p[i] && (isprint(p[i]) || p[i] == '\t'))
		i++;
	for (size_t j = i; j < n; j++)
		if (p[j])
			return false;       /* text then zeros: a C string; anything else is bytes */
	return true;
}

/* kiln's :ipv4 and :ipv6 are typedefs ipv4_addr and ipv6_addr (the names event.c reads
 * fields by too): shown as people write them, which is also what `kiln map get/set` read. */
static bool c_addr(struct kl_out *o, const struct btf *btf, uint32_t id, const uint8_t *p, size_t avail, bool json)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int guard = 0; t && guard < 32 && (btf_is_mod(t) || btf_is_typedef(t)); guard++) {
		const char *n = btf_is_typedef(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		int family = !n ? 0 : !strcmp(n, "ipv4_addr") ? AF_INET : !strcmp(n, "ipv6_addr") ? AF_INET6 : 0;
		size_t size = family == AF_INET ? 4 : 16;
		char text[INET6_ADDRSTRLEN];
		if (family && btf__resolve_size(btf, id) == (long)size && avail >= size &&
		    inet_ntop(family, p, text, sizeof(text))) {
			put_addr(o, family, p, json);
			return true;
		}
		t = btf__type_by_id(btf, t->type);
	}
	return false;
}

static void c_value(struct kl_out *o, const struct btf *btf, uint32_t id, const uint8_t *p, size_t avail,
		    bool json, int depth);

static void c_int(struct kl_out *o, const struct btf_type *t, const uint8_t *p, bool json)
{
	uint8_t enc = btf_int_encoding(t);
	uint64_t v = load_uint(p, t->size);
	if (enc & BTF_INT_BOOL)
		kl_out_puts(o, v ? "true" : "false");
	else if (t->size > 8)
		put_hex(o, p, t->size, json);
	else if (enc & BTF_INT_SIGNED)
		kl_out_i64(o, sign_extend(v, t->size));
	else
		put_u64(o, v);
}

static void c_array(struct kl_out *o, const struct btf *btf, const struct btf_type *t, const uint8_t *p,
		    size_t sz, bool json, int depth)
{
	const struct btf_array *a = btf_array(t);
	long esz = btf__resolve_size(btf, a->type);
	if (esz <= 0) {
		c_raw(o, p, sz, json);
	} else if (c_is_char(btf, a->type) && printable_string(p, a->nelems)) {
		size_t n = strnlen((const char *)p, a->nelems);
		if (json) {
			kl_out_string(o, (const char *)p, n, true);
		} else {
			kl_out_put(o, "\"", 1);
			kl_out_put(o, (const char *)p, n);
			kl_out_put(o, "\"", 1);
		}
	} else if (c_is_char(btf, a->type) || (esz == 1 && a->nelems > 16)) {
		put_hex(o, p, a->nelems, json);
	} else {
		kl_out_put(o, "[", 1);
		for (uint32_t i = 0; i < a->nelems; i++) {
			if (i)
				kl_out_puts(o, json ? "," : ", ");
			c_value(o, btf, a->type, p + (size_t)i * (size_t)esz, (size_t)esz, json, depth + 1);
		}
		kl_out_put(o, "]", 1);
	}
}

/* Named members only; in text, those named padding* are left out. */
static void c_struct(struct kl_out *o, const struct btf *btf, const struct btf_type *t, const uint8_t *p,
		     size_t sz, bool json, int depth)
{
	const struct btf_member *m = btf_members(t);
	kl_out_put(o, "{", 1);
	bool first = true;
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint32_t bit = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
		long msz = btf__resolve_size(btf, m->type);
		if (!name || !*name || msz < 0 || bit / 8 + (size_t)msz > sz)
			continue;
		if (!json && !strncmp(name, "padding", 7))
			continue;
		kl_out_puts(o, first ? "" : json ? "," : ", ");
		first = false;
		kl_out_puts(o, json ? "\"" : "");
		kl_out_puts(o, name);
		kl_out_puts(o, json ? "\":" : ": ");
		if (bits) {
			uint64_t v = load_uint(p + bit / 64 * 8, 8) >> (bit % 64);
			put_u64(o, v & (bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1)));
		} else {
			c_value(o, btf, m->type, p + bit / 8, (size_t)msz, json, depth + 1);
		}
	}
	kl_out_put(o, "}", 1);
}

static void c_value(struct kl_out *o, const struct btf *btf, uint32_t id, const uint8_t *p, size_t avail,
		    bool json, int depth)
{
	if (c_addr(o, btf, id, p, avail, json))
		return;
	id = btf__resolve_type(btf, id) < 0 ? id : (uint32_t)btf__resolve_type(btf, id);
	const struct btf_type *t = btf__type_by_id(btf, id);
	long sz = btf__resolve_size(btf, id);
	if (!t || sz < 0 || (size_t)sz > avail || depth > MAX_DEPTH)
		c_raw(o, p, avail, json);
	else if (btf_is_int(t))
		c_int(o, t, p, json);
	else if (btf_is_enum(t) || btf_is_enum64(t))
		kl_out_i64(o, sign_extend(load_uint(p, t->size), t->size));
	else if (btf_is_ptr(t))
		putf(o, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)load_uint(p, 8));
	else if (btf_is_array(t))
		c_array(o, btf, t, p, (size_t)sz, json, depth);
	else if (btf_is_composite(t))
		c_struct(o, btf, t, p, (size_t)sz, json, depth);
	else
		c_raw(o, p, (size_t)sz, json);
}

/* ---- KILN_VALUE_FIELDS: walking event.c's layouts ------------------------------------- */

struct decode {
	struct kl_out *o;
	const struct kiln_event_fmt *fmt;
	const uint8_t *data;
	size_t size;
	bool pid_known;
	int pid;
	size_t nstacks;                 /* text: stacks printed after the line */
	const struct kiln_event_field *stacks[8];
	uint32_t stack_base[8];
};

static void put_int(struct kl_out *o, const struct kiln_event_field *f, const uint8_t *p)
{
	uint64_t v;
	kiln_event_field_u64(f, p, &v);
	if (f->is_signed)
		kl_out_i64(o, (int64_t)v);
	else
		put_u64(o, v);
}

static void put_ipv4(struct kl_out *o, const uint8_t *a, bool json)
{
	if (json)
		kl_out_put(o, "\"", 1);
	for (int i = 0; i < 4; i++) {
		if (i)
			kl_out_put(o, ".", 1);
		put_u64(o, a[i]);
	}
	if (json)
		kl_out_put(o, "\"", 1);
}

static void put_array(struct kl_out *o, const struct kiln_event_field *f, const uint8_t *p, bool json)
{
	kl_out_put(o, "[", 1);
	for (uint32_t i = 0; i < f->count; i++) {
		struct kiln_event_field e = { .kind = KILN_FIELD_INT, .offset = f->offset + i * f->elem_size,
					      .size = f->elem_size, .is_signed = f->is_signed };
		if (i)
			kl_out_put(o, json ? "," : " ", 1);
		put_int(o, &e, p);
	}
	kl_out_put(o, "]", 1);
}

/* A stack id's frames, symbolized: JSON ["f+0x1 [m]",...], or text lines. Returns false when
 * there is nothing to symbolize (no map, no symbolizer, negative id, gone). */
static bool put_stack(struct decode *d, const struct kiln_event_field *f, const uint8_t *p, bool json)
{
	const struct kiln_event_fmt *fmt = d->fmt;
	uint64_t v;
	kiln_event_field_u64(f, p, &v);
	int64_t id = (int64_t)v;
	if (id < 0 || !fmt->stacks || !fmt->syms)
		return false;
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int n = kiln_stack_read(fmt->stacks, (uint32_t)id, ips, KILN_STACK_MAX_DEPTH);
	if (n < 0)
		return false;
	if (fmt->max_frames > 0 && n > fmt->max_frames)
		n = fmt->max_frames;
	bool user = f->kind == KILN_FIELD_USTACK;
	if (json)
		kl_out_put(d->o, "[", 1);
	for (int i = 0; i < n; i++) {
		struct kiln_frame fr;
		char buf[512];
		int err = user ? (d->pid_known ? kiln_syms_user(fmt->syms, d->pid, ips[i], &fr) : -ESRCH)
			       : kiln_syms_kernel(fmt->syms, ips[i], &fr);
		if (err)
			fr = (struct kiln_frame){ .addr = ips[i] };
		kiln_frame_format(&fr, buf, sizeof(buf));
		if (json) {
			if (i)
				kl_out_put(d->o, ",", 1);
			kl_out_string(d->o, buf, sizeof(buf), true);
		} else {
			putf(d->o, "\n    %s", buf);
		}
	}
	if (json)
		kl_out_put(d->o, "]", 1);
	return true;
}

/* JSON: the frames inline (null when none); text: the id, the frames after the line. */
static void put_stack_field(struct decode *d, const struct kiln_event_field *f, uint32_t base, bool json)
{
	const uint8_t *p = d->data + base;
	if (json) {
		if (!put_stack(d, f, p, true))
			kl_out_puts(d->o, "null");
		return;
	}
	put_int(d->o, f, p);
	if (d->nstacks < sizeof(d->stacks) / sizeof(d->stacks[0])) {
		d->stack_base[d->nstacks] = base;
		d->stacks[d->nstacks++] = f;
	}
}

static void put_fields(struct decode *d, const struct kiln_event *ev, uint32_t base, bool json, bool top);

static void put_value(struct decode *d, const struct kiln_event_field *f, uint32_t base, bool json)
{
	struct kl_out *o = d->o;
	const uint8_t *p = d->data + base;
	switch (f->kind) {
	case KILN_FIELD_INT:
		put_int(o, f, p);
		break;
	case KILN_FIELD_CHARS:
		kl_out_string(o, (const char *)p + f->offset, f->size, json);
		break;
	case KILN_FIELD_ARRAY:
		put_array(o, f, p, json);
		break;
	case KILN_FIELD_IPV4:
		put_ipv4(o, p + f->offset, json);
		break;
	case KILN_FIELD_IPV6:
		put_addr(o, AF_INET6, p + f->offset, json);
		break;
	case KILN_FIELD_KSTACK:
	case KILN_FIELD_USTACK:
		put_stack_field(d, f, base, json);
		break;
	case KILN_FIELD_STRUCT:
		kl_out_put(o, "{", 1);
		put_fields(d, f->sub, base + f->offset, json, false);
		kl_out_put(o, "}", 1);
		break;
	case KILN_FIELD_PTR: {
		uint64_t v;
		kiln_event_field_u64(f, p, &v);
		putf(o, json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)v);
		break;
	}
	case KILN_FIELD_BYTES:
		put_hex(o, p + f->offset, f->size, json);
		break;
	}
}

/* The fields after the event's name (top) or inside a nested struct's braces; padding left
 * out, and none past the record's end. */
static void put_fields(struct decode *d, const struct kiln_event *ev, uint32_t base, bool json, bool top)
{
	struct kl_out *o = d->o;
	bool first = true;
	for (size_t i = 0; i < ev->nfields; i++) {
		const struct kiln_event_field *f = &ev->fields[i];
		if (f->is_padding)
			continue;
		if ((size_t)base + f->offset + f->size > d->size)
			break;
		if (!first || top)
			kl_out_put(o, json ? "," : " ", 1);
		first = false;
		size_t k = 2 * i + !json;
		kl_out_put(o, ev->keys[k], ev->key_len[k]);
		put_value(d, f, base, json);
	}
}

void kl_value_record(struct kl_out *o, const struct kiln_event *ev, const void *data, size_t size,
		     const struct kiln_event_fmt *fmt, bool pid_known, int pid)
{
	struct decode d = { .o = o, .fmt = fmt, .data = data, .size = size, .pid_known = pid_known, .pid = pid };
	put_fields(&d, ev, 0, fmt->json, true);
	if (size < ev->size)
		kl_out_puts(o, fmt->json ? ",\"truncated\":true" : " (truncated)");
	if (fmt->json)
		kl_out_put(o, "}", 1);
	for (size_t i = 0; i < d.nstacks; i++) {
		size_t before = o->pos;
		putf(o, "\n  %s:", d.stacks[i]->name);
		if (!put_stack(&d, d.stacks[i], d.data + d.stack_base[i], false))
			o->pos = before;   /* nothing to show beyond the id */
	}
}

/* A value as a field at offset 0 of type type_id reads (kl_event_classify). */
static int fields_value(struct kl_out *o, uint32_t type_id, const void *data, size_t size,
			const struct kiln_value_fmt *fmt)
{
	static const struct kiln_event_fmt defaults = { .sz = sizeof(defaults), .cpu = -1 };
	if (!fmt->layouts || !type_id) {
		put_hex(o, data, size, fmt->json);
		return 0;
	}
	struct kiln_event_field f;
	int err = kl_event_classify(fmt->layouts, type_id, &f);
	if (err)
		return err;
	if (f.size > size)
		return kl_fail_msg(-ERANGE, "%zu bytes hold no value of BTF type %u (%u bytes)", size, type_id, f.size);
	struct decode d = { .o = o, .fmt = &defaults, .data = data, .size = size };
	put_value(&d, &f, 0, fmt->json);
	return 0;
}

/* ---- the public calls ------------------------------------------------------------------ */

int kiln_value_format(const struct btf *btf, uint32_t type_id, const void *data, size_t size,
		      const struct kiln_value_fmt *fmt, char *buf, size_t len)
{
	struct kl_out o = { buf, len, 0 };
	if (!fmt || (!data && size))
		return kl_fail_msg(EINVAL, "kiln_value_format: no format or no data");
	if (fmt->style == KILN_VALUE_FIELDS) {
		int err = fields_value(&o, type_id, data, size, fmt);
		if (err)
			return err;
	} else if (btf && type_id && btf__resolve_size(btf, type_id) == (long)size) {
		c_value(&o, btf, type_id, data, size, fmt->json, 0);
	} else {
		c_raw(&o, data, size, fmt->json);
	}
	return kl_out_end(&o);
}

int kiln_value_print(FILE *out, const struct btf *btf, uint32_t type_id, const void *data, size_t size,
		     const struct kiln_value_fmt *fmt)
{
	char small[1024], *buf = small;
	int n = kiln_value_format(btf, type_id, data, size, fmt, buf, sizeof(small));
	if (n >= (int)sizeof(small)) {
		if (!(buf = malloc((size_t)n + 1)))
			return kl_fail(ENOMEM, "printing a value of %zu bytes", size);
		n = kiln_value_format(btf, type_id, data, size, fmt, buf, (size_t)n + 1);
	}
	if (n > 0 && fwrite(buf, 1, (size_t)n, out) != (size_t)n)
		n = kl_fail(errno ? errno : EIO, "writing a value of %zu bytes", size);
	if (buf != small)
		free(buf);
	return n < 0 ? n : 0;
}

int kiln_value_format_field(const struct kiln_event_field *f, const void *record, size_t size, bool json,
			    char *buf, size_t len)
{
	static const struct kiln_event_fmt defaults = { .sz = sizeof(defaults), .cpu = -1 };
	if (!f || !record || (size_t)f->offset + f->size > size)
		return kl_fail_msg(ERANGE, "a %zu-byte record does not hold field '%s'", size, f ? f->name : "?");
	struct kl_out o = { buf, len, 0 };
	struct decode d = { .o = &o, .fmt = &defaults, .data = record, .size = size };
	put_value(&d, f, 0, json);
	return kl_out_end(&o);
}

/* A decoded record: its frame (the event's name, the cpu), then its fields. */
int kiln_event_format(const struct kiln_event *ev, const void *data, size_t size,
		      const struct kiln_event_fmt *opts, char *buf, size_t len)
{
	static const struct kiln_event_fmt defaults = { .sz = sizeof(defaults), .cpu = -1 };
	const struct kiln_event_fmt *fmt = opts ? opts : &defaults;
	if (!ev || (!data && size))
		return kl_fail_msg(EINVAL, "kiln_event_format: no event or no data");
	struct kl_out o = { buf, len, 0 };
	const char *pf = fmt->pid_field;
	const struct kiln_event_field *pidf = pf ? kiln_event_field_by_name(ev, pf) : ev->pid;
	uint64_t pid;
	bool pid_known = pidf && (size_t)pidf->offset + pidf->size <= size && !kiln_event_field_u64(pidf, data, &pid);
	bool json = fmt->json;
	/* the perf buffer's cpu, unless the event has a field of that name (a key once only) */
	bool cpu = fmt->cpu >= 0 && !kiln_event_field_by_name(ev, "cpu");
	if (json) {
		kl_out_puts(&o, "{\"event\":");
		kl_out_string(&o, ev->name, strlen(ev->name), true);
		if (cpu)
			kl_out_puts(&o, ",\"cpu\":"), kl_out_i64(&o, fmt->cpu);
	} else {
		kl_out_puts(&o, ev->name);
		if (cpu)
			kl_out_puts(&o, " cpu="), kl_out_i64(&o, fmt->cpu);
	}
	kl_value_record(&o, ev, data, size, fmt, pid_known, pid_known ? (int)pid : 0);
	return kl_out_end(&o);
}

int kiln_event_print(FILE *f, const struct kiln_event *ev, const void *data, size_t size,
		     const struct kiln_event_fmt *opts)
{
	char stackbuf[2048], *buf = stackbuf;
	int n = kiln_event_format(ev, data, size, opts, buf, sizeof(stackbuf));
	if (n >= (int)sizeof(stackbuf)) {
		buf = malloc((size_t)n + 1);
		if (!buf)
			return kl_fail(ENOMEM, "decoding an event of '%s'", ev->name);
		n = kiln_event_format(ev, data, size, opts, buf, (size_t)n + 1);
	}
	if (n >= 0) {
		buf[n] = '\n';
		if (fwrite(buf, 1, (size_t)n + 1, f) != (size_t)n + 1)
			n = kl_fail(errno ? errno : EIO, "writing an event of '%s'", ev->name);
	}
	if (buf != stackbuf)
		free(buf);
	return n < 0 ? n : 0;
}
