/* opt.c — the IR optimizer's pass manager (opt.h): the passes as a table, each named in one
 * line, in the order they run; a pass may appear more than once in the pipeline. A pass
 * that tries others (unroll-fold) runs them through kl_opt_run, never by calling them, so
 * every switch holds wherever a pass runs. */
#include "opt.h"
#include "compiler/opt/passes.h"
#include "ssa.h"
#include <stdio.h>
#include <pthread.h>
#include <string.h>

struct pass {
	const char *name, *what;
	void (*run)(struct kl_arena *a, struct kl_ir_func *f);   /* NULL: in tries[] below */
	bool grows;   /* adds instructions or labels (its allocations stay); the others change f in
		       * place, so what they allocate is released when they end */
};

static const struct pass passes[] = {
	{ "unreachable", "drop instructions no path reaches (the kernel refuses them)", kl_pass_unreachable, false },
	{ "dce", "drop pure instructions whose result nobody reads", kl_pass_dce, false },
	{ "thread", "branch threading: a test whose outcome an earlier one decides (the verifier needs it)",
	  kl_pass_thread, true },
	{ "propagate", "a vreg set once to a constant or a copy: the constant or the original where it is read",
	  kl_pass_propagate, false },
	{ "unroll-fold", "a loop with a constant trip count unrolled where that folds it away (no larger after)",
	  NULL, true },
	{ "rotate", "loops with their tests at the bottom: a copy of the tests for the jump back (the verifier prunes the exits)",
	  kl_pass_rotate, true },
	{ "forward", "a load of stack bytes a store in its block wrote (nothing between may write them): the value stored",
	  kl_pass_forward, false },
	{ "sccp", "sparse conditional constant propagation over the SSA form: constants through joins, branches decided",
	  kl_pass_sccp, false },
	{ "thread-const", "v = K; goto L where L only tests v: the jump goes where the test would send it",
	  kl_pass_thread_const, false },
	{ "nonnull", "a packet pointer (or one plus an offset) tested against 0: the test decided", kl_pass_nonnull, false },
	{ "strength", "in a loop, p = b + (i << K) of its counter: a pointer of its own, stepped with the counter",
	  kl_pass_strength, true },
	{ "copies", "a copy of a variable whose every read can read the original (still holding it there): the original",
	  kl_pass_copies, false },
	{ "sums", "p + (x + K) is (p + x) + K, (x + K) << S is (x << S) + (K << S): variable sums first, constants last",
	  kl_pass_sums, false },
	{ "reassoc", "t = p + K1; u = t + K2 becomes u = p + (K1 + K2) where p still holds it", kl_pass_reassoc, false },
	{ "gvn", "global value numbering over the SSA form: what a dominating instruction computed, a copy of it",
	  kl_pass_gvn, false },
	{ "bits", "x & M keeping every bit x can have, a 32-bit truncation of a 32-bit value: copies", kl_pass_bits, false },
	{ "select", "a comparison used as a value, of operands within 62 bits: the sign of a subtraction, no branch",
	  kl_pass_select, false },
	{ "swap-cmp", "x = ntohs(load); x == K: the swap moved into the constant", kl_pass_swap_cmp, false },
	{ "jmp32", "a branch on a sign-extended 32-bit value: a JMP32 on the value before the extension",
	  kl_pass_jmp32, false },
	{ "adce", "dead definitions on the SSA form: what no store, call, branch or return needs, through phis", kl_pass_adce, false },
	{ "dse", "dead stores to stack slots: to one nothing reads, or overwritten in the block unread", kl_pass_dse, false },
	{ "coalesce", "t = ...; x = t with t read once: x = ...", kl_pass_coalesce, false },
	{ "merge-returns", "return K in several places: jumps to one", kl_pass_merge_returns, true },
	{ "triangle", "if C goto A; d = X; goto L; A: d = K; L: becomes d = K; if C goto L; d = X (no jump over K)",
	  kl_pass_triangle, false },
	{ "branch-over-jump", "if C goto L1; goto L2; L1: becomes if !C goto L2", kl_pass_branch_over_jump, false },
	{ "merge-checks", "a packet bounds check a later one to the same place makes redundant, nothing between: gone",
	  kl_pass_merge_checks, false },
	{ "idle-exit", "a loop whose guard, once it fails, fails every round after (the latch sets only the counter): it leaves",
	  kl_pass_idle_exit, false },
	{ "bounds-first", "in a loop, a packet bounds check jumps the in-bounds way, the verifier walks the other first",
	  kl_pass_bounds_first, true },
	{ "unroll", "a dotimes of at most 16 iterations over a small body lowered as one copy per iteration", NULL, false },
	{ "bpf-loop", "a dotimes whose count x body reaches 16,384 forms lowered as a bpf_loop callback (at every level)",
	  NULL, false },
	{ "inline", "defuns inlined into their callers, small ones or those called at most twice (first, across functions)",
	  NULL, false },
	{ "globals", "defuns of scalars whose result no caller needs the range of: global, checked once (last, across functions)",
	  NULL, false },
};
/* kl_options.no_passes and the config's disabled are one bit per pass */
_Static_assert(sizeof(passes) / sizeof(passes[0]) <= 64, "more passes than bits in -fno-PASS's mask");
enum { P_UNREACHABLE, P_DCE, P_THREAD, P_PROPAGATE, P_UNROLL_FOLD, P_ROTATE, P_FORWARD, P_SCCP, P_THREAD_CONST, P_NONNULL, P_STRENGTH, P_COPIES, P_SUMS, P_REASSOC, P_GVN, P_BITS, P_SELECT, P_SWAP_CMP, P_JMP32, P_ADCE, P_DSE, P_COALESCE, P_MERGE_RETURNS, P_TRIANGLE, P_BRANCH_OVER_JUMP, P_MERGE_CHECKS, P_IDLE_EXIT, P_BOUNDS_FIRST };

