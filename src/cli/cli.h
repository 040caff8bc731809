/* cli.h — the subcommands of the kiln binary; each takes its own argv (argv[0] is the
 * subcommand name) and returns the exit status: 0 ok, 1 error, 2 bad usage. */
#ifndef KL_CLI_H
#define KL_CLI_H
#include <kiln/kiln.h>
#include "lib/utf8.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct kl_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_compile(int argc, char **argv);
int cmd_test_run(int argc, char **argv);
int cmd_prelude(int argc, char **argv);
int cmd_disasm(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_prog(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_btf(int argc, char **argv);

/* args.c: options as a table. name may list spellings: "--quiet|-q"; CLI_OLEVEL takes
 * -O0, -O1, -O2 into an int; CLI_PREFIX takes every argument that starts with name ("-fno-")
 * into a list, without the prefix. arg names a value in messages ("a name"). */
enum cli_opt_kind { CLI_FLAG, CLI_STR, CLI_LIST, CLI_OLEVEL, CLI_PREFIX };
struct cli_opt {
	const char *name;
	enum cli_opt_kind kind;
	void *dst;                        /* bool *, const char **, struct cli_list *, int * */
	const char *arg;
};
struct cli_list {
	const char *items[32];
	int n;
};
enum { CLI_OK = -1, CLI_HELP = 0, CLI_USAGE = 2 };
/* Options into their destinations and up to maxpos positional arguments into pos. Returns
 * CLI_OK to go on, or the exit status: CLI_HELP after printing help, CLI_USAGE after a
 * message. Arguments like "-5" are positional (map keys and values). */
int cli_parse(const char *cmd, const char *help, int argc, char **argv, const struct cli_opt *opts,
	      const char **pos, int maxpos, int *npos);

/* disasm.c: the code of the BPF ELF image img (path names it in messages) as `kiln disasm`
 * prints it, text or JSON lines, to out; only: one program or function. Problems go to err.
 * 0, or 1 when something was wrong (the code may still have printed). */
int cli_disasm_image(const char *path, const void *img, size_t size, const char *only, bool json,
		     FILE *out, FILE *err);

/* show.c: keys and values in and out. */
struct btf;
/* s (up to n bytes, to its NUL) as a quoted JSON string: invalid UTF-8 as U+FFFD */
void cli_json_str(FILE *out, const char *s, size_t n);
/* the n bytes at s escaped in style (lib/utf8.h), unquoted */
void cli_escape(FILE *out, const char *s, size_t n, enum kl_esc style);
/* data decoded by BTF type_id when given and of the right size, else an integer (1, 2, 4 or
 * 8 bytes) or hex; text for people or JSON. */
void cli_show(FILE *out, const struct btf *btf, uint32_t type_id, const void *data, size_t size, bool json);
/* An integer (decimal, 0x hex, negative) into size bytes, little-endian; for sizes over 8,
 * 0x followed by exactly 2*size hex digits gives the bytes in order. -EINVAL/-ERANGE. */
int cli_parse_value(const char *s, void *out, size_t size);

/* hist.c: bpftrace's hist()/lhist() drawing, by bucket index as bpftrace numbers them (log2:
 * 0 negative, 1 zero, i >= 2 [2^(i-2), 2^(i-1)); linear: 0 below lo, the last from hi).
 * zero_in_one: log2 bucket 2 holds 0 and 1 (kiln's (log2 x) is 0 for both). div divides the
 * log2 counts (bpftrace's print(@, 0, div)); 1 for none. */
struct cli_hist {
	bool linear, zero_in_one;
	bool key_signed;            /* a map's: its keys are signed integers */
	int64_t lo, hi, step;
};
void cli_hist_print(FILE *out, const struct cli_hist *h, const uint64_t *buckets, uint32_t n, uint64_t div);
void cli_hist_json(FILE *out, const struct cli_hist *h, const uint64_t *buckets, uint32_t n, uint64_t div);
/* A map declared with :display :log2-hist or (:linear-hist LO HI STEP) (8-byte values,
 * integer keys of up to 8 bytes): h, else false. */
bool cli_hist_of_map(struct kiln_object *obj, struct kiln_map *m, struct cli_hist *h);
/* Its buckets read now, in that numbering (per-CPU values summed), as a calloc'ed *n of
 * *count: 0, or -errno with *n NULL (kiln_errmsg() says why, except when no room for the
 * buckets: -ENOMEM, *count 0, no message). Reads only m (any handle on the
 * map: `kiln run --metrics` reads with its own, from its own thread). */
int cli_hist_read(struct kiln_map *m, const struct cli_hist *h, uint64_t **n, uint32_t *count);
/* Both: h and the buckets, or *n NULL after printing the error; false when m is no such map. */
bool cli_hist_map_buckets(struct kiln_object *obj, struct kiln_map *m, struct cli_hist *h, uint64_t **n,
			  uint32_t *count);

/* maps.c: "PATH" (pinned), "id:N" or "name:NAME". Prints the error. */
int cli_map_open_target(const char *cmd, const char *target, struct kiln_map **out);
/* Every entry of m: "KEY => VALUE" lines under a heading, or JSON lines
 * {"map":NAME,"key":...,"value":...}. Arrays list only their non-zero slots unless all. */
int cli_map_print(FILE *out, struct kiln_map *m, bool json, bool all);
/* The same, viewed as `kiln run --interval` shows it: sort "key" (ascending keys, as integers
 * up to 8 bytes, else by bytes) or "value" (ascending u64 values, per-CPU summed, the biggest
 * last as bpftrace prints), top (0: all) keeps only the top entries by value, and clear
 * empties the map after printing (kiln_map_delete_all: arrays are zeroed). */
struct cli_map_view {
	const char *sort;       /* NULL, "key" or "value" */
	uint32_t top;
	bool clear;
	bool per_cpu;           /* per-CPU values one a CPU; else integers summed over the CPUs */
};
int cli_map_print_view(FILE *out, struct kiln_map *m, bool json, const struct cli_map_view *v);

/* version.c: `kiln version`, and the Makefile's VERSION ("0.1.0"); completion.c: `kiln
 * completion bash`. */
int cmd_version(int argc, char **argv);
const char *cli_version(void);
int cmd_completion(int argc, char **argv);

/* doc.c: what `kiln COMMAND --help` prints and the command's option table, read by running
 * the command with --help (cli_parse copies its table into cli_doc_capture), so the man
 * pages and the completion script come from the same texts and tables as --help. main.c
 * fills cli_table with its command table and its usage printer. */
struct cli_table {
	const struct kl_cmd *cmds;
	size_t n;
	void (*usage)(FILE *out);
};
extern struct cli_table cli_table;
enum { CLI_DOC_MAXOPTS = 48 };
struct cli_doc {
	char *help;                       /* --help's text, malloc'd */
	struct cli_opt opts[CLI_DOC_MAXOPTS];/* name, kind, arg; dst is not valid */
	int nopts;
	char names[1024];                 /* the names of opts read from the help text */
};
extern struct cli_doc *cli_doc_capture;
/* 0, or -1 when the command could not be run for its help (message printed). */
int cli_doc_get(const struct kl_cmd *c, struct cli_doc *d);
void cli_doc_free(struct cli_doc *d);
const struct kl_cmd *cli_cmd_find(const char *name);
/* Each spelling an option accepts ("--quiet|-q": 2; -O: -O0, -O1, -O2) into names; their count. */
int cli_opt_spellings(const struct cli_opt *o, char names[][32], int max);
/* Whether spelling a is one of names ("--quiet|-q"). */
bool cli_opt_is(const char *names, const char *a);
/* man.c: `kiln help --man [COMMAND]`, `--commands`, `--options COMMAND`: argv[0] is the
 * flag. Returns the exit status. */
int cli_help_doc(int argc, char **argv);

/* stop.c: a stop (Ctrl-C, SIGTERM) that output nobody reads cannot hold up. cli_stop_watch
 * starts a watchdog thread for the calling (main) thread, before the signal handlers are
 * installed; their first stop calls cli_stop_notify (async-signal-safe). From then on a write
 * of the main thread to a pipe or socket that stays blocked without progress for a
 * quarter of a second is dropped into /dev/null (with a line on stderr when that is not the
 * file), so the stop finishes. cli_stop_dropped: whether fd was. cli_stop_status: rc, or 128
 * + the signal when output was dropped. cmd names kiln's line ("run"). 0, or a negative errno. */
int cli_stop_watch(const char *cmd);
/* The watchdog started, then handler installed for SIGINT and SIGTERM with SA_RESTART: a write
 * the signal finds waiting on a slow reader goes on (glibc's stdio would drop its buffer on
 * EINTR); polls return all the same, and the watchdog ends a write nobody reads. From here on
 * a signal only sets the command's flag: its cleanup always runs. */
void cli_stop_catch(const char *cmd, void (*handler)(int));
void cli_stop_notify(int sig);
bool cli_stop_dropped(int fd);
int cli_stop_status(int rc);

/* One-line error from the library's last failure: "kiln CMD: message". */
void cli_fail(const char *cmd);
/* Open (compiling a kiln source in memory) an object; prints the error, and the compile
 * warnings unless cli_no_warnings (-w, --no-warnings) is set. */
extern bool cli_no_warnings;
/* --btf FILE: the kernel BTF a kiln source's kernel types come from (NULL: the running kernel's). */
extern const char *cli_btf_path;
int cli_object_open(const char *cmd, const char *path, const struct kiln_object_opts *opts,
		    struct kiln_object **out);
/* Load it; on a verifier rejection prints the message, where the source was refused (file:
 * line:col, the line and a caret), the failing instruction, a hint and the verifier's last
 * steps. */
int cli_object_load(const char *cmd, struct kiln_object *obj, const char *path);
/* A rejection as kiln_verifier_error_print() shows it (from the log alone when ve is NULL)
 * with the log lines before the message; with full_log the whole log first instead. */
int cli_verifier_report(FILE *out, const struct kiln_verifier_error *ve, const char *log, bool full_log);
/* Text that quotes source (a verifier log's "; LINE @ FILE:N") with its control bytes but
 * newline and tab shown as \xHH, so the source cannot drive the terminal. */
void cli_put_text(FILE *out, const char *s, size_t len);
/* load.c: attaching every program of a loaded object by its section, and pinning it. */
struct cli_attach {
	const char *iface, *cgroup;
	bool egress;                      /* bare "tc" sections: egress rather than ingress */
	const char *freq, *period;        /* perf_event programs: samples a second, or ns apart */
	const char *sockmap;              /* sk_skb, sk_msg: the object's sockmap/sockhash to attach to */
	const char *netns;                /* flow_dissector, sk_lookup: a netns file (else kiln's own) */
};
/* links[] has one slot per program (NULL where a program has no hook). On failure every
 * link made is destroyed again and the error printed. */
int cli_attach_all(const char *cmd, struct kiln_object *obj, const struct cli_attach *a,
		   struct kiln_link **links, bool quiet);
/* Maps at DIR/maps/NAME, programs at DIR/progs/NAME, links (if given) at DIR/links/NAME;
 * all or nothing. */
int cli_pin_all(const char *cmd, struct kiln_object *obj, const char *dir, struct kiln_link **links);
/* objects.c: --set NAME=VALUE (repeatable) of run, load, test-run and check: the object's
 * global variables set before cli_object_load loads it. 0, or the error said. */
extern struct cli_list cli_sets;
int cli_set_globals(const char *cmd, struct kiln_object *obj);
/* Seconds as in --duration: "5", "1.5", "2s", "100ms". */
int cli_parse_duration(const char *s, double *secs);

#endif
