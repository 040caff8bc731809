/* cstruct.h — the structs and unions a bpftrace script defines in C at its top level
 * (`struct Foo { int a; char b[10]; struct Bar *next; struct { int m[1]; } y; };`), read
 * without clang: members of C's integer types (int, unsigned long, uint32_t, u64, ...),
 * pointers, arrays, and structs defined before (or inline, anonymous), laid out with C's
 * natural alignment on x86-64/arm64. The script's structs come before the kernel's BTF
 * (kt_struct_* below), as bpftrace's clang parse does. The lexer hands each definition to
 * kt_cs_define; the table lives in the script's kt_cdefs (cdefine.h). */
#ifndef KT_CSTRUCT_H
#define KT_CSTRUCT_H
#include <stddef.h>
#include <stdint.h>
#include "trace/ast.h"
#include "compiler/diag.h"

struct kt_cdefs;
struct kt_cstructs;

/* One top-level `struct|union [NAME] { ... } [;]` (LEN bytes of TEXT) into *cs, allocated at
 * the first. `enum` definitions are read over. 0, or -1 with a message in msg and the
 * offending token's offset in TEXT in *err_off. */
int kt_cs_define(struct kt_cstructs **cs, const char *text, size_t len, size_t *err_off, char *msg, size_t msglen);
/* The span of byte off of text, which starts at span at. */
struct kl_span kt_cs_span(struct kl_span at, const char *text, size_t off);
void kt_cs_free(struct kt_cstructs *cs);

/* Is sname one of the script's structs? (c NULL: none) */
bool kt_cs_has(const struct kt_cdefs *c, const char *sname);
/* Member `field` of the script's struct sname: its byte offset and kiln trace type (an
 * integer; a pointer: to a struct (tname), to integers or pointers (pointee); an embedded
 * struct (KTT_STRUCT, its size set: a whole struct can be a value); a char array (a string of its length + 1); another array: a pointer
 * to its first element with nelems). 0, or -1 with the reason in msg. */
int kt_cs_field(const struct kt_cdefs *c, const char *sname, const char *field, struct kt_type *out, uint32_t *off,
		char *msg, size_t len);

/* The size of the script's struct sname; 0 when it has none. */
uint32_t kt_cs_size(const struct kt_cdefs *c, const char *sname);
/* The i-th member of the script's struct sname (its name, type as kt_cs_field's, offset):
 * false past the last. A whole struct as a value is printed so (src/cli/trace_val.c). */
bool kt_cs_member(const struct kt_cdefs *c, const char *sname, uint32_t i, const char **name, struct kt_type *t,
		  uint32_t *off);

/* The script's struct sname if it has one, else the kernel's (ktypes.h): */
int kt_struct_exists(const struct kt_cdefs *c, const char *sname, char *msg, size_t len);
int kt_struct_field(const struct kt_cdefs *c, const char *sname, const char *field, struct kt_type *out, char *msg,
		    size_t len);
int kt_struct_sizeof(const struct kt_cdefs *c, const char *sname, uint32_t *size, char *msg, size_t len);
int kt_struct_offsetof(const struct kt_cdefs *c, const char *sname, const char *const *fields, uint32_t nfields,
		       uint32_t *off, char *msg, size_t len);
#endif
