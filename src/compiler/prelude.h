/* prelude.h — the built-in prelude (src/compiler/prelude.lisp), read lazily: a compilation
 * reads and collects a prelude form only when the program looks up a macro or constant that
 * form defines. Which form defines which names is worked out once, at build time, by
 * tools/prelude_index.c running the compiler over the prelude (so defheader's generated
 * accessors are found too); the table it writes is linked into kiln. Without the table (in
 * that tool itself) the whole prelude is read up front, as before. */
#ifndef KL_PRELUDE_H
#define KL_PRELUDE_H
#include <stdbool.h>
#include <stdint.h>

struct kl_comp;

/* A top-level form of the prelude: where it starts. */
struct kl_prelude_form {
	uint32_t off, line, col;
};

/* A name a prelude form defines. Each table is sorted by strcasecmp of the names. */
struct kl_prelude_name {
	const char *name;
	uint32_t form;
};

/* The prelude's source text (src/compiler/prelude.lisp, built in: build/gen/prelude.c). */
extern const char kl_prelude_text[];

/* generated (build/gen/prelude_index.c), or empty (in tools/prelude_index.c itself) */
extern const struct kl_prelude_form kl_prelude_forms[];
extern const uint32_t kl_prelude_nforms;
extern const struct kl_prelude_name kl_prelude_macros[], kl_prelude_consts[];
extern const uint32_t kl_prelude_nmacros, kl_prelude_nconsts;

/* Start a compilation's prelude: read and collect all of it when there is no index, else
 * install c->lazy (compile.h), which collects a prelude form only when the program looks up
 * a macro or constant it defines. */
int kl_prelude_start(struct kl_comp *c);

#endif
