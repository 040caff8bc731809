/* validate_btf.h — .BTF, .BTF.ext and .maps of an untrusted object (validate_btf.c). */
#ifndef KL_LIB_VALIDATE_BTF_H
#define KL_LIB_VALIDATE_BTF_H

struct kv;

/* .BTF (fills v->btf), .BTF.ext, and the .maps definitions. */
int kv_btf_check(struct kv *v);
int kv_btf_ext_check(struct kv *v);
int kv_maps_check(struct kv *v);

#endif
