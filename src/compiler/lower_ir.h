/* lower_ir.h — the floor of lowering (lower_ir.c), which every lowering file stands on: a
 * value, a binding, the lowering state, a form table's row, the small emitters (inline), and
 * lower_ir.c's calls (registers, stack slots, ALU and branches, helper calls, errors, scopes).
 * It knows no form: the form files and lower.c are above it (lower_internal.h). */
#ifndef KL_LOWER_IR_H
#define KL_LOWER_IR_H
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

/* return v: a program's or a function's end, or (return V) */
static inline void ret(struct lw *l, struct val v)
{
	struct kl_ir_ins *i = emit(l, IR_RET);
	if (v.kind == V_CONST) {
		i->has_imm = true;
		i->imm = v.c;
	} else {
		i->a = v.r;
	}
}

static inline bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static inline struct val cval(int64_t c) { return (struct val){ .kind = V_CONST, .c = c }; }

static inline struct val rval(kl_vreg r) { return (struct val){ .kind = V_REG, .r = r }; }

static inline struct val pval(kl_vreg r) { return (struct val){ .kind = V_REG, .r = r, .is_ptr = true }; }

/* ---- lower_ir.c ---- */
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

#endif