/* The pipeline: which pass, from which level. Threading looks past no instruction, so the
 * dead ones go first; what it cuts off is unreachable after. */
static const struct { uint8_t pass, level; } pipeline[] = {
	{ P_UNREACHABLE, 0 }, { P_DCE, 0 }, { P_THREAD, 0 }, { P_UNREACHABLE, 0 },
	{ P_PROPAGATE, 1 }, { P_UNROLL_FOLD, 1 }, { P_ROTATE, 1 }, { P_FORWARD, 1 }, { P_SCCP, 1 }, { P_UNREACHABLE, 1 }, { P_THREAD_CONST, 1 }, { P_NONNULL, 1 }, { P_STRENGTH, 1 }, { P_COPIES, 1 }, { P_SUMS, 1 }, { P_REASSOC, 1 }, { P_GVN, 1 }, { P_UNREACHABLE, 1 }, { P_COPIES, 1 }, { P_BITS, 1 }, { P_SELECT, 1 }, { P_PROPAGATE, 1 }, { P_SWAP_CMP, 1 }, { P_JMP32, 1 }, { P_DCE, 1 }, { P_ADCE, 1 }, { P_DSE, 1 }, { P_COALESCE, 1 }, { P_MERGE_RETURNS, 1 },
	{ P_TRIANGLE, 1 }, { P_BRANCH_OVER_JUMP, 1 }, { P_MERGE_CHECKS, 1 }, { P_IDLE_EXIT, 1 }, { P_BOUNDS_FIRST, 1 },
};

/* Passes that try others: given the config, they run those through kl_opt_run (so that
 * -fno-PASS, --print-after and --verify-ir hold in their trials too); -1 when a trial's form
 * was broken (cfg->why says how). */
static const struct {
	uint8_t pass;
	int (*run)(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg);
} tries[] = { { P_UNROLL_FOLD, kl_pass_unroll_fold } };

int kl_opt_pass_find(const char *name)
{
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++)
		if (!strcmp(passes[i].name, name))
			return (int)i;
	return -1;
}

