/* threads.c — kiln trace's usym test: one thread whose start routine has a name, created
 * once the file argv[1] exists (or after 30 s), then a call of eight arguments (sargN); it
 * stays alive (for the tracers to symbolize addresses) until the file argv[2] exists, or
 * 10 s. */
#include <pthread.h>
#include <unistd.h>
int kt_global = 0x55555555;   /* uaddr("kt_global") */

void *kt_thread_main(void *arg)
{
	return arg;
}

/* arguments 7 and 8 on the stack: sarg0, sarg1 */
__attribute__((noinline)) long kt_many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	for (int i = 0; i < 3000 && access(argv[1], F_OK); i++)
		usleep(10000);
	pthread_t t;
	pthread_create(&t, NULL, kt_thread_main, NULL);
	pthread_join(t, NULL);
	kt_many(1, 2, 3, 4, 5, 6, 7, 8);
	for (int i = 0; i < 1000 && access(argv[2], F_OK); i++)
		usleep(10000);
	return 0;
}
