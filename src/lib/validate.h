/* validate.h — libkiln's check of an untrusted BPF ELF object before libbpf reads it.
 *
 * libbpf 1.1 trusts much of an object: type ids in BTF, names' string offsets, symbol values
 * and the shape of map definitions; a few changed bytes make it read through a NULL pointer
 * or loop for ever. kl_object_validate() walks the whole image first, with bounds checked on
 * every read, and refuses anything libbpf could trip on with one line naming the object, the
 * section and the byte offset in it:
 *
 *   object 'x.o': .BTF: type 12 (DATASEC) at offset 0x1a4: variable 0 refers to type 4000,
 *   which does not exist (37 types)
 *
 * validate.c checks the ELF layer (header, section headers, string tables, symbols,
 * relocations, instructions' ldimm64 pairs); validate_btf.c checks .BTF, .BTF.ext and the
 * map definitions of .maps. */
#ifndef KL_LIB_VALIDATE_H
#define KL_LIB_VALIDATE_H
#include <stddef.h>
#include <stdint.h>

/* 0, or -EINVAL with the message recorded (kl_fail_msg). name is the object's, for messages. */
int kl_object_validate(const void *image, size_t size, const char *name);

/* ---- shared by validate.c and validate_btf.c only -------------------------------------- */

struct kv_sec {                 /* one section header, copied out of the image */
	const char *name;       /* inside the image's section-name table, NUL-terminated */
	uint32_t type, link, info;
	uint64_t flags, off, size, entsize;
};

struct kv_btf {                 /* .BTF once its header and type layout are checked */
	const uint8_t *base;    /* the section in the image (read with kv_u32: any alignment) */
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint32_t ntypes;        /* valid ids are 1..ntypes; 0 is void */
	uint32_t *off;          /* off[id]: the type's offset from the start of the section */
};

struct kv {
	const uint8_t *img;
	size_t size;
	const char *obj;
	size_t nsecs;
	struct kv_sec *secs;
	size_t btf_sec, ext_sec, maps_sec;     /* 0 when absent */
	struct kv_btf btf;
};

static inline uint32_t kv_u32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t kv_u16(const uint8_t *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/* "object '<obj>': <where>: <message>" recorded; returns -EINVAL. */
int kv_fail(const struct kv *v, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The index of the section named name, 0 if none. */
size_t kv_sec_by_name(const struct kv *v, const char *name);

/* validate_btf.c: .BTF (fills v->btf), .BTF.ext, and the .maps definitions. */
int kv_btf_check(struct kv *v);
int kv_btf_ext_check(struct kv *v);
int kv_maps_check(struct kv *v);

#endif
