/* gen_cstruct.c — reads through the structs a script defines (cstruct.h). Their layout is
 * the script's, not the kernel's, so no CO-RE: a member is read at its pointer plus the
 * constant offset, from user memory when the pointer is a user one (a uprobe's argument, a
 * syscall's), else from the kernel's (a $variable's copy on the stack too); a failed read
 * gives 0. A whole struct (`*p`) is its bytes, copied as a string's are. */
#include "trace/gen_cstruct.h"
#include "trace/cstruct.h"

/* The struct n's member is in: n->a's (a pointer for ->, a struct for .); NULL when that is
 * no struct of the script. */
static const char *base_struct(const struct g *g, const struct kt_node *n)
{
	if ((n->kind != KT_ARROW && n->kind != KT_FIELD) || !n->name || !n->a)
		return NULL;
	const struct kt_type *t = &n->a->type;
	bool ok = n->kind == KT_ARROW ? t->kind == KTT_INT && t->tname : t->kind == KTT_STRUCT;
	return ok && kt_cs_has(g->s->cdefs, t->tname) ? t->tname : NULL;
}

bool kt_gen_cs_member(const struct g *g, const struct kt_node *n)
{
	return base_struct(g, n) != NULL;
}

static void gen_addr(struct g *g, const struct kt_node *n);

/* The address of a struct value n (the base of `.`): a member, an array's element, *p. */
static void struct_addr(struct g *g, const struct kt_node *n)
{
	uint32_t size = 0;
	char msg[256];
	if (base_struct(g, n)) {
		gen_addr(g, n);
	} else if (n->kind == KT_INDEX && n->a->type.pointee) {
		kt_struct_sizeof(g->s->cdefs, n->type.tname, &size, msg, sizeof(msg));
		kt_emit(&g->b, "(+ ");
		kt_gen_int(g, n->a);
		kt_emit(&g->b, " (* %u ", size);
		kt_gen_int(g, n->b);
		kt_emit(&g->b, "))");
	} else if (n->kind == KT_UNOP && n->op == '*') {
		kt_gen_int(g, n->a);
	} else if (n->kind == KT_VAR) {   /* a struct copied to the stack */
		kt_emit(&g->b, "v%d", n->var_id);
	} else {
		kt_gen_err(g, n->span, "kiln trace cannot take the address of this struct yet");
		kt_emit(&g->b, "0");
	}
}

/* The address of member n: its base's address plus its offset. */
static void gen_addr(struct g *g, const struct kt_node *n)
{
	struct kt_type t;
	uint32_t off = 0;
	char msg[256];
	kt_cs_field(g->s->cdefs, base_struct(g, n), n->name, &t, &off, msg, sizeof(msg));
	kt_emit(&g->b, "(+ ");
	if (n->kind == KT_ARROW)
		kt_gen_int(g, n->a);
	else
		struct_addr(g, n->a);
	kt_emit(&g->b, " %u)", off);
}

bool kt_gen_cs_int(struct g *g, const struct kt_node *n)
{
	if (!base_struct(g, n))
		return false;
	if (n->type.nelems && n->type.pointee) {   /* an array: its first element's address */
		gen_addr(g, n);
		return true;
	}
	uint32_t size = n->type.size ? n->type.size : 8;
	const char *b = kt_fresh(g, "c");
	kt_emit(&g->b, "(let ((%s (stack-buffer 8))) (store u64 %s 0 0) (probe-read-%s %s %u ", b, b,
		n->type.user ? "user" : "kernel", b, size);
	gen_addr(g, n);
	kt_emit(&g->b, ") ");
	if (n->type.is_signed && size < 8)
		kt_emit(&g->b, "(cast i%u (load u%u %s 0)))", size * 8, size * 8, b);
	else
		kt_emit(&g->b, "(load u%u %s 0))", size * 8, b);
	return true;
}

/* A whole struct of the script (`*p`, `p->inner`, `$c->w[1]`) copied to d. */
static bool struct_value(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	if (n->type.kind != KTT_STRUCT || !n->type.size || !kt_cs_has(g->s->cdefs, n->type.tname) ||
	    !(base_struct(g, n) || n->kind == KT_INDEX || (n->kind == KT_UNOP && n->op == '*')))
		return false;
	uint32_t want = n->type.size < size ? n->type.size : size;
	kt_emit(&g->b, "(probe-read-%s %s %u ", n->type.user ? "user" : "kernel", d, want);
	struct_addr(g, n);
	kt_emit(&g->b, ")");
	return true;
}

bool kt_gen_cs_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	if (struct_value(g, n, d, size))
		return true;
	if (!base_struct(g, n))
		return false;
	uint32_t want = n->type.size - 1 < size - 1 ? n->type.size - 1 : size - 1;   /* the array's bytes */
	kt_emit(&g->b, "(store u8 %s %u 0)(probe-read-%s %s %u ", d, want, n->type.user ? "user" : "kernel", d, want);
	gen_addr(g, n);
	kt_emit(&g->b, ")");
	return true;
}
