/* trace.c — `kiln trace`: bpftrace's language (0.17's and 0.26's) on kiln's compiler: the
 * command's options, the script read (-e, a file, stdin) with its #includes, parsed, typed
 * and turned into kiln Lisp nodes (src/trace/), compiled in memory by kiln's own compiler,
 * then printed (-d), written (--emit) or run (trace_run.c: loaded, attached, its records
 * printed, END, the maps). */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include "trace_fmt.h"
#include "compiler/diag.h"
#include "compiler/reader.h"
#include "lib/compile.h"
#include "trace/parser.h"
#include "trace/cdefine.h"
#include <ctype.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wordexp.h>
#include "cli/trace_more.h"
#include "cli/trace_run.h"

static const char trace_help[] =
	"USAGE:\n"
	"    kiln trace [OPTIONS] FILE.bt|- [ARGS...] [-- [ARGS...] [--NAME[=VALUE]...]]\n"
	"    kiln trace [OPTIONS] -e 'PROGRAM' [ARGS...] [-- [ARGS...] [--NAME[=VALUE]...]]\n"
	"    kiln trace -l [SEARCH] | -lv [SEARCH]\n"
	"\n"
	"Run a bpftrace program (0.26's meaning, or 0.17's) on kiln's compiler: no LLVM. The\n"
	"program is translated to kiln Lisp, compiled in memory, loaded and attached; `Attaching N\n"
	"probes...` is printed, printf output streams until exit() or Ctrl-C/SIGTERM, then END\n"
	"runs and every map is printed in bpftrace's format. ARGS are the positional parameters\n"
	"$1, $2, ... ($# counts); after --, --NAME=VALUE (or a bare --NAME) are the named options\n"
	"getopt(\"NAME\", ...) reads.\n"
	"After Ctrl-C or SIGTERM, output nobody reads (a stalled pipe) is dropped once a write has\n"
	"made no progress for a quarter of a second, and the exit status is 130 (SIGTERM: 143).\n"
	"SIGUSR1 prints every map as it stands, and the trace goes on.\n"
	"\n"
	"OPTIONS:\n"
	"  -e PROGRAM      the program text (named `stdin` in messages, as bpftrace names it)\n"
	"  -l [SEARCH]     list probes matching the glob SEARCH: tracepoint, rawtracepoint, kprobe,\n"
	"                  kfunc (kernel functions from BTF), software, hardware; kretprobe,\n"
	"                  kretfunc, uprobe:FILE:GLOB and usdt:FILE:GLOB when asked; -lv with fields\n"
	"                  of tracepoints and arguments of kfuncs\n"
	"  -p PID          uprobes and usdt fire in process PID only; the trace ends when PID exits\n"
	"  -c CMD          run CMD (split into words, no shell) once the probes are attached; its exit\n"
	"                  ends the trace; cpid is its pid\n"
	"  --include FILE  read FILE's #defines as an #include <FILE> of the program would (repeatable)\n"
	"  -q              quiet: no `Attaching N probes...`\n"
	"  -v              accepted (bpftrace's verbose); with -l, as -lv\n"
	"  -k              report a bpf helper's failure at run time, as bpftrace's warning line\n"
	"                  (every helper but the reads and map lookups)\n"
	"  -kk             ... and reads' and map lookups' failures too (a key not in the map)\n"
	"  -d              print the generated kiln Lisp and exit\n"
	"  -dd             print it, then the BPF instructions kiln compiled it to, and exit\n"
	"  --dry-run       translate and compile, do not load\n"
	"  --emit FILE.o   write the compiled object (a kiln/libbpf ELF object) and exit\n"
	"  -o FILE         write the output to FILE instead of stdout\n"
	"  -B MODE         the output's buffering: none, line or full\n"
	"  -I DIR          look for #include's headers in DIR first (repeatable)\n"
	"  --probe-filter REGEX  attach only the probes whose name REGEX matches (BEGIN, END kept)\n"
	"  --no-warnings   accepted (kiln trace prints none of bpftrace's warnings)\n"
	"  -f json|text    the output as bpftrace's JSON lines (printf, time, maps, hist, stats)\n"
	"  --info          what this kernel offers kiln trace (map and probe types, lockdown)\n"
	"  -V, --version   kiln's version and the bpftrace language version\n"
	"  --unsafe        allow system(), signal() and override() (bpftrace's unsafe functions)\n"
	"  --dialect V     the meaning of a script where bpftrace's versions differ: 0.26 (today's,\n"
	"                  the default) or 0.17 (docs/trace.md lists the differences)\n"
	"  -h, --help      this text\n"
	"\n"
	"Supported so far: probes BEGIN, END, tracepoint:CAT:NAME (wildcards; args->FIELD),\n"
	"rawtracepoint:NAME (arg0..), interval:s|ms|us|hz:N, profile:hz|s|ms|us:N,\n"
	"software|hardware:EVENT[:COUNT], uprobe/uretprobe:FILE|LIB:FUNC (wildcards, +OFFSET,\n"
	"an address), kprobe/kretprobe:FUNC (wildcards, +OFFSET; refused at attach where the\n"
	"kernel has no kprobes), kfunc/kretfunc:FUNC (args->NAME, retval; refused at load under\n"
	"lockdown), usdt:FILE:[PROVIDER:]NAME (arg0..); builtins pid tid uid gid\n"
	"nsecs elapsed cpu comm probe func cpid kstack ustack curtask arg0-arg5 retval sarg0-sarg9\n"
	"rand username cgroup ppid ncpus jiffies pcomm leader_tid leader_comm has_cpid probetype\n"
	"default_str_length; struct access through BTF (curtask->real_parent->pid, args->ptr->field,\n"
	"(struct NAME *) casts, .field); printf time print (maps and values) clear zero delete exit\n"
	"str join ksym kaddr usym uaddr strftime cat system signal reg cgroup_path ntop pton buf\n"
	"bswap macaddr strncmp strcontains cgroupid sizeof offsetof has_key len getopt strlen\n"
	"is_literal is_integer is_unsigned_integer is_str is_ptr is_array count sum avg min max stats\n"
	"hist lhist;\n"
	"maps keyed by integers, strings, stacks and several keys; $variables; tuples (.0, nested);\n"
	"*p, p[N], (uint32 *) casts, sizeof; if/else, ternary, unroll, while (break, continue),\n"
	"predicates, integer casts; integer #defines of the script and of the /usr/include headers\n"
	"it #includes (AF_INET, O_CREAT), the kernel's enumerators and task states (TASK_RUNNING).\n"
	"The rest of the language parses and is refused with `not supported yet by kiln trace`\n"
	"at its position (docs/trace.md).\n"
	"\n"
	"ENVIRONMENT:\n"
	"  BPFTRACE_STRLEN         bytes of str() (default 64, at most 200)\n"
	"  BPFTRACE_MAP_KEYS_MAX   entries of each map (4096)\n"
	"  BPFTRACE_MAX_PROBES     most probes a program may attach (512)\n"
	"  BPFTRACE_MAX_BPF_PROGS  most programs it may make (512)\n"
	"  BPFTRACE_PERF_RB_PAGES  the ring buffer in pages per CPU (unset: 64 a CPU, 8 MiB at least)\n"
	"  BPFTRACE_CAT_BYTES_MAX  most bytes cat() prints (10240)\n";

