/* test_trace_spans.c — kiln trace's node builder (src/trace/gen_build.h): templates become
 * the nodes kiln's reader makes of the same code (integers decimal and #x, negative,
 * keywords, symbols with their case kept as written, strings, vectors), holes filled into
 * atoms and strings, %p a copy of a node taking the current span; every node takes the span
 * of the construct being generated, a template may leave a list open for a later one to
 * close; an unbalanced form, a malformed atom, nesting and nodes past the limits are error
 * values at the script; and such nodes compile (kl_compile_forms_to_mem), a compile error in them
 * being at the script's construct. */
#define _GNU_SOURCE
#include "check.h"
#include "trace/gen_build.h"
#include "lib/fail.h"
#include "lib/compile.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool at(const struct kl_node *n, uint32_t line, uint32_t col)
{
	return n && n->span.line == line && n->span.col == col;
}

/* what the builder made, printed whole (kl_node_print, as -d prints it) */
static bool prints(const struct kl_node *n, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return false;
	kl_node_print(f, n, 0);
	fclose(f);
	bool same = !strcmp(buf, want);
	if (!same)
		fprintf(stderr, "  got %s\n", buf);
	free(buf);
	return same;
}

static void atoms(struct kl_arena *a, const struct kl_source *script)
{
	struct kl_diag d = { 0 };
	struct kt_build b = { .a = a, .d = &d, .cur = { script, 1, 1 } };
	struct kl_node *n = kt_form(&b, "(f %d #xff -%u :Key Sym \"s %s\" [:a :u8 %u] u%u %c%u %lld)", -3, 7u, "x y", 8u,
				    32u, 'i', 16u, (long long)1 << 40);
	CHECK("trace-build/template", n && prints(n, "(f -3 255 -7 :Key Sym \"s x y\" [:a :u8 8] u32 i16 1099511627776)"), "%s", d.msg);
	if (!n)
		return;
	CHECK("trace-build/kinds", n->items[1]->kind == KL_N_INT && n->items[1]->ival == -3 && n->items[2]->ival == 255 &&
	      n->items[3]->ival == -7 && n->items[4]->kind == KL_N_KEY && !strcmp(n->items[4]->str, "key") &&
	      n->items[5]->kind == KL_N_SYM && !strcmp(n->items[5]->str, "sym") && !strcmp(kl_name(n->items[5]), "Sym") &&
	      n->items[6]->kind == KL_N_STR && n->items[6]->ival == 5 && n->items[7]->vector && n->items[7]->nitems == 3,
	      "kinds");
	CHECK("trace-build/spliced", !strcmp(n->items[8]->str, "u32") && !strcmp(n->items[9]->str, "i16") &&
	      n->items[10]->ival == (int64_t)1 << 40, "%s %s", n->items[8]->str, n->items[9]->str);
}

static void spans_and_holes(struct kl_arena *a, const struct kl_source *script)
{
	struct kl_diag d = { 0 };
	struct kt_build b = { .a = a, .d = &d, .cur = { script, 1, 1 } };
	struct kl_span stmt = { script, 1, 9 }, sum = { script, 1, 14 };
	struct kl_node *dest = kt_form(&b, "(+ x %u)", 8u);   /* made at the probe */
	kt_emit(&b, "(defmap m0)");
	kt_emit(&b, "(defprog p0 (progn ");      /* left open */
	struct kl_span prev = kt_build_enter(&b, stmt);
	kt_emit(&b, "(store %p ", dest);
	struct kl_span prev2 = kt_build_enter(&b, sum);
	kt_emit(&b, "(+ 1 2)");
	kt_build_enter(&b, prev2);
	kt_emit(&b, ")");
	kt_build_enter(&b, prev);
	kt_emit(&b, "))");
	struct kl_node **forms = NULL;
	uint32_t n = 0;
	int r = kt_build_end(&b, &forms, &n);
	CHECK("trace-build/forms", r == 0 && n == 2 && prints(forms[1], "(defprog p0 (progn (store (+ x 8) (+ 1 2))))"),
	      "r %d, %u forms: %s", r, n, d.msg);
	if (r || n != 2)
		return;
	const struct kl_node *pg = forms[1]->items[2], *st = pg->items[1], *hole = st->items[1], *pl = st->items[2];
	CHECK("trace-build/probe-span", at(forms[0], 1, 1) && at(forms[1], 1, 1) && at(pg, 1, 1), "%u:%u",
	      pg->span.line, pg->span.col);
	CHECK("trace-build/statement-span", at(st, 1, 9) && at(st->items[0], 1, 9), "%u:%u", st->span.line, st->span.col);
	CHECK("trace-build/hole-copied-here", hole != dest && at(hole, 1, 9) && at(hole->items[2], 1, 9) && at(dest, 1, 1),
	      "%u:%u", hole->span.line, hole->span.col);
	CHECK("trace-build/innermost", at(pl, 1, 14) && at(pl->items[2], 1, 14), "%u:%u", pl->span.line, pl->span.col);
}

