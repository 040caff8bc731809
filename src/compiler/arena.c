/* arena.c — bump allocation in large blocks; see arena.h for why. */
#include "arena.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN (64 * 1024)

struct kl_arena_block {
	struct kl_arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

_Noreturn void kl_arena_oom(struct kl_arena *a)
{
	if (a->oom)
		longjmp(*a->oom, 1);
	/* Only an arena used outside kl_compile gets here: unit tests driving the reader or a
	 * pass directly. Every path from libkiln and the CLI goes through kl_compile. */
	fprintf(stderr, "kiln: out of memory (arena without a recovery point)\n");
	abort();
}

void *kl_arena_try_alloc(struct kl_arena *a, size_t size)
{
	if (size > ((size_t)-1) / 4)
		return NULL;
	size = (size + 15) & ~(size_t)15;
	struct kl_arena_block *b = a->head;
	if (!b || b->used + size > b->cap) {
		size_t cap = size > BLOCK_MIN ? size : BLOCK_MIN;
		/* a released block big enough first: the passes' scratch memory comes and goes,
		 * and fresh pages cost a fault each */
		struct kl_arena_block **sp = &a->spare;
		while (*sp && (*sp)->cap < cap)
			sp = &(*sp)->next;
		if (*sp) {
			b = *sp;
			*sp = b->next;
		} else {
			if (a->limit && (cap > a->limit || a->held > a->limit - cap))
				return NULL;
			b = malloc(sizeof(*b) + cap);
			if (!b)
				return NULL;
			b->cap = cap;
			a->held += cap;
		}
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

void *kl_arena_alloc(struct kl_arena *a, size_t size)
{
	void *p = kl_arena_try_alloc(a, size);
	if (!p)
		kl_arena_oom(a);
	return p;
}

char *kl_arena_strndup(struct kl_arena *a, const char *s, size_t n)
{
	char *p = kl_arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *kl_arena_strdup(struct kl_arena *a, const char *s)
{
	return kl_arena_strndup(a, s, strlen(s));
}

char *kl_arena_printf(struct kl_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = kl_arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *kl_arena_grow(struct kl_arena *a, void *old, size_t old_size, size_t new_size)
{
	void *p = kl_arena_alloc(a, new_size);
	if (old && old_size)
		memcpy(p, old, old_size < new_size ? old_size : new_size);
	return p;
}

struct kl_arena_ext {
	struct kl_arena_ext *next, *prev;   /* 32 bytes: the data after it stays aligned */
	size_t size, pad_;
};

void *kl_arena_ext_grow(struct kl_arena *a, void *old, size_t old_size, size_t new_size)
{
	struct kl_arena_ext *e = old ? (struct kl_arena_ext *)old - 1 : NULL;
	if (new_size > ((size_t)-1) / 4)
		kl_arena_oom(a);
	size_t had = e ? e->size : 0;
	if (a->limit && new_size > had && (new_size - had > a->limit || a->held > a->limit - (new_size - had)))
		kl_arena_oom(a);
	struct kl_arena_ext *n = realloc(e, sizeof(*n) + new_size);
	if (!n)
		kl_arena_oom(a);   /* (the old array is still in the list, freed with the arena) */
	a->held = a->held - had + new_size;
	n->size = new_size;
	if (!e) {
		n->prev = NULL;
		n->next = a->ext;
		if (a->ext)
			a->ext->prev = n;
		a->ext = n;
		old_size = 0;
	} else {   /* it may have moved: its neighbours point at it again */
		if (n->prev)
			n->prev->next = n;
		else
			a->ext = n;
		if (n->next)
			n->next->prev = n;
	}
	if (new_size > old_size)
		memset((unsigned char *)(n + 1) + old_size, 0, new_size - old_size);
	return n + 1;
}

void kl_arena_ext_free(struct kl_arena *a, void *p)
{
	if (!p)
		return;
	struct kl_arena_ext *e = (struct kl_arena_ext *)p - 1;
	a->held -= e->size;
	if (e->prev)
		e->prev->next = e->next;
	else
		a->ext = e->next;
	if (e->next)
		e->next->prev = e->prev;
	free(e);
}

struct kl_arena_mark kl_arena_mark(const struct kl_arena *a)
{
	return (struct kl_arena_mark){ a->head, a->head ? a->head->used : 0 };
}

void kl_arena_release(struct kl_arena *a, struct kl_arena_mark m)
{
	while (a->head && a->head != m.head) {
		struct kl_arena_block *n = a->head->next;
		a->head->next = a->spare;
		a->spare = a->head;
		a->head = n;
	}
	if (a->head)
		a->head->used = m.used;
}

void kl_arena_trim(struct kl_arena *a)
{
	while (a->spare) {
		struct kl_arena_block *n = a->spare->next;
		a->held -= a->spare->cap;
		free(a->spare);
		a->spare = n;
	}
}

void kl_arena_free(struct kl_arena *a)
{
	struct kl_arena_block *b = a->head;
	while (b) {
		struct kl_arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
	for (b = a->spare; b;) {
		struct kl_arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->spare = NULL;
	while (a->ext) {
		struct kl_arena_ext *n = a->ext->next;
		free(a->ext);
		a->ext = n;
	}
	a->held = 0;
}