/* ---- the command ---- */

struct opts {
	const char *prog_text, *file, *emit, *output, *list_glob, *command, *pid_text;
	bool list, list_verbose, dry_run, unsafe, json;   /* json: -f json */
	bool quiet, verbose;        /* -q, -v */
	enum kt_dialect dialect;    /* --dialect */
	int helper_checks;          /* -k: 1, -kk: 2 (src/trace/gen_check.c) */
	int debug;                  /* -d: the generated Lisp; -dd: and the BPF instructions */
	const char **params, **includes, **named;   /* named: --name[=value] after -- (getopt) */
	int nparams, nincludes, nnamed;
	pid_t pid;                  /* -p */
	struct trace_more more;     /* bpftrace 0.26's options (trace_more.h) */
};

/* -p's PID as bpftrace checks it: a decimal number within the kernel's pid range, of a
 * process that exists. 0, or 1 with bpftrace's message. */
static int check_pid(struct opts *o)
{
	const char *t = o->pid_text;
	char *end;
	errno = 0;
	long v = strtol(t, &end, 10);
	if (!*t || *end || errno == ERANGE || isspace((unsigned char)*t)) {
		fprintf(stderr, "ERROR: pid '%s' is not a valid decimal number\n", t);
		return 1;
	}
	if (v < 1 || v > 4 * 1024 * 1024) {
		fprintf(stderr, "ERROR: pid '%s' out of valid pid range [1,%d]\n", t, 4 * 1024 * 1024);
		return 1;
	}
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		fprintf(stderr, "ERROR: pid %ld: %s\n", v, strerror(ESRCH));
		return 1;
	}
	o->pid = (pid_t)v;
	return 0;
}