/* each bad template an error value at the span current then; nothing made after it */
static void errors(struct kl_arena *a, const struct kl_source *script)
{
	static const char *const bad[] = { "(a (b)", "(a))", "(a ]", "(f %s)", "(f \"x)" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kl_diag d = { 0 };
		struct kt_build b = { .a = a, .d = &d, .cur = { script, 1, 9 } };
		kt_emit(&b, bad[i], "two words");
		struct kl_node **forms;
		uint32_t n;
		int r = kt_build_end(&b, &forms, &n);
		CHECK("trace-build/error", r == -1 && d.nerrors && d.span.src == script && d.span.col == 9, "%s: r %d %s",
		      bad[i], r, d.msg);
	}
	struct kl_diag d = { 0 };
	struct kt_build b = { .a = a, .d = &d, .cur = { script, 1, 14 } };
	for (int i = 0; i <= KT_BUILD_DEPTH; i++)
		kt_emit(&b, "(f ");
	struct kl_node **forms;
	uint32_t n;
	CHECK("trace-build/depth-limit", kt_build_end(&b, &forms, &n) == -1 && strstr(d.msg, "nests too deeply") &&
	      d.span.col == 14, "%s", d.msg);
	struct kl_diag d2 = { 0 };
	struct kt_build b2 = { .a = a, .d = &d2, .cur = { script, 1, 14 }, .nodes = KT_BUILD_NODES - 3 };
	kt_emit(&b2, "(a b)");
	CHECK("trace-build/nodes-within-limit", !b2.err && b2.nodes == KT_BUILD_NODES, "%u: %s", b2.nodes, d2.msg);
	kt_form(&b2, "c");
	CHECK("trace-build/node-limit", kt_build_end(&b2, &forms, &n) == -1 && strstr(d2.msg, "more than 1000000 nodes") &&
	      d2.span.col == 14, "%s", d2.msg);
}

static void compiled(struct kl_arena *a)
{
	struct kl_source script = { "x.bt", "BEGIN { oops(); }\n", 18 };
	struct kl_node **forms;
	uint32_t n;
	for (int bad = 0; bad < 2; bad++) {
		struct kl_diag d = { 0 };
		struct kt_build b = { .a = a, .d = &d, .cur = { &script, 1, 1 } };
		kt_emit(&b, "(defprog p0 (:type :xdp) ");
		struct kl_span prev = kt_build_enter(&b, (struct kl_span){ &script, 1, 9 });
		kt_emit(&b, bad ? "(no-such-fn 1)" : "2");
		kt_build_enter(&b, prev);
		kt_emit(&b, ")");
		void *elf = NULL;
		size_t size = 0;
		int r = kt_build_end(&b, &forms, &n) ? -2 : kl_compile_forms_to_mem(&script, forms, n, 2, &d, &elf, &size);
		if (!bad)
			CHECK("trace-build/compiles", r == 0 && elf && size > 64 && !memcmp(elf, "\177ELF", 4), "r %d: %s", r,
			      d.msg);
		else
			CHECK("trace-build/compile-error-at-script", r == -1 && !elf && d.nerrors && d.span.src == &script &&
			      d.span.line == 1 && d.span.col == 9, "r %d: %s at %u:%u", r, d.msg, d.span.line, d.span.col);
		free(elf);
	}
}

int main(void)
{
	struct kl_source script = { "s.bt", "BEGIN { @x = 1 + 2; }\n", 22 };
	struct kl_arena a = { 0 };
	atoms(&a, &script);
	spans_and_holes(&a, &script);
	errors(&a, &script);
	compiled(&a);
	kl_arena_free(&a);
	return check_failures != 0;
}
