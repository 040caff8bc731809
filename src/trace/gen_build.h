/* gen_build.h — reader nodes made from readable templates, for kiln trace's generator: the
 * template is kiln Lisp with printf's holes, written as the generator's code reads best, and
 * becomes nodes as it is written (no text in between), each node taking the span of the
 * script construct being generated (so compile and verifier errors, and the object's line
 * info, point into the .bt script). A template may open lists that a later one closes. */
#ifndef KT_GEN_BUILD_H
#define KT_GEN_BUILD_H
#include "compiler/reader.h"

/* Lists nest at most this deep, and at most this many nodes are made, as the reader bounds
 * what it reads (each node costs some hundred bytes through the compiler's stages). */
#define KT_BUILD_DEPTH 1000
#define KT_BUILD_NODES 1000000

struct kt_frame {
	struct kl_node *list;
	KL_VEC(struct kl_node *) items;
};

struct kt_build {
	struct kl_arena *a;
	struct kl_diag *d;
	struct kl_span cur;                 /* the span every node made now takes */
	KL_VEC(struct kt_frame) open;       /* the lists open, innermost last */
	KL_VEC(struct kl_node *) forms;     /* the top-level forms closed */
	uint32_t nodes;                     /* made so far */
	int err;                            /* -1 after the first error: the rest is ignored */
};

/* Appends the template's nodes to the innermost open list (or the top level). Between
 * atoms, blanks; ( [ open a list or vector, ) ] close one; "..." a string; other atoms are
 * integers (decimal, #x hex), :keywords or symbols, as the reader reads them. Holes: %d %u
 * %c %x %s with printf's flags and lengths, spliced into the atom or string they are in;
 * %p, an atom of its own, is a copy of a node (struct kl_node *) taking the current span. */
void kt_emit(struct kt_build *b, const char *tmpl, ...) __attribute__((format(printf, 2, 3)));
/* A template without holes that is not a literal (a table's). */
void kt_emit_fixed(struct kt_build *b, const char *tmpl);
/* The one form of a balanced template, not appended anywhere (a hole for a later %p); NULL
 * after an error. */
struct kl_node *kt_form(struct kt_build *b, const char *tmpl, ...) __attribute__((format(printf, 2, 3)));
/* A symbol or integer, made as an atom of a template would be. */
struct kl_node *kt_atom(struct kt_build *b, const char *text);
/* The code made from here on is the script's construct at `at`: returns the span it replaces. */
struct kl_span kt_build_enter(struct kt_build *b, struct kl_span at);
/* 0 and the top-level forms when every list was closed, or -1 with the error in b->d. */
int kt_build_end(struct kt_build *b, struct kl_node ***forms, uint32_t *nforms);
#endif
