/* btf_internal.h — what btf_build.c (the checks, the layout, the order), btf.c (types, maps,
 * functions: .BTF) and btf_ext.c (.BTF.ext: func, line and CO-RE records) share while they
 * build one object's BTF. Private to those three. */
#ifndef KL_BTF_INTERNAL_H
#define KL_BTF_INTERNAL_H
#include "obj.h"
#include <bpf/btf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A type already in the BTF. Anonymous types (pointers, arrays, ints) are keyed by their
 * structure so that, as in clang's output, every `__uint(max_entries, 4)` shares one
 * PTR->ARRAY pair; structs are keyed by the kl_type they describe. */
enum memo_kind { MEMO_INT, MEMO_PTR, MEMO_ARRAY, MEMO_STRUCT, MEMO_FWD, MEMO_CTX, MEMO_ENUM };

struct memo {
	enum memo_kind kind;
	const void *key;       /* INT/FWD/CTX: name; STRUCT: the kl_type */
	uint32_t a, b;         /* PTR: target; ARRAY: elem, count */
	int id;                /* -1 while a struct's members are being built */
};

struct bb {
	const struct kl_obj *obj;
	struct btf *btf;
	char *err;
	size_t errlen;
	struct memo *memo;
	size_t nmemo, capmemo;
	size_t *hash, hcap;    /* memo_find's index of memo */
	int *map_struct;       /* per map: its anonymous definition STRUCT; -1 while building */
	uint32_t *map_size;    /* per map: bytes of its block in .maps */
	int *func_id;          /* per function: its BTF FUNC */
	uint32_t *by_sec, *sec_start; /* functions grouped by code section (see layout) */
	const char **line_at;  /* obj->source split in lines, 1-based */
	uint32_t nlines;
	char *scratch;         /* one source line or one mangled name, NUL-terminated */
	size_t scratch_cap;
	bool nomem;            /* scratch could not grow: a name came out NULL (anonymous) */
};

/* The first error's message into b->err; returns -errnum. */
int bb_fail(struct bb *b, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* libbpf's btf__add_* return a negative errno on failure; keep the first cause. */
int bb_check(struct bb *b, int id, const char *what);
/* b->scratch grown to n + 1 bytes; NULL (and b->nomem) when it cannot grow. */
char *bb_scratch(struct bb *b, size_t n);
/* The BTF id of t, added (with what it names) the first time; NULL is void, 0. */
int bb_type_id(struct bb *b, const struct kl_type *t);
/* btf_struct_ops.c: the defstruct-ops' STRUCTs and VARs and the DATASEC .struct_ops. */
int bb_add_struct_ops(struct bb *b);
/* .BTF's types: maps, functions, structs, the license and the data sections. */
int bb_build_types(struct bb *b);
/* btf_ksyms.c: the kernel symbols' extern VARs and their DATASEC .ksyms (none: nothing). */
int bb_add_ksyms(struct bb *b);
/* The finished .BTF, checked against the kernel's limits, copied out (malloc'd). */
int bb_take_btf(struct bb *b, void **btf_out, uint32_t *btf_len);
/* obj->source split in lines (b->line_at), for the line records. */
int bb_split_lines(struct bb *b);
/* .BTF.ext: func_info, line_info and CO-RE records, each grouped by ELF section; none (NULL, 0)
 * when there is nothing to say. */
int bb_build_ext(struct bb *b, const char **secs, uint32_t nsecs, void **ext, uint32_t *ext_len);

#endif
