/* gen_c.h — `kiln gen`: code for user-space programs from an object's BTF. What every
 * generator works from (the object opened), and C's types (gen_c.c). gen.c writes Python, Go
 * and Rust by one walk and runs the command; gen_skel.c writes the skeleton header, which
 * embeds the object and reuses these C types. Every name they write goes through
 * gen_names.h; C's through a renamed copy of the BTF (gen_cbtf.h), as btf_dump prints names
 * as they are. */
#ifndef KL_CLI_GEN_C_H
#define KL_CLI_GEN_C_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gen_data.h"

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
	struct btf *own;                  /* btf is this: the object's, with its data sections as
					   * structs (gen_data.h) */
	struct gen_data data[GEN_MAX_DATA];
	size_t ndata;
};
/* The type written for map m's value (a data section's struct: gen_data.h). */
static inline uint32_t gen_value_type(const struct gen_input *in, const struct bpf_map *m)
{
	return gen_data_value(in->data, in->ndata, m);
}

/* The map NAME's ring or perf buffer's event struct (decl tag kiln.event:EVENT), or 0. */
uint32_t gen_event_type(const struct btf *btf, const char *map);
/* Every type to generate, in BTF order: each map's key and value, each event, every named
 * struct or union (only_maps: not these). Callers emit dependencies first themselves. */
struct gen_roots {
	uint32_t *ids;
	size_t n, cap;
};

/* r filled (r->ids malloc'd); 0 or -ENOMEM. */
int gen_roots(const struct gen_input *in, bool only_maps, struct gen_roots *r);
/* The maps, their keys, values and events, as comment lines each starting with comment. */
void gen_list_maps(FILE *out, const struct gen_input *in, const char *comment);
/* The types of the maps' keys and values, of the events, and every named struct or union,
 * as C declarations (libbpf's btf_dump), each once. only_maps: just the maps' and events'
 * types (the skeleton's, so that it does not redefine what linux/bpf.h declares). 0 or
 * -errno. */
int gen_c_types(FILE *out, const struct gen_input *in, bool only_maps);
/* `kiln gen c`: a header of the object's types, with a guard and the maps listed. */
int gen_c_header(FILE *out, const struct gen_input *in);

#endif
