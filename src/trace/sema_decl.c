/* sema_decl.c — bpftrace 0.26's map declarations at the top of a script, `let @m =
 * lruhash(N);`: the map's BPF type and its max entries (in place of BPFTRACE_MAP_KEYS_MAX).
 * hash and lruhash are kiln's hash and lru-hash; the per-CPU ones hold a value per CPU that
 * kiln trace's printing does not sum yet, so they are refused. */
#include "trace/sema_priv.h"
#include <string.h>

static const struct { const char *name, *bpf; } decl_types[] = {
	{ "hash", "hash" }, { "lruhash", "lru-hash" }, { "percpuhash", NULL }, { "percpulruhash", NULL },
};

int kt_sm_mapdecls(struct sm *m, const struct kt_program *prog)
{
	for (uint32_t i = 0; i < prog->nmapdecls; i++) {
		const struct kt_mapdecl *md = &prog->mapdecls[i];
		size_t t = 0;
		while (t < sizeof(decl_types) / sizeof(decl_types[0]) && strcmp(decl_types[t].name, md->type))
			t++;
		if (t == sizeof(decl_types) / sizeof(decl_types[0]))
			return kl_error(m->d, md->span, "invalid map type: %s (hash, lruhash, percpuhash or percpulruhash)",
					md->type);
		if (!decl_types[t].bpf)
			return kl_error(m->d, md->span, "the map type %s is not supported yet by kiln trace", md->type);
		if (md->max < 1 || md->max > (1 << 24))
			return kl_error(m->d, md->span, "@%s: max entries must be from 1 to 16777216", md->name);
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(prog->mapdecls[k].name, md->name))
				return kl_error(m->d, md->span, "@%s is already declared", md->name);
		for (size_t k = 0; k < m->maps.len; k++)   /* a map declared and never used has no BPF map */
			if (!strcmp(m->maps.items[k].name, md->name)) {
				m->maps.items[k].bpf_type = decl_types[t].bpf;
				m->maps.items[k].max_entries = (uint32_t)md->max;
			}
	}
	return 0;
}
