/* lisp.h — kiln's one Lisp core: values, the environment, the evaluator (special forms from a
 * table, one lambda-list binder), the pure builtins and the printer/format. Both the host (a
 * session file's Lisp, `kiln run` and the REPL: src/host/) and the compiler's macros
 * (src/compiler/expand.c) run on it; each adds its own special forms and builtins through a
 * struct lisp_layer, and may add its own kinds of value (LV_FOREIGN: a type with a name and a
 * print; the core knows nothing of what they hold). Everything lives in one arena for the
 * run. Errors are values: a failing evaluation returns NULL with L->exc set (an error or
 * Ctrl-C condition, or a non-local exit of return/return-from), and every caller passes NULL
 * up until handler-case, block or the top level takes it. */
#ifndef KL_LISP_H
#define KL_LISP_H
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "compiler/arena.h"
#include "compiler/diag.h"
#include "compiler/reader.h"

enum lv_kind {
	LV_NIL, LV_T, LV_INT, LV_STR, LV_SYM, LV_KEY, LV_CONS, LV_VEC, LV_FN, LV_BUILTIN,
	LV_STREAM, LV_MV, LV_COND, LV_FOREIGN, LV_FLOAT,
};

struct lisp;
struct lv;
typedef struct lv *(*lv_builtin_fn)(struct lisp *h, const struct kl_node *call, struct lv **args, int n);

struct lv_frame;
struct lv_printer;

/* A layer's own kind of value (the host has three: objects, maps, decoded records): the core
 * only keeps it, compares it by identity and prints it with the type's print, which writes
 * through lv_printer_put and lv_printer_value (print.c), or as #<NAME> when print is NULL. */
struct lv_foreign_type {
	const char *name;
	void (*print)(struct lv_printer *p, const struct lv *v);
};

/* A growing text (the printer's, format's, a string stream's), kept outside the arena's
 * blocks (kl_arena_ext_grow): it doubles without leaving copies behind, and an error or
 * out of memory midway leaks nothing. At most LV_MAX_STR bytes (full set past them). */
struct lv_text { char *p; size_t len, cap; bool full; };

struct lv {
	enum lv_kind k;
	/* an atom read from a node (quoted, or a macro's argument): the node, which the compiler's
	 * macros give back unchanged (its span and spelling kept); SYM and KEY: the name as
	 * written, printed so when L->print_written */
	const struct kl_node *node;
	const char *written;
	union {
		int64_t i;                                         /* INT */
		struct { double d; bool single; } fl;              /* FLOAT: single-float (d holds
								    * a float's value) or double */
		struct { char *s; size_t len; } str;               /* STR */
		const char *name;                                  /* SYM, KEY: folded, package stripped */
		struct { struct lv *car, *cdr; const struct kl_node *src; bool vector; } cons;
		struct { struct lv **items; size_t len; } vec;     /* VEC, MV */
		struct {                                           /* FN: a closure */
			const char *name;
			const struct kl_node *params;
			const struct kl_node *const *body;
			uint32_t nbody;
			struct lv_frame *env;
		} fn;
		struct { const char *name; lv_builtin_fn fn; int min, max; const void *data; } bi;
		struct { FILE *f; struct lv_text text; bool string; bool *bol; } stream;
		struct { const struct lv_foreign_type *type; void *data; } foreign;
		struct { const char *type; const char *msg; } cond;
	} u;
};

/* A lexical frame: one binding. */
struct lv_frame {
	const char *name;
	struct lv *val;
	struct lv_frame *up;
};

/* A global: variable or function by name (hashed). */
struct lv_global {
	const char *name;
	struct lv *val, *fn;
	bool constant;
	struct lv_global *next;
};

enum lv_exc { LV_EXC_NONE, LV_EXC_CONDITION, LV_EXC_RETURN };

#define LV_NGLOBAL 256

