/* fuzz_compiler.c — libFuzzer harness for the compiler: the input is a kiln source, compiled
 * in memory the way kl_compile_to_mem does it (src/lib/compile.c) through every stage to an
 * ELF object written into a memfd, at -O0, -O1 or -O2 by the input's length. A compile error
 * is printed (to /dev/null) as the CLI prints it, with its source line and caret. Bad input
 * must end in an error, never a crash, a sanitizer report or a leak. An object it writes
 * must pass kiln's own disassembler (src/cli/disasm.c) without a complaint: its sections,
 * symbols, relocations, BTF and line info all well formed. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "compiler/compile.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int object_fd(void)
{
	static int fd = -1;
	if (fd < 0 && (fd = memfd_create("fuzz-object", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		abort();
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* NUL-terminated, as kl_read_file gives the compiler its text */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct kl_source src = { "fuzz.lisp", text, size };
	struct kl_arena arena = { 0 };
	struct kl_diag diag = { 0 };
	struct kl_comp c = { .a = &arena, .d = &diag, .src = &src };
	c.opts.opt_level = (int)(size % 3);
	c.opts.write_fd = true;
	c.opts.out_fd = object_fd();
	if (kl_compile(&c, NULL)) {
		kl_diag_print(&diag, sink());
	} else if (c.progs.len) {       /* (an object of maps alone has no code to disassemble) */
		size_t n;
		char *obj = lseek(c.opts.out_fd, 0, SEEK_SET) ? NULL : kl_read_fd(c.opts.out_fd, &n);
		if (!obj || cli_disasm_image("fuzz.o", obj, n, NULL, false, sink(), stderr)) {
			fprintf(stderr, "fuzz_compiler: the object compiled is not one kiln disasm reads "
				"without a complaint\n");
			abort();
		}
		free(obj);
	}
	kl_arena_free(&arena);
	free(text);
	return 0;
}
