/* types.h — the data types of kiln programs (integers, arrays, structs laid out as C does,
 * packed defevent records) shared by the front end and the BTF writer. */
#ifndef KL_TYPES_H
#define KL_TYPES_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"

enum kl_type_kind {
	KL_T_INT,    /* size 1/2/4/8, is_signed */
	KL_T_PTR,    /* 8 bytes; elem may be NULL (void *) */
	KL_T_ARRAY,  /* elem[count] */
	KL_T_STRUCT, /* defstruct (C layout) or defevent (packed) */
	KL_T_ENUM,   /* a kernel enum's projection: size 1/2/4/8, the enumerators used */
};

struct kl_field {
	const char *name;      /* as written in the source, e.g. "src-ip" */
	struct kl_type *type;
	uint32_t offset;       /* bytes (a bitfield: the byte holding its first bit) */
	uint32_t bitoff;       /* a bitfield: its offset in bits from the struct's start */
	uint8_t bitsize;       /* a bitfield: its width in bits; 0 for a plain member */
};

struct kl_enumval {
	const char *name;
	int64_t value;
};

struct kl_type {
	enum kl_type_kind kind;
	const char *name;      /* "u32", "i8", "char", "unsigned-int" for INT (as kiln spells it);
				* struct name; NULL otherwise */
	const char *cname;     /* a C integer type (no typedef_name): its BTF INT name, as clang
				* writes it ("unsigned int"); NULL: name (a kernel type's own) */
	uint32_t size, align;
	bool is_signed;        /* INT */
	bool is_char;          /* INT: the "char" type (BTF INT "char", signed, as clang emits) */
	bool is_bool;          /* INT: C's _Bool (BTF encoding BOOL) */
	bool packed;           /* STRUCT from defevent */
	bool is_union;         /* STRUCT from defunion: every field at offset 0 */
	struct kl_type *elem;  /* PTR, ARRAY */
	uint32_t count;        /* ARRAY */
	struct kl_field *fields;
	uint32_t nfields;
	const char *typedef_name; /* BTF TYPEDEF naming the type: the kernel's u32 and __u32,
				   * or kiln's ipv4_addr, kstack_id... (so user space knows how to
				   * print the field) */
	const struct kl_type *under; /* with typedef_name: the type it names (another typedef
				      * or a C type), as the kernel's headers chain them */
	bool core;             /* relocated by libbpf (CO-RE): a projection of a kernel type or a
				* local struct declared with (:preserve-access-index) */
	uint32_t kid;          /* a projection: the kernel BTF id it projects (0 for a local one) */
	uint32_t fieldcap;     /* a projection: room in fields (members are added as used) */
	struct kl_enumval *vals; /* ENUM: the enumerators used */
	uint32_t nvals, valcap;
};

/* The built-in scalar types: u8 u16 u32 u64 i8 i16 i32 i64 ptr; the kernel's s8..s64,
 * __u8..__s64, __be16.. and bool; C's char, short, int, long, long-long and their unsigned-
 * forms (one symbol each: unsigned-int) and size_t; and the ones that tell user space how
 * to print a field: ipv4 (u32 in network order), ipv6 (16 bytes), kstack and ustack (i32
 * stack ids from get-stackid). NULL if unknown. Each is described in BTF as the kernel's
 * headers and clang would: u32 is TYPEDEF u32 -> TYPEDEF __u32 -> INT unsigned int. */
struct kl_type *kl_type_builtin(const char *name);
struct kl_type *kl_type_array(struct kl_arena *a, struct kl_type *elem, uint32_t count);
/* A sized blob for maps declared with :key-size/:value-size only: u8/u16/u32/u64 for 1, 2,
 * 4, 8 bytes, else (array u8 N). */
struct kl_type *kl_type_sized(struct kl_arena *a, uint32_t size);
/* Lay out fields (offsets, size, align) in C order; packed for defevent; all at 0 for a union. */
void kl_type_layout(struct kl_type *st);
const struct kl_field *kl_type_field(const struct kl_type *st, const char *name);

/* A struct of built-in integers and arrays of them, named as kiln names them ("u32", "i8",
 * "s64"...), laid out as kl_type_layout lays out a defstruct: the host's defstruct decoders
 * read records by it, so both sides agree on every offset. */
struct kl_scalar_field {
	const char *type;      /* in: a built-in integer type's name */
	uint32_t count;        /* in: array elements; 0 for a scalar */
	uint32_t offset, size; /* out: bytes from the struct's start; one element's bytes */
	bool is_signed;        /* out */
};
/* false (nothing laid out) when a type is no built-in integer; else true and *size the
 * struct's size. */
bool kl_type_scalar_layout(struct kl_arena *a, struct kl_scalar_field *f, uint32_t n, uint32_t *size);

#endif
