/* funcs.c — the function table (funcs.h): every file's rows, and the names bpftrace 0.17
 * has that kiln trace parses but does not compile yet. */
#include "trace/funcs.h"
#include <string.h>

static const struct kt_fn pending[] = {
	{ .name = "path" },
	{ .name = "skboutput" }, { .name = "debugf" },
};
static const struct kt_fn_table kt_fns_pending = { pending, sizeof(pending) / sizeof(pending[0]) };

/* Earlier tables win: a file that implements a pending name shadows its row there. */
static const struct kt_fn_table *const tables[] = {
	&kt_fns_core,
	&kt_fns_net,
	&kt_fns_user,
	&kt_fns_v026,
	&kt_fns_names,
	&kt_fns_v017,
	&kt_fns_watch,
	&kt_fns_pending,
};

size_t kt_fn_tables(const struct kt_fn_table *const **out)
{
	*out = tables;
	return sizeof(tables) / sizeof(tables[0]);
}

const struct kt_fn *kt_fn_find(const char *name)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (size_t i = 0; i < tables[t]->n; i++)
			if (!strcmp(tables[t]->fns[i].name, name))
				return &tables[t]->fns[i];
	return NULL;
}
