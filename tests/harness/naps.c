/* naps.c — test tool: sleep N times for USEC microseconds each (every nap a switch out, a
 * wakeup and a switch back in), then print its pid and how many times it was switched out
 * (voluntarily and not, from getrusage), each of which it was switched back in from.
 * usage: naps N USEC */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: naps N USEC\n");
		return 2;
	}
	long n = atol(argv[1]), us = atol(argv[2]);
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 1;
	printf("%d %ld\n", (int)getpid(), ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}
