/* names.c — open addressing over FNV-1a hashes of names folded to lower case; see names.h. */
#include "names.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The hash of the folded name, folded as it goes (no copy): Counts and counts land together. */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

static struct kl_name_slot *find(const struct kl_names *t, const char *name)
{
	for (uint32_t i = hash(name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (!t->slots[i].name || !strcasecmp(t->slots[i].name, name))
			return &t->slots[i];
}

/* The slot for name, the table grown first so that one more name fits. */
static struct kl_name_slot *slot_for(struct kl_arena *a, struct kl_names *t, const char *name)
{
	if (2 * (t->len + 1) > t->cap) {
		struct kl_names grown = { .cap = t->cap ? 2 * t->cap : 16 };
		grown.slots = kl_arena_array(a, struct kl_name_slot, grown.cap);
		for (uint32_t i = 0; i < t->cap; i++)
			if (t->slots[i].name)
				*find(&grown, t->slots[i].name) = t->slots[i];
		grown.len = t->len;
		*t = grown;
	}
	return find(t, name);
}

void kl_names_put(struct kl_arena *a, struct kl_names *t, const char *name, uint32_t index)
{
	struct kl_name_slot *s = slot_for(a, t, name);
	if (s->name)
		return;
	s->name = name;
	s->index = index;
	t->len++;
}

void kl_names_set(struct kl_arena *a, struct kl_names *t, const char *name, uint32_t index)
{
	struct kl_name_slot *s = slot_for(a, t, name);
	if (!s->name)
		t->len++;
	s->name = name;
	s->index = index;
}

int64_t kl_names_get(const struct kl_names *t, const char *name)
{
	if (!t->cap)
		return -1;
	const struct kl_name_slot *s = find(t, name);
	return s->name ? (int64_t)s->index : -1;
}
