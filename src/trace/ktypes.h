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
/* The same, with the struct's size in bytes (sizeof). */
int kt_kstruct_size(const char *name, uint32_t *size, char *msg, size_t len);
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
#endif
