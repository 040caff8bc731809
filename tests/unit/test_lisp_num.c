/* test_lisp_num.c — the Lisp core's numbers (src/lisp/num.c, numtext.c) and the reader's
 * floats: a float token's node (single or double, 1. an integer, a malformed one refused),
 * floats printed as SBCL prints them, contagion, exact comparisons, eql and equal, the
 * conversions to integers with their second value, format's ~F ~$ ~E; integers past 64 bits
 * and ratios as errors in the host's mode (strict_ints) and wrapping in the macros' (as BPF
 * code computes); and the compiler: a macro computes with floats, a float reaching the code
 * is refused at its place. */
#include "check.h"
#include "compiler/compile.h"
#include "compiler/expand.h"
#include "compiler/forms.h"
#include "lisp/lisp.h"
#include "lisp_run.h"
#include <string.h>

static void expect(const char *name, const char *src, const char *want)
{
	const char *got = lisp_run(src, NULL, 0, true);
	CHECK(name, !strcmp(got, want), "%s gave '%s', want '%s'", src, got, want);
}

static void expect_wrap(const char *name, const char *src, const char *want)
{
	const char *got = lisp_run(src, NULL, 0, false);
	CHECK(name, !strcmp(got, want), "%s gave '%s', want '%s'", src, got, want);
}

/* the node the reader makes of one token */
static void reads_as(const char *tok, enum kl_node_kind kind, double fval, bool single)
{
	struct kl_arena a = { 0 };
	struct kl_diag d = { 0 };
	struct kl_source src = { "r.lisp", tok, strlen(tok) };
	struct kl_node **forms;
	uint32_t n;
	int rc = kl_read(&a, &d, &src, &forms, &n);
	char name[96];
	snprintf(name, sizeof(name), "reader: %s reads as %s", tok,
		 kind == KL_N_FLOAT ? (single ? "a single" : "a double") : kind == KL_N_INT ? "an integer" : "a symbol");
	CHECK(name, !rc && n == 1 && forms[0]->kind == kind &&
	      (kind != KL_N_FLOAT || (forms[0]->fval == fval && forms[0]->fsingle == single)) &&
	      (kind != KL_N_INT || forms[0]->ival == (int64_t)fval),
	      "rc %d kind %d fval %g: %s", rc, !rc && n ? (int)forms[0]->kind : -1, !rc && n ? forms[0]->fval : 0, d.msg);
	kl_arena_free(&a);
}

static void reader(void)
{
	reads_as("0.1", KL_N_FLOAT, (double)0.1f, true);
	reads_as("-2.5", KL_N_FLOAT, -2.5, true);
	reads_as(".5", KL_N_FLOAT, 0.5, true);
	reads_as("1e3", KL_N_FLOAT, 1000, true);
	reads_as("1.5f0", KL_N_FLOAT, 1.5, true);
	reads_as("0.1d0", KL_N_FLOAT, 0.1, false);
	reads_as("2L-1", KL_N_FLOAT, 0.2, false);
	reads_as("12.", KL_N_INT, 12, false);
	reads_as("-7.", KL_N_INT, -7, false);
	reads_as("1+", KL_N_SYM, 0, false);
	reads_as("a.b", KL_N_SYM, 0, false);
	const char *got = lisp_run("1.2.3", NULL, 0, true);
	CHECK("reader: 1.2.3 is a malformed number", !strcmp(got, "READ: malformed number '1.2.3'"), "%s", got);
	got = lisp_run("-2/3", NULL, 0, true);
	CHECK("reader: a ratio is refused as one", !strcmp(got, "READ: the ratio '-2/3': kiln's Lisp has no ratios "
	      "(write a float, 0.5, or divide)"), "%s", got);
	got = lisp_run("1e99", NULL, 0, true);
	CHECK("reader: a single past its range is refused", !strcmp(got, "READ: a float out of range '1e99'"), "%s", got);
	got = lisp_run("(list 1d99 1e38)", NULL, 0, true);
	CHECK("reader: a double holds 1d99", !strcmp(got, "(1.0d99 1.0e38)"), "%s", got);
}

