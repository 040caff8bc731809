/* repl.h — kiln repl's state, shared by repl.c (the loop, on libedit), repl_forms.c (its own
 * forms), repl_load.c ((load FILE)) and repl_names.c (the names it completes and lists) */
#ifndef KL_HOST_REPL_H
#define KL_HOST_REPL_H
#include "hv.h"

struct kiln_link;

/* a program (attach PROG ...) attached: its link, until (detach PROG) or the end */
struct repl_link { const char *prog; struct lv *att; };   /* the attachment value */

/* a file (load FILE) put into the session's text: the session's lines first .. first+nlines-1
 * are the file's lines 1 .. nlines, reported as src's (FILE:line:col) */
struct repl_file { uint32_t first, nlines; struct kl_source *src; };

struct host_repl {
	KL_VEC(struct host_obj *) objs;     /* every object loaded; the last is the current one */
	void *elf;                          /* the current compilation, for disasm */
	size_t size;
	KL_VEC(struct repl_link) links;     /* the programs attached now */
	KL_VEC(struct repl_file) files;     /* the files loaded, in the order they were */
	uint32_t done;                      /* the session's top-level forms run (or loaded) */
	uint32_t loaded;                    /* forms read from files in the entry being run */
	const struct kl_node *top;          /* the form at the prompt being evaluated */
	int loading;                        /* (load FILE)s open, one inside another */
	struct lv *session;                 /* *bpf-session* as the REPL set it: the newest object */
};

/* the newest object loaded, or NULL */
struct host_obj *host_repl_current(struct lisp *h);

/* repl_forms.c: the REPL's own forms, each a row: its name, how it is called and what it does
 * (what :help lists) */
struct repl_form { const char *name, *usage, *doc; lv_special_fn fn; };
extern const struct repl_form repl_forms[];
/* every link still held destroyed (the session's end) */
void repl_detach_all(struct host_repl *rp);

/* repl_load.c */
struct lv *repl_load(struct lisp *h, const struct kl_node *n, struct lv_frame *env);
/* The error h holds printed to out, at FILE:line:col when it is in a loaded file's lines. */
void repl_report(struct lisp *h, FILE *out);

/* repl_names.c: the names that start with prefix (case aside): the REPL's forms, the host's
 * and the core's forms and functions, kiln's top-level forms, the session's defuns and
 * variables, and its maps' and programs' names as they were written; sorted, each once,
 * malloc'd (the array and each name). The count, or -1 when out of memory. */
long repl_names(struct lisp *h, const char *prefix, char ***out);
/* :help: the REPL's commands and forms, then the names of all the others */
void repl_help(struct lisp *h, FILE *out);
#endif
