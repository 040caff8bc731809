/* flood_work.c — bench/flood.sh's workload: N getpid() calls as fast as they go. Prints on
 * its standard error, once done:
 *   FLOOD_WORK PID N LOOP_NS START_REALTIME_NS END_REALTIME_NS
 * LOOP_NS is the loop's CLOCK_MONOTONIC time; the realtime clock lets flood.sh relate the
 * loop to the tracer's end. Only libc. Usage: flood_work N */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	long long rs = ns(CLOCK_REALTIME), t0 = ns(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);   /* not libc's getpid(): never cached */
	long long t1 = ns(CLOCK_MONOTONIC), re = ns(CLOCK_REALTIME);
	fprintf(stderr, "FLOOD_WORK %d %ld %lld %lld %lld\n", (int)getpid(), n, t1 - t0, rs, re);
	return 0;
}
