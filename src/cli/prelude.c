/* prelude.c — `kiln prelude`: print the library of macros every program is compiled with,
 * so its definitions can be read and copied. */
#include "cli.h"
#include <kiln/compile.h>
#include <stdio.h>
#include <string.h>

int cmd_prelude(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: kiln prelude\n\nPrint the prelude: the macros and constants (packet library, case,\n"
		       "with-ringbuf, deftracepoint, ...) read before every program. A program may\n"
		       "redefine any of them.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "kiln prelude: takes no arguments\n");
		return 2;
	}
	fputs(kiln_compile_prelude(), stdout);
	return 0;
}
