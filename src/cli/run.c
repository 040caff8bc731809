/* run.c — `kiln run`: compile if needed, load, attach every program by its section, stream
 * what the programs send through ring and perf buffers, and on Ctrl-C, SIGTERM or the end of
 * --duration detach everything and print the maps. Nothing stays unless --pin says so. */
#include "cli.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char run_help[] =
	"usage: kiln run FILE.lisp|OBJ.o [--duration S] [--json] [--pin DIR] [--iface IF]\n"
	"                [--cgroup PATH] [--egress] [--quiet]\n"
	"\n"
	"Load the object, attach every program by its section (xdp and tc to --iface, cgroup\n"
	"programs to --cgroup; tc programs whose section does not say attach on ingress, or egress\n"
	"with --egress), print the records its ring buffers and perf buffers carry, and at the end\n"
	"(Ctrl-C, SIGTERM, or after --duration seconds: 10, 1.5, 500ms) detach everything and\n"
	"print the maps. With --pin DIR the maps, programs and links are pinned there and stay\n"
	"attached after kiln exits (`kiln unload DIR` removes them). --json prints JSON lines.\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct stream {
	const char *map;
	bool json;
	unsigned long records;
};

static void print_record(struct stream *s, int cpu, const void *data, size_t size)
{
	const uint8_t *p = data;
	s->records++;
	if (s->json) {
		printf("{\"map\":");
		cli_json_str(stdout, s->map, 256);
		if (cpu >= 0)
			printf(",\"cpu\":%d", cpu);
		printf(",\"size\":%zu,\"data\":\"0x", size);
		for (size_t i = 0; i < size; i++)
			printf("%02x", p[i]);
		printf("\"}\n");
	} else {
		printf("%s", s->map);
		if (cpu >= 0)
			printf(" cpu %d", cpu);
		printf(": %zu bytes:", size);
		for (size_t i = 0; i < size; i++)
			printf("%s%02x", i % 4 ? "" : " ", p[i]);
		printf("\n");
	}
	fflush(stdout);
}

static int on_ring_record(void *ctx, void *data, size_t size)
{
	print_record(ctx, -1, data, size);
	return 0;
}

static void on_perf_record(void *ctx, int cpu, void *data, __u32 size)
{
	print_record(ctx, cpu, data, size);
}

static void on_perf_lost(void *ctx, int cpu, __u64 n)
{
	struct stream *s = ctx;
	fprintf(stderr, "kiln run: %s lost %llu records on cpu %d\n", s->map, (unsigned long long)n, cpu);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_run(int argc, char **argv)
{
	const char *file = NULL, *pin = NULL, *dur = NULL;
	struct cli_attach a = { 0 };
	bool json = false, quiet = false;
	double duration = -1;
	const struct cli_opt opts[] = {
		{ "--duration", CLI_STR, &dur, "a number of seconds" }, { "--pin", CLI_STR, &pin, "a directory" },
		{ "--iface", CLI_STR, &a.iface, "an interface" }, { "--cgroup", CLI_STR, &a.cgroup, "a cgroup directory" },
		{ "--egress", CLI_FLAG, &a.egress, NULL }, { "--json", CLI_FLAG, &json, NULL },
		{ "--quiet|-q", CLI_FLAG, &quiet, NULL }, { 0 },
	};
	int npos, r = cli_parse("run", run_help, argc, argv, opts, &file, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!file) {
		fputs(run_help, stderr);
		return 2;
	}
	if (dur && cli_parse_duration(dur, &duration)) {
		fprintf(stderr, "kiln run: --duration '%s' is not a number of seconds\n", dur);
		return 2;
	}
	/* From here on a signal only sets a flag: cleanup always runs. */
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct kiln_object *obj;
	struct kiln_object_opts o = { .sz = sizeof(o) };
	if (cli_object_open("run", file, &o, &obj))
		return 1;
	int rc = 1;
	size_t nprogs = kiln_object_prog_count(obj), nmaps = kiln_object_map_count(obj);
	struct kiln_link **links = calloc(nprogs + 1, sizeof(*links));
	struct stream *streams = calloc(nmaps + 1, sizeof(*streams));
	struct perf_buffer **perfs = calloc(nmaps + 1, sizeof(*perfs));
	struct ring_buffer *rb = NULL;
	if (!links || !streams || !perfs) {
		fprintf(stderr, "kiln run: out of memory\n");
		goto out;
	}
	if (cli_object_load("run", obj, file) || cli_attach_all("run", obj, &a, links, quiet))
		goto out;
	if (pin && cli_pin_all("run", obj, pin, links))
		goto out;
	for (size_t i = 0; i < nmaps; i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		enum bpf_map_type t = kiln_map_info(m)->type;
		streams[i] = (struct stream){ kiln_map_name(m), json, 0 };
		int err = 0;
		if (t == BPF_MAP_TYPE_RINGBUF && !rb) {
			rb = ring_buffer__new(kiln_map_fd(m), on_ring_record, &streams[i], NULL);
			err = rb ? 0 : -errno;
		} else if (t == BPF_MAP_TYPE_RINGBUF) {
			err = ring_buffer__add(rb, kiln_map_fd(m), on_ring_record, &streams[i]);
		} else if (t == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
			perfs[i] = perf_buffer__new(kiln_map_fd(m), 64, on_perf_record, on_perf_lost, &streams[i], NULL);
			err = perfs[i] ? 0 : -errno;
		}
		if (err) {
			fprintf(stderr, "kiln run: cannot read %s: %s\n", kiln_map_name(m), strerror(-err));
			goto out;
		}
	}
	if (!quiet)
		fprintf(stderr, "kiln run: running%s; Ctrl-C to stop\n", duration >= 0 ? " for the duration" : "");
	double end = duration >= 0 ? now() + duration : 0;
	while (!stop_signal && (duration < 0 || now() < end)) {
		int wait_ms = 100;
		if (duration >= 0 && (end - now()) * 1000 < wait_ms)
			wait_ms = (int)((end - now()) * 1000) + 1;
		int err = rb ? ring_buffer__poll(rb, wait_ms) : 0;
		for (size_t i = 0; i < nmaps; i++)
			if (perfs[i])
				err = perf_buffer__poll(perfs[i], 0);
		if (!rb)
			nanosleep(&(struct timespec){ 0, (long)wait_ms * 1000000L }, NULL);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "kiln run: reading events: %s\n", strerror(-err));
			goto out;
		}
	}
	if (!quiet && stop_signal)
		fprintf(stderr, "kiln run: %s, detaching\n", stop_signal == SIGINT ? "interrupted" : "terminated");
	for (size_t i = 0; i < nmaps; i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		enum bpf_map_type t = kiln_map_info(m)->type;
		if (t != BPF_MAP_TYPE_RINGBUF && t != BPF_MAP_TYPE_PERF_EVENT_ARRAY && cli_map_print(stdout, m, json, false))
			cli_fail("run");
	}
	rc = 0;
out:
	ring_buffer__free(rb);
	for (size_t i = 0; perfs && i < nmaps; i++)
		perf_buffer__free(perfs[i]);
	for (size_t i = 0; links && i < nprogs; i++)
		kiln_link_destroy(links[i]);   /* detaches, except links pinned with --pin */
	free(links);
	free(streams);
	free(perfs);
	kiln_object_close(obj);
	return rc;
}
