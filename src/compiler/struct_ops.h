/* struct_ops.h — (defstruct-ops NAME :type KSTRUCT (MEMBER VALUE)...): a kernel struct of
 * operations (tcp_congestion_ops) filled with :struct-ops programs, integers and strings, as
 * libbpf lays it out: the struct's bytes in the ELF section .struct_ops (one variable per
 * defstruct-ops, an ELF symbol and a BTF VAR in the DATASEC .struct_ops), each function
 * pointer relocated (.rel.struct_ops) against its program's symbol. libbpf makes each one a
 * BPF_MAP_TYPE_STRUCT_OPS map; registering the map registers the operations (docs/language.md).
 * The members are checked against the kernel's BTF; a program's arguments are typed from its
 * member's function prototype (targs.c). */
#ifndef KL_STRUCT_OPS_H
#define KL_STRUCT_OPS_H
#include "compile.h"

struct kl_kbtf;

/* ---- in the object (obj->sops): what elf.c and btf.c write ---- */

enum kl_sops_kind {
	KL_SOPS_PROG,   /* a function pointer: relocated against funcs[func]'s symbol */
	KL_SOPS_INT,    /* an integer, in the image */
	KL_SOPS_CHARS,  /* a char array (the name), in the image */
};

struct kl_sops_member {
	const char *name;             /* the kernel's member name */
	enum kl_sops_kind kind;
	uint32_t off;                 /* bytes from the struct's start, the kernel's */
	const struct kl_type *type;   /* INT, CHARS: the member's local type */
	uint32_t func;                /* PROG: index into obj->funcs */
};

struct kl_sops {
	const char *var;              /* mangled: the ELF symbol, BTF VAR and libbpf's map name */
	const char *type;             /* the kernel struct's name: tcp_congestion_ops */
	uint32_t size;                /* the kernel struct's size, the image's */
	uint8_t *image;               /* size bytes; function pointers 0 (relocated) */
	struct kl_sops_member *members;  /* in offset order */
	uint32_t nmembers;
	uint32_t off;                 /* in .struct_ops (8-aligned) */
};

/* ---- in the compilation ---- */

/* (defstruct-ops ...), a top-level form (forms.c's table). */
int kl_struct_ops_define(struct kl_comp *c, struct kl_node *n);
/* The section of a :struct-ops defprog that names none: "struct_ops/NAME". */
const char *kl_struct_ops_section(struct kl_comp *c, const char *prog);
/* The member a :struct-ops program fills, for its arguments: the kernel struct's name, the
 * member's name and the member's FUNC_PROTO id in the kernel's BTF k. -1 with an error at the
 * program when it fills none (or two members that differ). */
int kl_struct_ops_member_of(struct kl_comp *c, const struct kl_progdef *p, const struct kl_kbtf **k,
			    const char **type, const char **member, uint32_t *proto);
/* Kernel facts about the arguments of a struct's operations: the prefixes of the FUNCs whose
 * prototypes name them (the kernel's stubs, "__bpf_tcp_ca_" then "bpf_tcp_ca_"), NULL-ended,
 * and the struct a pointer argument really points at (the verifier makes tcp_congestion_ops'
 * `struct sock *` a `struct tcp_sock *`): NULL when it is what BTF says. */
const char *const *kl_struct_ops_stub_prefixes(const char *type);
const char *kl_struct_ops_retype(const char *type, const char *pointee);
/* Fill obj->sops from the definitions: each member's program found among funcs (nf of them).
 * -1 with an error at the member naming no :struct-ops program. */
int kl_struct_ops_obj(struct kl_comp *c, struct kl_obj *obj, const struct kl_func *funcs, uint32_t nf);

#endif
