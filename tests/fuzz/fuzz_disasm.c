/* fuzz_disasm.c — libFuzzer harness for kiln's instruction decoder (src/cli/insn.c) and object
 * disassembler (src/cli/disasm.c). An input starting with the ELF magic is an object, printed
 * as `kiln disasm` prints it, as text and as JSON; any other input is raw 8-byte instruction
 * slots, each formatted with kl_insn_format (with labels, map references and call targets for
 * some of them), checking what insn.h promises: 1 or 2 slots, never more than there are,
 * NUL-terminated text within the buffer, and a short buffer holding a prefix of the text. */
#include "cli/cli.h"
#include "cli/insn.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *label(const void *arg, long pc)
{
	(void)arg;
	return pc % 5 == 2 ? "LBB0_2" : NULL;
}

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_disasm: %s\n", what);
		abort();
	}
}

static void insns(const uint8_t *data, size_t size)
{
	size_t n = size / 8;
	/* aligned slots, in a buffer of their exact size so that a read past them is caught */
	struct bpf_insn *in = malloc(n ? n * sizeof(*in) : 1);
	if (!in)
		return;
	memcpy(in, data, n * 8);
	for (size_t i = 0; i < n;) {
		struct kl_insn_env env = { .pc = i % 3 ? (long)i : -1, .label = i % 2 ? label : NULL };
		if (i % 4 == 1)
			env.imm64_ref = "map[counts]";
		if (i % 4 == 3)
			env.call_target = "helper_func";
		char buf[256], small[9];
		int w = kl_insn_format(&in[i], n - i, &env, buf, sizeof(buf));
		check(w == 1 || w == 2, "kl_insn_format returned neither 1 nor 2 slots");
		check((size_t)w <= n - i, "kl_insn_format used more slots than it was given");
		check(memchr(buf, 0, sizeof(buf)) != NULL, "text not NUL-terminated");
		int w2 = kl_insn_format(&in[i], n - i, &env, small, sizeof(small));
		check(w2 == w, "a short buffer changed the slot count");
		check(!strncmp(buf, small, strlen(small)) && strlen(small) < sizeof(small),
		      "a short buffer does not hold a prefix of the text");
		i += (size_t)w;
	}
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		char *img = malloc(size);
		if (!img)
			return 0;
		memcpy(img, data, size);
		cli_disasm_image("fuzz.o", img, size, NULL, false, sink(), sink());
		cli_disasm_image("fuzz.o", img, size, NULL, true, sink(), sink());
		free(img);
	} else {
		insns(data, size);
	}
	return 0;
}
