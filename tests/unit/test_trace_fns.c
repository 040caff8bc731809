/* test_trace_fns.c — kiln trace's table of bpftrace functions (src/trace/funcs.h): every
 * implemented row has a check and at least one way to be written, no name is implemented
 * twice, and no name both implemented and still listed as pending (where it would be
 * shadowed and the list would lie about what is refused). */
#include "check.h"
#include "trace/funcs.h"
#include <string.h>

int main(void)
{
	const struct kt_fn_table *const *t;
	size_t nt = kt_fn_tables(&t);
	CHECK("trace-fns/tables", nt >= 2, "%zu tables", nt);
	size_t done = 0, pending = 0;
	char bad[512] = "";
	for (size_t i = 0; i < nt; i++) {
		bool is_pending = i == nt - 1;
		for (size_t k = 0; k < t[i]->n; k++) {
			const struct kt_fn *f = &t[i]->fns[k];
			if (is_pending) {
				pending++;
				if (f->check)
					snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s(pending with a check)", f->name);
				if (kt_fn_find(f->name) != f)
					snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s(done and pending)", f->name);
				continue;
			}
			done++;
			/* kaddr and the stacks rewrite the call in sema; everything else is written by gen */
			if (!f->check)
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s(no check)", f->name);
			if (kt_fn_find(f->name) != f)
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s(twice)", f->name);
		}
	}
	CHECK("trace-fns/rows", !bad[0], "%s", bad);
	CHECK("trace-fns/counts", done >= 13, "%zu done, %zu pending", done, pending);
	CHECK("trace-fns/unknown", kt_fn_find("no_such_function") == NULL, "found");
	return check_failures != 0;
}
