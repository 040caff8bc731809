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
 * relocations, instructions' ldimm64 pairs), then calls validate_btf.c for .BTF, .BTF.ext and
 * the map definitions of .maps; both read the image through validate_image.h. */
#ifndef KL_LIB_VALIDATE_H
#define KL_LIB_VALIDATE_H
#include <stddef.h>
#include <stdint.h>

/* 0, or -EINVAL with the message recorded (kl_fail_msg). name is the object's, for messages. */
int kl_object_validate(const void *image, size_t size, const char *name);
/* The same checks of a raw BTF blob (a .BTF section's bytes alone, /sys/kernel/btf/vmlinux):
 * header, layout, every type's ids and names, no loops. 0, or -EINVAL with the message. */
int kl_btf_raw_validate(const void *raw, size_t size, const char *name);

#endif
