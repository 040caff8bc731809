/* compile.c — `kiln compile FILE.lisp [-o OUT.o] [-O0|-O1|-O2]`. */
#include "cli.h"
#include "compiler/diag.h"
#include <kiln/compile.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char compile_help[] =
	"usage: kiln compile FILE.lisp [-o OUT.o] [-O0|-O1|-O2] [-fno-PASS]... [--print-after PASS]\n"
	"                    [--dump-ir] [--verify-ir] [-w] [--btf FILE]\n"
	"\n"
	"Compile a kiln source file to a BPF ELF object with BTF, loadable by libbpf,\n"
	"bpftool and iproute2. The output defaults to FILE.o beside the source.\n"
	"\n"
	"  -o OUT.o     write the object to OUT.o\n"
	"  -O0 -O1 -O2  optimisation level (default -O2); -O0 runs only the passes the verifier\n"
	"               needs (unreachable, dce, thread)\n"
	"  -fno-PASS    do not run the optimizer pass PASS (one of those below)\n"
	"  --print-after PASS\n"
	"               print the IR of every function to stderr after each run of PASS\n"
	"  --dump-ir    print the IR of every function to stderr\n"
	"  --verify-ir  check the IR's SSA form (its CFG, dominators, phis, every read's\n"
	"               reaching definition) after every pass; a broken one is an internal error\n"
	"  --btf FILE   take kernel types (core-read, ->, import-kernel-struct...) from FILE\n"
	"               instead of /sys/kernel/btf/vmlinux, which is read only when a program\n"
	"               names a kernel type\n"
	"  -w, --no-warnings\n"
	"               do not print warnings (variables bound and never used, maps no\n"
	"               program uses); they never stop the compile\n";

/* -fno-PASS and --print-after PASS checked before anything is read: 0, or -1 after a message
 * naming the passes there are. */
static int check_passes(const struct cli_list *no, const char *after)
{
	for (int i = 0; i <= no->n; i++) {
		const char *name = i < no->n ? no->items[i] : after;
		if (name && !kiln_compile_has_pass(name)) {
			fprintf(stderr, "kiln compile: no optimizer pass '%s'; the passes:\n%s", name,
				kiln_compile_passes());
			return -1;
		}
	}
	return 0;
}

/* Compile path to out_path with o (its text and warnings filled in here); print its warnings
 * unless quiet, then its error: 0 or 1. */
static int compile_file(const char *path, struct kiln_compile_opts *o, bool quiet)
{
	size_t len;
	char *text = kl_read_file(path, &len);
	if (!text) {
		fprintf(stderr, "kiln: cannot read %s: %s\n", path, kl_read_strerror(errno));
		return 1;
	}
	char *warnings = NULL;
	o->text = text;
	o->text_len = len;
	o->warnings = &warnings;
	int r = kiln_compile(path, NULL, NULL, o);
	if (warnings && !quiet)
		fputs(warnings, stderr);
	/* the compiler's diagnostic whole: file:line:col, the line, a caret */
	if (r)
		fprintf(stderr, "%s\n", *kiln_errlog() ? kiln_errlog() : kiln_errmsg());
	free(warnings);
	free(text);
	return r ? 1 : 0;
}

int cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	int opt = 2;
	bool dump = false, quiet = false, verify = false;
	struct cli_list no = { 0 };
	const char *after = NULL;
	const struct cli_opt opts[] = {
		{ "-o", CLI_STR, &out, "a file name" }, { "-O", CLI_OLEVEL, &opt, NULL },
		{ "-fno-", CLI_PREFIX, &no, "PASS" }, { "--print-after", CLI_STR, &after, "a pass name" },
		{ "--dump-ir", CLI_FLAG, &dump, NULL }, { "--verify-ir", CLI_FLAG, &verify, NULL }, { "--no-warnings|-w", CLI_FLAG, &quiet, NULL },
		{ "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { 0 },
	};
	const char *passes = kiln_compile_passes();   /* from opt.c's own table, all of it */
	char help[sizeof(compile_help) + strlen(passes) + 96];
	snprintf(help, sizeof(help), "%s\noptimizer passes (for -fno-PASS and --print-after), in the order they run:\n%s",
		 compile_help, passes);
	const char *pos[2];
	int npos, r = cli_parse("compile", help, argc, argv, opts, pos, 2, &npos);
	if (r != CLI_OK)
		return r;
	if (npos == 2) {
		fprintf(stderr, "kiln compile: one source file at a time ('%s' and '%s')\n", pos[0], pos[1]);
		return 2;
	}
	if (!npos) {
		fprintf(stderr, "%s", help);
		return 2;
	}
	in = pos[0];
	char *def = NULL;
	if (!out) {
		size_t n = strlen(in);
		const char *dot = strrchr(in, '.');
		size_t stem = dot && dot > strrchr(in, '/') ? (size_t)(dot - in) : n;
		def = malloc(stem + 3);
		if (!def)
			return 1;
		memcpy(def, in, stem);
		strcpy(def + stem, ".o");
		out = def;
	}
	if (check_passes(&no, after)) {
		free(def);
		return 2;
	}
	struct kiln_compile_opts o = { .sz = sizeof(o), .opt_level = opt ? opt : -1, .no_passes = no.items,
				       .no_passes_cnt = (size_t)no.n, .print_after = after, .dump_ir = dump,
				       .verify_ir = verify, .btf_path = cli_btf_path, .out_path = out };
	r = compile_file(in, &o, quiet);
	free(def);
	return r;
}
