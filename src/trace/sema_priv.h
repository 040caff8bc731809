/* sema_priv.h — sema's state and helpers, shared with the files of bpftrace functions
 * (funcs.h): only src/trace/ includes this. */
#ifndef KT_SEMA_PRIV_H
#define KT_SEMA_PRIV_H
#include "trace/sema.h"

struct sm {
	struct kt_sema *s;
	const struct kt_cdefs *cdefs;   /* the script's #defines (its kt_program's) */
	struct kl_arena *a;
	struct kl_diag *d;
	KL_VEC(struct kt_map) maps;
	uint32_t *map_tab;              /* the maps by name: open addressing, index + 1, 0 empty */
	uint32_t map_tab_size;          /* a power of two, at least twice the maps */
	KL_VEC(struct kt_var) vars;     /* the current probe's */
	struct kt_probe *probe;
	const struct kt_target *first;  /* the current probe's first target */
	bool is_tracepoint;             /* every target of the probe is a tracepoint */
	bool has_args, has_retval;      /* every one a u/kprobe (arg0..), a u/kretprobe (retval) */
	bool has_func;                  /* every one a u/kprobe, a u/kretprobe or a kfunc/kretfunc */
	bool is_kfunc;                  /* every one a kfunc or kretfunc: args->NAME from BTF */
	bool is_raw;                    /* every one a raw tracepoint: arg0.. are its u64 arguments */
	bool is_usdt;                   /* every one a USDT probe: arg0.. from its note */
	bool in_loop;
	bool scope_017;                 /* the probe's variables live to its end (sema_scope.c) */
	bool lenient;                   /* a typing pass that only learns maps' types (kt_sema) */
	bool passes_out;                /* ... and the last of KT_MAX_PASSES still learned one */
};

/* "not supported yet by kiln trace" */
extern const char kt_refused[];
/* kl_error with one string argument; always -1. */
int kt_sm_err(struct sm *m, struct kl_span at, const char *fmt, const char *what);
struct kt_type kt_t_int(uint32_t size, bool sign);
struct kt_type kt_t_str(uint32_t size);
/* Types n (and its children); 0 or -1 with an error. */
int kt_sm_expr(struct sm *m, struct kt_node *n);
/* The map n names (created at its first mention); sets n->map_id. */
struct kt_map *kt_sm_map_of(struct sm *m, struct kt_node *n);
/* Types n's key and merges it into the map's key type. */
int kt_sm_map_key(struct sm *m, struct kt_node *n, struct kt_map *mp);

/* sema_types.c: tuples, pointers to integers, task states (see there). */
uint32_t kt_elem_off(const struct kt_type *t, uint32_t i);
int kt_sm_tuple(struct sm *m, struct kt_node *n);
int kt_sm_tuple_elem(struct sm *m, struct kt_node *n);
struct kt_type kt_type_own(struct kl_arena *a, const struct kt_type *t);
bool kt_type_merge(struct kt_type *dst, const struct kt_type *src);
uint32_t kt_c_sizeof(const struct kt_type *t);
bool kt_int_type(const char *name, size_t len, struct kt_type *out);
struct kt_type kt_t_ptr(struct kl_arena *a, struct kt_type pointee, bool user);
bool kt_ctype_ptr(struct kl_arena *a, const char *ct, bool user, struct kt_type *out);
int kt_sm_deref(struct sm *m, struct kt_node *n);
int kt_sm_index(struct sm *m, struct kt_node *n);
/* 0 typed, 1 not an integer type's name, -1 an error */
int kt_sm_ptr_cast(struct sm *m, struct kt_node *n);
void kt_struct_ptr_levels(struct sm *m, struct kt_node *n);
/* a pointer's element bytes (0: not a pointer); p + i, i + p, p - i (1: no pointer) */
int kt_sm_elem_size(struct sm *m, struct kl_span at, const struct kt_type *t, uint32_t *size);
int kt_sm_ptr_arith(struct sm *m, struct kt_node *n);
int kt_task_state(const char *name, int64_t *v);
/* A string $variable new in this pass takes the size the last pass ended with for it. */
void kt_sm_var_seed(struct sm *m, struct kt_var *v);
/* Whether a cast of x to a pointer points to user memory: x's own, or, for an integer
 * computed from nothing that says (arg0 + 16), the probe's: a uprobe's, uretprobe's or usdt's. */
bool kt_sm_cast_user(const struct sm *m, const struct kt_node *x);
/* The map mn (@a of `@a += x`, never assigned before) made an integer map. */
void kt_sm_compound_new(struct sm *m, struct kt_node *mn);
struct kt_type kt_tp_array(struct sm *m, const struct kl_tp_field *f);
/* sema_scope.c: 0.26's `let` and block scopes. kt_sm_let: 1 when s (a KT_LET, or an ASSIGN)
 * is not a declaration or first value of one (the usual assignment then), else 0 or -1. */
int kt_sm_let(struct sm *m, struct kt_node *s);
/* At a block's end: its variables (index mark on) go out of scope (0.26). */
void kt_sm_scope_close(struct sm *m, size_t mark);
/* Whether the block reads a $variable after the block that assigned it ends (0.17's scopes). */
bool kt_sm_reads_late(struct sm *m, const struct kt_node *block);
/* sema_decl.c: `let @m = lruhash(N);` into the maps' BPF types and sizes; 0 or -1. */
int kt_sm_mapdecls(struct sm *m, const struct kt_program *prog);
/* sema_loop.c: `for ($i : START..END) BODY`; 0 or -1. */
int kt_sm_for(struct sm *m, struct kt_node *s);
/* A block of statements, typed (sema.c), its variables' scope closed after it. */
int kt_sm_block(struct sm *m, struct kt_node *b);
#endif
