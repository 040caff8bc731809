/* lower_internal.h — what the lowering of expressions to IR shares between lower.c (IR
 * building, scopes, conditions, control forms, arithmetic, casts, the dispatch of a form and
 * the entry points) and lower_data.c (memory, the context, maps, places, calls, helpers and
 * the built-in forms over them): a value, a binding, the lowering state, the small emitters. */
#ifndef KL_LOWER_INTERNAL_H
#define KL_LOWER_INTERNAL_H
#include "compile.h"
#include "names.h"
#include <string.h>

struct kl_targs;

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
/* lower_data.c's forms (memory, maps, places, events...); lower.c holds the others. */
extern const struct kl_lw_form kl_lw_data_forms[];
extern const size_t kl_lw_ndata_forms;
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
/* lower_loop.c: in a bpf_loop callback, variable name of the functions around it, read from
 * the callback's context (once, at its entry); NULL if none has it. */
struct binding *kl_lw_capture(struct lw *l, const char *name);
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

/* ---- lower.c: registers, stack slots, ALU and branches, errors, scopes, lowering ---- */
uint32_t kl_lw_slot(struct lw *l, uint32_t size, uint32_t align);
kl_vreg kl_lw_reg_of(struct lw *l, struct val v);
kl_vreg kl_lw_fresh_copy(struct lw *l, struct val v);
void kl_lw_move_to(struct lw *l, kl_vreg d, struct val v);
kl_vreg kl_lw_alu(struct lw *l, uint8_t op, struct val a, struct val b);
void kl_lw_alu_in_place(struct lw *l, uint8_t op, kl_vreg r, int64_t imm);
void kl_lw_branch(struct lw *l, uint8_t cond, struct val a, struct val b, uint32_t lab);
int kl_lw_err_form(struct lw *l, const struct kl_node *n, const char *fmt, const char *what);
/* lower_switch.c: a cond of tests that compare one variable with constants (what case
 * makes) lowered as a switch, the default walked first by the verifier: 0 or -1; 1 if n is
 * not such a cond (nothing done). */
int kl_lw_switch(struct lw *l, struct kl_node *n, struct val *out);
/* A cond clause whose test always holds: t, else, :else. */
bool kl_lw_always_clause(const struct kl_node *cl);
/* A cond clause's value: its body's, or its test's when it has none ((cond (x)) yields x). */
int kl_lw_clause_value(struct lw *l, struct kl_node *cl, struct val *v);
/* lower_assigned.c: add to set every variable forms assign (setf, setq, incf, decf of the bare
 * name), macro calls looked at through their expansions. */
void kl_lw_assigned(struct lw *l, struct kl_node **forms, uint32_t n, struct kl_names *set);
int kl_lw_arity(struct lw *l, struct kl_node *n, uint32_t min, uint32_t max);
struct binding *kl_lw_find_var(struct lw *l, const char *name);
void kl_lw_bind(struct lw *l, const char *name, struct val v, bool mutable);
int kl_lw_lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out);
struct val kl_lw_arith2(struct lw *l, const struct arith_op *op, struct val a, struct val b);
const struct arith_op *kl_lw_find_arith(const char *h);
struct val kl_lw_truncate(struct lw *l, struct val v, uint32_t size, bool sign);
int kl_lw_lower(struct lw *l, struct kl_node *n, struct val *out);

/* ---- lower_data.c: helper calls and the forms lower.c dispatches to by name ---- */
kl_vreg kl_lw_call(struct lw *l, uint32_t helper, kl_vreg *args, uint32_t nargs);
/* *(size *)(base + off) = v, as the struct accessors store. */
void kl_lw_store(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v);
/* The address of stack slot s. */
kl_vreg kl_lw_slot_addr(struct lw *l, uint32_t s);
struct kl_mapdef *kl_lw_map_arg(struct lw *l, struct kl_node *n);
kl_vreg kl_lw_map_ref(struct lw *l, struct kl_mapdef *m);
/* A map value argument as a pointer: an integer stored at the map's value size, a pointer as
 * it is. *err on a lowering error. */
kl_vreg kl_lw_map_value_ptr(struct lw *l, struct kl_node *n, uint32_t size, bool *err);
int kl_lw_field_ptr(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
int kl_lw_make_struct(struct lw *l, struct kl_node *n, struct kl_structdef *sd, struct val *out);
int kl_lw_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
int kl_lw_helper(struct lw *l, struct kl_node *n, const struct kl_helper *h, struct val *out);
int kl_lw_funcall(struct lw *l, struct kl_node *n, struct kl_fundef *fd, struct val *out);
#endif
