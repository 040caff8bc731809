/* kiln/ringbuf.h — event readers: a reader holds ring buffer and perf buffer maps (perf.h) on
 * one epoll and calls back once per record, counting records, perf buffers' lost records and
 * ring buffers' drops (reserves that failed in the program, counted there in a companion
 * array map: kiln adds NAME_drops for every ring buffer `with-event` writes to). A reader is
 * used from one thread; kiln_reader_stop() may be called from any thread or a signal handler. */
#ifndef KILN_RINGBUF_H
#define KILN_RINGBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kiln_object;
struct kiln_reader;

/* One record, valid during the callback only. */
struct kiln_record {
	const void *data;
	size_t size;             /* perf buffers round it up to 8 bytes (minus 4) */
	int cpu;                 /* perf buffers: the cpu it was written on; ring buffers: -1 */
	struct kiln_map *map;    /* the map it came through */
};

/* Called once per record. A nonzero return stops the reader: the current poll returns it (as
 * a negative errno, if it was positive) and later polls return 0. */
typedef int (*kiln_record_fn)(void *ctx, const struct kiln_record *rec);

int kiln_reader_new(struct kiln_reader **out);
/* Stop: the reader is unusable after; maps stay as they are. NULL ok. */
void kiln_reader_free(struct kiln_reader *r);

struct kiln_ringbuf_opts {
	size_t sz;               /* sizeof(struct kiln_ringbuf_opts) */
	struct kiln_map *drops;  /* an array map whose entry 0 (a u64; summed over cpus when
				  * per-cpu) counts records the program could not reserve */
};
/* Read a :ringbuf map. */
int kiln_reader_add_ringbuf(struct kiln_reader *r, struct kiln_map *ring, kiln_record_fn fn, void *ctx,
			    const struct kiln_ringbuf_opts *opts);

struct kiln_perf_opts;
/* Every :ringbuf map of a loaded object (with its NAME_drops map where there is one) and every
 * :perf-event-array map (perf_opts may be NULL). -ENOENT if the object has neither. */
int kiln_reader_add_object(struct kiln_reader *r, const struct kiln_object *obj, kiln_record_fn fn, void *ctx,
			   const struct kiln_perf_opts *perf_opts);

/* Wait up to timeout_ms (-1: forever, 0: not at all) for records and deliver them. Returns
 * how many were delivered (0 on timeout, or once stopped), -EINTR when a signal came, or the
 * error that stopped it (a callback's, or the kernel's). A poll delivers for about 50 ms at
 * most, however fast records arrive, and then returns with the rest left for the next poll, so
 * the caller's loop always gets to look at its own conditions. */
int kiln_reader_poll(struct kiln_reader *r, int timeout_ms);
/* Make the poll in progress (or the next) return, after the record being delivered if any,
 * and every later one return 0. */
void kiln_reader_stop(struct kiln_reader *r);
bool kiln_reader_stopped(const struct kiln_reader *r);
/* One fd that is readable when records (or a stop) wait, for the caller's own event loop;
 * then call kiln_reader_poll(r, 0). */
int kiln_reader_epoll_fd(const struct kiln_reader *r);

struct kiln_reader_stats {
	uint64_t records;        /* delivered to the callback */
	uint64_t bytes;
	uint64_t lost;           /* perf buffers: records the kernel could not write (full) */
	uint64_t drops;          /* ring buffers: failed reserves counted by the program, read now */
};
/* For one map of the reader, or all of them summed (map NULL). -ENOENT: not in the reader. */
int kiln_reader_stats(struct kiln_reader *r, const struct kiln_map *map, struct kiln_reader_stats *out);
/* The maps the reader holds, in the order added. */
size_t kiln_reader_map_count(const struct kiln_reader *r);
struct kiln_map *kiln_reader_map(const struct kiln_reader *r, size_t i);

/* One record of size bytes into a user ring buffer (the map programs drain with
 * user-ringbuf-drain): -ENOSPC while it is full, -EINVAL for another map type. */
int kiln_user_ringbuf_write(struct kiln_map *m, const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
