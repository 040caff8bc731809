/* loader.h — internal to src/host/: the host's BPF values (objects and sessions, maps,
 * programs, attachments, ring consumers) shared by session.c (sessions, objects, untyped map
 * access), loader.c (Whistler's typed map access, program handles, attach-* and detach),
 * loader_ring.c (ring consumers) and loader_struct.c (a defstruct's record codecs). */
#ifndef KL_HOST_LOADER_H
#define KL_HOST_LOADER_H
#include "hv.h"
#include <kiln/object.h>
#include <kiln/map.h>

struct kiln_reader;
struct bpf_link;

/* An object or a session. Links and readers are destroyed when it closes; detach and
 * close-ring-consumer leave a NULL slot. */
struct host_obj {
	struct kiln_object *obj;
	KL_VEC(struct kiln_link *) links;
	KL_VEC(struct kiln_reader *) readers;
	KL_VEC(struct bpf_link *) tp_links;   /* attach-tracepoint's elsewhere than the section */
	struct lv *maps;          /* ("name" . map) alist */
	const char *path;         /* open-bpf-object's file, loaded by load-bpf-object */
	struct host_obj *next;    /* the host's open objects (H(h)->objs) */
};

struct host_map_ref { struct kiln_map *m; const char *name; };
/* a record of a defstruct: decode-S's, make-S-record's */
struct host_record { const struct host_struct *st; struct lv **fields; };

extern const struct lv_foreign_type host_obj_type, host_map_type, host_record_type;

/* session.c */
struct lv *host_map_value(struct lisp *h, struct kiln_map *m);
struct kiln_map *host_map_arg(struct lisp *h, const struct kl_node *c, struct lv *v);
struct host_obj *host_obj_arg(struct lisp *h, const struct kl_node *c, struct lv *v);
/* the running with-bpf-session's object, else an error at at */
struct host_obj *host_session(struct lisp *h, const struct kl_node *at);
/* a key or value as bytes: a byte vector of the map's size, or an integer */
uint8_t *host_to_bytes(struct lisp *h, const struct kl_node *at, struct lv *v, size_t size, const char *what);
struct lv *host_bytes_value(struct lisp *h, const uint8_t *p, size_t len);
uint64_t host_decode_le(const uint8_t *p, size_t len);
/* an attachment of program prog (by name) of o, opts built from the args as bpf:attach reads
 * them (attach_type >= 0: a cgroup program must have it) */
struct lv *host_attach_by_args(struct lisp *h, const struct kl_node *at, struct host_obj *o, const char *prog,
			       struct lv **args, int n, int attach_type);

/* loader.c */
/* attach p (of o) with opts: the attachment value, or NULL (an error raised at at) */
struct lv *host_attach_prog(struct lisp *h, const struct kl_node *at, struct host_obj *o, struct kiln_prog *p,
			    const struct kiln_attach_opts *opts);
/* attach p to the tracepoint t ("CATEGORY/EVENT", "tracepoint/" before it optional): the
 * section's through libkiln, another one through libbpf (Whistler's attach-tracepoint) */
struct lv *host_attach_tracepoint(struct lisp *h, const struct kl_node *c, struct host_obj *o, struct kiln_prog *p,
				  const char *t);
struct lv *host_prog_value(struct lisp *h, struct host_obj *o, struct kiln_prog *p);
lv_builtin_fn host_loader_builtin(const char *name, int *min, int *max);
/* The loader's and the ring consumers' function names, for completion and :help (the REPL) */
void host_loader_names(lv_name_fn fn, void *ctx);
void host_ring_names(lv_name_fn fn, void *ctx);
/* the condition bpf-error (handler-case's error catches it too): "what: kiln's message" */
struct lv *host_bpf_err(struct lisp *h, const struct kl_node *at, const char *what);
/* keyword argument key among a[from..n), or NULL */
struct lv *host_kwarg(struct lv **a, int n, int from, const char *key);

/* loader_ring.c */
lv_builtin_fn host_ring_builtin(const char *name, int *min, int *max);
struct lv *host_with_decoding_ring_consumer(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
void host_reader_free(struct kiln_reader *r);

/* loader_struct.c: make-S-record, encode-S, the typed map calls' struct codecs */
lv_builtin_fn host_struct_builtin(struct lisp *h, const char *name, const void **data, int *min, int *max);
/* the record r as bytes of st's layout, or NULL (an error at at) */
uint8_t *host_encode_struct(struct lisp *h, const struct kl_node *at, const struct host_struct *st, struct lv *r);
/* a struct named by a symbol or string (Whistler's 'stats-entry), or NULL with an error */
const struct host_struct *host_struct_arg(struct lisp *h, const struct kl_node *at, struct lv *name);
#endif
