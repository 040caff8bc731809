/* hv.h — the host interpreter's values, environment and state (internal to src/host/).
 * Everything lives in one arena for the run: a session file is short-lived and its loops
 * allocate little. Errors are values: a failing evaluation returns NULL with h->exc set (an
 * error or Ctrl-C condition, or a non-local exit of return/return-from), and every caller
 * passes NULL up until handler-case, block or the top level takes it. */
#ifndef KL_HOST_HV_H
#define KL_HOST_HV_H
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "compiler/arena.h"
#include "compiler/diag.h"
#include "compiler/reader.h"

enum hv_kind {
	HV_NIL, HV_T, HV_INT, HV_STR, HV_SYM, HV_KEY, HV_CONS, HV_VEC, HV_FN, HV_BUILTIN,
	HV_MAP, HV_OBJ, HV_STREAM, HV_RECORD, HV_MV, HV_COND,
};

struct host;
struct hv;
typedef struct hv *(*hv_builtin_fn)(struct host *h, const struct kl_node *call, struct hv **args, int n);

struct hv_frame;
struct hv_struct;
struct host_obj;
struct host_repl;

/* A growing text (the printer's, format's, a string stream's), kept outside the arena's
 * blocks (kl_arena_ext_grow): it doubles without leaving copies behind, and an error or
 * out of memory midway leaks nothing. At most HV_MAX_STR bytes (full set past them). */
struct hv_text { char *p; size_t len, cap; bool full; };

struct hv {
	enum hv_kind k;
	union {
		int64_t i;                                         /* INT */
		struct { char *s; size_t len; } str;               /* STR */
		const char *name;                                  /* SYM, KEY: folded, package stripped */
		struct { struct hv *car, *cdr; const struct kl_node *src; } cons;
		struct { struct hv **items; size_t len; } vec;     /* VEC, MV */
		struct {                                           /* FN: a closure */
			const char *name;
			const struct kl_node *params;
			const struct kl_node *const *body;
			uint32_t nbody;
			struct hv_frame *env;
		} fn;
		struct { const char *name; hv_builtin_fn fn; int min, max; const void *data; } bi;
		struct { struct kiln_map *m; const char *name; } map;
		struct { struct host_obj *o; } obj;
		struct { FILE *f; struct hv_text text; bool string; bool *bol; } stream;
		struct { const struct hv_struct *st; struct hv **fields; } rec;
		struct { const char *type; const char *msg; } cond;
	} u;
};

/* A lexical frame: one binding. */
struct hv_frame {
	const char *name;
	struct hv *val;
	struct hv_frame *up;
};

/* A global: variable or function by name (hashed). */
struct hv_global {
	const char *name;
	struct hv *val, *fn;
	bool constant;
	struct hv_global *next;
};

/* A defstruct seen at top level: the layout its host decoder reads (C alignment). */
struct hv_field { const char *name; uint32_t off, size, count; bool is_signed; };
struct hv_struct {
	const char *name;
	struct hv_field *fields;
	uint32_t nfields, size;
	struct hv_struct *next;
};

/* A stretch of the source that is kiln code: copied to the compiled text at its offset. */
struct host_seg { uint32_t off, end; const struct kl_node *node; };

enum hv_exc { EXC_NONE, EXC_CONDITION, EXC_RETURN };

#define HV_NGLOBAL 256

/* Limits, each a Lisp error when passed (never a crash):
 * HV_MAX_DEPTH   forms and calls being evaluated inside one another; also at most 3/4 of
 *                the C stack (its rlimit, at most 256 MiB) is used, whichever comes first
 * HV_MAX_ELEMS   elements of a vector made (make-array) and conses compared by equal
 * HV_MAX_STR     bytes of a string (concatenate, format, a string stream, printing)
 * The last two are h->max_elems and h->max_str (host_setup; the fuzz harness lowers them). */
#define HV_MAX_DEPTH 100000
#define HV_MAX_ELEMS ((size_t)1 << 24)
#define HV_MAX_STR ((size_t)1 << 26)

