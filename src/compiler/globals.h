/* globals.h — which defuns become global functions, which the kernel's verifier checks once,
 * alone, with every argument an unknown scalar, instead of once per call (compile.c asks,
 * the ELF and BTF writers mark them). */
#ifndef KL_GLOBALS_H
#define KL_GLOBALS_H
#include <stdbool.h>
#include <stdint.h>

struct kl_arena;
struct kl_ir_func;

/* fs[0..nf): every function of the compilation, as the optimizer left it, the defuns first
 * (fs[0..nfun), a call's imm the callee's index); any_return[j]: fs[j] is a program whose
 * return value the verifier checks no range of (NULL: none). Sets global[i] for each defun
 * that passes the verifier alone as it passed at each of its calls: one that is called,
 * whose address nothing takes, with no loop and no tail call, whose arguments only meet
 * arithmetic, branches, returns, stores of values and other global functions' arguments
 * (never an address, a helper's argument or a static function's); and whose result no
 * caller needs the range of (an address, a branch, a helper's or a static function's
 * argument, a stack store, a return but that of an any_return program). Linear in the
 * functions' sizes, times the rounds a callee dropping takes. */
void kl_globals(struct kl_arena *a, struct kl_ir_func *const *fs, uint32_t nf, uint32_t nfun, const bool *any_return,
		bool *global);
#endif
