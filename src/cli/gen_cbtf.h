/* gen_cbtf.h — the object's BTF renamed for C (gen_cbtf.c). */
#ifndef KL_CLI_GEN_CBTF_H
#define KL_CLI_GEN_CBTF_H

struct btf;

/* A copy of btf whose names C can print as they are: tags, typedefs, enumerators and
 * members renamed by gen_names.h's rule, integers and floats spelled as C does, tags reduced
 * to plain text; the same type ids. NULL with errno set. */
struct btf *gen_c_btf(const struct btf *btf);

#endif
