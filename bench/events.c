/* events.c — how fast libkiln's event reader consumes and decodes, against libbpf's own ring
 * and perf buffer readers with a callback that only counts. One producer for all: a kiln
 * program (bench/events.lisp) writes 32 events per getppid() of a child process pinned to one
 * cpu. Each measurement fills the buffer first (the child makes its calls, nobody reads), then
 * times draining it, so what is timed is the consumer alone. Consumers, in turn within a
 * round and in a rotated order every round:
 *   libbpf  — ring_buffer__poll / perf_buffer__poll, the callback counts
 *   kiln    — kiln_reader_poll, the callback counts
 *   json    — kiln_reader_poll, the callback decodes each record to a JSON line (in memory)
 *   text    — the same to text
 * Prints events/s for each (best of the rounds) and its ratio to libbpf's, for the ring buffer
 * and for the perf buffer. bench/events.sh builds and runs it. Asserts nothing, but says so
 * when a record was lost or dropped (then the figures are void). */
#define _GNU_SOURCE
#include <kiln/kiln.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BURST 32
#define PERF_PAGES 8192

enum consumer { C_LIBBPF, C_KILN, C_JSON, C_TEXT, NCONS };
static const char *const cons_name[NCONS] = { "libbpf (count only)", "kiln reader (count only)",
					      "kiln reader + JSON decode", "kiln reader + text decode" };

