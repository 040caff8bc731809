/* lower_internal.h — what the lowering files share: a value, a binding, the lowering state,
 * a form table's row, and each file's calls. The files stand in floors, and calls run down:
 *   top     lower.c: the form lookup over every table, kl_lw_lower (one form), kl_lw_lower_body,
 *           the entry points (kl_lower_prog, kl_lower_fun, kl_lower_shape)
 *   forms   lower_control.c, lower_arith.c, lower_builtin.c, lower_place.c, lower_map.c,
 *           lower_mem.c, lower_core.c, lower_queue.c, lower_event.c, lower_func.c,
 *           lower_loop.c, lower_switch.c, lower_args.c: one subject each, each with its form
 *           table; a form file may call one beside it that is lower in this list's sense
 *           (place, builtin -> map -> mem; core, loop, event -> mem, map)
 *   bottom  lower_ir.c (IR building, values, errors, scopes), lower_assigned.c, and the small
 *           emitters inline below
 * The one call that goes back up is the recursion: a form lowers its arguments through
 * kl_lw_lower (and kl_lw_lower_body), the dispatcher in lower.c. */
#ifndef KL_LOWER_INTERNAL_H
#define KL_LOWER_INTERNAL_H
#include "compile.h"
#include "names.h"
#include <string.h>

struct kl_targs;
struct kl_nearest;

enum { V_CONST, V_REG };
struct val {
	int kind;
	int64_t c;
	kl_vreg r;
	bool is_var;          /* the register of a mutable variable: copy before aliasing it */
	bool is_ptr;          /* known to be a pointer (stack buffer, map value, packet...) */
	uint8_t misalign;     /* a pointer this many bytes past an 8-aligned address (0..7) */
	const char *kt;       /* a kernel pointer: the name of the struct it points at (CO-RE) */
	int32_t inner;        /* an inner map from a map-of-maps lookup: its template's index + 1 */
	bool pkt_end;         /* the packet's end (ctx data-end): a comparison with it is a bounds check */
	bool trusted;         /* kt is PTR_TO_BTF_ID to the verifier (a tp_btf, fentry or fexit
			       * argument, a pointer read from one): -> loads through it directly */
};

struct binding {
	const char *name;
	struct val v;
	bool mutable;
	const struct kl_type *type;   /* declared integer type: values are truncated to it */
	bool used;                    /* read somewhere in its scope */
	const struct kl_node *at;     /* written by the user: warn if never read (NULL: do not) */
};

struct lw {
	struct kl_comp *c;
	struct kl_ir_func *f;
	KL_VEC(struct binding) scope;
	const struct kl_prog_type *pt;   /* NULL in a defun */
	const char *section;             /* the program's section */
	const struct kl_progdef *prog;   /* NULL in a defun */
	const struct kl_targs *targs;    /* lower_args.c: its typed arguments, once looked for */
	bool targs_tried;
	kl_vreg *argregs;                /* lower_args.c: each argument (then ret) loaded at entry */
	kl_vreg ctx;
	struct kl_span span;             /* of the form being lowered, for line info */
	uint32_t loop_depth;
	struct { kl_vreg rec; uint32_t done; } events[8];  /* with-event records open, innermost last */
	uint32_t nevents;
	struct kl_span calls[8];         /* macro calls being lowered, innermost last */
	uint32_t ncalls;
	struct lw *outer;                /* lower_loop.c: a dotimes body lowered as a bpf_loop
					  * callback: the function around the loop */
	struct kl_lw_caps *caps;         /* lower_loop.c: the variables of outer the callback reads */
};

typedef int (*form_fn)(struct lw *, struct kl_node *, struct val *);

