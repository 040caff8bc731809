/* kiln/perf.h — perf buffers (:perf-event-array maps) in an event reader (ringbuf.h): one
 * buffer per cpu, records written with BPF_F_CURRENT_CPU, lost records counted per map. */
#ifndef KILN_PERF_H
#define KILN_PERF_H
#include "ringbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Told when the kernel found a cpu's buffer full and dropped count records. */
typedef void (*kiln_lost_fn)(void *ctx, struct kiln_map *map, int cpu, uint64_t count);

struct kiln_perf_opts {
	size_t sz;               /* sizeof(struct kiln_perf_opts) */
	size_t pages;            /* per cpu, a power of 2 (default 64: 256 KiB with 4 KiB pages) */
	kiln_lost_fn lost;       /* optional; lost records are counted either way */
	void *lost_ctx;
};

/* Read a :perf-event-array map: a buffer on every possible cpu. */
int kiln_reader_add_perf(struct kiln_reader *r, struct kiln_map *perf, kiln_record_fn fn, void *ctx,
			 const struct kiln_perf_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