/* -q, -k, -kk, -v, alone or together (-kk -q, -ve 'PROGRAM'), as bpftrace 0.17 takes them.
 * -q drops `Attaching N probes...`; -v alone also makes -l verbose (-l -v); kiln prints
 * nothing more for -v (its programs are not verified with a log to show). -k/-kk: bpftrace's
 * warnings when a helper fails (src/trace/gen_check.c, trace_herr.c). Whether the flags end with e (its program is the next word). */
static bool short_flags(const char *a, struct opts *o)
{
	bool e = false;
	for (const char *c = a + 1; *c; c++) {
		if (*c == 'q')
			o->quiet = true;
		else if (*c == 'v')
			o->verbose = o->list_verbose = true;
		else if (*c == 'k')
			o->helper_checks++;
		else
			e = true;
	}
	return e;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	o->params = calloc((size_t)argc + 1, sizeof(*o->params));
	o->includes = calloc((size_t)argc + 1, sizeof(*o->includes));
	o->named = calloc((size_t)argc + 1, sizeof(*o->named));
	if (!o->params || !o->includes || !o->named)
		return 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool have_prog = o->prog_text || o->file;
		static const char *const with_arg[] = { "-e", "-o", "-c", "-p", "--emit", "--include" };
		const char **dest[] = { &o->prog_text, &o->output, &o->command, &o->pid_text, &o->emit, NULL };
		size_t w = 0;
		while (w < sizeof(with_arg) / sizeof(with_arg[0]) && strcmp(a, with_arg[w]))
			w++;
		if (have_prog && (a[0] != '-' || !a[1])) {
			o->params[o->nparams++] = a;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(trace_help, stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("kiln trace %s: bpftrace v0.26's language, and bpftrace v0.17.0's with --dialect 0.17, "
			       "on kiln's compiler\n", cli_version());
			return 0;
		} else if (!strcmp(a, "--info")) {
			return trace_info();
		} else if (w < sizeof(with_arg) / sizeof(with_arg[0])) {
			if (i + 1 >= argc) {
				fprintf(stderr, "kiln trace: %s needs an argument\n%s", a, trace_help);
				return 2;
			}
			if (dest[w])
				*dest[w] = argv[++i];
			else
				o->includes[o->nincludes++] = argv[++i];
		} else if (!strcmp(a, "-f")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "kiln trace: -f takes json or text\n");
				return 2;
			}
			if (strcmp(argv[i + 1], "json") && strcmp(argv[i + 1], "text")) {   /* bpftrace's words */
				fprintf(stderr, "ERROR: Invalid output format \"%s\"\nValid formats: 'text', 'json'\n", argv[i + 1]);
				return 1;
			}
			o->json = !strcmp(argv[++i], "json");
		} else if (!strcmp(a, "-l") || !strcmp(a, "-lv") || !strcmp(a, "-vl")) {
			o->list = true;
			o->list_verbose = o->list_verbose || strlen(a) == 3;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				o->list_glob = argv[++i];
		} else if (a[0] == '-' && strspn(a + 1, "qkv") == strlen(a + 1) - (a[strlen(a) - 1] == 'e')
			   && strlen(a) > 1 + (a[strlen(a) - 1] == 'e')) {
			if (short_flags(a, o) && ++i >= argc) {
				fprintf(stderr, "kiln trace: -e needs an argument\n%s", trace_help);
				return 2;
			}
			if (a[strlen(a) - 1] == 'e')
				o->prog_text = argv[i];
		} else if (!strcmp(a, "-d") || !strcmp(a, "-dd")) {
			o->debug = (int)strlen(a) - 1;
		} else if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
		} else if (!strcmp(a, "--unsafe")) {
			o->unsafe = true;
		} else if (!strcmp(a, "--dialect")) {
			const char *v = i + 1 < argc ? argv[++i] : "";
			if (strcmp(v, "0.17") && strcmp(v, "0.26")) {
				fprintf(stderr, "kiln trace: --dialect takes 0.17 or 0.26\n");
				return 2;
			}
			o->dialect = !strcmp(v, "0.17") ? KT_DIALECT_017 : KT_DIALECT_026;
		} else if (!strcmp(a, "--")) {   /* the rest: the file (without -e), then the parameters */
			for (i++; i < argc; i++)
				if ((o->prog_text || o->file) && o->dialect == KT_DIALECT_026 && !strncmp(argv[i], "--", 2) && argv[i][2])
					o->named[o->nnamed++] = argv[i];   /* bpftrace 0.26's named options */
				else
					*(o->prog_text || o->file ? &o->params[o->nparams++] : &o->file) = argv[i];
		} else if (a[0] != '-' || !strcmp(a, "-")) {
			o->file = a;
		} else if ((w = (size_t)(trace_more_arg(&o->more, argc, argv, &i) + 1)) != 1) {
			if (!w)
				return 2;
		} else {
			fprintf(stderr, "kiln trace: unknown option %s\n%s", a, trace_help);
			return 2;
		}
	}
	if (o->pid_text && check_pid(o))
		return 1;
	if (o->pid_text && o->command) {
		fprintf(stderr, "kiln trace: -p and -c cannot be used together\n");
		return 2;
	}
	return -1;
}

