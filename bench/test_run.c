/* test_run.c — what kiln_prog_test_run costs per call over libbpf's bpf_prog_test_run_opts:
 * the same XDP program, the same 64-byte packet, CALLS calls of each per round with repeat=1,
 * the order of the two loops swapped every round so neither gets the warm caches. Prints ns per
 * call for each and their ratio; bench/test_run.sh builds and runs it. Asserts nothing. */
#include <kiln/kiln.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint8_t pkt[64], out[128];

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per call, or a negative errno */
static double loop_kiln(int fd, long calls)
{
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt), .data_out = out,
				   .repeat = 1 };
	double t0 = now_ns();
	for (long i = 0; i < calls; i++) {
		r.data_size_out = sizeof(out);
		int err = kiln_prog_test_run(fd, &r);
		if (err)
			return err;
	}
	return (now_ns() - t0) / calls;
}

static double loop_libbpf(int fd, long calls)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt), .data_out = out, .repeat = 1);
	double t0 = now_ns();
	for (long i = 0; i < calls; i++) {
		o.data_size_out = sizeof(out);
		int err = bpf_prog_test_run_opts(fd, &o);
		if (err)
			return err;
	}
	return (now_ns() - t0) / calls;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_run PROG.lisp|OBJ.o [CALLS [ROUNDS]]\n");
		return 2;
	}
	long calls = argc > 2 ? atol(argv[2]) : 1000000;
	int rounds = argc > 3 ? atoi(argv[3]) : 4;
	if (calls < 1 || rounds < 1) {
		fprintf(stderr, "test_run: CALLS and ROUNDS must be positive\n");
		return 2;
	}
	struct kiln_object *obj;
	struct kiln_object_opts oo = { .sz = sizeof(oo) };
	if (kiln_object_open(argv[1], &oo, &obj) || kiln_object_load(obj)) {
		fprintf(stderr, "test_run: %s\n", kiln_errmsg());
		return 1;
	}
	struct kiln_prog *p = kiln_object_prog(obj, 0);
	int fd = p ? kiln_prog_fd(p) : -1;
	if (fd < 0) {
		fprintf(stderr, "test_run: %s has no loaded program\n", argv[1]);
		kiln_object_close(obj);
		return 1;
	}
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	printf("program %s (%s), %ld calls per loop, repeat=1, %zu-byte packet\n", kiln_prog_name(p),
	       kiln_prog_type_name(kiln_prog_type(p)), calls, sizeof(pkt));
	printf("%-6s %14s %14s %8s\n", "round", "kiln ns/call", "libbpf ns/call", "ratio");
	double sum_k = 0, sum_l = 0;
	loop_kiln(fd, calls / 10 + 1);          /* warm-up */
	loop_libbpf(fd, calls / 10 + 1);
	for (int r = 0; r < rounds; r++) {
		double k, l;
		if (r % 2) {
			l = loop_libbpf(fd, calls);
			k = loop_kiln(fd, calls);
		} else {
			k = loop_kiln(fd, calls);
			l = loop_libbpf(fd, calls);
		}
		if (k < 0 || l < 0) {
			fprintf(stderr, "test_run: %s\n", k < 0 ? kiln_errmsg() : strerror((int)-l));
			kiln_object_close(obj);
			return 1;
		}
		printf("%-6d %14.1f %14.1f %8.3f\n", r + 1, k, l, k / l);
		sum_k += k, sum_l += l;
	}
	printf("%-6s %14.1f %14.1f %8.3f   (kiln / libbpf: above 1 means kiln costs more)\n", "mean",
	       sum_k / rounds, sum_l / rounds, sum_k / sum_l);
	kiln_object_close(obj);
	return 0;
}
