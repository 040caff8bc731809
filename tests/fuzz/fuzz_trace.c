/* fuzz_trace.c — libFuzzer harness for kiln trace's front end: the input is a bpftrace
 * script, taken as `kiln trace --dry-run` takes it (src/cli/trace.c) through the lexer, the
 * parser, sema (attach points resolved against this machine's tracefs and BTF), the limits
 * of BPFTRACE_MAX_BPF_PROGS and MAX_PROBES, gen, and kiln's compiler on the generated Lisp,
 * in memory: nothing is loaded into the kernel. Errors go to /dev/null as the CLI prints
 * them. Bad input must end in an error, never a crash, a sanitizer report, a leak or a hang
 * (deep nesting, huge sums, #include of a device). */
#define _GNU_SOURCE
#include "cli/trace.h"
#include "compiler/diag.h"
#include "lib/compile.h"
#include <kiln/compile.h>
#include "trace/cdefine.h"
#include "trace/gen.h"
#include "trace/parser.h"
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* $1 and $2 of the scripts, as `kiln trace script.bt 1 str` passes them */
static const char *const params[] = { "1", "str" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);   /* NUL-terminated, as kiln trace reads a script */
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct kl_source src = { "fuzz.bt", text, size };
	struct kl_arena a = { 0 };
	struct kl_diag d = { 0 };
	struct kt_cdefs cdefs = { 0 };   /* the script's #defines */
	struct kt_program prog = { .cdefs = &cdefs };
	struct kt_sema s = { .params = params, .nparams = 2 };
	struct kt_gen g = { 0 };
	void *elf = NULL;
	size_t esize = 0;
	jmp_buf oom;
	if (setjmp(oom))
		goto out;
	a.oom = &oom;
	if (trace_env(&s, sink()))
		goto out;
	if (kt_parse(&src, &a, &d, &prog) || kt_sema(&prog, &s, &a, &d) || trace_limits(&s, sink()) ||
	    kt_gen(&prog, &s, &a, &d, &g)) {
		kl_diag_print(&d, sink());
		goto out;
	}
	struct kl_diag cd = { 0 };
	if (kl_compile_forms_to_mem(&src, g.forms, g.nforms, 2, &cd, &elf, &esize)) {
		if (cd.err || trace_compile_limit(&prog, &s, cd.msg, &d))
			d = cd;
		kl_diag_print(&d, sink());
	}
out:
	free(elf);
	free(g.text);
	kl_arena_free(&a);
	kt_cdef_free(&cdefs);
	free(text);
	return 0;
}
