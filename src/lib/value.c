/* value.c — the one printer of BTF-typed values (kiln/value.h): `kiln map` and `kiln run`'s map
 * entries, kiln_map_format_kv, decoded event records and the metrics exporter's labels (one
 * field of a layout), text or JSON; and kiln_event_format, a record's frame (its event's
 * name, cpu and pid) before its fields, and kiln_event_print.
 * One walk over the BTF type (value, members, put_array...) prints every value; what differs
 * between the spellings users have always read is a row of the style table (struct style):
 * KILN_VALUE_C (`{a: 1, s: "x"}`, `kiln map`'s) and KILN_VALUE_FIELDS (`{a=1 s=x}`, the event
 * decoder's), each field of the row one rule (bools as words, enum sign, which arrays are text,
 * byte arrays as hex, arrays of what, anonymous members, bitfields, padding names, stack ids).
 * A new spelling is a new row. What the walk decides of a struct's members from the BTF and
 * the row alone (offsets, resolved types, array rules, which printer, what is left out, keys)
 * an event layout keeps as a plan (kl_value_plan_new, made by the same walk with the layout),
 * so decoding a record resolves no BTF and runs over the plan. kiln's typedefs (ipv4_addr,
 * ipv6_addr, kstack_id, ustack_id) give a value its meaning in both. Every JSON string goes
 * through one writer (kl_out_string: UTF-8 passes, the rest escaped, so the output always
 * parses). */
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

