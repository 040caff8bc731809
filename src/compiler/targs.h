/* targs.h — the typed arguments of a tracing program, from the kernel's BTF: a tp_btf or raw
 * tracepoint's from its typedef btf_trace_NAME (a pointer to a FUNC_PROTO whose first
 * parameter is the tracepoint's void *__data) with the names of __probestub_NAME or
 * __bpf_trace_NAME; an fentry, fexit or fmod_ret program's from the traced FUNC's prototype;
 * an lsm program's from bpf_lsm_HOOK. Each argument is one u64 of the context (two for a
 * struct of 9 to 16 bytes passed by value). */
#ifndef KL_TARGS_H
#define KL_TARGS_H
#include "compile.h"

struct kl_targ {
	const char *name;            /* NULL when the kernel's BTF has no name for it */
	struct kl_type *type;        /* the projection of its BTF type; NULL: void * or a function */
	uint32_t slot;               /* ctx[slot] */
	uint32_t nslots;
};

struct kl_targs {
	const char *what;            /* "tracepoint", "function" or "LSM hook" */
	const char *target;          /* its name */
	struct kl_targ *args;
	uint32_t n;
	bool has_ret;                /* fexit, fmod_ret: the return value after the arguments */
	struct kl_targ ret;
	bool trusted;                /* pointers are PTR_TO_BTF_ID: read directly (not raw_tp) */
};

/* Does this program read typed arguments (tp_btf, raw_tp, fentry, fexit, fmod_ret, lsm)?
 * must: the target has to be in the kernel's BTF (all but raw tracepoints, whose programs
 * read their context untyped when it is not). */
bool kl_targs_wanted(const struct kl_progdef *p, bool *must);
/* The arguments of program p, read from the kernel's BTF. NULL when there are none to type:
 * with an error (at the :section) when they must be typed and cannot be, naming the nearest
 * tracepoints or functions; without one for a raw tracepoint the BTF does not know. */
const struct kl_targs *kl_targs_of(struct kl_comp *c, const struct kl_progdef *p);

#endif
