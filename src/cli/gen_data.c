/* gen_data.c — a data section (.rodata, .data, .bss: libbpf's maps of an object's global
 * variables) has a BTF DATASEC for its value, which no language declares: each becomes a struct
 * named as bpftool's skeletons name theirs (UNIT__rodata), whose members are the section's
 * variables at their offsets, so every generator (C, Python, Go, Rust, the skeleton) writes it
 * as it writes any struct. */
#include "gen_data.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int add_struct(struct btf *b, const char *unit, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const char *sec = btf__name_by_offset(b, t->name_off);
	char name[160];
	int k = snprintf(name, sizeof(name), "%s__", unit);
	for (const char *p = sec && *sec == '.' ? sec + 1 : sec; p && *p && k < (int)sizeof(name) - 1; p++)
		name[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_';
	name[k] = 0;
	uint32_t size = t->size, vlen = btf_vlen(t);
	int st = btf__add_struct(b, name, size);
	for (uint32_t i = 0; st > 0 && i < vlen; i++) {
		/* t is re-read: adding types may move the BTF's memory */
		const struct btf_var_secinfo *v = btf_var_secinfos(btf__type_by_id(b, id)) + i;
		const struct btf_type *var = btf__type_by_id(b, v->type);
		if (!var || !btf_is_var(var))
			return -EINVAL;
		uint32_t off = v->offset, type = var->type;
		/* a setting's const volatile off, so that user space can set it before load */
		for (const struct btf_type *m = btf__type_by_id(b, type); m && btf_is_mod(m); m = btf__type_by_id(b, type))
			type = m->type;
		int err = btf__add_field(b, btf__name_by_offset(b, var->name_off), type, off * 8, 0);
		if (err)
			return err;
	}
	return st;
}

struct btf *gen_data_btf(const struct btf *btf, const char *unit, struct gen_data *out, size_t *n)
{
	uint32_t size;
	const void *raw = btf__raw_data(btf, &size);
	struct btf *b = raw ? btf__new(raw, size) : NULL;
	*n = 0;
	if (!b)
		return NULL;
	uint32_t count = btf__type_cnt(b);
	for (uint32_t id = 1; id < count; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!btf_is_datasec(t) || !btf_vlen(t) || *n == GEN_MAX_DATA)
			continue;
		const char *sec = btf__name_by_offset(b, t->name_off);
		if (!sec || (strncmp(sec, ".rodata", 7) && strncmp(sec, ".data", 5) && strncmp(sec, ".bss", 4)))
			continue;
		int st = add_struct(b, unit, id);
		if (st < 0) {
			btf__free(b);
			errno = -st;
			return NULL;
		}
		out[(*n)++] = (struct gen_data){ id, (uint32_t)st };
	}
	return b;
}

uint32_t gen_data_value(const struct gen_data *d, size_t n, const struct bpf_map *m)
{
	uint32_t id = bpf_map__btf_value_type_id(m);
	for (size_t i = 0; i < n; i++)
		if (d[i].datasec == id)
			return d[i].st;
	return id;
}