/* Numbers by hand, two digits a step: vsnprintf was most of the cost of decoding a record. */
static void put_u64(struct kl_out *o, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[24], *e = tmp + sizeof(tmp), *b = e;
	for (; v >= 100; v /= 100) {
		b -= 2;
		memcpy(b, pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		b -= 2;
		memcpy(b, pairs + 2 * v, 2);
	} else {
		*--b = (char)('0' + v);
	}
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

/* Little-endian host: the BPF maps' own order. The common sizes copied by constant size (no
 * call to memcpy). */
static uint64_t load_uint(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	uint32_t v4 = 0;
	if (n >= 8) {
		memcpy(&v, p, 8);
	} else if (n == 4) {
		memcpy(&v4, p, 4);
		v = v4;
	} else {
		memcpy(&v, p, n);
	}
	return v;
}

/* ---- the styles: the rules each spelling prints by ------------------------------------- */

/* Which element type makes an array text. */
enum text_rule {
	TEXT_CHAR,          /* a 1-byte integer named "char" or of BTF's char encoding */
	TEXT_ANY_CHAR,      /* a 1-byte integer whose name holds "char" (unsigned char too) or of
			     * the char encoding, unless reached through a byte typedef (u8...) */
};

/* A style's rules. JSON's punctuation is JSON's; the text's is the row's. */
struct style {
	const char *sep, *assign, *elem_sep;  /* text: between members, after a name, in arrays */
	bool bool_words;            /* a _Bool as true/false (else 1/0) */
	bool enum_signed;           /* every enum signed (else as BTF's kflag says) */
	bool bitfield_signed;       /* signed bitfields sign-extended (else read unsigned) */
	bool wide_int_hex;          /* an integer of more than 8 bytes as hex (else its low 8) */
	enum text_rule text;        /* which arrays are text */
	bool text_bare;             /* text as kl_out_string writes it, bare when it can be; else
				     * always quoted as it is, and an array that is not printable
				     * text is hex */
	uint32_t bytes_hex_over;    /* an array of more 1-byte elements than this is hex */
	bool int_arrays_only;       /* an array of anything but integers (or of none) is raw
				     * bytes, and its elements are plain numbers (no typedef's
				     * meaning such as ipv4_addr) */
	bool anon_flatten;          /* an anonymous struct/union member's members are the
				     * struct's (else anonymous members are left out) */
	const char *const *hidden;  /* member names starting so are left out... */
	bool hidden_in_json;        /* ...of JSON too (else of text only) */
	bool stacks;                /* kstack_id/ustack_id fields symbolized (a record's) */
	bool raw_as_int;            /* bytes of no printable type: an integer when 1, 2, 4 or 8
				     * of them (else hex) */
	bool checked;               /* a value's type must be one event layouts read
				     * (kl_event_classify) and a value short of it is -ERANGE; else
				     * a value not of its type's size is raw bytes */
};

static const char *const c_hidden[] = { "padding", NULL };
static const struct style styles[] = {
	[KILN_VALUE_C] = { .sep = ", ", .assign = ": ", .elem_sep = ", ", .bool_words = true, .enum_signed = true,
			   .wide_int_hex = true, .text = TEXT_ANY_CHAR, .bytes_hex_over = 16, .hidden = c_hidden,
			   .raw_as_int = true },
	[KILN_VALUE_FIELDS] = { .sep = " ", .assign = "=", .elem_sep = " ", .bitfield_signed = true, .text = TEXT_CHAR,
				.text_bare = true, .bytes_hex_over = UINT32_MAX, .int_arrays_only = true,
				.anon_flatten = true, .hidden = kl_event_padding, .hidden_in_json = true, .stacks = true,
				.checked = true },
};

static bool starts_with_any(const char *name, const char *const *prefixes)
{
	for (const char *const *h = prefixes; *h; h++)
		if (name[0] == (*h)[0] && !strncmp(name, *h, strlen(*h)))
			return true;
	return false;
}

/* ---- what a BTF type means -------------------------------------------------------------- */

/* kiln's typedefs that give a value a meaning (the innermost of a chain counts, and only at
 * its size), and the byte typedefs whose arrays hold numbers. */
enum meaning { M_NONE, M_IPV4, M_IPV6, M_KSTACK, M_USTACK, M_BYTE };
static const struct {
	const char *name;
	enum meaning meaning;
} typedef_meanings[] = {
	{ "ipv4_addr", M_IPV4 }, { "ipv6_addr", M_IPV6 }, { "kstack_id", M_KSTACK }, { "ustack_id", M_USTACK },
	{ "u8", M_BYTE },        { "__u8", M_BYTE },      { "s8", M_BYTE },         { "__s8", M_BYTE },
	{ "uint8_t", M_BYTE },   { "int8_t", M_BYTE },
};

struct array_plan;

struct typed {
	const struct btf_type *t;   /* past modifiers and typedefs */
	uint32_t id;
	long size;
	enum meaning meaning;
	bool via_byte;              /* through a byte typedef */
	const struct array_plan *arr;   /* an array's rule, decided once (a plan's); NULL: decide */
};

#define MAX_RESOLVE 32

/* The size of type t (id), past modifiers and typedefs: libbpf's answer, without its walk for
 * the common kinds (a char array's elements too). */
/* A struct, a union, or a data section (global variables: its VARs print as members) */
static bool is_record(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_datasec(t);
}

static long size_of(const struct btf *btf, const struct btf_type *t, uint32_t id)
{
	if (btf_is_int(t) || btf_is_any_enum(t) || is_record(t))
		return (long)t->size;
	if (btf_is_array(t)) {
		const struct btf_type *e = btf__type_by_id(btf, btf_array(t)->type);
		if (e && btf_is_int(e))
			return (long)e->size * (long)btf_array(t)->nelems;
	}
	return btf__resolve_size(btf, id);
}

/* Type id past modifiers and typedefs, with the meaning its typedefs give it; false for a
 * chain longer than MAX_RESOLVE (a loop) or a type BTF does not have. */
static bool resolve(const struct btf *btf, uint32_t id, struct typed *ty)
{
	*ty = (struct typed){ .t = btf__type_by_id(btf, id), .id = id };
	for (int steps = 0; ty->t && (btf_is_mod(ty->t) || btf_is_typedef(ty->t)); steps++) {
		if (steps == MAX_RESOLVE)
			return false;
		const char *n = btf_is_typedef(ty->t) ? btf__name_by_offset(btf, ty->t->name_off) : NULL;
		for (size_t i = 0; n && i < sizeof(typedef_meanings) / sizeof(typedef_meanings[0]); i++)
			if (n[0] == typedef_meanings[i].name[0] && !strcmp(n, typedef_meanings[i].name)) {
				if (typedef_meanings[i].meaning == M_BYTE)
					ty->via_byte = true;
				else
					ty->meaning = typedef_meanings[i].meaning;
			}
		ty->id = ty->t->type;
		ty->t = btf__type_by_id(btf, ty->id);
	}
	if (!ty->t)
		return false;
	ty->size = size_of(btf, ty->t, ty->id);
	return ty->size >= 0;
}

static bool is_integer(const struct btf_type *t)
{
	return btf_is_int(t) || btf_is_any_enum(t);
}

static bool is_text(const struct btf *btf, const struct style *st, const struct typed *e)
{
	if (!btf_is_int(e->t) || e->t->size != 1 || (st->text == TEXT_ANY_CHAR && e->via_byte))
		return false;
	const char *n = btf__name_by_offset(btf, e->t->name_off);
	return (btf_int_encoding(e->t) & BTF_INT_CHAR) ||
	       (n && (st->text == TEXT_CHAR ? !strcmp(n, "char") : !!strstr(n, "char")));
}

/* ---- the walk ---------------------------------------------------------------------------- */

#define MAX_DEPTH 16      /* types nested deeper print as raw bytes */
#define MAX_STACKS 8

struct walk {
	struct kl_out *o;
	const struct btf *btf;
	const struct style *st;
	bool json;
	const uint8_t *data;        /* the value or record, of size bytes */
	size_t size;
	const struct kiln_event_fmt *fmt;   /* where stacks are read and symbolized */
	bool pid_known;
	int pid;
	const char *name;           /* the member being printed */
	struct kl_value_plan *into; /* planning: members() records its steps here, printing none */
	size_t nstacks;             /* text: stacks printed after the record's line */
	struct pending_stack {
		const char *name;
		uint64_t id;
		bool user;
	} stacks[MAX_STACKS];
};

static void value(struct walk *w, uint32_t id, const uint8_t *p, size_t avail, int depth, bool plain);

static void raw(struct walk *w, const uint8_t *p, size_t n)
{
	if (w->st->raw_as_int && n <= 8 && (n & (n - 1)) == 0)
		put_u64(w->o, load_uint(p, n));
	else
		put_hex(w->o, p, n, w->json);
}

/* An integer of size bytes at p, or of bits bits from bit `bit` of p. */
static void number(struct walk *w, const uint8_t *p, size_t size, bool is_signed, uint32_t bit, uint32_t bits)
{
	uint64_t v;
	if (bits)
		v = kl_load_bits(p, bit, bits);
	else
		v = load_uint(p, size);
	if (is_signed)
		kl_out_i64(w->o, kl_sign_extend(v, bits ? bits : 8 * size));
	else
		put_u64(w->o, v);
}

static void hex_u64(struct kl_out *o, uint64_t v, bool json)
{
	char tmp[24], *e = tmp + sizeof(tmp), *b = e;
	do
		*--b = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	kl_out_puts(o, json ? "\"0x" : "0x");
	kl_out_put(o, b, (size_t)(e - b));
	if (json)
		kl_out_put(o, "\"", 1);
}

static void put_int(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	uint8_t enc = btf_int_encoding(ty->t);
	if ((enc & BTF_INT_BOOL) && w->st->bool_words)
		kl_out_puts(w->o, load_uint(p, ty->size) ? "true" : "false");
	else if (ty->size > 8 && w->st->wide_int_hex)
		put_hex(w->o, p, (size_t)ty->size, w->json);
	else
		number(w, p, (size_t)ty->size, enc & BTF_INT_SIGNED, 0, 0);
}

static void put_enum(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	number(w, p, (size_t)ty->size, w->st->enum_signed || btf_kflag(ty->t), 0, 0);
}

static void put_ptr(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	hex_u64(w->o, load_uint(p, (size_t)ty->size), w->json);
}

/* Text that is printable as it is and then zeros: a C string; anything else is bytes. */
static bool printable_string(const uint8_t *p, size_t n)
{
	size_t i = 0;
	while (i < n && p[i] && (isprint(p[i]) || p[i] == '\t'))
		i++;
	for (size_t j = i; j < n; j++)
		if (p[j])
			return false;
	return true;
}

static void put_text(struct walk *w, const uint8_t *p, size_t n)
{
	if (w->st->text_bare) {
		kl_out_string(w->o, (const char *)p, n, w->json);
	} else if (!printable_string(p, n)) {
		put_hex(w->o, p, n, w->json);
	} else if (w->json) {
		kl_out_string(w->o, (const char *)p, n, true);
	} else {
		kl_out_put(w->o, "\"", 1);
		kl_out_put(w->o, (const char *)p, strnlen((const char *)p, n));
		kl_out_put(w->o, "\"", 1);
	}
}

/* How a style prints an array: the rule, from its element type and count alone. */
enum array_rule { A_RAW, A_TEXT, A_HEX, A_ELEMS };
struct array_plan {
	enum array_rule rule;
	long elem_size;
};

static struct array_plan array_rule(const struct btf *btf, const struct style *st, const struct typed *ty)
{
	const struct btf_array *a = btf_array(ty->t);
	struct typed e;
	if (!resolve(btf, a->type, &e) || e.size <= 0)
		return (struct array_plan){ A_RAW, 0 };
	if (is_text(btf, st, &e))
		return (struct array_plan){ A_TEXT, e.size };
	if (e.size == 1 && a->nelems > st->bytes_hex_over)
		return (struct array_plan){ A_HEX, e.size };
	if (st->int_arrays_only && (!a->nelems || !is_integer(e.t)))
		return (struct array_plan){ A_RAW, e.size };
	return (struct array_plan){ A_ELEMS, e.size };
}

static void put_array(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	const struct btf_array *a = btf_array(ty->t);
	const struct style *st = w->st;
	struct array_plan ap = ty->arr ? *ty->arr : array_rule(w->btf, st, ty);
	if (ap.rule == A_RAW) {
		raw(w, p, (size_t)ty->size);
	} else if (ap.rule == A_TEXT) {
		put_text(w, p, a->nelems);
	} else if (ap.rule == A_HEX) {
		put_hex(w->o, p, a->nelems, w->json);
	} else {
		kl_out_put(w->o, "[", 1);
		for (uint32_t i = 0; i < a->nelems; i++) {
			if (i)
				kl_out_puts(w->o, w->json ? "," : st->elem_sep);
			value(w, a->type, p + (size_t)i * (size_t)ap.elem_size, (size_t)ap.elem_size, depth + 1,
			      st->int_arrays_only);
		}
		kl_out_put(w->o, "]", 1);
	}
}

/* A stack id: JSON the symbolized frames ["f+0x1 [m]",...]; text lines. false when there is
 * nothing to symbolize (no map, no symbolizer, negative id, gone). */
static bool put_frames(struct walk *w, uint64_t v, bool user)
{
	const struct kiln_event_fmt *fmt = w->fmt;
	int64_t id = (int64_t)v;
	if (id < 0 || !fmt->stacks || !fmt->syms)
		return false;
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int n = kiln_stack_read(fmt->stacks, (uint32_t)id, ips, KILN_STACK_MAX_DEPTH);
	if (n < 0)
		return false;
	if (fmt->max_frames > 0 && n > fmt->max_frames)
		n = fmt->max_frames;
	if (w->json)
		kl_out_put(w->o, "[", 1);
	for (int i = 0; i < n; i++) {
		struct kiln_frame fr;
		char buf[512];
		int err = user ? (w->pid_known ? kiln_syms_user(fmt->syms, w->pid, ips[i], &fr) : -ESRCH)
			       : kiln_syms_kernel(fmt->syms, ips[i], &fr);
		if (err)
			fr = (struct kiln_frame){ .addr = ips[i] };
		kiln_frame_format(&fr, buf, sizeof(buf));
		if (w->json) {
			if (i)
				kl_out_put(w->o, ",", 1);
			kl_out_string(w->o, buf, sizeof(buf), true);
		} else {
			putf(w->o, "\n    %s", buf);
		}
	}
	if (w->json)
		kl_out_put(w->o, "]", 1);
	return true;
}

/* A stack-id field: JSON its frames inline (null when none); text its id, the frames after
 * the record's line. */
static void put_stack(struct walk *w, const struct typed *ty, const uint8_t *p, bool user)
{
	bool sign = btf_is_int(ty->t) ? btf_int_encoding(ty->t) & BTF_INT_SIGNED : btf_kflag(ty->t);
	uint64_t v = load_uint(p, 4);
	v = sign ? (uint64_t)kl_sign_extend(v, 32) : v;
	if (w->json) {
		if (!put_frames(w, v, user))
			kl_out_puts(w->o, "null");
		return;
	}
	number(w, p, 4, sign, 0, 0);
	if (w->nstacks < MAX_STACKS)
		w->stacks[w->nstacks++] = (struct pending_stack){ w->name, v, user };
}

static bool members(struct walk *w, const struct btf_type *t, const uint8_t *p, uint32_t base, int depth,
		    bool *first);

static void put_struct(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	bool first = true;
	kl_out_put(w->o, "{", 1);
	members(w, ty->t, p, 0, depth, &first);
	kl_out_put(w->o, "}", 1);
}

typedef void put_fn(struct walk *w, const struct typed *ty, const uint8_t *p, int depth);
static put_fn *const by_kind[NR_BTF_KINDS] = {
	[BTF_KIND_INT] = put_int,       [BTF_KIND_ENUM] = put_enum,     [BTF_KIND_ENUM64] = put_enum,
	[BTF_KIND_PTR] = put_ptr,       [BTF_KIND_ARRAY] = put_array,   [BTF_KIND_STRUCT] = put_struct,
	[BTF_KIND_UNION] = put_struct,  [BTF_KIND_DATASEC] = put_struct,
};

static void put_v4(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	put_ipv4(w->o, p, w->json);
}

static void put_v6(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	put_addr(w->o, AF_INET6, p, w->json);
}

static void put_kstack(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	put_stack(w, ty, p, false);
}

static void put_ustack(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	put_stack(w, ty, p, true);
}

static void put_raw(struct walk *w, const struct typed *ty, const uint8_t *p, int depth)
{
	raw(w, p, (size_t)ty->size);
}

/* How a value of type ty prints (plain: no typedef's meaning counts): the BTF type and the
 * style decide, not the value. */
static put_fn *how(const struct walk *w, const struct typed *ty, bool plain)
{
	enum meaning m = plain ? M_NONE : ty->meaning;
	put_fn *put = btf_kind(ty->t) < NR_BTF_KINDS ? by_kind[btf_kind(ty->t)] : NULL;
	if (m == M_IPV4 && ty->size == 4)
		return put_v4;
	if (m == M_IPV6 && ty->size == 16)
		return put_v6;
	if ((m == M_KSTACK || m == M_USTACK) && ty->size == 4 && w->st->stacks && is_integer(ty->t))
		return m == M_USTACK ? put_ustack : put_kstack;
	return put ? put : put_raw;
}

/* A value of type ty at p (avail bytes there); plain: no typedef's meaning counts. */
static void typed_value(struct walk *w, const struct typed *ty, const uint8_t *p, size_t avail, int depth, bool plain)
{
	if (depth > MAX_DEPTH || (size_t)ty->size > avail)
		raw(w, p, avail);
	else
		how(w, ty, plain)(w, ty, p, depth);
}

static void value(struct walk *w, uint32_t id, const uint8_t *p, size_t avail, int depth, bool plain)
{
	struct typed ty;
	if (resolve(w->btf, id, &ty))
		typed_value(w, &ty, p, avail, depth, plain);
	else
		raw(w, p, avail);
}

/* A member of type ty at bit `bit` of p (a bitfield of bits bits; 0: none): integers not on a
 * byte boundary are read bit by bit. */
static bool bitwise(const struct typed *ty, uint32_t bit, uint32_t bits)
{
	return (bits || bit % 8) && is_integer(ty->t);
}

static void member_value(struct walk *w, const struct typed *ty, const uint8_t *p, uint32_t bit, uint32_t bits,
			 int depth)
{
	if (bitwise(ty, bit, bits)) {
		bool sign = btf_is_int(ty->t) ? btf_int_encoding(ty->t) & BTF_INT_SIGNED
					      : w->st->enum_signed || btf_kflag(ty->t);
		number(w, p + bit / 8, 0, sign && w->st->bitfield_signed, bit % 8, bits ? bits : 8 * (uint32_t)ty->size);
	} else {
		typed_value(w, ty, p + bit / 8, (size_t)ty->size, depth + 1, false);
	}
}

/* The bytes a member spans from its first: a bitfield's from the byte it starts in. */
static size_t span(const struct typed *ty, uint32_t bit, uint32_t bits)
{
	if (bitwise(ty, bit, bits))
		return (bit % 8 + (bits ? bits : 8 * (uint32_t)ty->size) + 7) / 8;
	return (size_t)ty->size;
}

/* JSON: a name as a key; identifiers (all BTF has) need no escaping. */
static void put_key(struct walk *w, const char *name)
{
	size_t n = strlen(name);
	if (!w->json) {
		kl_out_put(w->o, name, n);
		kl_out_puts(w->o, w->st->assign);
		return;
	}
	bool plain = true;
	for (size_t i = 0; plain && i < n; i++)
		plain = name[i] > ' ' && name[i] < 0x7f && name[i] != '"' && name[i] != '\\';
	if (plain) {
		kl_out_put(w->o, "\"", 1);
		kl_out_put(w->o, name, n);
		kl_out_put(w->o, "\":", 2);
	} else {
		kl_out_string(w->o, name, n, true);
		kl_out_put(w->o, ":", 1);
	}
}

/* A member as the walk prints it, decided from the BTF and the style alone: what a plan keeps
 * (kl_value_plan_new) so that a record's walk resolves nothing. */
struct step {
	const char *name;
	uint32_t bit, bits;         /* from the start of the outermost struct; a bitfield's size */
	size_t end;                 /* the bytes from there the member reaches */
	struct typed ty;
	struct array_plan arr;      /* an array's rule (ty.arr points here once planned) */
	int depth;                  /* of the struct it is a member of */
	bool hide[2];               /* left out of text, of JSON */
	put_fn *put;                /* planned: how its value prints (NULL: by member_value) */
	char *key[2];               /* planned: text's ` name=`, JSON's `,"name":` */
	size_t keylen[2], seplen[2];    /* ... of which the separator */
};

enum decision { D_SKIP, D_FLATTEN, D_PRINT };

/* What the walk does with member i of struct/union t at bit `base` (s filled for D_PRINT, and
 * s->ty for D_FLATTEN). */
static enum decision decide(const struct walk *w, const struct btf_type *t, uint16_t i, uint32_t base,
			    struct step *s)
{
	const char *name;
	uint32_t type;
	if (btf_is_datasec(t)) {           /* a global variable: its VAR's name and type */
		const struct btf_var_secinfo *v = btf_var_secinfos(t) + i;
		const struct btf_type *var = btf__type_by_id(w->btf, v->type);
		if (!var || !btf_is_var(var))
			return D_SKIP;
		name = btf__name_by_offset(w->btf, var->name_off);
		type = var->type;
		s->bit = base + v->offset * 8;
		s->bits = 0;
	} else {
		const struct btf_member *m = btf_members(t) + i;
		name = btf__name_by_offset(w->btf, m->name_off);
		type = m->type;
		s->bit = base + btf_member_bit_offset(t, i);
		s->bits = btf_member_bitfield_size(t, i);
	}
	if (!resolve(w->btf, type, &s->ty))
		return D_SKIP;
	s->name = name ? name : "";
	if (!*s->name && (!w->st->anon_flatten || is_record(s->ty.t)))
		return w->st->anon_flatten ? D_FLATTEN : D_SKIP;
	bool hide = starts_with_any(s->name, w->st->hidden);
	s->hide[0] = hide;
	s->hide[1] = hide && w->st->hidden_in_json;
	s->end = s->bit / 8 + span(&s->ty, s->bit, s->bits);
	return D_PRINT;
}

static int plan_add(struct kl_value_plan *pl, const struct step *s);

/* Print member s of the struct at p; true: it is past the data's end, where printing stops. */
static bool print_step(struct walk *w, const struct step *s, const uint8_t *p, int depth, bool *first)
{
	if ((size_t)(p - w->data) + s->end > w->size)
		return true;
	if (s->key[w->json]) {
		size_t skip = *first ? s->seplen[w->json] : 0;
		kl_out_put(w->o, s->key[w->json] + skip, s->keylen[w->json] - skip);
	} else {
		if (!*first)
			kl_out_puts(w->o, w->json ? "," : w->st->sep);
		put_key(w, s->name);
	}
	*first = false;
	w->name = s->name;
	if (s->put)
		s->put(w, &s->ty, p + s->bit / 8, depth + 1);
	else
		member_value(w, &s->ty, p, s->bit, s->bits, depth);
	return false;
}

/* The members of struct/union t at p, each `name: value` after a separator (none before the
 * first: *first), those at bit `base` on. true: one past the data's end, where printing
 * stops. Planning (w->into), each member is recorded instead. */
static bool members(struct walk *w, const struct btf_type *t, const uint8_t *p, uint32_t base, int depth,
		    bool *first)
{
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		struct step s = { .depth = depth };
		enum decision d = decide(w, t, i, base, &s);
		if (d == D_FLATTEN && depth < MAX_DEPTH && members(w, s.ty.t, p, s.bit, depth + 1, first))
			return true;
		if (d != D_PRINT)
			continue;
		if (w->into) {
			if (plan_add(w->into, &s))
				return true;
		} else if (!s.hide[w->json] && print_step(w, &s, p, depth, first)) {
			return true;
		}
	}
	return false;
}

/* ---- plans: a struct's steps decided once ------------------------------------------------ */

struct kl_value_plan {
	size_t n, cap;
	struct step *steps;
	bool failed;                /* out of memory while planning */
};

/* A member's separator and key, as printing writes them (seplen: the separator's bytes). */
static char *key_of(struct walk *w, const char *name, bool json, size_t *len, size_t *seplen)
{
	const char *sep = json ? "," : w->st->sep;
	char small[8];
	struct kl_out o = { small, sizeof(small), 0 };
	w->o = &o;
	w->json = json;
	put_key(w, name);
	char *key = malloc(strlen(sep) + o.pos + 1);
	if (key) {
		o = (struct kl_out){ key, strlen(sep) + o.pos + 1, 0 };
		kl_out_puts(&o, sep);
		put_key(w, name);
		*len = o.pos;
		*seplen = strlen(sep);
	}
	return key;
}

static int plan_add(struct kl_value_plan *pl, const struct step *s)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 8;
		struct step *ns = realloc(pl->steps, cap * sizeof(*ns));
		if (!ns)
			return pl->failed = true, -ENOMEM;
		pl->steps = ns;
		pl->cap = cap;
	}
	pl->steps[pl->n++] = *s;
	return 0;
}

