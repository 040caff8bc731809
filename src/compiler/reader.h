/* reader.h — kiln source text to nodes: integers, floats, symbols, keywords, strings, lists
 * and vectors, each with the span where it starts. */
#ifndef KL_READER_H
#define KL_READER_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "arena.h"
#include "diag.h"

/* FLOAT: a number with a decimal point or an exponent (0.1, 1e3, 2.5d0), which only the Lisp
 * (the host, a macro's computation) takes: BPF code has no floating point */
enum kl_node_kind { KL_N_INT, KL_N_SYM, KL_N_KEY, KL_N_STR, KL_N_LIST, KL_N_FLOAT };

struct kl_node {
	enum kl_node_kind kind;
	bool vector;              /* LIST written as [ ... ] */
	bool fsingle;             /* FLOAT: a single-float (Common Lisp's default: 0.1, 1e3, 1f0),
				   * else a double (1d0, 1l0) */
	struct kl_span span;
	int64_t ival;             /* INT */
	double fval;              /* FLOAT: its value (a single's rounded to a C float) */
	const char *str;          /* SYM and KEY: the name (KEY without ':') folded to lower case, as
				   * Common Lisp's reader folds it, so If, IF and if are one symbol:
				   * every comparison with a built-in or a user name uses this.
				   * STR: the contents, case kept */
	const char *name;         /* SYM and KEY: the name as written, which the names a user gives
				   * keep in the object (the same pointer as str when written in lower
				   * case; NULL in nodes kiln makes): read it with kl_name() */
	struct kl_node **items;   /* LIST */
	uint32_t nitems;
	struct kl_node *expansion; /* LIST: a macro call's expansion, set by the expand stage
				   * (expand_stage.c); lowering reads it in the call's place */
};

/* Read every top-level form of src. Returns 0 and the forms, or -1 with an error in d. */
int kl_read(struct kl_arena *a, struct kl_diag *d, const struct kl_source *src,
	    struct kl_node ***forms, uint32_t *nforms);

/* Read the one form that starts at byte off of src, which is at line:col (the lazy prelude
 * reads its forms one by one, each where it is). -1 with an error in d, or at the end. */
int kl_read_one(struct kl_arena *a, struct kl_diag *d, const struct kl_source *src, uint32_t off,
		uint32_t line, uint32_t col, struct kl_node **form);
/* s folded to lower case: s itself when it has no upper-case letter, else a copy in the arena. */
const char *kl_fold_case(struct kl_arena *a, const char *s);
/* Make n a symbol or keyword named as written: name is written, str its folded form. */
void kl_set_name(struct kl_arena *a, struct kl_node *n, const char *written);
/* The atom token tok of len bytes, NUL-terminated after them (no delimiters in it), as the
 * reader reads it: a number (decimal, 0x, #x #b #o, #\c, a float), a keyword or a symbol,
 * spanning s.
 * NULL when it is no atom, with *why a message holding one %s for the token. The reader's
 * own limit on a name's length is not checked here. */
struct kl_node *kl_atom_node(struct kl_arena *a, const char *tok, size_t len, struct kl_span s,
			     const char **why);

/* A symbol's or keyword's name as written (for names that reach the object and for messages). */
static inline const char *kl_name(const struct kl_node *n)
{
	return n->name ? n->name : n->str;
}

/* Print a node back as source text (for error messages), at most n bytes. */
void kl_node_str(const struct kl_node *n, char *buf, size_t size);
/* Print a node whole as source text that reads back as it (strings escaped; lists deeper
 * than the reader reads are elided): on one line, or with width, a list that does not fit
 * in it broken a further item a line, indented. */
void kl_node_print(FILE *f, const struct kl_node *n, unsigned width);

static inline bool kl_is_sym(const struct kl_node *n, const char *name)
{
	return n && n->kind == KL_N_SYM && !strcmp(n->str, name);
}
static inline bool kl_is_key(const struct kl_node *n, const char *name)
{
	return n && n->kind == KL_N_KEY && !strcmp(n->str, name);
}
/* The head symbol of a list form, or NULL. */
static inline const char *kl_head(const struct kl_node *n)
{
	return n && n->kind == KL_N_LIST && n->nitems && n->items[0]->kind == KL_N_SYM
		       ? n->items[0]->str : NULL;
}
#endif
