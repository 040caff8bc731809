/* check.h — the unit tests' few macros: each check prints "PASS name" or "FAIL name: why"
 * for tests/run to count. */
#ifndef KL_CHECK_H
#define KL_CHECK_H
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

static int check_failures;

#define CHECK(name, cond, ...) do {                                            \
	if (cond) {                                                            \
		printf("PASS %s\n", name);                                     \
	} else {                                                               \
		printf("FAIL %s: ", name);                                     \
		printf(__VA_ARGS__);                                           \
		printf(" (%s:%d)\n", __FILE__, __LINE__);                      \
		check_failures++;                                              \
	}                                                                      \
} while (0)

/* Open file descriptors of this process, for the tests that check nothing leaks one. */
static inline int check_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n : -1;
}

/* A shell command made like printf's output: its exit status, -1 if it did not exit. */
static int check_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static int check_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#define CHECK_DONE() (check_failures ? 1 : 0)
#endif