/* A special form: its name, how it lowers, and its shape: which of its arguments are code,
 * which the expand stage (expand_stage.c) reads to expand the macro calls lowering will
 * lower. One letter per argument, the last one standing for the rest:
 *   e  an expression           d  data (a type, a name, a constant, a field path)
 *   b  let's bindings: NAME, (NAME VALUE) or (NAME TYPE VALUE), VALUE an expression
 *   w  when-let's bindings: one binding (NAME VALUE) or a list of them, as b
 *   c  a cond clause: (TEST BODY...), all expressions
 *   P  PLACE VALUE pairs from here on: a place is not itself a macro call, its arguments
 *      are expressions as its own form's shape says; VALUE an expression */
struct kl_lw_form {
	const char *name;
	form_fn fn;
	const char *shape;
};
/* Each form file's table (lower.c walks them in a fixed order). */
extern const struct kl_lw_form kl_lw_control_forms[];  /* lower_control.c: if, cond, let... */
extern const size_t kl_lw_ncontrol_forms;
extern const struct kl_lw_form kl_lw_arith_forms[];    /* lower_arith.c: lognot, cast */
extern const size_t kl_lw_narith_forms;
extern const struct kl_lw_form kl_lw_builtin_forms[];  /* lower_builtin.c: memset, with-event... */
extern const size_t kl_lw_nbuiltin_forms;
extern const struct kl_lw_form kl_lw_place_forms[];    /* lower_place.c: setf, incf... */
extern const size_t kl_lw_nplace_forms;
extern const struct kl_lw_form kl_lw_mem_forms[];      /* lower_mem.c: load, store, ctx... */
extern const size_t kl_lw_nmem_forms;
extern const struct kl_lw_form kl_lw_map_forms[];      /* lower_map.c: getmap, map-update... */
extern const size_t kl_lw_nmap_forms;
/* lower_core.c's forms: kernel types and CO-RE. */
extern const struct kl_lw_form kl_lw_core_forms[];
extern const size_t kl_lw_ncore_forms;
/* lower_event.c's forms: clj-ebpf's stores into events. */
extern const struct kl_lw_form kl_lw_event_forms[];
extern const size_t kl_lw_nevent_forms;
/* lower_queue.c's forms: queue, stack and bloom-filter maps. */
extern const struct kl_lw_form kl_lw_queue_forms[];
extern const size_t kl_lw_nqueue_forms;
extern const struct kl_lw_form kl_lw_func_forms[];     /* lower_func.c */
extern const size_t kl_lw_nfunc_forms;
extern const struct kl_lw_form kl_lw_loop_forms[];     /* lower_loop.c: dotimes */
extern const size_t kl_lw_nloop_forms;
/* lower_args.c's forms: (arg N), (retval). */
extern const struct kl_lw_form kl_lw_args_forms[];
extern const size_t kl_lw_nargs_forms;
/* lower_args.c: at the start of a program, its typed arguments found (an error for a tp_btf
 * or fentry target the kernel lacks); -1 on error. */
int kl_lw_args_start(struct lw *l);
/* lower_args.c: symbol n as an argument of the program by name (and ret in fexit); 1 if it is
 * not one (nothing done), else 0 or -1. */
int kl_lw_arg_var(struct lw *l, struct kl_node *n, struct val *out);
/* lower_args.c: is name one of the program's arguments (by name, or ret)? */
bool kl_lw_is_arg(struct lw *l, const char *name);
/* lower_core.c: (STRUCT-FIELD p) and (as-STRUCT p) made by import-kernel-struct; 1 if h is
 * not one (nothing done), else 0 or -1. */
int kl_lw_kernel_accessor(struct lw *l, struct kl_node *n, struct val *out);

/* A variable of the functions around a bpf_loop callback that the callback reads
 * (lower_loop.c makes the callback; lower_ir.c's scopes find them). */
struct kl_lw_cap {
	struct binding b;         /* as the callback sees it */
	struct val outer;         /* as the function around it has it */
	int32_t off;              /* its 8 bytes in the context; -1: none (a constant, or unread) */
};

struct kl_lw_caps {
	KL_VEC(struct kl_lw_cap *) v;
};

struct arith_op {
	const char *name;
	uint8_t alu;
	bool commutative;
};

/* ---- IR building ---- */

