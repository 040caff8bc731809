/* compile.h — the compilation context (struct kl_comp: options, the tables collect fills,
 * the lowered IR) that every stage reads and writes, and compile.c's driver that runs the
 * stages in order. The stages' own calls are in their headers (forms.h, lower.h, emit.h, ...).
 * Outside src/compiler and src/lib, reach the compiler through <kiln/compile.h>. */
#ifndef KL_COMPILE_H
#define KL_COMPILE_H
#include "arena.h"
#include "diag.h"
#include "ir.h"
#include "obj.h"
#include "reader.h"
#include "tables.h"
#include "types.h"
#include "defs.h"
#include "typespec.h"

struct kl_constdef {
	const char *name;
	int64_t value;
};

struct kl_mapdef {
	const char *name;                 /* as written */
	struct kl_span span;
	const struct kl_map_type *mt;
	uint32_t key_size, value_size;
	struct kl_map m;                  /* what goes into the object */
	bool count_drops;                 /* ringbuf written by with-event: has NAME-drops */
	bool used;                        /* a program or function refers to it */
	kl_vreg inner_reg;                /* a copy standing for an inner map found at run time by a
					   * lookup in a map of maps: the register holding it */
};

/* A global variable: (defparameter NAME INIT :type T) in .rodata, (defvar NAME INIT :type T)
 * in .data (.bss when INIT is 0). */
struct kl_globaldef {
	const char *name;                 /* as written */
	struct kl_span span;              /* of the name */
	struct kl_global g;               /* what goes into the object (g.off: in its section) */
	bool used;                        /* a program or function refers to it */
};

struct kl_structdef {
	const char *name;                 /* as written */
	struct kl_span span;              /* of the name */
	struct kl_type *type;
	bool event;                       /* defevent: fields named by keywords */
};

struct kl_closure;
struct kl_toplevel;

/* A struct accessor NAME-FIELD, found by its full name. */
struct kl_accessor {
	const char *name;
	struct kl_type *st;
	const struct kl_field *field;
};

struct kl_fundef {
	const char *name;                 /* as written */
	struct kl_node *form;
	struct kl_node *params;
	uint32_t nparams;
	uint32_t index;                   /* into the output funcs */
	int state;                        /* recursion check: 0 new, 1 visiting, 2 done */
};

struct kl_progdef {
	const char *name;                 /* as written */
	struct kl_node *form;
	const struct kl_prog_type *pt;
	const char *section;
	uint32_t body_start;              /* index of the first body form in form->items */
};

struct kl_options {
	int opt_level;                    /* 0: only the passes the verifier needs */
	uint64_t no_passes;               /* -fno-NAME: bit i off pass i of opt.c's table */
	int print_after;                  /* --print-after NAME: the pass's index + 1 (IR to stderr) */
	const char *btf_path;             /* kernel BTF for kernel types (NULL: the running kernel's) */
	bool dump_ir;
	bool verify_ir;                   /* --verify-ir: the SSA form checked after every pass */
	bool write_fd;                    /* write the object to out_fd instead of a path */
	int out_fd;
};

/* Definitions collected only when a name they define is looked up: the prelude's (prelude.c
 * installs this at kl_prelude_start). The tables below the collecting (defs.c's constants,
 * expand.c's macros) ask through it for a name they lack, so they never call up into
 * forms.c, which collects; without it (NULL) every definition is there from the start. */
enum kl_lazy_kind { KL_LAZY_MACRO, KL_LAZY_CONST };
struct kl_lazy {
	/* Collect what defines name as a kind, unless collected already: 1 if it was collected
	 * now, 0 if there is none to collect, -1 on an error (in c->d). */
	int (*need)(struct kl_comp *c, const char *name, enum kl_lazy_kind kind);
	/* Collect everything not collected yet (for "did you mean" hints over all the names). */
	void (*need_all)(struct kl_comp *c);
	/* Is something being collected lazily now? Then a definition the program made already
	 * stays: the program's definitions come after the prelude's. */
	bool (*loading)(const struct kl_comp *c);
};

struct kl_comp {
	struct kl_arena *a;
	struct kl_diag *d;
	const struct kl_source *src;
	struct kl_options opts;
	KL_VEC(struct kl_constdef) consts;
	KL_VEC(struct kl_mapdef) maps;
	KL_VEC(struct kl_globaldef) globals;
	uint32_t data_size[KL_NDATA];     /* bytes of .rodata, .data, .bss laid out so far */
	KL_VEC(struct kl_structdef) structs;
	KL_VEC(struct kl_accessor) accessors;
	KL_VEC(struct kl_fundef) funs;
	KL_VEC(struct kl_progdef) progs;
	const char *license;
	struct kl_span license_span;
	KL_VEC(struct kl_ir_func *) ir;   /* lowered functions: defuns, programs, then loop callbacks */
	KL_VEC(struct kl_ir_func *) loops; /* lower_loop.c: dotimes bodies made bpf_loop callbacks */
	int8_t has_bpf_loop;              /* lower_loop.c: the kernel has bpf_loop (0: not asked yet, -1: no) */
	struct { void *items; size_t len, cap; } macros;  /* expand.c's macro table */
	struct kl_names *macro_names;     /* expand.c: the macro table's index by name */
	struct kl_prelude_state *prelude; /* prelude.c: which prelude forms are collected */
	const struct kl_lazy *lazy;       /* prelude.c's, once started (NULL: none) */
	const struct kl_toplevel *toplevel; /* forms.c's collection, for make-event-def in a macro */
	uint32_t expansions;              /* macro expansions open now (nested) */
	unsigned gensyms;                 /* expand.c's gensym counter */
	uint32_t expanded;                /* macro expansions in all (bounded: KL_MAX_EXPANDED) */
	struct kl_name_index *index;      /* forms.c: maps, structs, accessors, funs by name */
	struct kl_type *defining;         /* the struct whose members are being read: (* NAME) in
					   * them is a pointer to it */
	struct kl_core *core;             /* core.c: kernel types used, CO-RE relocations (NULL: none) */
	struct kl_ksyms *ksyms;           /* ksyms.c: defksym's kernel symbols (NULL: none) */
	const char *btf_path;             /* (kernel-btf "FILE") in the source: wins over opts */
	struct kl_span btf_span;
	struct kl_sops_set *sops;         /* struct_ops.c: the defstruct-ops (NULL: none) */
};

/* compile.c: the whole pipeline, read -> collect -> expand -> lower -> optimize -> allocate ->
 * emit -> write. */
int kl_compile(struct kl_comp *c, const char *out_path);
/* The same for a program given as top-level forms (kiln trace's, spanning its script),
 * which c->src, their source, is not read for. */
int kl_compile_forms(struct kl_comp *c, struct kl_node **forms, uint32_t nforms, const char *out_path);
/* Its first step: read and collect the prelude, then the program. */
int kl_compile_front(struct kl_comp *c);

#endif
