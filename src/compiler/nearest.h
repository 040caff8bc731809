/* nearest.h — "did you mean ...?": the names nearest a misspelt one, by edit distance over
 * the candidates fed in (helpers, forms, macros, tracepoints). O(length²) per candidate. */
#ifndef KL_NEAREST_H
#define KL_NEAREST_H
#include <stddef.h>

#define KL_NEAREST_MAX 3

struct kl_nearest {
	const char *want;
	char best[KL_NEAREST_MAX][96];
	unsigned dist[KL_NEAREST_MAX];
	unsigned n;
};

/* Levenshtein distance (insert, delete, substitute one character); names longer than 95
 * characters are compared by their first 95. */
unsigned kl_edit_distance(const char *a, const char *b);
void kl_nearest_init(struct kl_nearest *nb, const char *want);
/* Consider one candidate (copied); a name equal to want or already kept is ignored. */
void kl_nearest_add(struct kl_nearest *nb, const char *cand);
/* "did you mean A, B or C?": the nearest candidate within reach of want (a distance of at
 * most a third of its length, and at least 2) and those at most one edit further, nearest
 * first; "" when none is within reach. */
const char *kl_nearest_hint(const struct kl_nearest *nb, char *buf, size_t size);

#endif
