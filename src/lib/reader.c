/* reader.c — the event reader: libbpf's ring_buffer and perf_buffer managers, one per map, on
 * the reader's own epoll with an eventfd that stops it. A ring buffer's epoll fd nests in it;
 * a perf buffer's per-cpu fds go in one by one, because polling a perf event fd clears its
 * readiness (a nested perf_buffer epoll would look ready to the outer one and then find
 * nothing). A poll waits on that one epoll and consumes only the buffers that are ready.
 *
 * A poll delivers for at most POLL_BUDGET_NS: a ring buffer refilled as fast as it is read (a
 * program that sends a record on every syscall, read by a consumer whose printing makes
 * syscalls) would otherwise keep ring_buffer__consume() going forever and the caller would
 * never see its own stop flag. A callback returning a negative value makes libbpf bail out
 * after the record it has just delivered, so yielding loses nothing: the rest waits for the
 * next poll. */
#define _GNU_SOURCE
#include "kiln/object.h"
#include "kiln/perf.h"
#include "kiln/ringbuf.h"
#include "fail.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_PERF_PAGES 64
#define POLL_BUDGET_NS (50 * 1000000LL)   /* longest a poll goes on delivering */
#define BUDGET_CHECK_EVERY 64             /* records between looks at the clock, while they are fast */
#define SLOW_RECORDS_NS (1000000LL)       /* BUDGET_CHECK_EVERY records taking longer: look at
					   * the clock after each (a callback that runs a command) */

struct source;
/* What an epoll event points at: a ring buffer (buf unused) or one cpu's perf buffer. */
struct slot {
	struct source *s;
	size_t buf;
};

struct source {
	struct kiln_reader *r;
	struct slot *slots;
	struct kiln_map *map;
	kiln_record_fn fn;
	void *ctx;
	struct ring_buffer *ring;        /* one of these two */
	struct perf_buffer *perf;
	struct kiln_map *drops;
	kiln_lost_fn lost_fn;
	void *lost_ctx;
	struct kiln_reader_stats stats;
};

struct kiln_reader {
	int epfd, stopfd;
	volatile sig_atomic_t stopped;
	int error;                       /* what stopped it, if anything did */
	bool yielded;                    /* this poll used its budget up: the rest waits */
	int64_t deadline;                /* this poll's end, CLOCK_MONOTONIC ns */
	int64_t checked;                 /* when the clock was last read, this poll */
	bool slow;                       /* records are slow this poll: the clock after each */
	uint64_t delivered;              /* records given to callbacks, all maps */
	size_t n, cap;
	struct source **src;
};

int kiln_reader_new(struct kiln_reader **out)
{
	*out = NULL;
	struct kiln_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return kl_fail(ENOMEM, "event reader");
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = NULL };
	if (r->epfd < 0 || r->stopfd < 0 || epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->stopfd, &e)) {
		int err = kl_fail(errno, "event reader: epoll");
		kiln_reader_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void kiln_reader_free(struct kiln_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		ring_buffer__free(r->src[i]->ring);
		perf_buffer__free(r->src[i]->perf);
		free(r->src[i]->slots);
		free(r->src[i]);
	}
	free(r->src);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->stopfd >= 0)
		close(r->stopfd);
	free(r);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whether the poll in progress should end now: stopped, or its budget spent (the clock is read
 * every BUDGET_CHECK_EVERY records, or now if always). */
static bool must_yield(struct kiln_reader *r, bool always)
{
	if (r->stopped || r->yielded)
		return true;
	if (always || r->slow || r->delivered % BUDGET_CHECK_EVERY == 0) {
		int64_t t = now_ns();
		r->slow = r->slow || t - r->checked > SLOW_RECORDS_NS;
		r->checked = t;
		r->yielded = t >= r->deadline;
	}
	return r->yielded;
}

/* Hand one record to the callback. Nonzero makes libbpf's ring buffer loop return after this
 * record (which it has consumed): the callback's error, or -EAGAIN when the poll is to yield. */
static int deliver(struct source *s, const void *data, size_t size, int cpu)
{
	struct kiln_reader *r = s->r;
	s->stats.records++;
	s->stats.bytes += size;
	r->delivered++;
	struct kiln_record rec = { data, size, cpu, s->map };
	int rc = s->fn ? s->fn(s->ctx, &rec) : 0;
	if (rc) {
		r->error = rc < 0 ? rc : -rc;
		kiln_reader_stop(r);
		return r->error;
	}
	return must_yield(r, false) ? -EAGAIN : 0;
}

static int on_ring(void *ctx, void *data, size_t size)
{
	return deliver(ctx, data, size, -1);
}

static void on_perf(void *ctx, int cpu, void *data, __u32 size)
{
	deliver(ctx, data, size, cpu);
}

static void on_lost(void *ctx, int cpu, __u64 n)
{
	struct source *s = ctx;
	s->stats.lost += n;
	if (s->lost_fn)
		s->lost_fn(s->lost_ctx, s->map, cpu, n);
}

