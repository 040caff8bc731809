/* opt.h — the IR optimizer: a table of named passes (one per file under opt/), run in
 * order. Those the verifier needs (unreachable code, dead code, branch threading) run at
 * every level; the others from -O1. Each can be switched off by name (-fno-NAME), and the IR
 * printed after one (--print-after NAME). */
#ifndef KL_OPT_H
#define KL_OPT_H
#include "ir.h"
#include <stdio.h>

struct kl_opt_config {
	int level;              /* 0: only the passes the verifier needs */
	uint64_t disabled;      /* bit i: pass i of the table is not run */
	int print_after;        /* a pass's index + 1: print the IR after each run of it; 0: none */
	FILE *out;              /* where (stderr when NULL) */
	bool verify;            /* build the SSA form after every pass and check its invariants */
	char why[256];          /* what was broken, after which pass */
};

/* The pipeline over f: 0, or -1 when cfg->verify found the SSA form broken (in cfg->why). */
int kl_opt(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg);
/* A sub-pipeline, for a pass that tries others (unroll-fold): the passes called names[0 ..
 * n) over f in that order, each unless cfg switches it off (-fno-NAME; the level is the
 * caller's), the IR printed after it and the form checked as cfg asks. 0, or -1 as kl_opt. */
int kl_opt_run(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg, const char *const *names, size_t n);
/* Whether the pass called name runs at cfg's level and switches (for the passes run
 * outside kl_opt, as inline). */
bool kl_opt_pass_on(const struct kl_opt_config *cfg, const char *name);
/* The index of the pass called name, or -1. */
int kl_opt_pass_find(const char *name);
/* The passes' names and one line each, for --help: "  unreachable  ...\n". */
const char *kl_opt_pass_help(void);
#endif
