/* gen_spans.c — script spans for kiln trace's generated code (gen_spans.h). gen.c marks,
 * as it writes, the offset where the code of each bpftrace construct (a probe, a statement,
 * an expression) begins and where it goes back to its parent's; the text is then read into
 * nodes and every node takes the span marked last at or before the byte where it starts:
 * the innermost construct that was being written there. Marks come in offset order, so a
 * node's is found by binary search: O(n log m) for n nodes and m marks. */
#include "trace/gen_spans.h"

static void mark(struct kl_arena *a, struct kt_marks *m, size_t off, struct kl_span at)
{
	m->cur = at;
	if (m->v.len && m->v.items[m->v.len - 1].off == off) {   /* nothing written since: the new one wins */
		m->v.items[m->v.len - 1].span = at;
		return;
	}
	kl_vec_push(a, &m->v, ((struct kt_mark){ off, at }));
}

struct kl_span kt_span_enter(struct kl_arena *a, struct kt_marks *m, size_t off, struct kl_span at)
{
	struct kl_span prev = m->cur;
	mark(a, m, off, at);
	return prev;
}

void kt_span_leave(struct kl_arena *a, struct kt_marks *m, size_t off, struct kl_span prev)
{
	mark(a, m, off, prev);
}

struct respan {
	const struct kt_marks *m;
	struct kl_span first;
	const size_t *lines;        /* byte offset of each line of the text (1-based lines: [line - 1]) */
	uint32_t nlines;
};

/* The span marked last at or before byte off. */
static struct kl_span span_at(const struct respan *r, size_t off)
{
	size_t lo = 0, hi = r->m->v.len;   /* the first mark past off is in [lo, hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->m->v.items[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? r->m->v.items[lo - 1].span : r->first;
}

/* The script span of a node the reader placed at line:col of the generated text. */
static struct kl_span script_span(const struct respan *r, struct kl_span at)
{
	size_t off = (at.line && at.line <= r->nlines ? r->lines[at.line - 1] : 0) + (at.col ? at.col - 1 : 0);
	return span_at(r, off);
}

/* The reader bounds the depth of what it reads; this walk holds to the same bound. */
#define RESPAN_DEPTH 1000
static int respan(struct respan *r, struct kl_node *n, uint32_t depth, struct kl_diag *d)
{
	n->span = script_span(r, n->span);
	if (depth > RESPAN_DEPTH)
		return kl_error(d, n->span, "generated code nested deeper than %d", RESPAN_DEPTH);
	for (uint32_t i = 0; n->kind == KL_N_LIST && i < n->nitems; i++)
		if (respan(r, n->items[i], depth + 1, d))
			return -1;
	return 0;
}

int kt_spans_read(struct kl_arena *a, struct kl_diag *d, const char *gen_path, const char *text, size_t len,
		  const struct kt_marks *m, struct kl_span first, struct kl_node ***forms, uint32_t *nforms)
{
	uint32_t nlines = 1;
	for (size_t i = 0; i < len; i++)
		nlines += text[i] == '\n';
	size_t *lines = kl_arena_array(a, size_t, nlines);
	lines[0] = 0;
	for (size_t i = 0, l = 1; i < len; i++)
		if (text[i] == '\n')
			lines[l++] = i + 1;
	struct respan r = { m, first, lines, nlines };
	struct kl_source *gen = kl_arena_new(a, struct kl_source);
	*gen = (struct kl_source){ gen_path, text, len };
	if (kl_read(a, d, gen, forms, nforms)) {
		if (d->nerrors && d->span.src == gen)   /* a reader's limit: at the construct that passed it */
			d->span = script_span(&r, d->span);
		return -1;
	}
	for (uint32_t i = 0; i < *nforms; i++)
		if (respan(&r, (*forms)[i], 0, d))
			return -1;
	return 0;
}