static int check_type(struct kiln_map *m, enum bpf_map_type want)
{
	if (!m)
		return kl_fail_msg(EINVAL, "event reader: no map");
	enum bpf_map_type t = kiln_map_info(m)->type;
	if (t != want)
		return kl_fail_msg(EINVAL, "map '%s' is a %s map, not a %s map", kiln_map_name(m),
				   kiln_map_type_name(t), kiln_map_type_name(want));
	if (kiln_map_fd(m) < 0)
		return kl_fail_msg(EBADF, "map '%s' is not created yet (load the object first)", kiln_map_name(m));
	return 0;
}

static struct source *new_source(struct kiln_reader *r, struct kiln_map *m, kiln_record_fn fn, void *ctx)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4;
		struct source **ns = realloc(r->src, cap * sizeof(*ns));
		if (!ns)
			return NULL;
		r->src = ns;
		r->cap = cap;
	}
	struct source *s = calloc(1, sizeof(*s));
	if (s)
		*s = (struct source){ .r = r, .map = m, .fn = fn, .ctx = ctx };
	return s;
}

/* Put a source's fds in the reader's epoll (the ring buffer's epoll fd, or every cpu's perf
 * buffer fd), and keep it; frees it on failure. */
static int add_source(struct kiln_reader *r, struct source *s)
{
	size_t n = s->ring ? 1 : perf_buffer__buffer_cnt(s->perf);
	int err = 0;
	s->slots = calloc(n, sizeof(*s->slots));
	if (!s->slots)
		err = kl_fail(ENOMEM, "event reader");
	for (size_t i = 0; !err && i < n; i++) {
		s->slots[i] = (struct slot){ s, i };
		int fd = s->ring ? ring_buffer__epoll_fd(s->ring) : perf_buffer__buffer_fd(s->perf, i);
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = &s->slots[i] };
		if (fd < 0 || epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e))
			err = kl_fail(fd < 0 ? -fd : errno, "event reader: adding map '%s'", kiln_map_name(s->map));
	}
	if (err) {
		for (size_t i = 0; s->slots && i < n; i++) {
			int fd = s->ring ? ring_buffer__epoll_fd(s->ring) : perf_buffer__buffer_fd(s->perf, i);
			epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
		}
		ring_buffer__free(s->ring);
		perf_buffer__free(s->perf);
		free(s->slots);
		free(s);
		return err;
	}
	r->src[r->n++] = s;
	return 0;
}

int kiln_reader_add_ringbuf(struct kiln_reader *r, struct kiln_map *ring, kiln_record_fn fn, void *ctx,
			    const struct kiln_ringbuf_opts *opts)
{
	int err = check_type(ring, BPF_MAP_TYPE_RINGBUF);
	if (err)
		return err;
	struct kiln_map *drops = opts && opts->sz > offsetof(struct kiln_ringbuf_opts, drops) ? opts->drops : NULL;
	if (drops) {
		enum bpf_map_type t = kiln_map_info(drops)->type;
		if ((t != BPF_MAP_TYPE_ARRAY && t != BPF_MAP_TYPE_PERCPU_ARRAY) || kiln_map_info(drops)->value_size < 8)
			return kl_fail_msg(EINVAL, "drop counter '%s' is not an array of u64", kiln_map_name(drops));
	}
	struct source *s = new_source(r, ring, fn, ctx);
	if (!s)
		return kl_fail(ENOMEM, "event reader");
	s->drops = drops;
	s->ring = KL_LIBBPF(ring_buffer__new(kiln_map_fd(ring), on_ring, s, NULL));
	if (!s->ring) {
		err = kl_fail(errno, "reading ring buffer '%s'", kiln_map_name(ring));
		free(s);
		return err;
	}
	return add_source(r, s);
}

