/* test_verifier.c — kiln_verifier_explain() on verifier logs in the kernel's format, for the
 * causes kiln's compiler never emits (tests/suites/verifier.sh provokes the others from real
 * programs): the message, the cause and hint, the failing instruction, and the source line
 * the log names. */
#include <kiln/kiln.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

struct want {
	const char *name;
	const char *log;
	const char *message;      /* the final message */
	const char *cause;
	long insn;
	const char *insn_text;
	unsigned line;            /* from "; ... @ FILE:LINE" */
};

#define STATS "processed 12 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0\n"

static const struct want wants[] = {
	{ "too-large",
	  "0: R1=ctx() R10=fp0\n; (loop :while (/= i 7) @ loop.lisp:3\n2: (07) r0 += 2\n3: (05) goto pc-3\n"
	  "BPF program is too large. Processed 1000001 insn\n"
	  "processed 1000001 insns (limit 1000000) max_states_per_insn 4 total_states 1 peak_states 1 mark_read 0\n",
	  "BPF program is too large. Processed 1000001 insn", "unbounded-loop", 3, "(05) goto pc-3", 3 },
	{ "back-edge", "back-edge from insn 5 to 3\nprocessed 0 insns (limit 1000000)\n", "back-edge from insn 5 to 3",
	  "unbounded-loop", 5, "", 0 },
	{ "jumps-too-complex", "7: (15) if r1 == 0x0 goto pc+1\nThe sequence of 8193 jumps is too complex.\n" STATS,
	  "The sequence of 8193 jumps is too complex.", "unbounded-loop", 7, "(15) if r1 == 0x0 goto pc+1", 0 },
	{ "unknown-func", "0: R1=ctx() R10=fp0\n0: (85) call unknown#999\nunknown func unknown#999\n" STATS,
	  "unknown func unknown#999", "helper-not-allowed", 0, "(85) call unknown#999", 0 },
	{ "invalid-func", "0: (85) call unknown#99999\ninvalid func unknown#99999\n" STATS, "invalid func unknown#99999",
	  "helper-not-allowed", 0, "(85) call unknown#99999", 0 },
	{ "unreleased-old-kernels",
	  "; (ringbuf-reserve events 16 0) @ r.lisp:4\n4: (85) call bpf_ringbuf_reserve#131     ; R0=ringbuf_mem_or_null(id=2)\n"
	  "; 0 @ r.lisp:9\n8: (95) exit\nUnreleased reference id=2 alloc_insn=4\n" STATS,
	  "Unreleased reference id=2 alloc_insn=4", "unreleased-ref", 4, "(85) call bpf_ringbuf_reserve#131", 4 },
	{ "no-return-value", "0: R1=ctx() R10=fp0\n; (defun f () @ f.lisp:1\n0: (95) exit\nR0 !read_ok\n" STATS,
	  "R0 !read_ok", "no-return-value", 0, "(95) exit", 1 },
	{ "uninit-register", "0: (bf) r0 = r3\nR3 !read_ok\n" STATS, "R3 !read_ok", "uninit-register", 0, "(bf) r0 = r3", 0 },
	{ "div-by-zero", "0: (37) r0 /= 0\ndiv by zero\n" STATS, "div by zero", "div-by-zero", 0, "(37) r0 /= 0", 0 },
	{ "combined-stack", "12: (85) call pc+4\ncombined stack size of 2 calls is 576. Too large\n" STATS,
	  "combined stack size of 2 calls is 576. Too large", "stack-size", 12, "(85) call pc+4", 0 },
	{ "stack-off", "3: (7b) *(u64 *)(r10 -520) = r1\ninvalid write to stack R10 off=-520 size=8\n" STATS,
	  "invalid write to stack R10 off=-520 size=8", "stack-size", 3, "(7b) *(u64 *)(r10 -520) = r1", 0 },
	{ "uninit-stack",
	  "; (getmap m key) @ k.lisp:6\n5: (85) call bpf_map_lookup_elem#1\ninvalid indirect read from stack R2 off -8+0 size 8\n" STATS,
	  "invalid indirect read from stack R2 off -8+0 size 8", "uninit-stack", 5, "(85) call bpf_map_lookup_elem#1", 6 },
	{ "ringbuf-null", "6: (62) *(u32 *)(r0 +0) = 1\nR0 invalid mem access 'ringbuf_mem_or_null'\n" STATS,
	  "R0 invalid mem access 'ringbuf_mem_or_null'", "map-null", 6, "(62) *(u32 *)(r0 +0) = 1", 0 },
	{ "pkt-unbounded", "4: (0f) r1 += r2\nmath between pkt pointer and register with unbounded min value is not allowed\n" STATS,
	  "math between pkt pointer and register with unbounded min value is not allowed", "packet-offset", 4,
	  "(0f) r1 += r2", 0 },
	{ "infinite-loop-states",
	  "1: (25) if r2 > 0x0 goto pc-2\ninfinite loop detected at insn 0\ncur state: R1=ctx() R10=fp0\n"
	  "old state: R1=ctx() R10=fp0\n" STATS,
	  "infinite loop detected at insn 0", "unbounded-loop", 0, "", 0 },
	{ "not-in-table", "0: (b7) r0 = 0\nsomething new the table does not know\n" STATS,
	  "something new the table does not know", "", 0, "(b7) r0 = 0", 0 },
	{ "ksym-address", "ldimm64 failed to find the address for kernel symbol 'runqueues'.\nprocessed 0 insns\n",
	  "ldimm64 failed to find the address for kernel symbol 'runqueues'.", "ksym-address", -1, "", 0 },
	{ "empty", "", "", "", -1, "", 0 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		char name[96];
		struct kiln_verifier_error *e = NULL;
		int err = kiln_verifier_explain(w->log, "prog", &e);
		snprintf(name, sizeof(name), "verifier/%s", w->name);
		CHECK(name,
		      !err && e && !strcmp(e->message, w->message) && !strcmp(e->cause, w->cause) &&
			      (w->cause[0] ? e->hint[0] != 0 : e->hint[0] == 0) && e->insn == w->insn &&
			      !strcmp(e->insn_text, w->insn_text) && e->line == w->line && e->col == 0 &&
			      !strcmp(e->prog, "prog"),
		      "err %d: message '%s' cause '%s' insn %ld '%s' line %u", err, e ? e->message : "-",
		      e ? e->cause : "-", e ? e->insn : -2, e ? e->insn_text : "-", e ? e->line : 0);
		kiln_verifier_error_free(e);
	}

	/* the source position and text from the log's own "; TEXT @ FILE:LINE" lines */
	struct kiln_verifier_error *e = NULL;
	kiln_verifier_explain("0: R1=ctx() R10=fp0\n; (let ((data (ctx data))) @ a:b.lisp:3\n0: (61) r1 = *(u32 *)(r1 +0)\n"
			      "; (load u32 data 20))) @ a:b.lisp:4\n1: (61) r0 = *(u32 *)(r1 +20)\n"
			      "invalid access to packet, off=20 size=4, R1(id=0,off=20,r=0)\n"
			      "R1 offset is outside of the packet\n" STATS,
			      NULL, &e);
	CHECK("verifier/log-position", e && !strcmp(e->file, "a:b.lisp") && e->line == 4 && e->col == 0 &&
	      !strcmp(e->source, "(load u32 data 20)))") && !strcmp(e->cause, "packet-bounds") &&
	      !strcmp(e->detail, "invalid access to packet, off=20 size=4, R1(id=0,off=20,r=0)") &&
	      strstr(e->excerpt, "1: (61) r0") && !strstr(e->excerpt, "outside of the packet") && !e->prog[0],
	      "%s:%u source '%s' detail '%s'", e ? e->file : "-", e ? e->line : 0, e ? e->source : "-",
	      e ? e->detail : "-");
	/* printed without a column: "FILE:LINE: ... this line", the line, no caret */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	kiln_verifier_error_print(e, f, 0);
	fclose(f);
	CHECK("verifier/print-line-only",
	      buf && !strncmp(buf, "a:b.lisp:4: the verifier refused this line: R1 offset is outside of the packet\n"
			      "  (load u32 data 20)))\n  at instruction 1: (61) r0 = *(u32 *)(r1 +20)\n  hint: ", 151) &&
	      !strstr(buf, "^") && !strstr(buf, "last steps"),
	      "%s", buf ? buf : "-");
	free(buf);
	kiln_verifier_error_free(e);

	const char *hint = NULL;
	CHECK("verifier/cause-table", !strcmp(kiln_verifier_cause("cannot call GPL-restricted function from non-GPL "
								  "compatible program", &hint), "gpl-only") &&
	      strstr(hint, "GPL") && !strcmp(kiln_verifier_cause(NULL, &hint), "") && !strcmp(hint, ""),
	      "%s", hint ? hint : "-");
	CHECK("verifier/bad-arguments", kiln_verifier_explain(NULL, NULL, &e) < 0 && kiln_errmsg()[0], "%s",
	      kiln_errmsg());
	kiln_verifier_error_free(NULL);

	/* bad logs never crash it: every log above cut, with lines repeated and bytes changed,
	 * by a fixed LCG; every field stays a string */
	unsigned seed = 42, bad = 0, runs = 0;
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		size_t n = strlen(wants[i].log);
		for (int k = 0; k < 200 && n; k++, runs++) {
			char mut[2048];
			seed = seed * 1103515245 + 12345;
			size_t cut = (seed >> 8) % (n + 1);
			seed = seed * 1103515245 + 12345;
			size_t from = (seed >> 8) % (n + 1);
			int m = snprintf(mut, sizeof(mut), "%.*s%s", (int)cut, wants[i].log, wants[i].log + from);
			seed = seed * 1103515245 + 12345;
			if (m > 0)
				mut[(seed >> 8) % (size_t)m] = "\n;:( @0x"[(seed >> 4) % 9];
			struct kiln_verifier_error *x = NULL;
			if (kiln_verifier_explain(mut, NULL, &x) || !x || !x->message || !x->detail || !x->insn_text ||
			    !x->file || !x->source || !x->cause || !x->hint || !x->excerpt || !x->prog)
				bad++;
			kiln_verifier_error_free(x);
		}
	}
	CHECK("verifier/mutated-logs", runs > 1000 && !bad, "%u of %u runs gave no complete result", bad, runs);
	return CHECK_DONE();
}
