/* nearest.c — edit distance and the few nearest names, for "did you mean ...?" hints. */
#include "nearest.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NAME_CAP 95

unsigned kl_edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, NAME_CAP), lb = strnlen(b, NAME_CAP);
	unsigned row[NAME_CAP + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			/* names match without regard to case (reader.h): neither does their distance */
			unsigned best = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

void kl_nearest_init(struct kl_nearest *nb, const char *want)
{
	memset(nb, 0, sizeof(*nb));
	nb->want = want;
}

static unsigned reach(const char *want)
{
	unsigned r = (unsigned)strnlen(want, NAME_CAP) / 3;
	return r < 2 ? 2 : r;
}

void kl_nearest_add(struct kl_nearest *nb, const char *cand)
{
	if (!cand || !strcasecmp(cand, nb->want))
		return;
	for (unsigned i = 0; i < nb->n; i++)
		if (!strncmp(nb->best[i], cand, sizeof(nb->best[i]) - 1))
			return;
	unsigned d = kl_edit_distance(nb->want, cand);
	if (d > reach(nb->want))
		return;
	unsigned at = nb->n;                /* insertion sort by distance, stable */
	while (at > 0 && nb->dist[at - 1] > d)
		at--;
	if (at >= KL_NEAREST_MAX)
		return;
	unsigned last = nb->n < KL_NEAREST_MAX ? nb->n : KL_NEAREST_MAX - 1;
	for (unsigned i = last; i > at; i--) {
		memcpy(nb->best[i], nb->best[i - 1], sizeof(nb->best[i]));
		nb->dist[i] = nb->dist[i - 1];
	}
	snprintf(nb->best[at], sizeof(nb->best[at]), "%s", cand);
	nb->dist[at] = d;
	if (nb->n < KL_NEAREST_MAX)
		nb->n++;
}

const char *kl_nearest_hint(const struct kl_nearest *nb, char *buf, size_t size)
{
	size_t len = 0;
	if (!size)
		return "";
	buf[0] = 0;
	unsigned n = 0;              /* the nearest, and those at most one edit further */
	while (n < nb->n && nb->dist[n] <= nb->dist[0] + 1)
		n++;
	for (unsigned i = 0; i < n && len < size; i++) {
		const char *sep = i == 0 ? "did you mean " : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + len, size - len, "%s%s", sep, nb->best[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (n && len + 1 < size) {
		buf[len++] = '?';
		buf[len] = 0;
	}
	return buf;
}