static void compiler(void)
{
	struct kl_arena a = { 0 };
	struct kl_comp c;
	struct kl_diag d;
	int64_t v = 0, w = 0;
	int rc = lisp_compile_text("(defmacro pct (n of) `(defconstant pct ,(round (* 100.0 (/ n (float of))))))\n"
			           "(defmacro wide () `(defconstant wide ,(* 4294967296 4294967296 3)))\n"
			           "(pct 1 3) (wide)", &c, &d, &a);
	CHECK("compiler: a macro computes with floats and gives an integer; its integers wrap as BPF's",
	      !rc && kl_const_lookup(&c, "pct", &v) && v == 33 && kl_const_lookup(&c, "wide", &w) && w == 0,
	      "rc %d pct %lld wide %lld: %s", rc, (long long)v, (long long)w, d.msg);
	kl_arena_free(&a);
	memset(&a, 0, sizeof(a));
	struct kl_node **call;
	uint32_t ncall;
	rc = lisp_compile_text("(defmacro half (n) (/ n 2.0))", &c, &d, &a);
	static const struct kl_source csrc = { "m.lisp", "(half 3)", 8 };
	struct kl_node *x = !rc && !kl_read(&a, &d, &csrc, &call, &ncall) ? kl_macro_expand(&c, call[0]) : NULL;
	CHECK("compiler: a float a macro gives is a float node at the call, for lowering to refuse",
	      x && x->kind == KL_N_FLOAT && x->fval == 1.5 && x->fsingle && !strcmp(x->str, "1.5") &&
	      x->span.line == 1 && x->span.col == 1, "%s", x ? x->str : d.msg);
	kl_arena_free(&a);
}