/* The help text, made once per process (pthread_once: kiln_compile_passes() is public, and
 * two threads may ask at once). A constant of the pass table, no compilation's state. */
static char help_buf[8192];
static pthread_once_t help_once = PTHREAD_ONCE_INIT;

static void help_make(void)
{
	char *buf = help_buf;
	size_t n = 0;
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {   /* "  %-17s %s\n", without printf's cost at every compile */
		size_t l = strlen(passes[i].name), w = strlen(passes[i].what);
		if (n + 20 + l + w + 2 > sizeof(help_buf))
			break;
		memset(buf + n, ' ', 20);
		memcpy(buf + n + 2, passes[i].name, l);
		n += 2 + (l > 17 ? l : 17) + 1;
		memcpy(buf + n, passes[i].what, w);
		n += w;
		buf[n++] = '\n';
	}
	_Static_assert(sizeof(passes) / sizeof(passes[0]) * 160 < sizeof(help_buf), "the passes' help may not fit");
}

const char *kl_opt_pass_help(void)
{
	pthread_once(&help_once, help_make);
	return help_buf;
}

bool kl_opt_pass_on(const struct kl_opt_config *cfg, const char *name)
{
	int p = kl_opt_pass_find(name);
	return p >= 0 && cfg->level >= 1 && !(cfg->disabled >> p & 1);
}

static int verify(struct kl_arena *a, const struct kl_ir_func *f, const char *after, struct kl_opt_config *cfg)
{
	struct kl_ssa s;
	char why[200];
	struct kl_arena_mark m = kl_arena_mark(a);
	kl_ssa_build(a, f, &s);
	int bad = kl_ssa_verify(&s, why, sizeof(why));
	kl_arena_release(a, m);
	if (!bad)
		return 0;
	snprintf(cfg->why, sizeof(cfg->why), "the IR of %s after %s: %s", f->name, after, why);
	return -1;
}

/* Pass p over f, then the no-op labels out, the IR printed and the form checked as cfg asks. */
static int run_pass(struct kl_arena *a, struct kl_ir_func *f, uint8_t p, struct kl_opt_config *cfg)
{
	struct kl_arena_mark m = kl_arena_mark(a);
	if (passes[p].run)
		passes[p].run(a, f);
	for (size_t t = 0; t < sizeof(tries) / sizeof(tries[0]) && !passes[p].run; t++)
		if (tries[t].pass == p && tries[t].run(a, f, cfg))
			return -1;
	if (!passes[p].grows)
		kl_arena_release(a, m);
	kl_opt_compact(f);
	if (cfg->print_after == p + 1) {
		FILE *o = cfg->out ? cfg->out : stderr;
		fprintf(o, ";; after %s\n", passes[p].name);
		kl_ir_dump(f, o);
	}
	return cfg->verify ? verify(a, f, passes[p].name, cfg) : 0;
}

int kl_opt_run(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int p = kl_opt_pass_find(names[i]);
		if (p < 0 || (cfg->disabled >> p & 1))
			continue;
		if (run_pass(a, f, (uint8_t)p, cfg))
			return -1;
	}
	return 0;
}

int kl_opt(struct kl_arena *a, struct kl_ir_func *f, struct kl_opt_config *cfg)
{
	if (cfg->verify && verify(a, f, "lowering", cfg))
		return -1;
	for (size_t i = 0; i < sizeof(pipeline) / sizeof(pipeline[0]); i++) {
		uint8_t p = pipeline[i].pass;
		/* a bpf_loop callback reads the packet at its index, which the verifier knows only
		 * as a range: the pointer it checked must be the one it reads through (sums, gvn) */
		bool needed = (p == P_GVN || p == P_SUMS) && f->loop_body;
		if ((pipeline[i].level > cfg->level && !needed) || (cfg->disabled >> p & 1))
			continue;
		if (run_pass(a, f, p, cfg))
			return -1;
	}
	kl_arena_trim(a);   /* the passes' scratch, given back */
	return 0;
}
