/* triangle.c — a pass of the IR optimizer (opt.c runs it): a choice between a computed value
 * and a constant made without the jump over the constant. `if C goto A; d = X; goto L;
 * A: d = K; L:` (what `(getmap m k)` leaves: the value, or 0 when the lookup found nothing)
 * becomes `d = K; if C goto L; d = X; L:`, and `if C goto A; d = K; goto L; A: d = X; L:`
 * becomes `d = K; if !C goto L; d = X; L:`. X may be up to MAX_ARM pure instructions whose
 * last computes d (a bounds-checked load: its address, then the load). One instruction
 * less, and on each path as many run as before; and the path that computes the value is
 * now the fall-through, which the verifier walks first: what it stores is then "any
 * value" to the verifier, and the paths with the constant prune against it (stored first,
 * the constant 0 is a known zero no other value matches: xdp1's protocol key). The
 * constant moves before the branch, so neither the branch nor X may read d, and A must be
 * the branch's alone. X a copy is left as it is: the allocator can coalesce it while the
 * arms stay apart (queue-stack: `p ? p : 0` tested at once, 195 processed as it is, 231 as
 * a triangle). */
#include "compiler/opt/passes.h"
#include <string.h>

enum { MAX_ARM = 4 };   /* instructions in the arm that computes the value */

static bool constant(const struct kl_ir_ins *in, kl_vreg d)
{
	return in->op == IR_MOVI && in->d == d && !in->core;
}

/* Whether ins[from, from + n) computes d and nothing else a path past L could see: pure
 * instructions, the last one defining d, none reading d or defining it before (the other
 * results are temporaries of this arm). */
static bool arm(const struct kl_ir_func *f, uint32_t from, uint32_t n, kl_vreg d)
{
	for (uint32_t k = from; k < from + n; k++) {
		const struct kl_ir_ins *in = &f->ins[k];
		if (!kl_opt_pure(in->op) || !in->d || kl_opt_reads(in, d) || (in->d == d) != (k == from + n - 1))
			return false;
	}
	return !(n == 1 && f->ins[from].op == IR_MOV);
}

void kl_pass_triangle(struct kl_arena *a, struct kl_ir_func *f)
{
	uint32_t *refs = kl_opt_label_refs(a, f);
	struct kl_ir_ins tmp[MAX_ARM + 2];
	for (uint32_t i = 0; i + 5 < f->nins; i++) {
		struct kl_ir_ins *br = &f->ins[i];
		if (br->op != IR_BR || br->label > f->nlabels || refs[br->label] != 1)
			continue;
		/* if C then K else X: BR A; X...; JMP L; A: d = K; L: */
		uint32_t n = 1, k = i + 1;
		while (n <= MAX_ARM && k + n - 1 < f->nins && f->ins[k + n - 1].op != IR_JMP)
			n++;
		bool x_first = n <= MAX_ARM + 1 && k + n - 1 < f->nins && f->ins[k + n - 1].op == IR_JMP;
		uint32_t nx = n - 1, kat = k + n + 1, lat = k + n + 2;   /* X's length, K's and L's place */
		if (x_first && (nx < 1 || kat >= f->nins || lat >= f->nins || f->ins[k + n].op != IR_LABEL ||
				f->ins[k + n].label != br->label || !constant(&f->ins[kat], f->ins[k + nx - 1].d) ||
				f->ins[lat].op != IR_LABEL || f->ins[lat].label != f->ins[k + n - 1].label ||
				!arm(f, k, nx, f->ins[kat].d)))
			x_first = false;
		uint8_t cond = br->alu;
		uint32_t xat = k, jat = k + nx;
		if (!x_first) {
			/* if C then X else K: BR A; d = K; JMP L; A: X...; L: */
			const struct kl_ir_ins *q = &f->ins[i + 1], *j = &f->ins[i + 2], *la = &f->ins[i + 3];
			if (q->op != IR_MOVI || j->op != IR_JMP || la->op != IR_LABEL || la->label != br->label ||
			    !constant(q, q->d) || !kl_cond_invert(cond))
				continue;
			nx = 0;
			while (nx < MAX_ARM && i + 4 + nx < f->nins && f->ins[i + 4 + nx].op != IR_LABEL)
				nx++;
			lat = i + 4 + nx;
			if (!nx || lat >= f->nins || f->ins[lat].op != IR_LABEL || f->ins[lat].label != j->label ||
			    !arm(f, i + 4, nx, q->d))
				continue;
			kat = i + 1, xat = i + 4, jat = i + 2;
			cond = kl_cond_invert(cond);
		}
		kl_vreg d = f->ins[kat].d;
		if (kl_opt_reads(br, d))
			continue;
		/* d = K; if C goto L; X...; then no-ops up to L */
		tmp[0] = f->ins[kat];
		tmp[1] = *br;
		tmp[1].alu = cond;
		tmp[1].label = f->ins[jat].label;
		memcpy(&tmp[2], &f->ins[xat], nx * sizeof(tmp[0]));
		refs[br->label]--;
		for (uint32_t q = i; q < lat; q++) {
			f->ins[q].op = IR_LABEL;
			f->ins[q].label = 0;
		}
		memcpy(&f->ins[i], tmp, (nx + 2) * sizeof(tmp[0]));
		i = lat;
	}
}
