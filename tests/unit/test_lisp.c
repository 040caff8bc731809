/* test_lisp.c — the Lisp core alone (src/lisp/), with no host and no compiler: evaluation and
 * special forms, the one lambda-list binder (&optional, &rest, &key, defaults), the pure
 * builtins (lists, strings, format's directives, loop), errors as conditions with their
 * position, the limits (step budget, nesting depth, string size), and a layer's special forms
 * and builtins looked up beside the core's; and the compiler's macros running on the core,
 * calling what only the host's evaluator had before (format's ~x, loop, subseq, position). */
#include "check.h"
#include "compiler/compile.h"
#include "compiler/expand.h"
#include "compiler/forms.h"
#include "lisp/lisp.h"
#include "lisp_run.h"
#include <string.h>

static void expect(const char *name, const char *src, const char *want)
{
	const char *got = lisp_run(src, NULL, 0, false);
	CHECK(name, !strcmp(got, want), "%s gave '%s', want '%s'", src, got, want);
}

static void expect_prefix(const char *name, const char *src, uint64_t steps, const char *want)
{
	const char *got = lisp_run(src, NULL, steps, false);
	CHECK(name, !strncmp(got, want, strlen(want)), "%s gave '%s', want '%s...'", src, got, want);
}

/* a layer: one special form (%twice FORM: FORM's value, twice, in a list) and one builtin
 * (%answer: 42) */
static struct lv *sf_twice(struct lisp *L, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *v = n->nitems == 2 ? lv_eval(L, n->items[1], env) : lv_err(L, n, "%%twice needs a form");
	return v ? lv_cons(L, v, lv_cons(L, v, LNIL)) : NULL;
}
static lv_special_fn layer_special(struct lisp *L, const char *name)
{
	(void)L;
	return !strcmp(name, "%twice") ? sf_twice : NULL;
}
static struct lv *b_answer(struct lisp *L, const struct kl_node *c, struct lv **a, int n)
{
	(void)c, (void)a, (void)n;
	return lv_int(L, 42);
}
/* a layer's own kinds of value: a box holding a value (printed with it inside), and an
 * opaque thing printed by its type's name alone */
static void print_box(struct lv_printer *p, const struct lv *v)
{
	lv_printer_put(p, "#<BOX ");
	lv_printer_value(p, v->u.foreign.data);
	lv_printer_put(p, ">");
}
static const struct lv_foreign_type box_type = { "BOX", print_box }, opaque_type = { "OPAQUE", NULL };
static struct lv *b_box(struct lisp *L, const struct kl_node *c, struct lv **a, int n)
{
	(void)c, (void)n;
	return lv_foreign(L, &box_type, a[0]);
}
static struct lv *b_unbox(struct lisp *L, const struct kl_node *c, struct lv **a, int n)
{
	(void)n;
	struct lv *v = lv_foreign_data(a[0], &box_type);
	return v ? v : lv_err(L, c, "not a box: %s", lv_brief(L, a[0]));
}
static struct lv *b_opaque(struct lisp *L, const struct kl_node *c, struct lv **a, int n)
{
	(void)c, (void)a, (void)n;
	return lv_foreign(L, &opaque_type, NULL);
}
static lv_builtin_fn layer_builtin(struct lisp *L, const char *name, int *min, int *max, const void **data)
{
	static const struct { const char *name; lv_builtin_fn fn; int n; } fns[] = {
		{ "%answer", b_answer, 0 }, { "%box", b_box, 1 }, { "%unbox", b_unbox, 1 }, { "%opaque", b_opaque, 0 },
	};
	(void)L, (void)data;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(name, fns[i].name)) {
			*min = *max = fns[i].n;
			return fns[i].fn;
		}
	return NULL;
}
static const struct lisp_layer test_layer = { .special = layer_special, .builtin = layer_builtin };

