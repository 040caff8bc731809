/* ktypes.h — kernel structs for kiln trace's `->` and casts (`curtask->real_parent->pid`,
 * `((struct task_struct *)p)->pid`), typed from the kernel's BTF (compiler/kbtf.h). The
 * generated Lisp reads them with kiln's CO-RE forms, so the offsets are relocated at load. */
#ifndef KT_KTYPES_H
#define KT_KTYPES_H
#include <stddef.h>
#include "trace/ast.h"

/* 0 if the kernel has a struct or union called name; -1 with the reason (and the nearest
 * names) in msg. */
int kt_kstruct(const char *name, char *msg, size_t len);
/* The type of member `field` of kernel struct or union `sname` (found inside anonymous
 * members too): an integer or enum of 1, 2, 4 or 8 bytes; a pointer to a struct or union
 * (an 8-byte unsigned integer whose tname is the struct's name); a pointer to an integer
 * or a pointer (an integer whose pointee, shared, says what `*` reads); another pointer (an
 * integer); a named struct or union embedded (KTT_STRUCT, read on with `.field`); a char
 * array (a string of its size). 0, or -1 with the reason in msg. */
int kt_kfield(const char *sname, const char *field, struct kt_type *out, char *msg, size_t len);
/* The value of enumerator `name` of any kernel enum (TCP_FIN_WAIT1, SKB_DROP_REASON_*):
 * 0 with *val set, -1 if no enum has it (or the kernel has no BTF). */
int kt_kenum(const char *name, int64_t *val);
/* sizeof(struct NAME): 0 with *size, or -1 with the reason in msg. */
int kt_ksizeof(const char *sname, uint32_t *size, char *msg, size_t len);
/* offsetof(struct NAME, f1.f2...): the member's byte offset (into anonymous members too). */
int kt_koffsetof(const char *sname, const char *const *fields, uint32_t nfields, uint32_t *off, char *msg, size_t len);
/* The kernel's functions (BTF FUNC names, each once, sorted) matching the fnmatch glob (NULL:
 * all), in arena memory: what kprobe, kretprobe, kfunc and kretfunc wildcards expand to. 0,
 * or -1 with the reason in msg (no BTF). */
int kt_kfuncs(struct kl_arena *a, const char *glob, const char ***out, uint32_t *n, char *msg, size_t len);
/* A kernel function's parameter or return value as kfunc's args->NAME and retval type it. */
struct kt_karg {
	const char *name;           /* NULL when BTF has none */
	struct kt_type type;        /* ret: KTT_NONE for void */
	bool ok;                    /* an integer or a pointer: what kiln trace reads */
};
/* The parameters of kernel function func (*n of them) and its return value, from its BTF
 * prototype. 0, or -1 with the reason (and the nearest names) in msg. */
int kt_kfunc_args(struct kl_arena *a, const char *func, struct kt_karg **args, uint32_t *n, struct kt_karg *ret,
		  char *msg, size_t len);
/* The kernel's raw tracepoints (BTF typedefs btf_trace_NAME) whose NAME matches glob (NULL:
 * all), in BTF order, with how many u64 arguments each takes. 0, or -1 (no BTF) with msg. */
int kt_raw_tracepoints(struct kl_arena *a, const char *glob, const char ***names, uint32_t **nargs, uint32_t *n,
		       char *msg, size_t len);
#endif
