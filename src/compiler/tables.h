/* tables.h — what kiln knows about the kernel, as data: helpers, program types,
 * context fields and uapi constants. Adding one is adding a row in tables.c. */
#ifndef KL_TABLES_H
#define KL_TABLES_H
#include <stdbool.h>
#include <stdint.h>
#include "arena.h"
#include "obj.h"
#include "kiln/map.h"
#include "kfacts/map_types.h"
#include "kfacts/prog_types.h"

/* How a helper argument is passed. */
enum kl_arg_kind {
	KL_ARG_NONE = 0,
	KL_ARG_SCALAR,   /* an integer */
	KL_ARG_PTR,      /* a pointer (stack buffer, map value, packet, ctx...) */
	KL_ARG_MAP,      /* a map: the argument must name a defmap; ld_imm64 map fd */
	KL_ARG_CTX,      /* the program context */
};

struct kl_helper {
	const char *name;            /* kiln name: "map-lookup-elem" (bpf_ removed, - for _) */
	uint32_t id;                 /* BPF_FUNC_* */
	bool ret_ptr;                /* returns a pointer (maybe NULL) rather than a scalar */
	uint8_t nargs;
	enum kl_arg_kind args[5];
};
const struct kl_helper *kl_helper_find(const char *name);
const struct kl_helper *kl_helper_by_id(uint32_t id);
uint32_t kl_helper_count(void);
struct kl_nearest;
/* Offer every helper name and alias to a "did you mean" search (nearest.h). */
void kl_helper_names_near(struct kl_nearest *nb);
/* How many arguments a call must pass at least: nargs, except for a variadic helper
 * (trace-printk), whose row lists the BPF maximum of 5 and which needs only its fixed ones. */
uint8_t kl_helper_min_args(const struct kl_helper *h);

/* A defprog :type: a row of kfacts/prog_types.def (PROG_TYPE), which says what each field
 * holds; the kernel program type's own facts are kl_prog_kind_facts(prog_type). */
struct kl_prog_type {
	const char *keyword;         /* "xdp" for :xdp */
	uint32_t prog_type;          /* enum bpf_prog_type */
	const char *section;         /* libbpf's default section; NULL: :section is required */
	const char *section_prefix;  /* a given :section must start with this ("tracepoint/") */
	enum kl_ctx_btf ctx;         /* BTF of the context argument */
	const char *ctx_fields;      /* name of the context field set for (ctx FIELD), or NULL */
	bool any_return;             /* the verifier checks no range of its return value (in its
				      * default section: XDP's devmap and cpumap ones do) */
	const char *const *patterns; /* the sections it may name, NULL-terminated */
	const char *alias_section;   /* with this section the keyword means alias_as instead */
	const char *alias_as;
};
const struct kl_prog_type *kl_prog_type_find(const char *keyword);
/* Whether a :section given to a program of this type names the same program type to libbpf;
 * the rules are with the rows in tables.c. */
bool kl_prog_type_section_ok(const struct kl_prog_type *pt, const char *section);
/* The type a defprog compiles as, from its :type keyword and :section (NULL if none): NULL for
 * an unknown keyword; a keyword may mean another type with a given section (the aliases in
 * tables.c). *section_ok is false when the section does not suit the keyword's type. */
const struct kl_prog_type *kl_prog_type_resolve(const char *keyword, const char *section,
						bool *section_ok);
/* The program type keywords, ":xdp :tc ...", for error messages. */
const char *kl_prog_type_names(struct kl_arena *a);

/* Map types are a list of their own, below the compiler, libkiln and the CLI alike:
 * kfacts/map_types.def. KILN_MAP_TYPE_CGRP_STORAGE numbers the one newer than Debian 12's
 * uapi header (linux 6.1). */
#define KL_MAP_TYPE_CGRP_STORAGE KILN_MAP_TYPE_CGRP_STORAGE

struct kl_ctx_field {
	const char *set;             /* "xdp_md", "__sk_buff", ... */
	const char *name;            /* kiln name: "data-end" */
	uint16_t offset;
	uint8_t size;                /* load size in bytes */
	bool writable;
	bool is_pointer;             /* data/data-end/data-meta: the kernel turns it into a pointer */
};
const struct kl_ctx_field *kl_ctx_field_find(const char *set, const char *name);
/* The field at a byte offset with that load size, or NULL. */
const struct kl_ctx_field *kl_ctx_field_at(const char *set, uint16_t offset, uint8_t size);
/* The field names of a set, space-separated, for error messages. */
const char *kl_ctx_field_names(struct kl_arena *a, const char *set);

/* uapi constants usable as symbols: XDP_PASS, TC_ACT_SHOT, BPF_ANY, BPF_F_CURRENT_CPU... */
bool kl_constant_find(const char *name, int64_t *value);

#endif
