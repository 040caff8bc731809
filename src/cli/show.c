/* show.c — the command line's way to read and write map keys and values: integers or hex in,
 * and out as text for people or JSON for programs, decoded by the map's BTF when it has one. */
#include "cli.h"
#include "lib/event_internal.h"
#include "lib/map_internal.h"
#include <arpa/inet.h>
#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Through libkiln's escaper (lib/utf8.c), the one the event decoder and the metrics use. */
void cli_escape(FILE *out, const char *s, size_t n, enum kl_esc style)
{
	char small[512], *buf = small;
	size_t need = kl_escape(small, sizeof(small), s, n, style);
	if (need > sizeof(small) && (buf = malloc(need)))
		kl_escape(buf, need, s, n, style);
	if (buf)
		fwrite(buf, 1, need, out);   /* out of memory: nothing, the quotes still match */
	if (buf != small)
		free(buf);
}

/* UTF-8 text passes through (source lines and comm may hold any); invalid bytes become
 * U+FFFD so that the output always parses. */
void cli_json_str(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	cli_escape(out, s, strnlen(s, n), KL_ESC_JSON);
	fputc('"', out);
}

static uint64_t load_uint(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n < 8 ? n : 8);     /* little-endian host: the BPF maps' own order */
	return v;
}

static int64_t sign_extend(uint64_t v, size_t n)
{
	if (n >= 8)
		return (int64_t)v;
	unsigned shift = (unsigned)(64 - 8 * n);
	return (int64_t)(v << shift) >> shift;
}

static void show_hex(FILE *out, const uint8_t *p, size_t n, bool json)
{
	fputs(json ? "\"0x" : "0x", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", p[i]);
	if (json)
		fputc('"', out);
}

/* Bytes without BTF: an integer when it fits in 8 bytes, else hex. */
static void show_raw(FILE *out, const uint8_t *p, size_t n, bool json)
{
	if (n <= 8 && (n & (n - 1)) == 0)
		fprintf(out, "%" PRIu64, load_uint(p, n));
	else
		show_hex(out, p, n, json);
}

/* An element that is text: a char INT (char, unsigned char...), not one reached through a
 * byte typedef (u8, __u8, kiln's own u8 chain), which holds numbers. */
static bool is_char_type(const struct btf *btf, uint32_t id)
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

/* kiln's :ipv4 and :ipv6 are typedefs ipv4_addr and ipv6_addr (the names event.c decodes
 * records by too): addresses in network order, shown as people write them, which is also what
 * `kiln map get/set` read back. */
static bool show_addr(FILE *out, const struct btf *btf, uint32_t id, const uint8_t *p, size_t avail, bool json)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int guard = 0; t && guard < 32 && (btf_is_mod(t) || btf_is_typedef(t)); guard++) {
		const char *n = btf_is_typedef(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		int family = !n ? 0 : !strcmp(n, "ipv4_addr") ? AF_INET : !strcmp(n, "ipv6_addr") ? AF_INET6 : 0;
		size_t size = family == AF_INET ? 4 : 16;
		char text[INET6_ADDRSTRLEN];
		if (family && btf__resolve_size(btf, id) == (long)size && avail >= size &&
		    inet_ntop(family, p, text, sizeof(text))) {
			fprintf(out, json ? "\"%s\"" : "%s", text);
			return true;
		}
		t = btf__type_by_id(btf, t->type);
	}
	return false;
}

static void show_type(FILE *out, const struct btf *btf, uint32_t id, const uint8_t *p, size_t avail,
		      bool json, int depth)
{
	if (show_addr(out, btf, id, p, avail, json))
		return;
	id = btf__resolve_type(btf, id) < 0 ? id : (uint32_t)btf__resolve_type(btf, id);
	const struct btf_type *t = btf__type_by_id(btf, id);
	long sz = btf__resolve_size(btf, id);
	if (!t || sz < 0 || (size_t)sz > avail || depth > 16) {
		show_raw(out, p, avail, json);
		return;
	}
	if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);
		uint64_t v = load_uint(p, t->size);
		if (enc & BTF_INT_BOOL)
			fputs(v ? "true" : "false", out);
		else if (t->size > 8)
			show_hex(out, p, t->size, json);
		else if (enc & BTF_INT_SIGNED)
			fprintf(out, "%" PRId64, sign_extend(v, t->size));
		else
			fprintf(out, "%" PRIu64, v);
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		fprintf(out, "%" PRId64, sign_extend(load_uint(p, t->size), t->size));
	} else if (btf_is_ptr(t)) {
		fprintf(out, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, load_uint(p, 8));
	} else if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		long esz = btf__resolve_size(btf, a->type);
		if (esz <= 0) {
			show_raw(out, p, (size_t)sz, json);
		} else if (is_char_type(btf, a->type) && printable_string(p, a->nelems)) {
			size_t n = strnlen((const char *)p, a->nelems);
			if (json)
				cli_json_str(out, (const char *)p, n);
			else
				fprintf(out, "\"%.*s\"", (int)n, (const char *)p);
		} else if (is_char_type(btf, a->type) || (esz == 1 && a->nelems > 16)) {
			show_hex(out, p, a->nelems, json);
		} else {
			fputc('[', out);
			for (uint32_t i = 0; i < a->nelems; i++) {
				if (i)
					fputs(json ? "," : ", ", out);
				show_type(out, btf, a->type, p + (size_t)i * (size_t)esz, (size_t)esz, json, depth + 1);
			}
			fputc(']', out);
		}
	} else if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);
		fputc('{', out);
		bool first = true;
		for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
			const char *name = btf__name_by_offset(btf, m->name_off);
			uint32_t bit = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
			long msz = btf__resolve_size(btf, m->type);
			if (!name || !*name || msz < 0 || bit / 8 + (size_t)msz > (size_t)sz)
				continue;
			if (!json && !strncmp(name, "padding", 7))
				continue;
			fprintf(out, "%s", first ? "" : json ? "," : ", ");
			first = false;
			if (json)
				fprintf(out, "\"%s\":", name);
			else
				fprintf(out, "%s: ", name);
			if (bits) {
				uint64_t v = load_uint(p + bit / 64 * 8, 8) >> (bit % 64);
				fprintf(out, "%" PRIu64, v & (bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1)));
			} else {
				show_type(out, btf, m->type, p + bit / 8, (size_t)msz, json, depth + 1);
			}
		}
		fputc('}', out);
	} else {
		show_raw(out, p, (size_t)sz, json);
	}
}

void cli_show(FILE *out, const struct btf *btf, uint32_t type_id, const void *data, size_t size, bool json)
{
	if (btf && type_id && btf__resolve_size(btf, type_id) == (long)size)
		show_type(out, btf, type_id, data, size, json, 0);
	else
		show_raw(out, data, size, json);
}

int cli_parse_value(const char *s, void *out, size_t size)
{
	return kl_map_parse_raw(s, out, size);
}
