/* trace_exec.c — bench/trace_run.py's spawner: trace_exec CMD ARGS... forks and execs CMD and
 * reports, on its standard error (the pipe trace_run.py reads, which CMD writes too):
 *   TRACE_EXEC_START MONOTONIC_NS PID      (the clock read just before the fork)
 *   TRACE_EXEC_END MAXRSS_KB STATUS        (from wait4, once CMD has ended)
 * Why a C program: the peak RSS the kernel reports for a process counts the memory image it
 * had before its exec, and a process forked or vforked from python starts with python's
 * (about 14 MB, more than kiln trace's whole run). Forked from this small program, the
 * floor is this program's own image, well under either tracer's. Only libc: no libkiln. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: trace_exec CMD [ARGS...]\n");
		return 2;
	}
	/* the tracer gets SIGINT by its pid; this program only waits */
	signal(SIGINT, SIG_IGN);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pid_t pid = fork();
	if (pid < 0) {
		perror("trace_exec: fork");
		return 2;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "trace_exec: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	fprintf(stderr, "TRACE_EXEC_START %lld %d\n",
		(long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, (int)pid);
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("trace_exec: wait4");
			return 2;
		}
	}
	fprintf(stderr, "TRACE_EXEC_END %ld %d\n", ru.ru_maxrss, status);
	return 0;
}
