/* gen_priv.h — gen's state and helpers, shared with the files of bpftrace functions
 * (funcs.h): only src/trace/ includes this. */
#ifndef KT_GEN_PRIV_H
#define KT_GEN_PRIV_H
#include "trace/gen.h"
#include "trace/gen_build.h"

/* The buffer every string stored into a map goes through (one per program). */
#define KT_STR_VALUE "kt-sv"

struct kt_note {
	uint32_t form;
	const char *text;
};

struct g {
	struct kt_build b;           /* the nodes made (gen_build.h), each spanning its construct */
	const struct kt_sema *s;
	struct kl_arena *a;
	struct kl_diag *d;
	const struct kt_target *t;  /* the program being written */
	uint32_t target;            /* its index */
	uint32_t tmp;               /* fresh names */
	KL_VEC(struct kt_site) sites;
	uint32_t site;              /* printf sites: numbered in program order, per probe once */
	uint32_t site_base;
	int err;
	int loop;                   /* the innermost while's number (its break/continue flags), -1 none */
	KL_VEC(struct kt_note) notes;   /* -d's comments: the map's name, the probe */
	KL_VEC(uint32_t) checks;    /* -k: the sites of the checks open (gen_check.c) */
};

/* n as an integer expression. */
void kt_gen_int(struct g *g, const struct kt_node *n);
/* The string n written at dest (an address expression), at most size bytes. */
void kt_gen_str(struct g *g, const struct kt_node *n, const struct kl_node *dest, uint32_t size);
/* A fresh Lisp name: prefix and a number. */
const char *kt_fresh(struct g *g, const char *prefix);
/* Records the first error; -1. */
int kt_gen_err(struct g *g, struct kl_span at, const char *msg);
/* Opens "(let ((K ...)) fill" for the key of map node mn and returns K, or the inline key
 * expression's name or 0 (a template's atom); kt_close_key closes what it opened. */
const char *kt_open_key(struct g *g, const struct kt_node *mn, bool *opened);
void kt_close_key(struct g *g, bool opened);
/* A kernel struct's member (`p->a.b`) copied whole, raw, to dest (core-read-into): true,
 * or false (nothing written) when n is no such member. */
bool kt_gen_core_into(struct g *g, const struct kt_node *n, const struct kl_node *dest);
/* A record's first u64, as a node: kind << 32 | the CPU << 16 | index. */
struct kl_node *kt_rec_id(struct g *g, enum kt_ev kind, uint32_t index);
/* A block of statements (gen.c); the probes' bodies. */
void kt_gen_block(struct g *g, const struct kt_node *b);
/* Nodes made from here on span `at` (a probe, statement or expression); the span before. */
struct kl_span kt_gen_enter(struct g *g, struct kl_span at);
/* A -d comment before the next top-level form. */
void kt_gen_note(struct g *g, const char *text);
/* A control record (exit, print, clear, zero, time). */
void kt_gen_ctl(struct g *g, enum kt_ev kind, uint32_t index);

/* gen_values.c: tuples and pointers (see there). The tuple n written at dest in layout dt. */
void kt_gen_tuple(struct g *g, const struct kt_node *n, const struct kl_node *dest, const struct kt_type *dt);
void kt_gen_elem_int(struct g *g, const struct kt_node *n);
void kt_gen_elem_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size);
void kt_gen_deref(struct g *g, const struct kt_node *n);
/* $t = TUPLE (assignment s). */
void kt_gen_tuple_var(struct g *g, const struct kt_node *s);
/* n->a == n->b (or !=) of two computed strings. */
void kt_gen_strcmp2(struct g *g, const struct kt_node *n);

/* gen_loop.c: `for ($i : START..END)`. */
void kt_gen_for(struct g *g, const struct kt_node *s);

static inline uint32_t kt_round8(uint32_t n)
{
	return (n + 7) & ~7u;
}
#endif
