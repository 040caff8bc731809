/* tracefs.h — a tracepoint's record layout, read from its format file in tracefs at compile
 * time: (ctx FIELD) in a tracepoint program and deftracepoint both use it. */
#ifndef KL_TRACEFS_H
#define KL_TRACEFS_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "arena.h"

struct kl_tp_field {
	const char *name;     /* C name as in the format: "prev_pid" */
	uint32_t offset, size;
	uint32_t count;       /* elements of an array field (char comm[16]: 16), 0 for a scalar */
	bool is_signed;
};

/* The fields of tracepoint `event` ("sched/sched_switch"), common_* ones included, in
 * order. 0 on success; -1 when no format file can be read, with its first path in `path`. */
int kl_tracepoint_format(struct kl_arena *a, const char *event, struct kl_tp_field **fields, uint32_t *n,
			 char *path, size_t pathsz);

#endif
