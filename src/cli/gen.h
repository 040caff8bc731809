/* gen.h — `kiln gen`: code for user-space programs from an object's BTF. gen.c opens the
 * object and writes C (through libbpf's btf_dump), Python, Go and Rust types; gen_skel.c
 * writes the skeleton header, which embeds the object and reuses gen.c's C types. Every
 * name they write goes through gen_names.h; C's through a renamed copy of the BTF
 * (gen_cbtf.c), as btf_dump prints names as they are. */
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
	struct btf *cbtf;                 /* btf with names safe for C (gen_c_btf): c, skeleton */
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
/* A copy of btf whose names C can print as they are (gen_cbtf.c): tags, typedefs,
 * enumerators and members renamed by gen_names.h's rule, integers and floats spelled as C
 * does, tags reduced to plain text; the same type ids. NULL with errno set. */
struct btf *gen_c_btf(const struct btf *btf);

#endif