/* Limits, each a Lisp error when passed (never a crash):
 * LV_MAX_DEPTH   forms and calls being evaluated inside one another; also at most 3/4 of
 *                the C stack (its rlimit, at most 256 MiB) is used, whichever comes first
 * LV_MAX_ELEMS   elements of a vector made (make-array) and conses compared by equal
 * LV_MAX_STR     bytes of a string (concatenate, format, a string stream, printing)
 * The last two are L->max_elems and L->max_str (lisp_init; the fuzz harness lowers them). */
#define LV_MAX_DEPTH 100000
#define LV_MAX_ELEMS ((size_t)1 << 24)
#define LV_MAX_STR ((size_t)1 << 26)

typedef struct lv *(*lv_special_fn)(struct lisp *h, const struct kl_node *n, struct lv_frame *env);

/* What a layer (the host, the compiler's macros) adds to the core. Every hook may be NULL. */
struct lisp_layer {
	/* its special forms, looked up before the core's */
	lv_special_fn (*special)(struct lisp *L, const char *name);
	/* its functions, looked up after the core's builtins (data: what L->self carries) */
	lv_builtin_fn (*builtin)(struct lisp *L, const char *name, int *min, int *max, const void **data);
	/* Ctrl-C: true, with the condition raised at n, when one came */
	bool (*interrupt)(struct lisp *L, const struct kl_node *n);
	/* eval of a list built at run time (no node to evaluate): the layer's, or an error */
	struct lv *(*eval_built)(struct lisp *L, struct lv *form, const struct kl_node *at);
	/* a variable bound nowhere: the layer's value for it, or NULL (unbound) */
	struct lv *(*unbound)(struct lisp *L, const char *name);
	/* said after "undefined function NAME" */
	const char *undefined_note;
};

/* One interpreter's state. A layer embeds it as its struct's first member. */
struct lisp {
	struct kl_arena a;
	struct kl_source src;            /* the text evaluated (an error without a node: its start) */
	const struct lisp_layer *layer;
	struct lv_global *globals[LV_NGLOBAL];
	/* non-local exit in flight */
	enum lv_exc exc;
	struct lv *cond;                 /* LV_EXC_CONDITION: an LV_COND */
	struct kl_span exc_span;
	const char *ret_block;           /* LV_EXC_RETURN: the block's name ("nil" for loops) */
	struct lv *ret_val;
	bool out_bol, err_bol;           /* for ~&: at the start of a line */
	int depth;                       /* forms and calls nested now (LV_MAX_DEPTH) */
	char *stack_top;                 /* the C stack where lisp_eval_top began (NULL: not yet) */
	size_t stack_max;                /* the bytes of C stack evaluation may use below it */
	uint64_t steps, max_steps;       /* forms and loop turns run; max_steps 0: no budget */
	size_t max_elems, max_str;       /* LV_MAX_ELEMS, LV_MAX_STR */
	struct lv *self;                 /* the builtin being applied (its data) */
	unsigned gensyms;                /* gensym's count */
	bool print_written;              /* symbols print as written, not upper-cased (macros: the
					  * names a macro makes keep the user's spelling) */
	bool strict_ints;                /* an integer past 64 bits (+ - * ash expt...) or a ratio
					  * (an inexact /) is an error: the host's Lisp, which has no
					  * bignums or ratios. Else they wrap and truncate as BPF's
					  * integers do (the compiler's macros). See num.c. */
};

extern struct lv lv_nil_v, lv_t_v;
#define LNIL (&lv_nil_v)
#define LT (&lv_t_v)

