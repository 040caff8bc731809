/* test_trace_spans.c — kiln trace's script spans for generated code (src/trace/gen_spans.h):
 * each node read from the generated text takes the span marked last at or before the byte
 * where it starts (the innermost construct being written there), nodes before any mark take
 * the first span, a mark at the same offset as the one before it replaces it, and a read
 * error in the generated text is an error value; compiled (kl_compile_forms_to_mem), such
 * nodes make an object, and a compile error in them is at the script's construct. */
#include "check.h"
#include "trace/gen_spans.h"
#include "lib/fail.h"
#include "lib/compile.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool at(const struct kl_node *n, uint32_t line, uint32_t col)
{
	return n && n->span.line == line && n->span.col == col;
}

/* text compiled, its code from its last '(' on marked as a statement (1:5) of the probe (1:1) */
static int compile(struct kl_arena *a, const struct kl_source *script, const char *text, struct kl_diag *d,
		   void **elf, size_t *size)
{
	struct kt_marks m = { .cur = { script, 1, 1 } };
	kt_span_enter(a, &m, 0, (struct kl_span){ script, 1, 1 });
	kt_span_enter(a, &m, (size_t)(strrchr(text, '(') - text), (struct kl_span){ script, 1, 5 });
	struct kl_node **forms;
	uint32_t n;
	if (kt_spans_read(a, d, "gen.lisp", text, strlen(text), &m, m.cur, &forms, &n))
		return -1;
	return kl_compile_forms_to_mem(script, forms, n, 2, d, elf, size);
}

static void compiled(struct kl_arena *a)
{
	struct kl_source script = { "x.bt", "BEGIN { oops(); }\n", 18 };
	struct kl_diag d = { 0 };
	void *elf = NULL;
	size_t size = 0;
	int r = compile(a, &script, "(defprog p0 (:type :xdp) 2)", &d, &elf, &size);
	CHECK("trace-spans/compiles", r == 0 && elf && size > 64 && !memcmp(elf, "\177ELF", 4), "r %d: %s", r, d.msg);
	free(elf);
	struct kl_diag d2 = { 0 };
	elf = NULL;
	r = compile(a, &script, "(defprog p0 (:type :xdp) (no-such-fn 1))", &d2, &elf, &size);
	CHECK("trace-spans/compile-error-at-script", r != 0 && !elf && d2.nerrors && d2.span.src == &script &&
	      d2.span.line == 1 && d2.span.col == 5, "r %d: %s at %s:%u:%u", r, d2.msg,
	      d2.span.src ? d2.span.src->path : "-", d2.span.line, d2.span.col);
}

int main(void)
{
	struct kl_source script = { "s.bt", "BEGIN { @x = 1 + 2; }\n", 22 };
	struct kl_span probe = { &script, 1, 1 }, stmt = { &script, 1, 9 }, sum = { &script, 1, 14 },
		       two = { &script, 1, 18 };
	/* (defmap m0)\n(defprog p0 (progn (store x (+ 1 2)))) */
	const char *text = "(defmap m0)\n(defprog p0 (progn (store x (+ 1 2))))";
	struct kl_arena a = { 0 };
	struct kl_diag d = { 0 };
	struct kt_marks m = { .cur = { &script, 1, 5 } };
	size_t prog = strchr(text, '\n') + 1 - text, store = strstr(text, "(store") - text,
	       plus = strstr(text, "(+") - text, lit2 = strstr(text, "2)") - text;
	kt_span_enter(&a, &m, prog - 1, stmt);     /* replaced: the next mark is at the same offset */
	struct kl_span outer = kt_span_enter(&a, &m, prog - 1, probe);
	CHECK("trace-spans/replace", m.v.len == 1 && m.v.items[0].span.col == 1, "%zu marks", m.v.len);
	CHECK("trace-spans/returns-previous", outer.line == 1 && outer.col == 9, "%u:%u", outer.line, outer.col);
	struct kl_span p1 = kt_span_enter(&a, &m, store, stmt);
	struct kl_span p2 = kt_span_enter(&a, &m, plus, sum);
	struct kl_span p3 = kt_span_enter(&a, &m, lit2, two);
	kt_span_leave(&a, &m, lit2 + 1, p3);
	kt_span_leave(&a, &m, lit2 + 1, p2);     /* same offset: replaces the one before */
	kt_span_leave(&a, &m, lit2 + 2, p1);
	struct kl_node **forms = NULL;
	uint32_t n = 0;
	struct kl_span first = { &script, 1, 5 };   /* (no construct starts there) */
	int r = kt_spans_read(&a, &d, "gen.lisp", text, strlen(text), &m, first, &forms, &n);
	CHECK("trace-spans/read", r == 0 && n == 2, "r %d, %u forms: %s", r, n, d.msg);
	if (r == 0 && n == 2) {
		const struct kl_node *dp = forms[1], *pg = dp->items[2], *st = pg->items[1], *pl = st->items[2];
		CHECK("trace-spans/source", forms[0]->span.src == &script && dp->span.src == &script, "not the script");
		CHECK("trace-spans/before-marks", at(forms[0], 1, 5) && at(forms[0]->items[1], 1, 5), "%u:%u",
		      forms[0]->span.line, forms[0]->span.col);
		CHECK("trace-spans/probe", at(dp, 1, 1) && at(dp->items[1], 1, 1) && at(pg, 1, 1), "%u:%u", pg->span.line,
		      pg->span.col);
		CHECK("trace-spans/statement", at(st, 1, 9) && at(st->items[1], 1, 9), "%u:%u", st->span.line, st->span.col);
		CHECK("trace-spans/innermost", at(pl, 1, 14) && at(pl->items[1], 1, 14) && at(pl->items[2], 1, 18),
		      "%u:%u %u:%u", pl->span.line, pl->span.col, pl->items[2]->span.line, pl->items[2]->span.col);
	}
	struct kl_diag d2 = { 0 };
	/* a stray ')' after the statement's code: the reader's error is at the probe that wrote it */
	char bad[128];
	snprintf(bad, sizeof(bad), "%s)", text);
	r = kt_spans_read(&a, &d2, "gen.lisp", bad, strlen(bad), &m, first, &forms, &n);
	CHECK("trace-spans/read-error", r == -1 && d2.nerrors && d2.span.src == &script && d2.span.col == 1,
	      "r %d: %s at %s:%u:%u", r, d2.msg, d2.span.src ? d2.span.src->path : "-", d2.span.line, d2.span.col);
	compiled(&a);
	kl_arena_free(&a);
	return check_failures != 0;
}
