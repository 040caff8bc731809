/* test_prelude.c — the lazy prelude (src/compiler/prelude.h): a compilation collects a
 * prelude form only when its program needs one of the names the form defines. Checks that
 * the build-time index finds every prelude macro and constant, that collecting all of it
 * gives what reading it whole gave, and that a definition of the program's own, made before
 * the prelude form sharing its name is collected for another name, is not replaced. */
#include "check.h"
#include "compiler/compile.h"
#include "compiler/forms.h"
#include "compiler/expand.h"
#include "compiler/prelude.h"
#include <string.h>

static struct kl_arena arena;
static struct kl_source src;

static int front(const char *text, struct kl_comp *c, struct kl_diag *d)
{
	src = (struct kl_source){ "t.lisp", text, strlen(text) };
	*d = (struct kl_diag){ 0 };
	*c = (struct kl_comp){ .a = &arena, .d = d, .src = &src };
	return kl_compile_front(c);
}

/* The expansion of the one form text holds. */
static struct kl_node *expand(struct kl_comp *c, const char *text)
{
	static struct kl_source s;
	s = (struct kl_source){ "e.lisp", text, strlen(text) };
	struct kl_node **f;
	uint32_t n;
	return kl_read(&arena, c->d, &s, &f, &n) || n != 1 ? NULL : kl_macro_expand(c, f[0]);
}

int main(void)
{
	struct kl_comp c;
	struct kl_diag d;
	CHECK("prelude/indexed", kl_prelude_nforms > 0 && kl_prelude_nmacros > 0 && kl_prelude_nconsts > 0,
	      "%u forms, %u macros, %u constants", kl_prelude_nforms, kl_prelude_nmacros, kl_prelude_nconsts);

	/* nothing is read until needed */
	CHECK("prelude/lazy", !front("(defmap m :type :array :key u32 :value u64 :max-entries 1)", &c, &d) &&
	      c.macros.len == 0 && c.consts.len == 0, "%zu macros, %zu constants collected: %s", c.macros.len,
	      c.consts.len, d.msg);

	/* each name of the index is found by a fresh compilation, and then is there */
	uint32_t found = 0;
	for (uint32_t i = 0; i < kl_prelude_nmacros; i++)
		found += !front("", &c, &d) && kl_macro_is(&c, kl_prelude_macros[i].name);
	int64_t v;
	for (uint32_t i = 0; i < kl_prelude_nconsts; i++)
		found += !front("", &c, &d) && kl_const_lookup(&c, kl_prelude_consts[i].name, &v);
	CHECK("prelude/every-name", found == kl_prelude_nmacros + kl_prelude_nconsts, "%u of %u", found,
	      kl_prelude_nmacros + kl_prelude_nconsts);

	/* all of it: every macro the index lists, each once */
	size_t n = 0;
	if (!front("", &c, &d))
		while (kl_macro_name(&c, n))
			n++;
	CHECK("prelude/all", n == kl_prelude_nmacros && c.consts.len == kl_prelude_nconsts, "%zu macros, %zu constants",
	      n, c.consts.len);

	/* the program's eth-src-mac-hi, defined first, survives the prelude's eth form, collected
	 * for eth-type (and its constant the prelude's); one defined after the eth form was
	 * collected replaces the prelude's, as it did when the prelude was read first */
	struct kl_node *own = NULL, *theirs = NULL, *later = NULL;
	if (!front("(defmacro eth-src-mac-hi (p) 7)\n(defconstant +eth-hdr-len+ 99)\n", &c, &d)) {
		theirs = expand(&c, "(eth-type p)");
		own = expand(&c, "(eth-src-mac-hi p)");
	}
	CHECK("prelude/program-first", own && own->kind == KL_N_INT && own->ival == 7 && theirs &&
	      theirs->kind == KL_N_LIST && kl_const_lookup(&c, "+eth-hdr-len+", &v) && v == 99,
	      "eth-src-mac-hi %s, eth-type %s: %s", own ? "expanded" : "missing", theirs ? "expanded" : "missing", d.msg);
	if (!front("", &c, &d) && kl_macro_is(&c, "eth-dst-mac-hi")) {
		/* as the program's next top-level form */
		static struct kl_source s2 = { "t2.lisp", "(defmacro eth-src-mac-hi (p) 8)", 31 };
		struct kl_node **f;
		uint32_t nf;
		if (!kl_read(&arena, &d, &s2, &f, &nf) && !kl_forms_collect(&c, f, nf))
			later = expand(&c, "(eth-src-mac-hi p)");
	}
	CHECK("prelude/program-later", later && later->kind == KL_N_INT && later->ival == 8, "%s", d.msg);
	kl_arena_free(&arena);
	return check_failures ? 1 : 0;
}