/* value.c */
struct lv *lv_int(struct lisp *h, int64_t i);
/* a float: single (its value rounded to a C float) or double */
struct lv *lv_float(struct lisp *h, double d, bool single);
struct lv *lv_str(struct lisp *h, const char *s, size_t len);
struct lv *lv_cstr(struct lisp *h, const char *s);
struct lv *lv_sym(struct lisp *h, const char *name);
struct lv *lv_cons(struct lisp *h, struct lv *car, struct lv *cdr);
struct lv *lv_vec(struct lisp *h, size_t n);
struct lv *lv_foreign(struct lisp *h, const struct lv_foreign_type *type, void *data);
/* v's data when it is a foreign value of type, else NULL */
void *lv_foreign_data(const struct lv *v, const struct lv_foreign_type *type);
struct lv *lv_bool(bool b);
bool lv_true(const struct lv *v);
const char *lv_symname(struct lisp *h, const struct kl_node *n);
struct lv *lv_from_node(struct lisp *h, const struct kl_node *n);
/* Raise an error condition at n's position; always NULL. */
struct lv *lv_err(struct lisp *h, const struct kl_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct lv *lv_raise(struct lisp *h, const struct kl_node *n, const char *type, const char *msg);
struct lv_global *lv_global(struct lisp *h, const char *name, bool create);
/* eql (integers and floats of one type by value, symbols by name), and equal (also
 * strings, lists by their elements): 1 or 0, or -1 with an error raised at n (nested too deep, Ctrl-C) */
bool lv_eql(const struct lv *a, const struct lv *b);
int lv_equal(struct lisp *h, const struct kl_node *n, const struct lv *a, const struct lv *b);
/* Called at every form evaluated and every turn of a loop (and every so many steps of a long
 * builtin): true, with the condition raised at n, when evaluation must stop there (Ctrl-C
 * came, or the step budget is spent). */
bool lv_stop(struct lisp *h, const struct kl_node *n);
/* Is the C stack still below its share (see LV_MAX_DEPTH)? Else false with the error raised
 * at n: "stack overflow: ... nested N deep". Every recursion of the evaluator checks it. */
bool lv_stack_ok(struct lisp *h, const struct kl_node *n, const char *what);
/* A list's length, or -1 when it is circular (an error raised at n when fn names the caller,
 * "length: the list is circular") */
int64_t lv_list_len(struct lisp *h, const struct kl_node *n, const struct lv *l, const char *fn);
/* eval.c */
/* The limits set, the standard streams defined, layer's hooks in place (a zeroed L). */
void lisp_init(struct lisp *L, const struct lisp_layer *layer);
/* A top-level form evaluated: its value, or NULL with L's condition (an allocation that fails
 * is the error "out of memory" at the form, the form abandoned) */
struct lv *lisp_eval_top(struct lisp *h, const struct kl_node *form);
/* f applied to args (n of them) at the top, as call, the same way */
struct lv *lisp_apply_top(struct lisp *h, const struct kl_node *call, struct lv *f, struct lv **args, int n);

struct lv *lv_eval(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
struct lv *lv_progn(struct lisp *h, const struct kl_node *const *body, uint32_t n, struct lv_frame *env);
struct lv *lv_apply(struct lisp *h, const struct kl_node *call, struct lv *f, struct lv **args, int n);
struct lv *lv_eval_value(struct lisp *h, struct lv *form, const struct kl_node *at);
/* A closure of params and body, named name (NULL: a macro's, whose caller names it) */
struct lv *lv_lambda(struct lisp *h, const char *name, const struct kl_node *params,
		     const struct kl_node *const *body, uint32_t nbody);
/* (defvar|defparameter|defconstant NAME [FORM]) */
struct lv *lv_defvar(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
/* For the special forms of control.c and loop.c: the primary value of v (multiple values
 * reduce to their first); n's items from `from` on evaluated as a body (declare skipped);
 * 0 when n has min items, else -1 with "NAME needs WHAT" raised. */
struct lv *lv_primary(struct lv *v);
struct lv *lv_body_from(struct lisp *h, const struct kl_node *n, uint32_t from, struct lv_frame *env);
int lv_need(struct lisp *h, const struct kl_node *n, uint32_t min, const char *what);

/* A table of special forms, ended by a NULL name. */
struct lv_special { const char *name; lv_special_fn fn; };

/* control.c: block, return, return-from, handler-case, ignore-errors, unwind-protect */
extern const struct lv_special lv_control_forms[];
/* true, with *out its value and the exit cleared, when a return to block is in flight */
bool lv_caught_return(struct lisp *h, const char *block, struct lv **out);

/* loop.c: dolist, dotimes, loop */
extern const struct lv_special lv_loop_forms[];

/* bind.c */
/* Bind the lambda list ps to args (n of them), frames pushed on *env: LT, or NULL with the
 * error raised at call (fn: the function's name, for the message; NULL when the caller
 * names it: then a wrong count is raised at the argument or parameter at fault). */
struct lv *lv_bind(struct lisp *h, const struct kl_node *call, const char *fn, const struct kl_node *ps,
		   struct lv **args, int n, struct lv_frame **env);
struct lv *lv_push_frame(struct lisp *h, struct lv_frame **env, const char *name, struct lv *v);
/* where v came from (its node, a list's), else at */
const struct kl_node *lv_origin(const struct lv *v, const struct kl_node *at);
/* a name being bound or named (a variable, a block): a symbol's, else NULL with an error */
const char *lv_var_name(struct lisp *h, const struct kl_node *n, const char *what);

/* num.c: the numbers' functions (integers, floats and their contagion), and their text */
lv_builtin_fn lv_num_builtin_find(const char *name, int *min, int *max);
/* a float as Common Lisp prints it (SBCL's way: the shortest digits that read back,
 * 1.0e7 and 1.0e-4 past 10^7 and below 10^-3, a double with d for e), in buf */
void lv_float_text(char *buf, size_t size, double d, bool single);
/* format's ~w,d,k,ovf,padF ~w,d,e,k,...E ~d,n,w,pad$ of v (a float or an integer; else as ~a) */
struct fmt_float { long w, d, e, k, n; char padc; bool atsign; };
void lv_format_float(struct lv_text *t, struct lisp *h, const struct lv *v, char dir, const struct fmt_float *ff);

/* builtins.c */
lv_builtin_fn lv_builtin_find(const char *name, int *min, int *max);
/* Every name of the core's builtins (lv_builtin_names) or special forms (lv_special_names,
 * in eval.c) given to fn: what the REPL completes and lists */
typedef void (*lv_name_fn)(void *ctx, const char *name);
void lv_builtin_names(lv_name_fn fn, void *ctx);
void lv_special_names(lv_name_fn fn, void *ctx);
/* A function by name: a defun, then a builtin of the core, then the layer's. */
struct lv *lv_function(struct lisp *h, const char *name);

/* print.c: the printer stops at LV_MAX_STR bytes and 64 levels, and goes round a circular
 * list once, each time ending with "..." */
bool lv_text_put(struct lisp *h, struct lv_text *t, const char *s, size_t len);
void lv_text_free(struct lisp *h, struct lv_text *t);
void lv_print(struct lisp *h, FILE *f, const struct lv *v, bool readably);
void lv_print_text(struct lisp *h, struct lv_text *t, const struct lv *v, bool readably);
char *lv_to_text(struct lisp *h, const struct lv *v, bool readably);
/* for a foreign type's print: text as it is, and a value inside it printed one level down */
void lv_printer_put(struct lv_printer *p, const char *s);
void lv_printer_value(struct lv_printer *p, const struct lv *v);
/* at most 200 bytes of v printed readably (for error messages) */
char *lv_brief(struct lisp *h, const struct lv *v);
struct lv *lv_format(struct lisp *h, const struct kl_node *call, struct lv **args, int n);
void lv_std_streams(struct lisp *h);
/* false, with an error raised at at, when a string stream would pass LV_MAX_STR */
bool lv_stream_put(struct lisp *h, const struct kl_node *at, struct lv *stream, const char *s, size_t len);
struct lv *lv_stream_of(struct lisp *h, const struct kl_node *at, struct lv *dest);
#endif