/* -d: the generated nodes as kiln Lisp (in 100 columns), each map's comment after it and
 * each program's, its probe, on a line of its own before it, after a blank line. */
static void print_gen(const struct kt_gen *g, FILE *f)
{
	fputs(";; generated by kiln trace from a bpftrace program\n", f);
	for (uint32_t i = 0; i < g->nforms; i++) {
		const char *head = kl_head(g->forms[i]), *note = g->notes[i];
		bool prog = head && !strcmp(head, "defprog");
		if (prog)
			fprintf(f, "\n%s%s%s", note ? "; " : "", note ? note : "", note ? "\n" : "");
		kl_node_print(f, g->forms[i], 100);
		fprintf(f, "%s%s\n", note && !prog ? " ; " : "", note && !prog ? note : "");
	}
}

/* The source: -e's text (named stdin), a file, or standard input for "-". */
static char *read_source(const struct opts *o, const char **name, size_t *len)
{
	if (o->prog_text) {
		*name = "stdin";
		*len = strlen(o->prog_text);
		return strdup(o->prog_text);
	}
	if (!strcmp(o->file, "-")) {
		*name = "stdin";
		return kl_read_fd(0, len);
	}
	*name = o->file;
	return kl_read_file(o->file, len);
}

/* --include FILE's #defines into the script's table (cdefs), read as an `#include <FILE>`
 * line before the program's own lines, as bpftrace reads them. 0, or 1 said. */
static int read_includes(const struct opts *o, struct kt_cdefs *cdefs)
{
	for (int i = 0; i < o->nincludes; i++) {
		char line[4200], why[512];
		int n = snprintf(line, sizeof(line), "#include <%s>", o->includes[i]);
		if (kt_cdef_line(cdefs, line, (size_t)n, why, sizeof(why))) {
			fprintf(stderr, "kiln trace: --include %s: %s\n", o->includes[i], why);
			return 1;
		}
	}
	return 0;
}

