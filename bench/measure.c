/* measure.c — loads one BPF object with libbpf and prints, for each program, what bench/bench.sh
 * tabulates: instructions as loaded, the kernel's final (xlated) instructions and JITed bytes
 * (bpf_prog_info), the verifier's "processed" count and stack depth (its BPF_LOG_STATS log), and
 * the run time per call under BPF_PROG_TEST_RUN with repeat (the kernel's own time per run: see
 * run_ns). One line per program:
 *   PROG NAME INSNS XLATED JITED PROCESSED STACK NS     (NS is - when the type cannot be test-run)
 * Usage: measure OBJ REPEAT [--input HEX | --ctx HEX]   (the first input is the one timed) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define LOG_SZ (256 * 1024)
#define MAX_PROGS 64

/* the twin harness's first default input, an IPv4 TCP SYN, for programs given no --input */
static unsigned char pkt[1600] = {
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	0x45, 0, 0, 40, 0x12, 0x34, 0x40, 0, 64, 6, 0x14, 0x9a, 10, 0, 0, 1, 10, 0, 0, 2,
	0x9c, 0x40, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0xff, 0x4e, 0, 0,
};
static size_t pkt_len = 54;
static unsigned char ctxbuf[512], out[1 << 16];
static size_t ctx_len;

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static size_t unhex(const char *s, unsigned char *p, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (s[0] && s[1] && n < max && sscanf(s, "%2x", &v) == 1) {
		p[n++] = (unsigned char)v;
		s += 2;
		if (*s == ':')
			s++;
	}
	return n;
}

/* "stack depth 16+8": the sum over the program's functions */
static long stack_depth(const char *log)
{
	const char *q = strstr(log, "stack depth ");
	long sum = 0;
	char *end;

	if (!q)
		return -1;
	for (q += 12; ; q = end + 1) {
		sum += strtol(q, &end, 10);
		if (end == q || *end != '+')
			break;
	}
	return sum;
}

static long processed(const char *log)
{
	const char *q = strstr(log, "processed ");
	return q ? atol(q + 10) : -1;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per run: the kernel's own time per run (the duration test-run reports), averaged over
 * CALLS test-runs of REPEAT runs each (more for a short program: below). The kernel reports whole ns, coarse for programs of 5-10
 * ns: the mean of several calls is finer. (The wall time of the calls is no measure: it was 2-4 us
 * per repeat here, against tens of ns in the program.) Raw tracepoints take no repeat and report
 * no duration: there it is the wall time of REPEAT calls, syscall included, for both compilers. */
#define CALLS 4
#define REPEAT_NS 10000000u   /* a call's runs take at least this long (ns), */
#define REPEAT_MAX 1000000u   /* with at most this many */
static double run_ns(int fd, enum bpf_prog_type t, int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .repeat = repeat);
	int calls = 1;

	switch (t) {
	case BPF_PROG_TYPE_XDP:
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
		o.data_in = pkt;
		o.data_size_in = pkt_len;
		o.data_out = out;
		o.data_size_out = sizeof(out);
		break;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		if (!ctx_len)
			return -1;
		o.ctx_in = ctxbuf;
		o.ctx_size_in = ctx_len;
		o.repeat = 0;
		calls = repeat;
		break;
	default:
		return -1;
	}
	if (calls > 1) {
		double t0 = now_ns();
		for (int i = 0; i < calls; i++)
			if (bpf_prog_test_run_opts(fd, &o))
				return -1;
		return (now_ns() - t0) / calls;
	}
	/* a short program runs more times a call: the kernel's whole ns are then an average over
	 * at least ~10 ms (each call costs some 30 ms of setup here whatever the repeat, so
	 * this adds little), and a 10 ns program does not move 10% with one run's jitter */
	o.data_size_out = sizeof(out);
	if (bpf_prog_test_run_opts(fd, &o))
		return -1;
	if (o.duration < REPEAT_NS / o.repeat && (unsigned)repeat < REPEAT_MAX) {
		unsigned want = o.duration ? REPEAT_NS / o.duration : REPEAT_MAX;
		o.repeat = want > REPEAT_MAX ? REPEAT_MAX : want < (unsigned)repeat ? (unsigned)repeat : want;
	}
	double sum = 0;
	for (int i = 0; i < CALLS; i++) {
		o.data_size_out = sizeof(out);
		if (bpf_prog_test_run_opts(fd, &o))
			return -1;
		sum += o.duration;
	}
	return sum / CALLS;
}

int main(int argc, char **argv)
{
	static char *logs[MAX_PROGS];
	struct bpf_program *p;
	int n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: measure OBJ REPEAT [--input HEX | --ctx HEX]...\n");
		return 2;
	}
	int repeat = atoi(argv[2]), have_input = 0;
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--input") && !have_input) {
			pkt_len = unhex(argv[i + 1], pkt, sizeof(pkt));
			have_input = 1;
		} else if (!strcmp(argv[i], "--ctx") && !ctx_len) {
			ctx_len = unhex(argv[i + 1], ctxbuf, sizeof(ctxbuf));
		}
	}
	libbpf_set_print(quiet);
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "measure: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct bpf_map *m;
	bpf_object__for_each_map(m, obj) {
		bpf_map__set_pin_path(m, NULL);
	}
	bpf_object__for_each_program(p, obj) {
		if (n == MAX_PROGS)
			break;
		logs[n] = calloc(1, LOG_SZ);
		bpf_program__set_log_buf(p, logs[n], LOG_SZ);
		bpf_program__set_log_level(p, 4 /* BPF_LOG_STATS */);
		n++;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "measure: %s does not load\n", argv[1]);
		return 1;
	}
	n = 0;
	bpf_object__for_each_program(p, obj) {
		if (n == MAX_PROGS)
			break;
		int fd = bpf_program__fd(p);
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
			n++;
			continue;
		}
		double ns = run_ns(fd, bpf_program__type(p), repeat);
		printf("PROG %s %zu %u %u %ld %ld ", bpf_program__name(p), bpf_program__insn_cnt(p),
		       info.xlated_prog_len / 8, info.jited_prog_len, processed(logs[n]), stack_depth(logs[n]));
		if (ns < 0)
			printf("-\n");
		else
			printf("%.2f\n", ns);
		n++;
	}
	bpf_object__close(obj);
	return 0;
}
