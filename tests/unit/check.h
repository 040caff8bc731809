/* check.h — the unit tests' few macros: each check prints "PASS name" or "FAIL name: why"
 * for tests/run to count. */
#ifndef KL_CHECK_H
#define KL_CHECK_H
#include <stdio.h>

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

#define CHECK_DONE() (check_failures ? 1 : 0)
#endif