static struct kiln_object *obj;
static const struct kiln_event *layout;
static int go_fd = -1, done_fd = -1;
static pid_t child = -1;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int start_child(void)
{
	int to[2], from[2];
	if (pipe(to) || pipe(from))
		return -1;
	child = fork();
	if (child == 0) {
		close(to[1]);
		close(from[0]);
		pin_cpu(0);
		prctl(PR_SET_NAME, "kiln-bench");
		long n;
		while (read(to[0], &n, sizeof(n)) == sizeof(n)) {
			for (long i = 0; i < n; i++)
				syscall(SYS_getppid);
			if (write(from[1], &n, sizeof(n)) != sizeof(n))
				break;
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	go_fd = to[1];
	done_fd = from[0];
	return child > 0 ? 0 : -1;
}

/* The child writes n events (n / BURST calls) and returns when they are all in the buffer. */
static void produce(long n)
{
	long calls = n / BURST, back;
	if (write(go_fd, &calls, sizeof(calls)) != sizeof(calls) || read(done_fd, &back, sizeof(back)) != sizeof(back)) {
		fprintf(stderr, "bench/events: the producer died\n");
		exit(1);
	}
}

struct sink {
	long count;
	size_t bytes;
	struct kiln_event_fmt fmt;
	bool decode;
	char buf[1024];
};

static int libbpf_ring_cb(void *ctx, void *data, size_t size)
{
	(void)data, (void)size;
	((struct sink *)ctx)->count++;
	return 0;
}

static void libbpf_perf_cb(void *ctx, int cpu, void *data, __u32 size)
{
	(void)cpu, (void)data, (void)size;
	((struct sink *)ctx)->count++;
}

static void lost_cb(void *ctx, int cpu, __u64 n)
{
	(void)cpu;
	fprintf(stderr, "bench/events: %llu records lost: the figures are void\n", (unsigned long long)n);
	(void)ctx;
}

static int kiln_cb(void *ctx, const struct kiln_record *r)
{
	struct sink *s = ctx;
	s->count++;
	if (s->decode) {
		s->fmt.cpu = r->cpu;
		int n = kiln_event_format(layout, r->data, r->size, &s->fmt, s->buf, sizeof(s->buf));
		s->bytes += n > 0 ? (size_t)n : 0;
	}
	return 0;
}

/* Drain n records with consumer c from the ring (perf false) or perf buffer; events/s. */
static double drain(enum consumer c, bool perf, long n)
{
	struct kiln_map *ring = kiln_object_find_map(obj, "ring"), *pmap = kiln_object_find_map(obj, "perf");
	struct sink s = { .fmt = { .sz = sizeof(s.fmt), .json = c == C_JSON, .cpu = -1 }, .decode = c >= C_JSON };
	struct ring_buffer *rb = NULL;
	struct perf_buffer *pb = NULL;
	struct kiln_reader *rd = NULL;
	struct kiln_perf_opts po = { .sz = sizeof(po), .pages = PERF_PAGES };
	int err = 0;
	/* the reader is set up before the buffer fills: only the draining is timed */
	if (c == C_LIBBPF && !perf)
		err = (rb = ring_buffer__new(kiln_map_fd(ring), libbpf_ring_cb, &s, NULL)) ? 0 : -errno;
	else if (c == C_LIBBPF)
		err = (pb = perf_buffer__new(kiln_map_fd(pmap), PERF_PAGES, libbpf_perf_cb, lost_cb, &s, NULL)) ? 0 : -errno;
	else if (!(err = kiln_reader_new(&rd)))
		err = perf ? kiln_reader_add_perf(rd, pmap, kiln_cb, &s, &po) : kiln_reader_add_ringbuf(rd, ring, kiln_cb, &s, NULL);
	if (err) {
		fprintf(stderr, "bench/events: %s: %s\n", cons_name[c], strerror(-err));
		exit(1);
	}
	double tp = now();
	produce(n);
	if (getenv("BENCH_VERBOSE"))
		fprintf(stderr, "produce %ld: %.3f s\n", n, now() - tp);
	double t0 = now();
	while (s.count < n && now() - t0 < 30) {
		if (rb)
			ring_buffer__poll(rb, 100);
		else if (pb)
			perf_buffer__poll(pb, 100);
		else
			kiln_reader_poll(rd, 100);
	}
	double t = now() - t0;
	if (rd) {
		struct kiln_reader_stats st;
		kiln_reader_stats(rd, NULL, &st);
		if (st.lost)
			fprintf(stderr, "bench/events: %llu records lost: the figures are void\n", (unsigned long long)st.lost);
	}
	if (s.count != n)
		fprintf(stderr, "bench/events: %s got %ld of %ld records\n", cons_name[c], s.count, n);
	ring_buffer__free(rb);
	perf_buffer__free(pb);
	kiln_reader_free(rd);
	return s.count / t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: events FILE.lisp [RING_EVENTS [ROUNDS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	long nring = argc > 2 ? atol(argv[2]) : 2000000, rounds = argc > 3 ? atol(argv[3]) : 3;
	long nperf = nring / 4;   /* what fits in PERF_PAGES on one cpu */
	nring -= nring % BURST;
	nperf -= nperf % BURST;
	struct kiln_link *link = NULL;
	struct kiln_events *evs = NULL;
	if (kiln_object_open(argv[1], NULL, &obj) || kiln_object_load(obj) ||
	    kiln_prog_attach(kiln_object_find_prog(obj, "burst"), NULL, &link) || kiln_events_from_object(obj, &evs) ||
	    !(layout = kiln_events_for_map(evs, "ring"))) {
		fprintf(stderr, "bench/events: %s\n", kiln_errmsg());
		return 1;
	}
	if (start_child()) {
		fprintf(stderr, "bench/events: fork: %s\n", strerror(errno));
		return 1;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		pin_cpu(1);
	uint32_t k = 0, v = (uint32_t)child;
	kiln_map_update(kiln_object_find_map(obj, "target"), &k, &v, BPF_ANY);
	printf("bench/events: %ld ring events, %ld perf events per run (%d per getppid), best of %ld rounds\n",
	       nring, nperf, BURST, rounds);
	for (int perf = 0; perf < 2; perf++) {
		k = 1, v = (uint32_t)perf;
		kiln_map_update(kiln_object_find_map(obj, "target"), &k, &v, BPF_ANY);
		double best[NCONS] = { 0 };
		for (long r = 0; r < rounds; r++)
			for (int i = 0; i < NCONS; i++) {
				enum consumer c = (enum consumer)((i + r) % NCONS);
				double eps = drain(c, perf, perf ? nperf : nring);
				if (eps > best[c])
					best[c] = eps;
			}
		printf("\n%s buffer            events/s     ratio to libbpf\n", perf ? "perf" : "ring");
		for (int c = 0; c < NCONS; c++)
			printf("  %-28s %12.0f   %.2f\n", cons_name[c], best[c], best[c] / best[C_LIBBPF]);
	}
	close(go_fd);
	waitpid(child, NULL, 0);
	kiln_link_destroy(link);
	kiln_events_free(evs);
	kiln_object_close(obj);
	return 0;
}