static void macros_on_the_core(void)
{
	struct kl_arena a = { 0 };
	struct kl_comp c;
	struct kl_diag d;
	int64_t v = 0, w = 0;
	/* before the core, expand.c had no ~x, no loop, no subseq and no position */
	int rc = lisp_compile_text("(defmacro hexconst (n)\n"
			           "  `(defconstant ,(intern (format nil \"c-~x\" n))\n"
			           "     ,(length (loop for i from 1 to n collect i))))\n"
			           "(defmacro at-dot (s) `(defconstant dot ,(position 46 (subseq s 1))))\n"
			           "(hexconst 255) (at-dot \"xab.c\")", &c, &d, &a);
	CHECK("lisp: a macro calls format ~x, loop, subseq and position",
	      !rc && kl_const_lookup(&c, "c-ff", &v) && v == 255 && kl_const_lookup(&c, "dot", &w) && w == 2,
	      "rc %d v %lld w %lld: %s", rc, (long long)v, (long long)w, d.msg);
	kl_arena_free(&a);
	memset(&a, 0, sizeof(a));
	rc = lisp_compile_text("(defmacro bad (x) (error \"width ~x is not ~{~a~^/~}\" x '(8 16)))\n(bad 255)", &c, &d, &a);
	CHECK("lisp: a macro's error is reported at the call, with the core's format",
	      rc && strstr(d.msg, "in macro 'bad' (defined at m.lisp:1): width FF is not 8/16 (at m.lisp:1:19)") &&
	      d.span.line == 2 && d.span.col == 1, "rc %d: %s at %u:%u", rc, d.msg, d.span.line, d.span.col);
	kl_arena_free(&a);
	memset(&a, 0, sizeof(a));
	rc = lisp_compile_text("(defmacro counter (name) `(defconstant ,(intern (format nil \"~a-Count\" name)) 1))", &c, &d, &a);
	struct kl_node **call;
	uint32_t ncall;
	static const struct kl_source csrc = { "m.lisp", "(counter MyMap)", 15 };
	struct kl_node *x = !rc && !kl_read(&a, &d, &csrc, &call, &ncall) ? kl_macro_expand(&c, call[0]) : NULL;
	CHECK("lisp: a name a macro makes keeps the user's spelling", x && x->nitems == 3 &&
	      !strcmp(kl_name(x->items[1]), "MyMap-Count") && !strcmp(x->items[1]->str, "mymap-count") &&
	      x->span.line == 1 && x->span.col == 1, "%s", x ? kl_name(x->items[1]) : d.msg);
	kl_arena_free(&a);
	memset(&a, 0, sizeof(a));
	rc = lisp_compile_text("(defmacro spin () (loop))\n(spin)", &c, &d, &a);
	CHECK("lisp: a macro that loops for ever meets the step budget", rc && strstr(d.msg, "the step budget is spent"),
	      "rc %d: %s", rc, d.msg);
	kl_arena_free(&a);
	memset(&a, 0, sizeof(a));
	rc = lisp_compile_text("(defmacro deep () (defun f (n) (+ 1 (f n))) (f 0))\n(deep)", &c, &d, &a);
	CHECK("lisp: a macro's endless recursion is a stack overflow error", rc && strstr(d.msg, "stack overflow"),
	      "rc %d: %s", rc, d.msg);
	kl_arena_free(&a);
}

