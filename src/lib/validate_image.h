/* validate_image.h — an untrusted object's image as validate.c and validate_btf.c read it
 * (validate_image.c): its section headers copied out, unaligned reads, and the one way a
 * check fails. Private to those files. */
#ifndef KL_LIB_VALIDATE_IMAGE_H
#define KL_LIB_VALIDATE_IMAGE_H
#include <stddef.h>
#include <stdint.h>

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

#endif
