/* test_expand_stage.c — the macro expansion stage (src/compiler/expand_stage.c): every macro
 * call lowering reads as code is expanded before lowering, once; data is not expanded; the
 * special forms' shapes say which arguments are code; an error inside an expansion names
 * the macro written in the body. */
#include "check.h"
#include "compiler/compile.h"
#include "compiler/expand_stage.h"
#include "compiler/lower.h"
#include <string.h>

static struct kl_arena arena;
static struct kl_source src;

/* Read and collect text, then run the stage: 0, or -1 with the error in d. */
static int front(const char *text, struct kl_comp *c, struct kl_diag *d)
{
	src = (struct kl_source){ "t.lisp", text, strlen(text) };
	*d = (struct kl_diag){ 0 };
	*c = (struct kl_comp){ .a = &arena, .d = d, .src = &src };
	return kl_compile_front(c) || kl_expand_program(c);
}

/* The whole compilation, no object written. */
static int compile(const char *text, struct kl_comp *c, struct kl_diag *d)
{
	src = (struct kl_source){ "t.lisp", text, strlen(text) };
	*d = (struct kl_diag){ 0 };
	*c = (struct kl_comp){ .a = &arena, .d = d, .src = &src };
	return kl_compile(c, NULL);
}

/* The i-th body form of the first defprog. */
static struct kl_node *body(struct kl_comp *c, uint32_t i)
{
	struct kl_progdef *p = &c->progs.items[0];
	return p->form->items[p->body_start + i];
}

int main(void)
{
	struct kl_comp c;
	struct kl_diag d;

	/* a call in an unrolled dotimes, under a let: lowering lowers it 4 times, and the
	 * assigned-variable walk looked at it for the let and for the unroller */
	CHECK("expand/once", !compile("(defmacro two () '(one))\n(defmacro one () 1)\n"
				      "(defprog p (:type :xdp) (let ((x 0)) (dotimes (i 4) (setq x (+ x (two)))) x))",
				      &c, &d) && c.expanded == 2, "%u expansions: %s", c.expanded, d.msg);

	/* the expansion is left on the call; the call stays as written */
	CHECK("expand/on-the-call", !front("(defmacro one () '(+ 1 0))\n(defprog p (:type :xdp) (one))", &c, &d) &&
	      body(&c, 0)->expansion && !strcmp(kl_head(body(&c, 0)), "one") &&
	      !strcmp(kl_head(body(&c, 0)->expansion), "+"), "%s", d.msg);

	/* nested: the expansion's own calls are expanded */
	CHECK("expand/nested", !front("(defmacro a () '(b))\n(defmacro b () 2)\n(defprog p (:type :xdp) (a))", &c, &d) &&
	      body(&c, 0)->expansion && body(&c, 0)->expansion->expansion &&
	      body(&c, 0)->expansion->expansion->kind == KL_N_INT, "%s", d.msg);

	/* data is not expanded: a dotimes count (a constant), a binding's type, a place */
	CHECK("expand/data", !front("(defmacro m () 3)\n(defmap mp :type :hash :key u32 :value u32 :max-entries 4)\n"
				    "(defprog p (:type :xdp) (dotimes (i (m)) (m)) (setf (m) (m)) "
				    "(setf (getmap mp (m)) (m)))", &c, &d) &&
	      !body(&c, 0)->items[1]->items[1]->expansion && body(&c, 0)->items[2]->expansion &&
	      !body(&c, 1)->items[1]->expansion && body(&c, 1)->items[2]->expansion &&
	      !body(&c, 2)->items[1]->expansion && body(&c, 2)->items[1]->items[2]->expansion &&
	      body(&c, 2)->items[2]->expansion, "%s", d.msg);

	/* let's bindings: the values are code, the names and types are not */
	CHECK("expand/bindings", !front("(defmacro m () 3)\n(defprog p (:type :xdp) (let ((x (m)) (y u32 (m))) "
					"(when-let (z (m)) (+ x y z))))", &c, &d) &&
	      body(&c, 0)->items[1]->items[0]->items[1]->expansion &&
	      body(&c, 0)->items[1]->items[1]->items[2]->expansion &&
	      body(&c, 0)->items[2]->items[1]->items[1]->expansion, "%s", d.msg);

	/* the shapes beside lowering's forms */
	CHECK("expand/shapes", !strcmp(kl_lower_shape("let"), "be") && !strcmp(kl_lower_shape("setf"), "P") &&
	      !strcmp(kl_lower_shape("cond"), "c") && !strcmp(kl_lower_shape("declare"), "d") &&
	      !kl_lower_shape("+") && !kl_lower_shape("no-such-form"), "bad shape");

	/* an error in an expansion lowering would never lower is reported */
	CHECK("expand/error-unlowered", front("(defmacro bad () (error \"no\"))\n"
					      "(defprog p (:type :xdp) (dotimes (i 0) (bad)) 2)", &c, &d) &&
	      strstr(d.msg, "in macro 'bad'") && d.span.line == 2, "%s", d.msg);

	/* an error in a call an expansion made names the call written in the body */
	CHECK("expand/error-nested", front("(defmacro inner () (error \"no\"))\n(defmacro outer () '(inner))\n"
					   "(defprog p (:type :xdp)\n  (outer))", &c, &d) &&
	      strstr(d.msg, "in macro 'inner'") && strstr(d.msg, "(in the expansion of macro 'outer' at t.lisp:4:3)"),
	      "%s", d.msg);
	return check_failures != 0;
}
