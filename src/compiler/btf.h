/* btf.h — btf.c: the .BTF and .BTF.ext sections of a compiled object (obj.h). */
#ifndef KL_BTF_H
#define KL_BTF_H
#include <stddef.h>
#include <stdint.h>

struct kl_obj;

/* Build the .BTF and .BTF.ext sections. Buffers are malloc'd; caller frees. */
int kl_btf_build(const struct kl_obj *obj, void **btf, uint32_t *btf_len,
		 void **ext, uint32_t *ext_len, char *err, size_t errlen);

#endif
