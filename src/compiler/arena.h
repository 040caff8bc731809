/* arena.h — one bump allocator per compilation: nodes, types and IR are never freed
 * one by one; kl_arena_free releases everything at the end.
 *
 * Out of memory: kl_arena_alloc does not return NULL; it longjmps to a->oom, which
 * kl_compile sets for the whole compilation and turns into an "out of memory" error
 * (ENOMEM). Checked returns would put a test after each of the hundreds of allocations in
 * every pass; one jump is enough because nothing the passes hold besides the arena needs
 * releasing: they take all their memory from it, and the two places that hold something
 * else while allocating from it (a tracepoint's format file, read with kl_arena_try_alloc;
 * the BTF and ELF writers, which use malloc with checked returns and no arena) release it
 * first. The arena itself is freed by whoever made it (kl_arena_free), jump or not. */
#ifndef KL_ARENA_H
#define KL_ARENA_H
#include <setjmp.h>
#include <stddef.h>

struct kl_arena_block;
struct kl_arena_ext;
struct kl_arena {
	struct kl_arena_block *head;
	jmp_buf *oom;                 /* where allocation failure jumps (set by kl_compile) */
	struct kl_arena_block *spare; /* blocks released (kl_arena_release), kept for reuse */
	struct kl_arena_ext *ext;     /* kl_arena_ext_grow's arrays */
	/* limit: the bytes of blocks and arrays it may hold at once, 0 for no limit (kiln's host
	 * Lisp under the fuzz harness): past it an allocation fails as out of memory */
	size_t limit, held;
};

void *kl_arena_alloc(struct kl_arena *a, size_t size);       /* zeroed, 16-byte aligned */
/* The same, but NULL on failure instead of the jump: for a caller holding a resource. */
void *kl_arena_try_alloc(struct kl_arena *a, size_t size);
/* Jump to a->oom (the failure kl_arena_try_alloc's caller got, once it released its resource). */
_Noreturn void kl_arena_oom(struct kl_arena *a);
char *kl_arena_strdup(struct kl_arena *a, const char *s);
char *kl_arena_strndup(struct kl_arena *a, const char *s, size_t n);
char *kl_arena_printf(struct kl_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Grow an arena-owned array (old contents copied; the old block is simply abandoned). */
void *kl_arena_grow(struct kl_arena *a, void *old, size_t old_size, size_t new_size);
void kl_arena_free(struct kl_arena *a);
/* An array outside the blocks that grows in place where it can (realloc): doubling inside
 * the arena abandons every old copy, which for a large function's instructions was 40% of
 * a compilation's peak. old: NULL or what this returned for a; the new bytes are zeroed;
 * freed with the arena, or by kl_arena_ext_free. Marks do not cover it. */
void *kl_arena_ext_grow(struct kl_arena *a, void *old, size_t old_size, size_t new_size);
void kl_arena_ext_free(struct kl_arena *a, void *p);
/* Scratch memory: everything allocated after a mark goes at its release, marks released
 * last-taken first (a pass's analysis, dropped when the pass ends). */
struct kl_arena_mark {
	struct kl_arena_block *head;
	size_t used;
};
struct kl_arena_mark kl_arena_mark(const struct kl_arena *a);
void kl_arena_release(struct kl_arena *a, struct kl_arena_mark m);
/* The released blocks kept for reuse, given back to the system. */
void kl_arena_trim(struct kl_arena *a);

#define kl_arena_new(a, T) ((T *)kl_arena_alloc((a), sizeof(T)))
#define kl_arena_array(a, T, n) ((T *)kl_arena_alloc((a), sizeof(T) * (size_t)(n)))

/* A growable vector living in an arena: v.items, v.len, v.cap. */
#define KL_VEC(T) struct { T *items; size_t len, cap; }
#define kl_vec_push(a, v, x) do {                                                        \
	if ((v)->len == (v)->cap) {                                                      \
		size_t nc_ = (v)->cap ? (v)->cap * 2 : 8;                                \
		(v)->items = kl_arena_grow((a), (v)->items, (v)->cap * sizeof(*(v)->items), \
					   nc_ * sizeof(*(v)->items));                   \
		(v)->cap = nc_;                                                          \
	}                                                                                \
	(v)->items[(v)->len++] = (x);                                                    \
} while (0)

#endif
