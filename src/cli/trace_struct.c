/* trace_struct.c — a whole struct the script defines (`@s = *(struct Foo *)arg0`), printed
 * as bpftrace prints one: `{ .m = 2, .n = 3 }` as a value, `{.m=2,.n=3}` in a map's key;
 * members of members nested, arrays of integers as `[1,2]`, char arrays as their text. The
 * members come from the script's definitions (trace/cstruct.h) in the same order. */
#include "trace.h"
#include "trace/cdefine.h"
#include "trace/cstruct.h"
#include <inttypes.h>
#include <string.h>

/* nesting of structs printed */
enum { MAX_DEPTH = 8 };

static int64_t int_at(const uint8_t *p, uint32_t size, bool sign)
{
	uint64_t v = 0;
	memcpy(&v, p, size < 8 ? size : 8);   /* little-endian */
	if (sign && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

static void put_int_at(FILE *out, const uint8_t *p, const struct kt_type *t)
{
	if (t->is_signed)
		fprintf(out, "%" PRId64, int_at(p, t->size, true));
	else
		fprintf(out, "%" PRIu64, (uint64_t)int_at(p, t->size, false));
}

static void put_members(FILE *out, const struct kt_cdefs *c, const struct kt_type *t, const uint8_t *p, bool key,
			int depth)
{
	const char *name;
	struct kt_type mt;
	uint32_t off;
	fputs(key ? "{" : "{ ", out);
	for (uint32_t i = 0; kt_cs_member(c, t->tname, i, &name, &mt, &off); i++) {
		fprintf(out, "%s.%s%s", i ? (key ? "," : ", ") : "", name, key ? "=" : " = ");
		const uint8_t *q = p + off;
		if (mt.kind == KTT_STRUCT && depth < MAX_DEPTH) {
			put_members(out, c, &mt, q, key, depth + 1);
		} else if (mt.kind == KTT_STR) {
			fprintf(out, "%.*s", (int)strnlen((const char *)q, mt.size - 1), (const char *)q);
		} else if (mt.nelems && mt.pointee && mt.pointee->kind == KTT_INT) {
			uint32_t es = mt.pointee->size ? mt.pointee->size : 8;
			fputc('[', out);
			for (uint32_t k = 0; k < mt.nelems; k++) {
				fputs(k ? "," : "", out);
				put_int_at(out, q + k * es, mt.pointee);
			}
			fputc(']', out);
		} else if (mt.kind == KTT_INT) {
			put_int_at(out, q, &mt);
		}
	}
	fputs(key ? "}" : " }", out);
}

void trace_put_struct(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent)
{
	put_members(out, o->s->cdefs, t, p, indent == 4, 0);   /* indent 4: a map's key */
}
