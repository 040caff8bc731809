/* kiln/compile.h — the kiln compiler as a library call: a kiln source (a file, or text in
 * memory) compiled to a BPF ELF object with BTF, into memory, a file or an open fd. This is
 * the one way into the compiler from outside it: `kiln compile`, `kiln disasm`, `kiln gen`,
 * the host's sessions, `kiln trace` and kiln_object_open() of a .lisp file all call it. */
#ifndef KILN_COMPILE_H
#define KILN_COMPILE_H
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What to compile and how. Zero is the default for every field; sz makes the struct
 * extensible as libbpf's opts are: a caller built against an older, shorter struct passes
 * its own sizeof, the fields past it read as zero, and a longer struct whose extra bytes are
 * not zero is refused (-EINVAL). */
struct kiln_compile_opts {
	size_t sz;                     /* sizeof(struct kiln_compile_opts) */
	const char *text;              /* the source in memory, NUL at text[text_len] (NULL: the
					* file at path is read; with text, path only names it in
					* messages and line info) */
	size_t text_len;
	int opt_level;                 /* -O level: 0 means -O2 (the default), -1 means -O0, 1, 2 */
	const char *const *no_passes;  /* -fno-PASS: optimizer passes not to run, by name */
	size_t no_passes_cnt;
	const char *print_after;       /* --print-after PASS: every function's IR to stderr after
					* each run of PASS (a debugging aid: the one output the
					* library prints) */
	bool dump_ir;                  /* --dump-ir: every function's IR to stderr */
	bool verify_ir;                /* --verify-ir: the SSA form checked after every pass */
	const char *btf_path;          /* kernel BTF for kernel types (NULL: /sys/kernel/btf/vmlinux,
					* read only when a program names a kernel type) */
	char **warnings;               /* if set: the warnings ("file:line:col: warning: ...", the
					* line, a caret), a malloc'd text, or NULL when there are
					* none; set on failure too (those found before the error) */
	const char *out_path;          /* write the object to this file ... */
	int out_fd;                    /* ... or, without out_path, to this fd when it is > 0;
					* with neither, into memory: *elf and *size */
};

/* Compile the kiln source path (or opts->text, named path). The object goes to
 * opts->out_path, opts->out_fd, or a malloc'd image in *elf of *size bytes (elf and size may
 * be NULL when it goes to a file). Returns 0, or a negative errno: -EINVAL for an error in
 * the source (or an unknown pass, bad opts), with kiln_errmsg() the first line of the
 * compiler's diagnostic ("file:line:col: error: ...") and kiln_errlog() all of it (the line
 * and a caret under the column) when it has more than that line; -ENOMEM and the like when
 * the failure is not the source's (out of memory, the object not written), with
 * kiln_errmsg() "compiling PATH: why" and kiln_errlog() the compiler's "kiln: error: why".
 * kiln_errlog(), when not "", is the diagnostic as `kiln compile` prints it. opts may be NULL:
 * all defaults. Safe to call from several threads at once. */
int kiln_compile(const char *path, void **elf, size_t *size, const struct kiln_compile_opts *opts);

/* Whether path names a kiln source by its suffix (.lisp, .lsp, .kl): what
 * kiln_object_open() compiles instead of reading as an ELF object. */
bool kiln_compile_is_source(const char *path);

/* Whether the optimizer has a pass of this name (for -fno-PASS, --print-after). */
bool kiln_compile_has_pass(const char *name);
/* The optimizer's passes in the order they run, a line each: "  NAME  what it does\n". */
const char *kiln_compile_passes(void);
/* The prelude every source is compiled with (its macros and constants), as kiln source. */
const char *kiln_compile_prelude(void);

#ifdef __cplusplus
}
#endif
#endif