int main(void)
{
	reader();

	/* printed as SBCL prints them */
	expect("print: singles and doubles", "(list 0.1 1.5d0 -2.25 1000.0 -0.0 0.0d0)", "(0.1 1.5d0 -2.25 1000.0 -0.0 0.0d0)");
	expect("print: the exponent past 10^7 and below 10^-3",
	       "(list 1e7 9999999.0 0.001 1e-4 123456789.0 1d7 1.5d-5)",
	       "(1.0e7 9999999.0 0.001 1.0e-4 1.2345679e8 1.0d7 1.5d-5)");

	expect("print: a tie between two shortest digits rounds up, as SBCL's printer",
	       "(list 271872.125 1388742857142857.25d0)", "(271872.13 1.3887428571428573d15)");

	/* contagion */
	expect("contagion: an integer with a single gives a single", "(list (+ 1 0.1) (/ 1.0 3) (* 2 2.5) (- 10 0.5))",
	       "(1.1 0.33333334 5.0 9.5)");
	expect("contagion: a double with anything gives a double", "(list (/ 1d0 3) (+ 0.1d0 0.2d0) (+ 1.5 1d0))",
	       "(0.3333333333333333d0 0.30000000000000004d0 2.5d0)");
	expect("contagion: left to right, integers exact until a float", "(+ 9007199254740993 1 0.5d0)",
	       "9.007199254740994d15");
	expect("arithmetic: (- 0.0) is -0.0, (/ 2.0) is 0.5", "(list (- 0.0) (/ 2.0) (1+ 1.5) (abs -3.5))",
	       "(-0.0 0.5 2.5 3.5)");

	/* comparisons: exact, an integer and a float by value */
	expect("compare: = < >= /= across integers and floats", "(list (= 1 1.0) (< 1 1.5 2) (>= 2.0 2 1.5) (/= 1 1.0))",
	       "(T T T NIL)");
	expect("compare: exactly, past a double's 53 bits", "(list (= 9007199254740993 9007199254740992d0) "
	       "(> 9007199254740993 9007199254740992d0) (< 9223372036854775807 1e19))", "(NIL T T)");
	expect("eql: by type and value; equal of lists of floats", "(list (eql 1 1.0) (eql 1.5 1.5) (eql 1.5 1.5d0) "
	       "(eql 0.0 -0.0) (equal '(1.5 2) (list 1.5 2)))", "(NIL T NIL NIL T)");
	expect("max and min give the argument", "(list (max 3 2.0) (min 1.5 2) (max 1 2.5d0))", "(3 1.5 2.5d0)");

	/* to integers, with the remainder as the second value */
	expect("floor ceiling truncate round of floats", "(list (floor 2.5) (ceiling 2.1) (truncate -2.7) (round -2.5) "
	       "(round 2.5) (round 3.5) (round 2.51))", "(2 3 -2 -2 2 4 3)");
	expect("round of integers: a half to even", "(list (round 7 2) (round 5 2) (round -7 2) (round 8 3))",
	       "(4 2 -4 3)");
	expect("floor's second value", "(defun qr (f x y) (multiple-value-bind (q r) (funcall f x y) (list q r))) "
	       "(list (qr #'floor 7 2.0) (qr #'floor -7 2) (qr #'truncate 10.5 1) (qr #'ceiling 7 2))",
	       "((3 1.0) (-4 1) (10 0.5) (4 -1))");
	expect("mod and rem of floats", "(list (mod 5.5 2) (rem -5.5 2) (mod -7 2) (rem -7 2))", "(1.5 -1.5 1 -1)");
	expect("a float past 64-bit integers", "(floor 1e30)", "ERROR: floor: 1.0e30 is past kiln's 64-bit integers @1:1");

	/* float, sqrt, exp, log, expt */
	expect("coerce to the float types", "(list (coerce 1 'float) (coerce 1.5 'double-float) (coerce 2.5d0 'single-float) "
	       "(coerce 2 'double-float) (coerce 1.5 'float))", "(1.0 1.5d0 2.5 2.0d0 1.5)");
	expect("coerce of a float to an integer", "(coerce 1.5 'integer)",
	       "ERROR: coerce: 1.5 to INTEGER (kiln's Lisp coerces numbers to float, single-float or double-float) @1:1");
	expect("float", "(list (float 1) (float 1 1d0) (float 2.5d0) (float 3 1.0))", "(1.0 1.0d0 2.5d0 3.0)");
	expect("sqrt exp log", "(list (sqrt 2) (sqrt 2d0) (sqrt 16) (exp 0) (log 100 10) (log 8d0 2))",
	       "(1.4142135 1.4142135623730951d0 4.0 1.0 2.0 3.0d0)");
	expect("expt: exact for integers, else a float", "(list (expt 2 10) (expt 2.0 0.5) (expt 1.5 2) (expt 10 18))",
	       "(1024 1.4142135 2.25 1000000000000000000)");
	expect("sqrt of a negative number", "(sqrt -4)",
	       "ERROR: sqrt: the square root of -4 is complex, which kiln's Lisp does not have @1:1");
	expect("a float's overflow", "(* 1e30 1e30)", "ERROR: *: the result overflows a single-float @1:1");
	expect("a float's division by zero is a condition", "(handler-case (/ 1.5 0) (division-by-zero () 'dz))", "DZ");
	expect("log of 0", "(handler-case (log 0) (division-by-zero () 'dz))", "DZ");

	/* format */
	expect("format ~F", "(format nil \"~f ~,2f ~,2f ~,1f ~,0f ~8,2f|~f ~@f ~f\" 3.14159 2.675 0.125 0.25 2.5 3.14159 1e10 2.5 5)",
	       "\"3.14159 2.67 0.13 0.3 3.     3.14|10000000000.0 +2.5 5.0\"");
	expect("format ~F: ties up, but ~,0F stops at 10 of 10.5; the float's digits, then zeros",
	       "(format nil \"~,0f ~,0f ~,0f ~,2f ~,3f ~,2f\" 10.5 11.5 0.5 -0.0 (/ -1.5645839e10 7) 1d22)",
	       "\"10. 12. 1. -0.00 -2235120000.000 10000000000000000000000.00\"");
	expect("format ~$", "(format nil \"~$ ~$ ~@$ ~4,2$ ~,,8$|\" 3.14159 2 2 3.14159 3.14159)",
	       "\"3.14 2.00 +2.00 03.1416     3.14|\"");
	expect("format ~E", "(format nil \"~e ~,2e ~e ~,2,2e\" 1234.5 0.000123 1d0 5e10)",
	       "\"1.2345e+3 1.23e-4 1.0d+0 5.00e+10\"");
	expect("format ~F of a non-number prints it as ~A", "(format nil \"~f|~5f|\" 'x \"ab\")", "\"X|   ab|\"");
	expect("format ~F without an argument", "(format nil \"~f\")", "ERROR: format: ~f has no argument left @1:1");

	/* integers past 64 bits: the host's errors, the macros' wrap */
	expect("strict: + past 64 bits", "(+ 9223372036854775807 1)",
	       "ERROR: +: 9223372036854775807 and 1 give an integer past 64 bits (kiln's host Lisp has no bignums; "
	       "use floats for such numbers) @1:1");
	expect("strict: ash and expt past 64 bits", "(list (handler-case (ash 3 63) (error () 'e)) (ash 1 62) "
	       "(handler-case (expt 2 64) (arithmetic-error () 'e)) (ash -1 63) (ash 5 -1))",
	       "(E 4611686018427387904 E -9223372036854775808 2)");
	expect("strict: a ratio is an error, an exact / an integer", "(list (/ 12 4) (handler-case (/ 7 2) (error () 'ratio)))",
	       "(3 RATIO)");
	expect("strict: (- most-negative) and (abs most-negative)", "(list (handler-case (- -9223372036854775808) (error () 'e)) "
	       "(handler-case (abs -9223372036854775808) (error () 'e)))", "(E E)");
	expect_wrap("wrap: + * ash and / wrap or truncate as BPF's do",
		    "(list (+ 9223372036854775807 1) (* 4294967296 4294967296) (ash 1 63) (/ 7 2) (/ -9223372036854775808 -1))",
		    "(-9223372036854775808 0 -9223372036854775808 3 -9223372036854775808)");
	expect("not a number", "(+ 1 \"a\")", "ERROR: +: \"a\" is not a number @1:1");
	expect("evenp of a float", "(evenp 2.0)", "ERROR: evenp: 2.0 is not an integer @1:1");
	expect("numberp floatp realp", "(list (numberp 1.5) (floatp 1.5) (floatp 1) (realp 2) (integerp 2.0))",
	       "(T T NIL T NIL)");
	compiler();
	return CHECK_DONE();
}
