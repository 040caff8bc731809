/* paced.c — test tool: the getresgid() system call RATE times a second for SECONDS, paced
 * against the clock (every millisecond, the calls due by then), then print how many it made.
 * A steady flood for tests/metrics/flood.lisp, which traces that call: nothing else on the
 * machine makes it, so two runs see the same load. usage: paced RATE SECONDS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atof(argv[1]) <= 0 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: paced RATE SECONDS\n");
		return 2;
	}
	double rate = atof(argv[1]), secs = atof(argv[2]), t0 = now(), t;
	long made = 0;
	gid_t r, e, s;
	while ((t = now() - t0) < secs) {
		for (long due = (long)(rate * t); made < due; made++)
			syscall(SYS_getresgid, &r, &e, &s);
		nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
	}
	printf("%ld\n", made);
	return 0;
}
