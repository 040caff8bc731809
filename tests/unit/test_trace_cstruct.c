/* test_trace_cstruct.c — kiln trace's reader of the structs a script defines in C
 * (src/trace/cstruct.h): C's layout (alignment, padding, unions, arrays, nested and
 * anonymous structs, pointers), the member types sema is given, and the definitions refused
 * with their reason. */
#include "check.h"
#include "trace/cdefine.h"
#include "trace/cstruct.h"
#include <string.h>

static size_t err_off;

static int define(struct kt_cdefs *c, const char *text, char *msg)
{
	return kt_cs_define(&c->structs, text, strlen(text), &err_off, msg, 256);
}

static uint32_t size_of(const struct kt_cdefs *c, const char *name)
{
	uint32_t size = 0;
	char msg[256];
	return kt_struct_sizeof(c, name, &size, msg, sizeof(msg)) ? 0 : size;
}

int main(void)
{
	struct kt_cdefs c = { 0 };
	char msg[256] = "";
	CHECK("cstruct/define", !define(&c, "struct T { uint32_t a; uint32_t b[2]; }", msg) &&
	      !define(&c, "struct W { uint32_t a; struct T t; }", msg) &&
	      !define(&c, "struct C { uint32_t a; void * b; struct W w[10]; }", msg) &&
	      !define(&c, "struct N { struct { int m[1] } y; struct { long n } a; union { char x; short q; } u; }", msg) &&
	      !define(&c, "union U { char x; short q; }", msg) &&
	      !define(&c, "struct A {int32_t a; int32_t b; char c[28] }", msg) &&
	      !define(&c, "struct P { unsigned char c; const struct P *next; /* a comment */ unsigned long long q; }", msg),
	      "%s", msg);
	CHECK("cstruct/sizes", size_of(&c, "T") == 12 && size_of(&c, "W") == 16 && size_of(&c, "C") == 176 &&
	      size_of(&c, "N") == 24 && size_of(&c, "U") == 2 && size_of(&c, "A") == 36 && size_of(&c, "P") == 24,
	      "T %u W %u C %u N %u U %u A %u P %u", size_of(&c, "T"), size_of(&c, "W"), size_of(&c, "C"),
	      size_of(&c, "N"), size_of(&c, "U"), size_of(&c, "A"), size_of(&c, "P"));
	struct kt_type t;
	uint32_t off = 0;
	CHECK("cstruct/array-of-structs", !kt_cs_field(&c, "C", "w", &t, &off, msg, sizeof(msg)) && off == 16 &&
	      t.nelems == 10 && t.pointee && t.pointee->kind == KTT_STRUCT && !strcmp(t.pointee->tname, "W") &&
	      t.pointee->size == 16, "off %u nelems %u", off, t.nelems);
	CHECK("cstruct/char-array", !kt_cs_field(&c, "A", "c", &t, &off, msg, sizeof(msg)) && off == 8 &&
	      t.kind == KTT_STR && t.size == 29, "off %u kind %d size %u", off, t.kind, t.size);
	CHECK("cstruct/struct-pointer", !kt_cs_field(&c, "P", "next", &t, &off, msg, sizeof(msg)) && off == 8 &&
	      t.kind == KTT_INT && t.tname && !strcmp(t.tname, "P"), "off %u", off);
	CHECK("cstruct/unsigned", !kt_cs_field(&c, "P", "c", &t, &off, msg, sizeof(msg)) && t.size == 1 && !t.is_signed,
	      "size %u signed %d", t.size, t.is_signed);
	uint32_t o = 0;
	const char *path[] = { "t", "b" };
	CHECK("cstruct/offsetof", !kt_struct_offsetof(&c, "W", path, 2, &o, msg, sizeof(msg)) && o == 8, "%u %s", o, msg);
	CHECK("cstruct/no-field", kt_cs_field(&c, "T", "zz", &t, &off, msg, sizeof(msg)) && strstr(msg, "no field named zz"),
	      "%s", msg);
	CHECK("cstruct/undefined-member", define(&c, "struct B { struct Nope n; }", msg) &&
	      !strcmp(msg, "struct Nope is used before the script defines it"), "%s", msg);
	CHECK("cstruct/unknown-type", define(&c, "struct F { float f; }", msg) && strstr(msg, "'float'") && err_off == 11,
	      "%s at %zu", msg, err_off);
	CHECK("cstruct/twice", define(&c, "struct T { int a; }", msg) && strstr(msg, "defined twice"), "%s", msg);
	CHECK("cstruct/enum-read-over", !define(&c, "enum E { X, Y }", msg), "%s", msg);
	CHECK("cstruct/kernel-not-shadowed", !kt_cs_has(&c, "task_struct") && kt_cs_has(&c, "W"), "lookup");
	kt_cdef_free(&c);
	return check_failures != 0;
}