static inline struct kl_ir_ins *emit(struct lw *l, uint8_t op)
{
	return kl_ir_emit(l->c->a, l->f, op, l->span);
}

static inline kl_vreg vreg(struct lw *l) { return l->f->nvregs++; }

static inline uint32_t label(struct lw *l) { return ++l->f->nlabels; }

static inline void place(struct lw *l, uint32_t lab) { emit(l, IR_LABEL)->label = lab; }

static inline void jump(struct lw *l, uint32_t lab) { emit(l, IR_JMP)->label = lab; }

static inline bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static inline struct val cval(int64_t c) { return (struct val){ .kind = V_CONST, .c = c }; }

static inline struct val rval(kl_vreg r) { return (struct val){ .kind = V_REG, .r = r }; }

static inline struct val pval(kl_vreg r) { return (struct val){ .kind = V_REG, .r = r, .is_ptr = true }; }

/* ---- lower_ir.c: registers, stack slots, ALU and branches, helper calls, errors, scopes ---- */
uint32_t kl_lw_slot(struct lw *l, uint32_t size, uint32_t align);
kl_vreg kl_lw_reg_of(struct lw *l, struct val v);
kl_vreg kl_lw_fresh_copy(struct lw *l, struct val v);
void kl_lw_move_to(struct lw *l, kl_vreg d, struct val v);
kl_vreg kl_lw_alu(struct lw *l, uint8_t op, struct val a, struct val b);
void kl_lw_alu_in_place(struct lw *l, uint8_t op, kl_vreg r, int64_t imm);
void kl_lw_branch(struct lw *l, uint8_t cond, struct val a, struct val b, uint32_t lab);
kl_vreg kl_lw_call(struct lw *l, uint32_t helper, kl_vreg *args, uint32_t nargs);
int kl_lw_err_form(struct lw *l, const struct kl_node *n, const char *fmt, const char *what);
int kl_lw_arity(struct lw *l, struct kl_node *n, uint32_t min, uint32_t max);
struct binding *kl_lw_find_var(struct lw *l, const char *name);
/* In a bpf_loop callback, variable name of the functions around it, read from the callback's
 * context (once, at its entry); NULL if none has it. */
struct binding *kl_lw_capture(struct lw *l, const char *name);
/* A capture of the callback l: its binding in the callback, outer as the caller has it. */
struct kl_lw_cap *kl_lw_add_cap(struct lw *l, const char *name, struct binding *ob, struct val outer);
void kl_lw_bind(struct lw *l, const char *name, struct val v, bool mutable);
/* A binding of type t (NULL: 64 bits), its value truncated to it. */
void kl_lw_bind_typed(struct lw *l, const char *name, struct val v, bool mutable, const struct kl_type *t);
/* Whether node n is the user's own (in the program's file, not made by a macro). */
bool kl_lw_user_written(struct lw *l, const struct kl_node *n);
/* The bindings since scope mark: a warning for each the user wrote and nothing read. */
void kl_lw_warn_unused(struct lw *l, size_t mark);
struct val kl_lw_arith2(struct lw *l, const struct arith_op *op, struct val a, struct val b);
const struct arith_op *kl_lw_find_arith(const char *h);
void kl_lw_arith_names(struct kl_nearest *nb);
struct val kl_lw_truncate(struct lw *l, struct val v, uint32_t size, bool sign);

/* lower_assigned.c: add to set every variable forms assign (setf, setq, incf, decf of the bare
 * name), macro calls looked at through their expansions. */
void kl_lw_assigned(struct lw *l, struct kl_node **forms, uint32_t n, struct kl_names *set);

/* ---- lower.c, the top: the recursion every form file makes ---- */
int kl_lw_lower(struct lw *l, struct kl_node *n, struct val *out);
int kl_lw_lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out);

