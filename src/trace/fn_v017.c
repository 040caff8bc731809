/* fn_v017.c — bpftrace 0.17's functions that say where a pointer points or name a value:
 * uptr(p) and kptr(p) (p, read from user or kernel memory from then on) and strerror(e)
 * (an errno value, printed as its message in user space: src/cli/trace_val.c).
 * How sema types each call and how gen writes it (funcs.h). */
#include "trace/funcs.h"

/* uptr(p) / kptr(p): p itself, its reads (*, ->, str()) from user / kernel memory. */
static int addrspace_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kl_error(m->d, n->span, "%s() expects an integer or a pointer", n->name);
	n->type = n->kids[0]->type;
	n->type.user = n->name[0] == 'u';
	return 0;
}

static int strerror_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kl_error(m->d, n->span, "%s", "strerror() expects an integer (an errno value)");
	n->type = (struct kt_type){ .kind = KTT_STRERROR, .size = 8 };
	return 0;
}

static void arg_value(struct g *g, const struct kt_node *n)
{
	kt_gen_int(g, n->kids[0]);
}

static const struct kt_fn fns[] = {
	/* name        check           own    stmt  value      str   site */
	{ "uptr", addrspace_check, false, NULL, arg_value, NULL, NULL },
	{ "kptr", addrspace_check, false, NULL, arg_value, NULL, NULL },
	{ "strerror", strerror_check, false, NULL, arg_value, NULL, NULL },
};
const struct kt_fn_table kt_fns_v017 = { fns, sizeof(fns) / sizeof(fns[0]) };