struct kl_value_plan *kl_value_plan_new(const struct btf *btf, uint32_t type_id, enum kiln_value_style style)
{
	struct kl_value_plan *pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	struct walk w = { .btf = btf, .st = &styles[style], .into = pl };
	struct typed ty;
	bool first = true;
	if (resolve(btf, type_id, &ty) && is_record(ty.t))
		members(&w, ty.t, NULL, 0, 0, &first);
	for (size_t i = 0; i < pl->n && !pl->failed; i++) {
		struct step *s = &pl->steps[i];
		if (btf_is_array(s->ty.t)) {
			s->arr = array_rule(btf, w.st, &s->ty);
			s->ty.arr = &s->arr;
		}
		if (!bitwise(&s->ty, s->bit, s->bits))
			s->put = s->depth + 1 > MAX_DEPTH ? put_raw : how(&w, &s->ty, false);
		for (int json = 0; json < 2; json++)
			if (!(s->key[json] = key_of(&w, s->name, json, &s->keylen[json], &s->seplen[json])))
				pl->failed = true;
	}
	if (pl->failed) {
		kl_value_plan_free(pl);
		return NULL;
	}
	return pl;
}

void kl_value_plan_free(struct kl_value_plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++)
		free(pl->steps[i].key[0]), free(pl->steps[i].key[1]);
	free(pl->steps);
	free(pl);
}