int main(void)
{
	/* evaluation and special forms */
	expect("lisp: arithmetic", "(+ 1 (* 2 3) (- 10 4))", "13");
	expect("lisp: let* sees earlier bindings", "(let* ((a 2) (b (* a 5))) (list a b))", "(2 10)");
	expect("lisp: cond and case", "(list (cond ((= 1 2) 'no) (t 'yes)) (case 3 ((1 2) 'low) (otherwise 'high)))",
	       "(YES HIGH)");
	expect("lisp: defun and recursion", "(defun f (n) (if (< n 2) 1 (* n (f (- n 1))))) (f 10)", "3628800");
	expect("lisp: closures capture", "(let ((k 5)) (funcall (lambda (x) (+ x k)) 1))", "6");
	expect("lisp: setf of car, push and incf", "(let ((l (list 1 2)) (n 0)) (setf (car l) 9) (push 0 l) (incf n 3) (list l n))",
	       "((0 9 2) 3)");
	expect("lisp: block and return-from", "(block b (return-from b 7) 8)", "7");
	expect("lisp: quote keeps data", "'(a \"s\" :k 1)", "(A \"s\" :K 1)");

	/* the one lambda-list binder */
	expect("lisp: &optional with a default", "(defun f (a &optional (b 10)) (+ a b)) (list (f 1) (f 1 2))", "(11 3)");
	expect("lisp: &rest", "(defun f (a &rest r) (list a r)) (f 1 2 3)", "(1 (2 3))");
	expect("lisp: &key with a default", "(defun f (&key (x 1) y) (list x y)) (list (f :y 2) (f :x 5))",
	       "((1 2) (5 NIL))");
	expect("lisp: too few arguments", "(defun f (a b) a) (f 1)", "ERROR: f: too few arguments (1) @1:19");
	expect("lisp: too many arguments", "(defun f (a) a) (f 1 2)", "ERROR: f: too many arguments (2) @1:17");

	expect("lisp: a list parameter destructures", "(defun f ((a b) &rest r) (list b a r)) (f '(1 2) 3)", "(2 1 (3))");
	expect("lisp: destructuring-bind, nested, with &key", "(destructuring-bind (x (y z) &key (k 9)) '(1 (2 3)) (list x y z k))",
	       "(1 2 3 9)");
	expect("lisp: destructuring a non-list is an error", "(destructuring-bind ((a)) '(5) a)",
	       "ERROR: destructuring-bind: 5 is not a list to destructure @1:29");

	/* backquote */
	expect("lisp: backquote with , and ,@", "(let ((x 1) (l '(2 3))) `(a ,x ,@l (b ,(+ x 1))))", "(A 1 2 3 (B 2))");
	expect("lisp: ,@ of a non-list is an error", "`(a ,@5)", "ERROR: ,@: 5 is not a list @1:5");

	/* pure builtins */
	expect("lisp: intern, symbol-name, keywordp, atom, list*",
	       "(list (intern \"Foo-1\") (intern \":k\") (symbol-name 'ab) (keywordp :x) (atom '(1)) (list* 1 2 '(3)))",
	       "(FOO-1 :K \"AB\" T NIL (1 2 3))");
	expect("lisp: gensym counts", "(list (gensym) (gensym \"x\"))", "(%G1 %X2)");
	expect("lisp: list functions", "(list (append '(1) '(2 3)) (reverse '(1 2 3)) (nth 1 '(a b)) (last '(1 2)))",
	       "((1 2 3) (3 2 1) B (2))");
	expect("lisp: member, assoc, position", "(list (member 2 '(1 2 3)) (assoc 'b '((a 1) (b 2))) (position 3 '(1 2 3)))",
	       "((2 3) (B 2) 2)");
	expect("lisp: mapcar and sort", "(list (mapcar #'1+ '(1 2)) (sort (list 3 1 2) #'<))", "((2 3) (1 2 3))");
	expect("lisp: strings", "(list (string-upcase \"ab\") (concatenate 'string \"a\" \"b\") (subseq \"hello\" 1 3))",
	       "(\"AB\" \"ab\" \"el\")");
	expect("lisp: format directives", "(format nil \"~a|~s|~5d|~x|~b|~{~a~^,~}\" 'sym \"q\" 42 255 5 '(1 2 3))",
	       "\"SYM|\\\"q\\\"|   42|FF|101|1,2,3\"");
	expect("lisp: loop collect and sum", "(list (loop for i from 1 to 4 collect (* i i)) (loop for x in '(1 2 3) sum x))",
	       "((1 4 9 16) 6)");
	expect("lisp: with-output-to-string", "(with-output-to-string (s) (princ 1 s) (princ \"x\" s))", "\"1x\"");

	/* errors as conditions, at their place */
	expect("lisp: an unbound variable", "(+ 1\n  zz)", "ERROR: unbound variable zz @2:3");
	expect("lisp: an undefined function", "(nope 1)",
	       "ERROR: undefined function nope @1:2");
	expect("lisp: handler-case catches error", "(handler-case (error \"bad ~a\" 1) (error (e) (list 'caught)))",
	       "(CAUGHT)");
	expect("lisp: division by zero is a condition", "(handler-case (/ 1 0) (division-by-zero () 'dz))", "DZ");
	expect("lisp: eval of a list built at run time, no layer", "(eval (list '+ 1 2))",
	       "ERROR: eval of a form built at run time is not supported @1:1");

	/* limits */
	expect_prefix("lisp: the step budget ends an endless loop", "(loop)", 1000, "ERROR: the step budget is spent");
	expect_prefix("lisp: endless recursion is a stack overflow error", "(defun f (n) (+ 1 (f n))) (f 0)", 0,
		      "ERROR: stack overflow");
	expect_prefix("lisp: a string past its limit is an error",
		      "(let ((s \"xxxxxxxxxxxxxxxx\")) (loop repeat 30 do (setf s (concatenate 'string s s))) s)", 0,
		      "ERROR: concatenate: the string passes");

	/* a layer's forms and functions beside the core's */
	const char *got = lisp_run("(list (%twice (+ 1 2)) (%answer) (car '(a)))", &test_layer, 0, false);
	CHECK("lisp: a layer's special form and builtin", !strcmp(got, "((3 3) 42 A)"), "gave '%s'", got);
	got = lisp_run("(let ((o (%opaque))) (list (%box (list 1 \"a\" (%box 'x))) o (eq o o) (eq o (%opaque)) "
		  "(equal (%box 1) (%box 1)) (%unbox (%box 7))))", &test_layer, 0, false);
	CHECK("lisp: a layer's foreign values print by their type, compare by identity",
	      !strcmp(got, "(#<BOX (1 \"a\" #<BOX X>)> #<OPAQUE> T NIL NIL 7)"), "gave '%s'", got);
	got = lisp_run("(%unbox (%opaque))", &test_layer, 0, false);
	CHECK("lisp: a foreign value of another type is not taken for one's own",
	      !strcmp(got, "ERROR: not a box: #<OPAQUE> @1:1"), "gave '%s'", got);
	got = lisp_run("(%answer)", NULL, 0, false);
	CHECK("lisp: without the layer its builtin is unknown", !strncmp(got, "ERROR: undefined function %answer", 33),
	      "gave '%s'", got);
	macros_on_the_core();
	return CHECK_DONE();
}