int kiln_reader_add_perf(struct kiln_reader *r, struct kiln_map *perf, kiln_record_fn fn, void *ctx,
			 const struct kiln_perf_opts *opts)
{
	int err = check_type(perf, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	if (err)
		return err;
	size_t pages = opts && opts->pages ? opts->pages : DEFAULT_PERF_PAGES;
	if (pages & (pages - 1))
		return kl_fail_msg(EINVAL, "perf buffer pages per cpu must be a power of 2, not %zu", pages);
	struct source *s = new_source(r, perf, fn, ctx);
	if (!s)
		return kl_fail(ENOMEM, "event reader");
	if (opts) {
		s->lost_fn = opts->lost;
		s->lost_ctx = opts->lost_ctx;
	}
	s->perf = KL_LIBBPF(perf_buffer__new(kiln_map_fd(perf), pages, on_perf, on_lost, s, NULL));
	if (!s->perf) {
		err = kl_fail(errno, "reading perf buffer '%s' (%zu pages per cpu)", kiln_map_name(perf), pages);
		free(s);
		return err;
	}
	return add_source(r, s);
}

int kiln_reader_add_object(struct kiln_reader *r, const struct kiln_object *obj, kiln_record_fn fn, void *ctx,
			   const struct kiln_perf_opts *perf_opts)
{
	size_t added = 0;
	for (size_t i = 0; i < kiln_object_map_count(obj); i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		enum bpf_map_type t = kiln_map_info(m)->type;
		int err = 0;
		if (t == BPF_MAP_TYPE_RINGBUF) {
			char name[256];
			snprintf(name, sizeof(name), "%s_drops", kiln_map_name(m));
			struct kiln_ringbuf_opts ro = { .sz = sizeof(ro), .drops = kiln_object_find_map(obj, name) };
			err = kiln_reader_add_ringbuf(r, m, fn, ctx, &ro);
		} else if (t == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
			err = kiln_reader_add_perf(r, m, fn, ctx, perf_opts);
		} else {
			continue;
		}
		if (err)
			return err;
		added++;
	}
	if (!added)
		return kl_fail_msg(ENOENT, "object '%s' has no ring buffer or perf buffer map", kiln_object_name(obj));
	return 0;
}

int kiln_reader_poll(struct kiln_reader *r, int timeout_ms)
{
	if (r->stopped)
		return 0;
	struct epoll_event ev[16];
	int n = epoll_wait(r->epfd, ev, sizeof(ev) / sizeof(ev[0]), timeout_ms);
	if (n < 0)
		return errno == EINTR ? -EINTR : kl_fail(errno, "event reader: epoll_wait");
	uint64_t before = r->delivered;
	r->yielded = false;
	r->slow = false;
	r->checked = now_ns();
	r->deadline = r->checked + POLL_BUDGET_NS;
	for (int i = 0; i < n && !r->stopped && !r->yielded; i++) {
		struct slot *slot = ev[i].data.ptr;
		if (!slot)
			continue;   /* the stop eventfd: r->stopped is already set */
		struct source *s = slot->s;
		int err = s->ring ? ring_buffer__consume(s->ring) : perf_buffer__consume_buffer(s->perf, slot->buf);
		if (err < 0 && err != -EINTR && !r->stopped && !r->yielded) {
			r->error = kl_fail(-err, "reading %s '%s'", s->ring ? "ring buffer" : "perf buffer",
					   kiln_map_name(s->map));
			kiln_reader_stop(r);
		}
		if (!s->ring)     /* a perf buffer is read to its head as it was: look between cpus */
			must_yield(r, true);
	}
	if (r->stopped && r->error)
		return r->error;
	uint64_t n_new = r->delivered - before;
	return (int)(n_new > INT32_MAX ? INT32_MAX : n_new);
}

void kiln_reader_stop(struct kiln_reader *r)
{
	r->stopped = 1;
	uint64_t one = 1;
	ssize_t w = write(r->stopfd, &one, sizeof(one));   /* async-signal-safe */
	(void)w;
}

bool kiln_reader_stopped(const struct kiln_reader *r)
{
	return r->stopped;
}

int kiln_reader_epoll_fd(const struct kiln_reader *r)
{
	return r->epfd;
}

/* The program's count of failed reserves: entry 0 of the drop map, over all cpus. */
static uint64_t read_drops(struct kiln_map *m)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	bool percpu = info->type == BPF_MAP_TYPE_PERCPU_ARRAY;
	int ncpu = percpu ? libbpf_num_possible_cpus() : 1;
	size_t stride = percpu ? (info->value_size + 7) / 8 * 8 : info->value_size;
	if (ncpu <= 0)
		return 0;
	uint8_t *v = calloc((size_t)ncpu, stride);
	uint32_t key = 0;
	uint64_t sum = 0;
	if (v && !kiln_map_lookup(m, &key, v))
		for (int c = 0; c < ncpu; c++) {
			uint64_t x;
			memcpy(&x, v + (size_t)c * stride, sizeof(x));
			sum += x;
		}
	free(v);
	return sum;
}

int kiln_reader_stats(struct kiln_reader *r, const struct kiln_map *map, struct kiln_reader_stats *out)
{
	memset(out, 0, sizeof(*out));
	bool found = false;
	for (size_t i = 0; i < r->n; i++) {
		struct source *s = r->src[i];
		if (map && s->map != map)
			continue;
		found = true;
		if (s->drops)
			s->stats.drops = read_drops(s->drops);
		out->records += s->stats.records;
		out->bytes += s->stats.bytes;
		out->lost += s->stats.lost;
		out->drops += s->stats.drops;
	}
	if (map && !found)
		return kl_fail_msg(ENOENT, "map '%s' is not in the event reader", kiln_map_name(map));
	return 0;
}

size_t kiln_reader_map_count(const struct kiln_reader *r)
{
	return r->n;
}

struct kiln_map *kiln_reader_map(const struct kiln_reader *r, size_t i)
{
	return i < r->n ? r->src[i]->map : NULL;
}
