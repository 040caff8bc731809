/* fuzz_host.c — libFuzzer harness for kiln's host Lisp (src/host/ on the core of src/lisp/,
 * behind `kiln run SESSION.lisp` and `kiln repl`): the input is a session file's text, read and
 * evaluated form by form from memory as host_run does it (host_eval_forms), errors reported
 * as kiln reports them. Nothing reaches the kernel, the files or the clock: the forms that
 * would (with-bpf-session, with-bpf-object, bpf:attach, compile-to-elf, probe-file, sleep)
 * are refused (h->no_system), and the kiln forms a file gathers are never compiled (the
 * compiler has its own harness). Each input has a budget, so an endless loop or recursion
 * ends in an error: 100,000 steps (forms, calls, loop turns; text and vectors made count
 * too), 128 MiB of arena, vectors of 65,536 elements, strings of 1 MiB. Output and errors
 * go to /dev/null. Bad input must end in a Lisp error: never a crash, a sanitizer report, a
 * leak or a hang. */
#include "host/hv.h"
#include <stdint.h>
#include <stdlib.h>

#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host *hs = calloc(1, sizeof(*hs));
	if (!hs)
		return 0;
	struct lisp *h = &hs->L;
	h->a.limit = (size_t)128 << 20;
	host_set_text(h, "fuzz.lisp", (const char *)data, size);
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(&h->a, &d, &h->src, &forms, &n)) {
		kl_diag_print(&d, sink());
	} else {
		for (uint32_t i = 0; i < n; i++)
			host_prepare(h, forms[i]);
		host_setup(h, 0, NULL);
		hs->no_system = true;
		h->max_steps = 100000;
		h->max_elems = (size_t)1 << 16;
		h->max_str = (size_t)1 << 20;
		/* the standard streams write to /dev/null (*trace-output* is *error-output*) */
		lv_global(h, "*standard-output*", false)->val->u.stream.f = sink();
		lv_global(h, "*error-output*", false)->val->u.stream.f = sink();
		host_eval_forms(h, forms, n, sink());
	}
	kl_arena_free(&h->a);
	free(hs);
	return 0;
}
