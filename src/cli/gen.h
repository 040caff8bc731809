/* gen.h — `kiln gen`: code for user-space programs from an object's BTF. gen.c opens the
 * object and writes C (through libbpf's btf_dump), Python, Go and Rust types; gen_skel.c
 * writes the skeleton header, which embeds the object and reuses gen.c's C types. */
#ifndef KL_CLI_GEN_H
#define KL_CLI_GEN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct btf;
struct kiln_object;

/* What a generator works from: the ELF image (a kiln source compiled in memory, or the
 * object file read), the object libkiln opened from it, and the object's BTF. */
struct gen_input {
	const char *path;
	void *elf;
	size_t size;
	struct kiln_object *obj;
	const struct btf *btf;
	char name[64];                    /* an identifier: --name, else the file's stem */
};

/* The types of the maps' keys and values, of the events, and every named struct or union,
 * as C declarations (libbpf's btf_dump), each once. only_maps: just the maps' and events'
 * types (the skeleton's, so that it does not redefine what linux/bpf.h declares). 0 or
 * -errno. */
int gen_c_types(FILE *out, const struct gen_input *in, bool only_maps);
/* The map NAME's ring or perf buffer's event struct (decl tag kiln.event:EVENT), or 0. */
uint32_t gen_event_type(const struct btf *btf, const char *map);
/* The skeleton header (gen_skel.c). */
int gen_skeleton(FILE *out, const struct gen_input *in);
/* NAME made an identifier into dst: every character not a letter, digit or _ becomes _. */
void gen_ident(char *dst, size_t n, const char *name);

#endif