/* --emit: the compiled object written to path. 0, or 1 said. */
static int write_object(const char *path, const void *elf, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(elf, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "kiln trace: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* The compiled program run with its output in -o's file (or stdout) (trace_run.c). 0, or 1
 * said. */
static int trace_run(const struct opts *o, const struct kt_sema *s, const struct kt_gen *g, const void *elf,
		     size_t size)
{
	FILE *out = stdout;
	if (o->output && !(out = fopen(o->output, "w"))) {
		fprintf(stderr, "kiln trace: cannot write %s: %s\n", o->output, strerror(errno));
		return 1;
	}
	trace_more_out(&o->more, out);
	int rc = trace_run_compiled(s, g, elf, size, out, o->command, o->pid, o->json, o->quiet);
	if (out != stdout)
		fclose(out);
	return rc;
}

/* The program read, parsed, checked, compiled, then printed (-d), written (--emit) or run.
 * o is the command's options (its arrays stay the caller's). */
static int trace_script(struct opts o)
{
	const char *name;
	size_t len;
	char *text = read_source(&o, &name, &len);
	if (!text) {   /* bpftrace's wording, which its runtime tests check */
		fprintf(stderr, "ERROR: failed to open file '%s': %s\n", o.file ? o.file : "-", kl_read_strerror(errno));
		return 1;
	}
	struct kl_source src = { name, text, len };
	char procbin[4096], procroot[64];
	snprintf(procroot, sizeof(procroot), "/proc/%d/root", (int)o.pid);   /* (-p checked: a live pid) */
	struct kl_arena a = { 0 };
	struct kl_diag d = { 0 };
	jmp_buf oom;
	struct kt_cdefs cdefs = { .dirs = o.more.idirs };
	struct kt_program prog = { .cdefs = &cdefs };
	struct kt_sema s = { .params = o.params, .nparams = o.nparams, .named = o.named, .nnamed = o.nnamed,
			  .has_child = o.command != NULL, .unsafe = o.unsafe, .dialect = o.dialect,
			  .helper_checks = o.helper_checks > 2 ? 2 : o.helper_checks,
			  .proc = { trace_watch_binary(o.command, o.pid_text, procbin, sizeof(procbin)),
				    o.pid > 0 ? procroot : NULL } };
	struct kt_gen g = { 0 };
	void *elf = NULL;
	size_t size = 0;
	int rc = 1;
	if (trace_env(&s, stderr))
		goto out;
	if (setjmp(oom)) {
		fprintf(stderr, "kiln trace: out of memory\n");
		goto out;
	}
	a.oom = &oom;
	if (read_includes(&o, &cdefs))
		goto out;
	if (kt_parse(&src, &a, &d, &prog) || trace_config(&prog, &s, &d) || kt_sema(&prog, &s, &a, &d)) {
		kl_diag_print(&d, stderr);
		goto out;
	}
	if (trace_more_filter(&o.more, &s) || trace_limits(&s, stderr))   /* before a wildcard's thousands of programs are written */
		goto out;
	if (kt_gen(&prog, &s, &a, &d, &g)) {
		kl_diag_print(&d, stderr);
		goto out;
	}
	if (o.debug) {
		print_gen(&g, stdout);
		rc = 0;
		if (o.debug == 1)
			goto out;
	}
	struct kl_diag cd = { 0 };   /* the compiler's: its error spans the script, as the generated nodes do */
	if (kl_compile_forms_to_mem(&src, g.forms, g.nforms, 2, &cd, &elf, &size)) {
		if (cd.err || trace_compile_limit(&prog, &s, cd.msg, &d))   /* else the limit, in bpftrace's terms */
			d = cd;
		kl_diag_print(&d, stderr);
		rc = 1;
		goto out;
	}
	if (o.debug) {   /* -dd: what kiln's compiler made of it, as `kiln disasm` prints it */
		printf("\n;; the BPF instructions\n");
		fflush(stdout);
		rc = cli_disasm_image("kiln-trace", elf, size, NULL, false, stdout, stderr);
		goto out;
	}
	rc = o.emit ? write_object(o.emit, elf, size) : o.dry_run ? 0 : trace_run(&o, &s, &g, elf, size);
out:
	free(elf);
	kl_arena_free(&a);
	kt_cdef_free(&cdefs);
	free(text);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	struct opts o = { 0 };
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0) {
		/* -h, --version, --info, or a wrong argument: done */
	} else if (o.list) {
		rc = trace_list(o.list_glob, o.list_verbose, o.pid_text);
	} else if (!o.prog_text && !o.file) {
		fputs(trace_help, stderr);
		rc = 2;
	} else {
		rc = trace_script(o);
	}
	free(o.params);
	free(o.includes);
	free(o.named);
	free(o.more.idirs);
	return rc;
}
