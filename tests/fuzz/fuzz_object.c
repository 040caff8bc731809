/* fuzz_object.c — libFuzzer harness for libkiln's object opener: the bytes are opened with
 * kiln_object_open_mem (which checks them, src/lib/validate.c, then hands them to libbpf)
 * and closed; the same bytes as a raw BTF blob (kl_btf_raw_validate, then libbpf's btf__new
 * and btf_dump as `kiln btf dump` uses them, where the check passed). A crash, a hang or a leak
 * is a bug in kiln; a refusal is the expected answer, and it must come with a message.
 *
 * Seeds that fit: BPF ELF objects, both kiln's and clang's — `kiln compile` of the .lisp
 * files of examples/, tests/lib/ and tests/corpus/, and `clang -O2 -g -target bpf -c` of the
 * .bpf.c files of tests/lib/ and the .c files of tests/corpus/ (they carry .BTF, .BTF.ext
 * with func_info and line_info, .maps, .rodata and relocations). Regressions, one file per
 * input that once crashed: tests/fuzz/regress/object/.
 *
 * By hand: clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc
 *   tests/fuzz/fuzz_object.c <src/lib and src/compiler objects built with the same flags>
 *   -lbpf -lelf -ldw -lz -lpthread */
#include <kiln/kiln.h>
#include "lib/validate.h"
#include <bpf/btf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *ctx, const char *fmt, va_list args)
{
	(void)ctx, (void)fmt, (void)args;
}

/* the bytes as `kiln btf dump` takes a raw BTF file: checked, then libbpf's */
static void raw_btf(const uint8_t *data, size_t size)
{
	if (kl_btf_raw_validate(data, size, "fuzz.btf")) {
		if (!*kiln_errmsg())
			abort();
		return;
	}
	struct btf *btf = btf__new(data, (uint32_t)size);
	struct btf_dump *d = btf ? btf_dump__new(btf, discard, NULL, NULL) : NULL;
	for (uint32_t id = 1; d && id < btf__type_cnt(btf); id++)
		btf_dump__dump_type(d, id);
	btf_dump__free(d);
	btf__free(btf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	raw_btf(data, size);
	struct kiln_object *obj = NULL;
	struct kiln_object_opts o = { .sz = sizeof(o), .name = "fuzz.o" };
	int err = kiln_object_open_mem(data, size, &o, &obj);
	if (err) {
		/* every refusal says what it refused */
		if (obj || !*kiln_errmsg())
			abort();
		return 0;
	}
	/* what libbpf accepted is walked the way the CLI walks it */
	for (size_t i = 0; i < kiln_object_prog_count(obj); i++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		if (!kiln_prog_name(p) || !kiln_prog_section(p))
			abort();
		(void)kiln_prog_insn_count(p);
	}
	for (size_t i = 0; i < kiln_object_map_count(obj); i++)
		if (!kiln_object_map(obj, i))
			abort();
	kiln_object_close(obj);
	return 0;
}
