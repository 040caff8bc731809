/* naps.c — test tool for run-queue latency: sleep N times for USEC microseconds each (every
 * nap a switch out, a wakeup and a switch back in), then run two threads pinned to one CPU
 * that spin for SPIN_MS milliseconds each, so that the scheduler preempts them in turn (every
 * preemption a switch out still runnable, and a switch back in). Prints its pid, how many
 * times it was switched out (voluntarily or not, from getrusage, every thread) while napping,
 * while spinning, and in all since it was forked (before its exec too); each switch out is
 * followed by a switch back in. With HOLD, it then waits for end of file on its standard input
 * before it exits, so that a test can read what was counted of it while it is switched out and
 * nothing of its exit has happened yet.
 * usage: naps N USEC [SPIN_MS [HOLD]] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long spin_ms;
static int cpu;

static long switches(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_nvcsw + ru.ru_nivcsw;
}

/* how many threads the process has now (its entries in /proc/self/task), or -1 */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return (void *)1;
	double end = now_ms() + spin_ms;
	while (now_ms() < end)
		;
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5 || (argc == 5 && strcmp(argv[4], "HOLD"))) {
		fprintf(stderr, "usage: naps N USEC [SPIN_MS [HOLD]]\n");
		return 2;
	}
	long n = atol(argv[1]), us = atol(argv[2]);
	spin_ms = argc >= 4 ? atol(argv[3]) : 0;
	cpu = sched_getcpu() < 0 ? 0 : sched_getcpu();
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	long before = switches();
	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	long napped = switches();
	if (spin_ms > 0) {
		pthread_t t[2];
		void *r0 = NULL, *r1 = NULL;
		if (pthread_create(&t[0], NULL, spin, NULL) || pthread_create(&t[1], NULL, spin, NULL))
			return 1;
		pthread_join(t[0], &r0);
		pthread_join(t[1], &r1);
		if (r0 || r1)
			return 1;
		/* a joined thread may still be exiting (its tid is cleared before it is released):
		 * wait until it is gone, so that its switches are in the count below (5 s at most) */
		for (int i = 0; i < 5000 && threads() > 1; i++)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	long after = switches();
	if (before < 0 || napped < 0 || after < 0)
		return 1;
	printf("%d %ld %ld %ld\n", (int)getpid(), napped - before, after - napped, after);
	if (argc == 5) {
		char buf[64];
		fflush(stdout);
		while (read(0, buf, sizeof buf) > 0)
			;
	}
	return 0;
}