/* ---- the form files' calls ---- */
/* lower_control.c: a comparison (= < s>= ...) as a 0/1 value; 1 if n is not one. */
int kl_lw_cmp_op(struct lw *l, struct kl_node *n, struct val *out);
void kl_lw_cmp_names(struct kl_nearest *nb);
/* lower_arith.c: an arithmetic operator or a byte swap; 1 if n is neither. */
int kl_lw_arith_op(struct lw *l, struct kl_node *n, struct val *out);
void kl_lw_swap_names(struct kl_nearest *nb);
/* lower_switch.c: a cond of tests that compare one variable with constants (what case
 * makes) lowered as a switch, the default walked first by the verifier: 0 or -1; 1 if n is
 * not such a cond (nothing done). */
int kl_lw_switch(struct lw *l, struct kl_node *n, struct val *out);
/* A cond clause whose test always holds: t, else, :else. */
bool kl_lw_always_clause(const struct kl_node *cl);
/* A cond clause's value: its body's, or its test's when it has none ((cond (x)) yields x). */
int kl_lw_clause_value(struct lw *l, struct kl_node *cl, struct val *v);

/* lower_mem.c: memory and the context */
/* *(size *)(base + off) = v, as the struct accessors store. */
void kl_lw_store(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v);
void kl_lw_store_at(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v);
/* *(size *)(base + off) = v, base a register or (0) stack slot slot. */
void kl_lw_store_to(struct lw *l, kl_vreg base, uint32_t slot, int32_t off, uint32_t size, struct val v);
/* The value of type t at base + off. */
struct val kl_lw_load_at(struct lw *l, struct val base, int64_t off, const struct kl_type *t);
/* The base register of an access at base + *off (an offset past 16 bits added first). */
kl_vreg kl_lw_access_base(struct lw *l, struct val base, int64_t *off);
/* v in a new stack slot of size bytes: the slot. */
uint32_t kl_lw_spill_value(struct lw *l, struct val v, uint32_t size);
/* The address of stack slot s. */
kl_vreg kl_lw_slot_addr(struct lw *l, uint32_t s);
/* The type argument of load and store. */
int kl_lw_mem_type(struct lw *l, struct kl_node *n, struct kl_type **t);
/* POINTER [OFFSET] arguments as a base and a constant offset. */
int kl_lw_address(struct lw *l, struct kl_node *pn, struct kl_node *on, struct val *base, int64_t *off);
/* A zeroed stack buffer of size bytes, as a pointer. */
int kl_lw_stack_alloc(struct lw *l, struct kl_node *at, int64_t size, struct val *out);
/* (setf (ctx ...) v). */
int kl_lw_ctx_store(struct lw *l, struct kl_node *p, struct val v);

/* lower_map.c: maps, helper calls and defun calls */
struct kl_mapdef *kl_lw_map_arg(struct lw *l, struct kl_node *n);
kl_vreg kl_lw_map_ref(struct lw *l, struct kl_mapdef *m);
/* A map value argument as a pointer: an integer stored at the map's value size, a pointer as
 * it is. *err on a lowering error. */
kl_vreg kl_lw_map_value_ptr(struct lw *l, struct kl_node *n, uint32_t size, bool *err);
/* map-update of key kn and value vn (or the value *vv already lowered), with flags. */
int kl_lw_map_update(struct lw *l, struct kl_mapdef *m, struct kl_node *kn, struct kl_node *vn,
		     struct val *vv, struct val flags, bool by_ptr, struct val *out);
/* incf/decf/atomic add on (getmap M K): add in place when present, insert when absent. */
int kl_lw_getmap_add(struct lw *l, struct kl_node *place_n, struct val delta, struct val *out);
int kl_lw_helper(struct lw *l, struct kl_node *n, const struct kl_helper *h, struct val *out);
int kl_lw_funcall(struct lw *l, struct kl_node *n, struct kl_fundef *fd, struct val *out);

/* lower_place.c: the accessors defstruct makes */
int kl_lw_field_ptr(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
int kl_lw_make_struct(struct lw *l, struct kl_node *n, struct kl_structdef *sd, struct val *out);
int kl_lw_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
#endif
