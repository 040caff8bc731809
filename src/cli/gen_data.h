/* gen_data.h — an object's global variables as structs for the generators (gen_data.c). */
#ifndef KL_CLI_GEN_DATA_H
#define KL_CLI_GEN_DATA_H
#include <stddef.h>
#include <stdint.h>

struct btf;
struct bpf_map;

/* A data section (its DATASEC's id) and the struct that stands for it. */
struct gen_data {
	uint32_t datasec, st;
};
#define GEN_MAX_DATA 16

/* A copy of btf with, after its types, a struct UNIT__SEC for each DATASEC holding variables
 * (.rodata: UNIT__rodata, .data.x: UNIT__data_x): its variables as members at their offsets,
 * the section's size; the pairs in out (at most GEN_MAX_DATA, *n of them). Every other type
 * keeps its id. NULL with errno set. */
struct btf *gen_data_btf(const struct btf *btf, const char *unit, struct gen_data *out, size_t *n);
/* The type to write for map m's value: the struct of its data section, or its own. */
uint32_t gen_data_value(const struct gen_data *d, size_t n, const struct bpf_map *m);

#endif
