/* repl.h — kiln repl's state, shared by repl.c (the loop, on libedit) and repl_forms.c */
#ifndef KL_HOST_REPL_H
#define KL_HOST_REPL_H
#include "hv.h"

struct host_repl {
	KL_VEC(struct host_obj *) objs;     /* every object loaded; the last is the current one */
	void *elf;                          /* the current compilation, for disasm */
	size_t size;
};

/* the newest object loaded, or NULL */
struct host_obj *host_repl_current(struct lisp *h);
#endif
