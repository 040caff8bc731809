/* trace.h — `kiln trace`'s output in bpftrace's text format: printf records formatted in user
 * space from the side table's format strings, and maps printed as bpftrace prints them
 * (`@name[key]: value`, hist/lhist bars, avg and stats lines), sorted as bpftrace sorts. */
#ifndef KL_CLI_TRACE_H
#define KL_CLI_TRACE_H
#include <kiln/kiln.h>
#include <stdio.h>
#include <time.h>
#include "trace/gen.h"

/* The output of one running script: what its records and maps are printed with. trace.c's
 * run makes it and hands it to every printer here, so that nothing of a script's output
 * lives in a static (two scripts could run in one process); trace_out_free ends it. */
struct trace_out {
	const struct kt_sema *s;    /* the script: its maps, probes and types */
	bool json;                  /* -f json: bpftrace's JSON lines */
	bool terminal;              /* text output to a terminal: string values escaped */
	struct kiln_map *stacks;    /* the :stack-trace map kstack and ustack values are read from */
	struct kiln_syms *syms;     /* the symbolizer, made at the first stack or symbol printed */
	struct timespec boot;       /* the wall time at boot (strftime()), read at its first use */
	bool have_boot;
};

/* What o made as it printed (the symbolizer). */
void trace_out_free(struct trace_out *o);

/* printf's record rec (of site) to out. */
void trace_printf(FILE *out, const struct kt_site *site, struct trace_out *o, const uint8_t *rec, size_t size);
/* One map as bpftrace prints it at exit or on print(@map, top, div): only the top entries
 * (the last ones in bpftrace's order) when top is not 0, values divided by div when it is
 * not 0. 0, or a negative errno. */
int trace_print_map(FILE *out, struct trace_out *o, uint32_t index, struct kiln_map *m, uint32_t top,
		    uint32_t div);
/* One value of type t at p as bpftrace prints it (a key, a map's value, printf's %s); a
 * stack's frames indented by indent (4 in a key, 8 elsewhere). */
void trace_put_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent);
/* text (malloc'd) as it goes to o's output: itself, or, when that is a terminal, a malloc'd
 * copy with the control bytes but newline and tab as \xHH (text is freed). String values
 * (comms, str()) are written so by trace_put_value; this is for text printf has formatted. */
char *trace_for_terminal(const struct trace_out *o, char *text);
/* The BPFTRACE_* settings into s (defaults where unset); 0, or -1 after an error on err. */
int trace_env(struct kt_sema *s, FILE *err);
/* The script's config block (trace_config.c) into s: 0, or -1 with the error in d (or, for
 * a value out of a setting's bounds, on stderr in the environment's words). */
int trace_config(const struct kt_program *prog, struct kt_sema *s, struct kl_diag *d);
/* BPFTRACE_MAX_PROBES and BPFTRACE_MAX_BPF_PROGS against s's targets; 0, or -1 after an
 * error on err, in bpftrace's words. */
int trace_limits(const struct kt_sema *s, FILE *err);
/* When kiln's compiler refused the generated program (msg, its error) for a size the kernel
 * bounds (a program's 512-byte stack, its jumps' reach), the error at the probe that made
 * that program, in d: 0. -1 for any other failure (the compiler's own error, spanning the
 * script, is the one to show). */
int trace_compile_limit(const struct kt_program *prog, const struct kt_sema *s, const char *msg, struct kl_diag *d);
/* The same value as bpftrace writes it in JSON (a tuple as an array). */
void trace_put_json_value(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o);
/* s (n bytes) as a JSON string, with bpftrace's escapes; bytes that are not UTF-8 (a comm may
 * hold any) as U+FFFD, so that the line still parses (lib/utf8.h). */
void trace_json_str(FILE *out, const char *s, size_t n);
/* Whether bpftrace writes a value of type t as a JSON string; whether it prints a map of
 * them without a newline between entries (stacks and symbols). */
bool trace_value_quoted(const struct kt_type *t);
bool trace_value_joined(const struct kt_type *t);
/* cgroup_path()'s value, a trace_put_value printer. */
void trace_put_cgroup_path(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent);
/* A whole struct the script defines, a trace_put_value printer (trace_struct.c). */
void trace_put_struct(FILE *out, const struct kt_type *t, const uint8_t *p, struct trace_out *o, int indent);
/* print(value), system() and cat() records (trace_user.c); exits when --unsafe is missing
 * is sema's. */
void trace_user_record(FILE *out, const struct kt_site *site, struct trace_out *o, const uint8_t *rec, size_t size);
/* {"type": TYPE, "data": "TEXT"} (printf, time, ...). */
void trace_json_message(FILE *out, const char *type, const char *text, size_t n);
/* clear(@m) deletes every entry; zero(@m) sets every value to 0. */
int trace_clear_map(struct kiln_map *m, bool zero);

/* A buf() value: how 'r' as %r (printable bytes as themselves, others \xHH), 'x' every
 * byte as \xHH (%rx), 'h' as hex pairs separated by spaces (%rh). */
void trace_put_buf(FILE *out, const struct kt_type *t, const uint8_t *p, char how);
/* -l [SEARCH], -lv, -l -p PID: the probes kiln trace can name (trace_list.c); an exit status. */
int trace_list(const char *search, bool verbose, const char *pid_text);
/* --info: what this kernel and kiln offer kiln trace (trace_info.c); an exit status. */
int trace_info(void);
/* -k: a helper's failure record (id, return value) as bpftrace 0.17's WARNING at the script's
 * place, or its JSON line (trace_herr.c). */
void trace_helper_error(FILE *out, const struct kt_site *site, bool json, const uint8_t *rec, size_t size);
/* A watchpoint target's attach options (trace_watch.c): its breakpoint, in process pid (0:
 * the kernel's, on every CPU). */
void trace_watch_opts(const struct kt_target *t, pid_t pid, struct kiln_attach_opts *o);
/* -p's or -c's program into buf (watchpoint:FUNCTION's file); NULL without either. */
const char *trace_watch_binary(const char *command, const char *pid_text, char *buf, size_t len);
/* A KT_EV_WATCH record: the deferred watchpoint target at addr, attached in process pid
 * (once per address; out of registers: bpftrace's message on out), then the process let go
 * on (SIGCONT) unless asyncwatchpoint. The links are kept in *w. 0, or -1 (said). */
struct trace_watch;
int trace_watch_attach(struct trace_watch **w, struct kiln_object *obj, const struct kt_sema *s, uint32_t target,
		       uint64_t addr, pid_t pid, FILE *out, bool json);
void trace_watch_free(struct trace_watch *w);
/* unwatch(addr): the breakpoints at addr detached. */
void trace_watch_unwatch(struct trace_watch *w, uint64_t addr);

#endif
