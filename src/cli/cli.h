/* cli.h — the subcommands of the kiln binary; each takes its own argv (argv[0] is the
 * subcommand name) and returns the exit status: 0 ok, 1 error, 2 bad usage. */
#ifndef KL_CLI_H
#define KL_CLI_H
#include <stdbool.h>

struct kl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_compile(int argc, char **argv);
int cmd_test_run(int argc, char **argv);
int cmd_prelude(int argc, char **argv);

/* Compile a .lisp file to out_path (a temporary object when out_path is NULL is not
 * supported: callers choose a path). Prints errors; returns 0 or 1. */
int cli_compile_file(const char *path, const char *out_path, int opt_level, bool dump_ir);
bool cli_is_lisp(const char *path);

#endif
