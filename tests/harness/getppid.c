/* getppid.c — test tool: make the getppid() system call N times (a trigger for tracepoint
 * tests on sys_enter_getppid), then print N. usage: getppid N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("%ld\n", n);
	return 0;
}