struct host {
	struct kl_arena a;
	struct kl_source src;
	uint32_t *line_off;              /* byte offset of each line's start (1-based lines) */
	uint32_t nlines;
	struct hv_global *globals[HV_NGLOBAL];
	/* non-local exit in flight */
	enum hv_exc exc;
	struct hv *cond;                 /* EXC_CONDITION: an HV_COND */
	struct kl_span exc_span;
	const char *ret_block;           /* EXC_RETURN: the block's name ("nil" for loops) */
	struct hv *ret_val;
	/* kiln forms: top-level ones and those eval'd, compiled with each session */
	KL_VEC(struct host_seg) segs;
	KL_VEC(char *) extra;            /* kiln forms built at run time, printed */
	struct hv_struct *structs;
	struct host_session *session;    /* the innermost running with-bpf-session */
	bool ran_session;
	int argc;
	char **argv;
	bool out_bol, err_bol;           /* for ~&: at the start of a line */
	int depth;                       /* forms and calls nested now (HV_MAX_DEPTH) */
	char *stack_top;                 /* the C stack where host_eval_top began (NULL: not yet) */
	size_t stack_max;                /* the bytes of C stack evaluation may use below it */
	uint64_t steps, max_steps;       /* forms and loop turns run; max_steps 0: no budget */
	size_t max_elems, max_str;       /* HV_MAX_ELEMS, HV_MAX_STR */
	bool no_system;                  /* the fuzz harness: no BPF, files, sleep (refused) */
	struct hv *self;                 /* the builtin being applied (its data) */
	struct host_repl *repl;          /* kiln repl's state, NULL when running a file */
};

extern struct hv hv_nil_v, hv_t_v;
#define HNIL (&hv_nil_v)
#define HT (&hv_t_v)