/* ---- the public calls ------------------------------------------------------------------ */

/* The layout's plan, made on its first record: once, by compare-and-swap (records may be
 * decoded from several threads; the one that loses frees its own), never changed after.
 * NULL (the walk instead) when it could not be made. The layout is const to its readers;
 * the plan is the one field the printer fills in. */
static const struct kl_value_plan *record_plan(struct kiln_event *ev)
{
	struct kl_value_plan *pl = __atomic_load_n(&ev->plan, __ATOMIC_ACQUIRE);
	if (pl || __atomic_load_n(&ev->plan_failed, __ATOMIC_RELAXED))
		return pl;
	struct kl_value_plan *mine = kl_value_plan_new(ev->btf, ev->type_id, KILN_VALUE_FIELDS);
	if (!mine) {
		__atomic_store_n(&ev->plan_failed, true, __ATOMIC_RELAXED);
		return NULL;
	}
	if (__atomic_compare_exchange_n(&ev->plan, &pl, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		ev->plan_free = kl_value_plan_free;   /* read only when the layout is freed */
		return mine;
	}
	kl_value_plan_free(mine);
	return pl;
}

static const struct kiln_event_fmt no_stacks = { .sz = sizeof(no_stacks), .cpu = -1 };

void kl_value_record(struct kl_out *o, const struct kiln_event *ev, const void *data, size_t size,
		     const struct kiln_event_fmt *fmt, bool pid_known, int pid)
{
	struct walk w = { .o = o, .btf = ev->btf, .st = &styles[KILN_VALUE_FIELDS], .json = fmt->json,
			  .data = data, .size = size, .fmt = fmt, .pid_known = pid_known, .pid = pid };
	bool first = false;         /* after the event's name: a separator before each */
	const struct btf_type *t = btf__type_by_id(ev->btf, ev->type_id);
	const struct kl_value_plan *pl = record_plan((struct kiln_event *)ev);
	for (size_t i = 0; pl && i < pl->n; i++)
		if (!pl->steps[i].hide[w.json] && print_step(&w, &pl->steps[i], data, pl->steps[i].depth, &first))
			break;
	if (!pl && t && is_record(t))
		members(&w, t, data, 0, 0, &first);
	if (size < ev->size)
		kl_out_puts(o, fmt->json ? ",\"truncated\":true" : " (truncated)");
	if (fmt->json)
		kl_out_put(o, "}", 1);
	for (size_t i = 0; i < w.nstacks; i++) {
		size_t before = o->pos;
		putf(o, "\n  %s:", w.stacks[i].name);
		if (!put_frames(&w, w.stacks[i].id, w.stacks[i].user))
			o->pos = before;   /* nothing to show beyond the id */
	}
}

int kiln_value_format(const struct btf *btf, uint32_t type_id, const void *data, size_t size,
		      const struct kiln_value_fmt *fmt, char *buf, size_t len)
{
	struct kl_out o = { buf, len, 0 };
	if (!fmt || (!data && size) || (unsigned)fmt->style >= sizeof(styles) / sizeof(styles[0]))
		return kl_fail_msg(EINVAL, "kiln_value_format: no format, no data or no such style");
	struct walk w = { .o = &o, .btf = btf, .st = &styles[fmt->style], .json = fmt->json, .data = data,
			  .size = size, .fmt = &no_stacks };
	if (w.st->checked) {
		struct kiln_event_field f;
		int err = fmt->layouts && type_id ? kl_event_classify(fmt->layouts, type_id, &f) : 0;
		if (err)
			return err;
		if (fmt->layouts && type_id && f.size > size)
			return kl_fail_msg(-ERANGE, "%zu bytes hold no value of BTF type %u (%u bytes)", size, type_id,
					   f.size);
		w.btf = fmt->layouts && type_id ? f.btf : NULL;
	} else if (btf && type_id && btf__resolve_size(btf, type_id) != (long)size) {
		w.btf = NULL;
	}
	if (w.btf && type_id)
		value(&w, type_id, data, size, 0, false);
	else
		raw(&w, data, size);
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
	if (!f || !record || (size_t)f->offset + f->size > size)
		return kl_fail_msg(ERANGE, "a %zu-byte record does not hold field '%s'", size, f ? f->name : "?");
	struct typed ty;
	if (!f->btf || !resolve(f->btf, f->type_id, &ty))
		return kl_fail_msg(EINVAL, "field '%s' has no BTF type", f->name);
	struct kl_out o = { buf, len, 0 };
	struct walk w = { .o = &o, .btf = f->btf, .st = &styles[KILN_VALUE_FIELDS], .json = json, .data = record,
			  .size = size, .fmt = &no_stacks, .name = f->name };
	member_value(&w, &ty, record, f->bit_size ? f->bit_offset : 8 * f->offset, f->bit_size, 0);
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
