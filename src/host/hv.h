/* hv.h — the host interpreter's state (internal to src/host/): the Lisp core's state
 * (src/lisp/lisp.h) with what a session file adds, its kiln forms, defstructs and sessions.
 * Every host function takes the core's struct lisp (the host's is its first member, H()). */
#ifndef KL_HOST_HV_H
#define KL_HOST_HV_H
#include "lisp/lisp.h"

struct host_repl;
struct host_obj;

/* A defstruct seen at top level: the layout its host decoder reads (C alignment). */
struct host_field { const char *name; uint32_t off, size, count; bool is_signed; };
struct host_struct {
	const char *name;
	struct host_field *fields;
	uint32_t nfields, size;
	struct host_struct *next;
};

/* A stretch of the source that is kiln code: copied to the compiled text at its offset. */
struct host_seg { uint32_t off, end; const struct kl_node *node; };

struct host {
	struct lisp L;                   /* first: H() */
	uint32_t *line_off;              /* byte offset of each line's start (1-based lines) */
	uint32_t nlines;
	/* kiln forms: top-level ones and those eval'd, compiled with each session */
	KL_VEC(struct host_seg) segs;
	KL_VEC(char *) extra;            /* kiln forms built at run time, printed */
	struct host_struct *structs;
	struct host_session *session;    /* the innermost running with-bpf-session */
	struct host_obj *objs;           /* every object loaded (closed ones too: obj NULL) */
	bool ran_session;
	int argc;
	char **argv;
	bool no_system;                  /* the fuzz harness: no BPF, files, sleep (refused) */
	struct host_repl *repl;          /* kiln repl's state, NULL when running a file */
	int load_depth;                  /* load.c: files being loaded now */
};

/* The host whose core L is (every struct lisp the host's functions get is one). */
static inline struct host *H(struct lisp *L) { return (struct host *)(void *)L; }

/* The byte offset in the source of the position s (the end for a position outside it): the
 * index host_set_text made of the lines' starts. */
static inline uint32_t host_offset(struct lisp *h, struct kl_span s)
{
	if (s.line < 1 || s.line > H(h)->nlines)
		return (uint32_t)h->src.len;
	uint32_t off = H(h)->line_off[s.line] + s.col - 1;
	return off > h->src.len ? (uint32_t)h->src.len : off;
}

/* load.c: (load "FILE") in a session file, its host forms evaluated */
struct lv *host_load(struct lisp *h, const struct kl_node *c, struct lv **a, int n);
/* host.c */
bool host_interrupt_pending(struct lisp *h, const struct kl_node *n);
void host_sleep(struct lisp *h, double s, const struct kl_node *n);
void host_set_text(struct lisp *h, const char *path, const char *text, size_t len);
void host_prepare(struct lisp *h, struct kl_node *n);
void host_report(struct lisp *h, FILE *out);
/* forms evaluated in order until one fails (reported to err): 0, 1 after an error, 130 after
 * an uncaught Ctrl-C */
int host_eval_forms(struct lisp *h, struct kl_node *const *forms, uint32_t n, FILE *err);
/* the core set up with the host's layer, and the globals (streams, argv ...); Ctrl-C is
 * host_catch_sigint's */
void host_setup(struct lisp *h, int argc, char **argv);
void host_catch_sigint(bool on);

/* layer.c: what the host adds to the core (its special forms, kiln's own forms, its
 * functions), the hooks host_setup hands it */
extern const struct lisp_layer host_layer;
bool host_is_kiln_form(const char *head);
/* (defvar|defparameter NAME INIT :type T): a kiln global variable rather than a host one */
bool host_is_kiln_global(const struct kl_node *n);
/* Is name a form or function that touches the system (BPF, files, sleep), refused because
 * no_system is set? */
bool host_refused(struct lisp *h, const char *name);
/* every name of the host's special forms, kiln's forms and the host's functions, to fn */
void host_layer_names(lv_name_fn fn, void *ctx);

/* session.c */
struct lv *host_with_session(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
struct lv *host_with_object(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
struct lv *host_attach(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
struct lv *host_map_ref(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
void host_collect(struct lisp *h, const struct kl_node *form);
void host_collect_value(struct lisp *h, struct lv *form);
int host_compile(struct lisp *h, const struct kl_node *at, const struct kl_node *const *extra,
		 uint32_t nextra, void **elf, size_t *size);
void host_define_struct(struct lisp *h, const struct kl_node *form);
const struct host_struct *host_find_struct(struct lisp *h, const char *name);
struct lv *host_decode_struct(struct lisp *h, const struct kl_node *at, const struct host_struct *st, struct lv *bytes);
/* field f of r, a record host_decode_struct made; NULL when r is no record of f's struct */
struct lv *host_record_field(const struct lv *r, const struct host_field *f);
lv_builtin_fn host_session_builtin(const char *name, int *min, int *max);
int host_open_load(struct lisp *h, const struct kl_node *at, const void *elf, size_t size, const char *path,
		   struct host_obj *o, struct host_obj *reuse);
struct host_obj *host_obj_new(struct lisp *h);
void host_obj_close(struct host_obj *o);
struct lv *host_obj_value(struct lisp *h, struct host_obj *o);
struct kiln_object *host_obj_object(struct host_obj *o);
/* the session's functions' names, to fn; the map a map value is (else NULL); the link the
 * last attach on o made, handed to the caller (the REPL's detach), or NULL */
void host_session_names(lv_name_fn fn, void *ctx);
struct kiln_map *host_map_of(const struct lv *v);
/* loader.c: an attachment value's links destroyed (their slots left empty); false when v is
 * no attachment */
bool host_detach_value(struct lv *v);

/* repl_forms.c: the REPL's own forms (attach, detach, dump, load ...), and a kiln form entered */
lv_special_fn host_repl_special(struct lisp *h, const char *name);
int host_repl_kiln_form(struct lisp *h, const struct kl_node *form);
#endif