/* host.c */
struct hv *hv_int(struct host *h, int64_t i);
struct hv *hv_str(struct host *h, const char *s, size_t len);
struct hv *hv_cstr(struct host *h, const char *s);
struct hv *hv_sym(struct host *h, const char *name);
struct hv *hv_cons(struct host *h, struct hv *car, struct hv *cdr);
struct hv *hv_vec(struct host *h, size_t n);
struct hv *hv_bool(bool b);
bool hv_true(const struct hv *v);
const char *hv_symname(struct host *h, const struct kl_node *n);
struct hv *hv_from_node(struct host *h, const struct kl_node *n);
/* Raise an error condition at n's position; always NULL. */
struct hv *hv_err(struct host *h, const struct kl_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct hv *hv_raise(struct host *h, const struct kl_node *n, const char *type, const char *msg);
struct hv_global *hv_global(struct host *h, const char *name, bool create);
uint32_t host_offset(const struct host *h, struct kl_span s);
/* eql (integers by value, symbols by name), and equal (also strings, lists by their
 * elements): 1 or 0, or -1 with an error raised at n (nested too deep, Ctrl-C) */
bool hv_eql(const struct hv *a, const struct hv *b);
int hv_equal(struct host *h, const struct kl_node *n, const struct hv *a, const struct hv *b);
bool host_interrupt_pending(struct host *h, const struct kl_node *n);
/* Called at every form evaluated and every turn of a loop (and every so many steps of a long
 * builtin): true, with the condition raised at n, when evaluation must stop there (Ctrl-C
 * came, or the step budget is spent). */
bool host_stop(struct host *h, const struct kl_node *n);
/* Is the C stack still below its share (see HV_MAX_DEPTH)? Else false with the error raised
 * at n: "stack overflow: ... nested N deep". Every recursion of the evaluator checks it. */
bool host_stack_ok(struct host *h, const struct kl_node *n, const char *what);
/* A list's length, or -1 when it is circular (an error raised at n when fn names the caller,
 * "length: the list is circular") */
int64_t hv_list_len(struct host *h, const struct kl_node *n, const struct hv *l, const char *fn);
void host_sleep(struct host *h, double s, const struct kl_node *n);

void host_set_text(struct host *h, const char *path, const char *text, size_t len);
void host_prepare(struct host *h, struct kl_node *n);
void host_report(struct host *h, FILE *out);
/* A top-level form evaluated: its value, or NULL with h's condition (an allocation that fails
 * is the error "out of memory" at the form, the form abandoned) */
struct hv *host_eval_top(struct host *h, const struct kl_node *form);
/* forms evaluated in order until one fails (reported to err): 0, 1 after an error, 130 after
 * an uncaught Ctrl-C */
int host_eval_forms(struct host *h, struct kl_node *const *forms, uint32_t n, FILE *err);
/* the globals (streams, argv ...); Ctrl-C is host_catch_sigint's */
void host_setup(struct host *h, int argc, char **argv);
void host_catch_sigint(bool on);

/* eval.c */
struct hv *hv_eval(struct host *h, const struct kl_node *n, struct hv_frame *env);
struct hv *hv_progn(struct host *h, const struct kl_node *const *body, uint32_t n, struct hv_frame *env);
struct hv *hv_apply(struct host *h, const struct kl_node *call, struct hv *f, struct hv **args, int n);
struct hv *hv_eval_value(struct host *h, struct hv *form, const struct kl_node *at);
bool host_is_kiln_form(const char *head);
/* Is name a form or function that touches the system (BPF, files, sleep), refused because
 * h->no_system is set? */
bool host_refused(struct host *h, const char *name);

/* builtins.c */
hv_builtin_fn hv_builtin_find(const char *name, int *min, int *max);
struct hv *hv_function(struct host *h, const char *name);

/* print.c: the printer stops at HV_MAX_STR bytes and 64 levels, and goes round a circular
 * list once, each time ending with "..." */
bool hv_text_put(struct host *h, struct hv_text *t, const char *s, size_t len);
void hv_text_free(struct host *h, struct hv_text *t);
void hv_print(struct host *h, FILE *f, const struct hv *v, bool readably);
void hv_print_text(struct host *h, struct hv_text *t, const struct hv *v, bool readably);
char *hv_to_text(struct host *h, const struct hv *v, bool readably);
/* at most 200 bytes of v printed readably (for error messages) */
char *hv_brief(struct host *h, const struct hv *v);
struct hv *hv_format(struct host *h, const struct kl_node *call, struct hv **args, int n);
void host_std_streams(struct host *h);
/* false, with an error raised at at, when a string stream would pass HV_MAX_STR */
bool hv_stream_put(struct host *h, const struct kl_node *at, struct hv *stream, const char *s, size_t len);
struct hv *hv_stream_of(struct host *h, const struct kl_node *at, struct hv *dest);

/* session.c */
struct hv *host_with_session(struct host *h, const struct kl_node *n, struct hv_frame *env);
struct hv *host_with_object(struct host *h, const struct kl_node *n, struct hv_frame *env);
struct hv *host_attach(struct host *h, const struct kl_node *n, struct hv_frame *env);
struct hv *host_map_ref(struct host *h, const struct kl_node *n, struct hv_frame *env);
void host_collect(struct host *h, const struct kl_node *form);
void host_collect_value(struct host *h, struct hv *form);
int host_compile(struct host *h, const struct kl_node *at, const struct kl_node *const *extra,
		 uint32_t nextra, void **elf, size_t *size);
void host_define_struct(struct host *h, const struct kl_node *form);
const struct hv_struct *host_find_struct(struct host *h, const char *name);
struct hv *host_decode_struct(struct host *h, const struct kl_node *at, const struct hv_struct *st, struct hv *bytes);
hv_builtin_fn host_session_builtin(const char *name, int *min, int *max);
int host_open_load(struct host *h, const struct kl_node *at, const void *elf, size_t size, const char *path,
		   struct host_obj *o, struct host_obj *reuse);
struct host_obj *host_obj_new(struct host *h);
void host_obj_close(struct host_obj *o);
struct hv *host_obj_value(struct host *h, struct host_obj *o);
struct kiln_object *host_obj_object(struct host_obj *o);

/* repl.c: the REPL's own forms (attach, disasm, check, dump), and a kiln form entered */
typedef struct hv *(*special_fn)(struct host *h, const struct kl_node *n, struct hv_frame *env);
special_fn host_repl_special(struct host *h, const char *name);
int host_repl_kiln_form(struct host *h, const struct kl_node *form);
#endif
