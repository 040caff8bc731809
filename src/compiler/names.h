/* names.h — a name -> index hash table in the arena, so that finding a map, function, struct
 * or accessor by name stays O(1) however many the source defines (a linear search made
 * 30,000 defuns take 17 s). */
#ifndef KL_NAMES_H
#define KL_NAMES_H
#include <stdint.h>
#include "arena.h"

struct kl_name_slot {
	const char *name;     /* NULL: empty */
	uint32_t index;
};

struct kl_names {
	struct kl_name_slot *slots;
	uint32_t cap, len;    /* cap a power of two, at most half full */
};

/* Names match without regard to case, as Common Lisp's reader folds it (kiln's reader keeps a
 * name as written for the object: a table holds either spelling and finds it by any). */

/* Record name -> index unless name is there already (the first one stays). */
void kl_names_put(struct kl_arena *a, struct kl_names *t, const char *name, uint32_t index);
/* Record name -> index, replacing what name had (the last one stays: redefinitions). */
void kl_names_set(struct kl_arena *a, struct kl_names *t, const char *name, uint32_t index);
/* The index recorded for name, or -1. */
int64_t kl_names_get(const struct kl_names *t, const char *name);

#endif
