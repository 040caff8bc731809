/* main.c — the kiln command line: subcommands in a table, git style. Only the CLI prints
 * and exits; the compiler and the library return errors as values. */
#include "cli.h"
#include "host/host.h"
#include "kiln/paths.h"
#include <stdio.h>
#include <string.h>

static const struct kl_cmd cmds[] = {
	{ "compile", cmd_compile, "compile FILE.lisp to a BPF ELF object with BTF" },
	{ "test-run", cmd_test_run, "run a program once or more with BPF_PROG_TEST_RUN and print its maps" },
	{ "disasm", cmd_disasm, "print the instructions of each program with their source lines" },
	{ "check", cmd_check, "load each program into the kernel and unload it: verdict, counts, where it was refused" },
	{ "run", cmd_run, "load, attach every program, stream its events; Ctrl-C detaches and prints the maps" },
	{ "load", cmd_load, "load and pin an object under bpffs (and attach it), for other tools" },
	{ "unload", cmd_unload, "remove what `kiln load` pinned" },
	{ "map", cmd_map, "dump, get, set or delete map entries; list the kernel's maps" },
	{ "prog", cmd_prog, "list the kernel's loaded programs" },
	{ "btf", cmd_btf, "print the BTF types of an object, a raw BTF file or a BTF object in the kernel" },
	{ "probe", cmd_probe, "what the running kernel supports: program and map types, helpers, features" },
	{ "doctor", cmd_doctor, "check this machine has what kiln needs, with a fix for each thing missing" },
	{ "stack", cmd_stack, "print a stack-trace map entry, symbolized" },
	{ "repl", cmd_repl, "read, evaluate and print kiln Lisp a form at a time: load, attach, read maps" },
	{ "trace", cmd_trace, "run a bpftrace program (bpftrace 0.17's language) on kiln's compiler" },
	{ "gen", cmd_gen, "write C, Python, Go, Rust or Lisp types for an object's maps and events, or a C skeleton" },
	{ "prelude", cmd_prelude, "print the prelude of macros (packet library, case, ...) programs use" },
	{ "version", cmd_version, "print kiln's version (--json: with libbpf's and the kernel's)" },
	{ "completion", cmd_completion, "print the bash completion script for kiln" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: kiln COMMAND [ARGS...]\n\nkiln compiles a Lisp to eBPF.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-11s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n'kiln help COMMAND' or 'kiln COMMAND --help' describes one command,\n"
		     "'kiln help --man [COMMAND]' prints its man page, 'kiln --version' kiln's version.\n");
	fprintf(out, "\nenvironment:\n  KILN_MAX_INPUT=MB  the largest input file (source or object) kiln reads, in MB\n"
		     "                     (default 64); pipes and devices are capped while reading\n");
}

/* libkiln mounts tracefs or bpffs where they are missing (kiln/paths.h): say so, once each */
static void mount_notice(const char *msg, void *ctx)
{
	fprintf(stderr, "kiln: %s\n", msg);
}

int main(int argc, char **argv)
{
	kiln_set_mount_notice(mount_notice, NULL);
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "bpftrace"))   /* started as bpftrace: kiln trace */
		return cli_stop_status(cmd_trace(argc, argv));
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cli_table = (struct cli_table){ cmds, sizeof(cmds) / sizeof(cmds[0]), usage };
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version"))
		return cmd_version(argc - 1, argv + 1);
	bool help = !strcmp(name, "help");
	if (help) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		name = argv[2];
		if (name[0] == '-')   /* --man, --commands, --options: the docs made from the table */
			return cli_help_doc(argc - 2, argv + 2);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name)) {
			if (help) {
				char *hargv[] = { argv[2], "--help", NULL };
				return cmds[i].fn(2, hargv);
			}
			return cli_stop_status(cmds[i].fn(argc - 1, argv + 1));
		}
	fprintf(stderr, "kiln: unknown command '%s'\n", name);
	usage(stderr);
	return 2;
}
