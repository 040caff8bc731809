/* gen_values.c — gen's values beyond integers and strings (gen_priv.h): tuples written
 * where they go (a $variable's buffer, the map value buffer) in the layout of the storage
 * they go to, their elements read back (`$t.1`, `@t.0.1`), and reads through pointers to
 * integers (`*p`, `p[i]`). */
#define _GNU_SOURCE
#include "trace/gen_priv.h"
#include "trace/gen_check.h"
#include "trace/sema_priv.h"
#include <string.h>

/* Where a tuple's bytes are: an address (a $variable's buffer, a map value that may be
 * missing) and the offset and layout of the part wanted. */
struct troot {
	const char *addr;
	uint32_t off;
	const struct kt_type *t;
	bool nullable;              /* a map lookup: 0 when the key has no value */
	uint32_t parens;            /* what opening it opened */
	bool key_opened;
};

static void open_root(struct g *g, const struct kt_node *n, struct troot *r)
{
	switch (n->kind) {
	case KT_VAR:
		*r = (struct troot){ .addr = kl_arena_printf(g->a, "v%d", n->var_id),
			.t = &g->s->vars[g->t->probe_index][n->var_id].type };
		return;
	case KT_MAP: {
		*r = (struct troot){ .t = &g->s->maps[n->map_id].value, .nullable = true, .parens = 1 };
		const char *k = kt_open_key(g, n, &r->key_opened);
		r->addr = kt_fresh(g, "p");
		kt_emit(&g->b, "(let ((%s (map-lookup m%d %s))) ", r->addr, n->map_id, k);
		return;
	}
	case KT_FIELD:
		if (!n->name) {
			open_root(g, n->a, r);
			r->off += kt_elem_off(r->t, (uint32_t)n->num);
			r->t = &r->t->elems[n->num];
			return;
		}
		break;
	default:
		break;
	}
	/* a tuple made here: into a buffer of its own */
	*r = (struct troot){ .addr = kt_fresh(g, "t"), .t = &n->type, .parens = 1 };
	kt_emit(&g->b, "(let ((%s (stack-buffer %u))) ", r->addr, kt_round8(kt_type_size(&n->type)));
	kt_gen_tuple(g, n, kt_atom(&g->b, r->addr), &n->type);
}

static void close_root(struct g *g, const struct troot *r)
{
	for (uint32_t i = 0; i < r->parens; i++)
		kt_emit(&g->b, ")");
	kt_close_key(g, r->key_opened);
}

/* Copies a tuple's leaves from src+soff (layout st) to dest+doff (layout dt): the same
 * shape, strings maybe of other sizes. */
static void copy_leaves(struct g *g, const char *src, uint32_t soff, const struct kt_type *st,
			const struct kl_node *dest, uint32_t doff, const struct kt_type *dt)
{
	if (dt->kind == KTT_TUPLE) {
		for (uint32_t i = 0; i < dt->nelems; i++)
			copy_leaves(g, src, soff + kt_elem_off(st, i), &st->elems[i], dest, doff + kt_elem_off(dt, i),
				    &dt->elems[i]);
		return;
	}
	if (kt_is_bytes(dt)) {
		uint32_t n = st->size < dt->size ? st->size : dt->size;
		kt_emit(&g->b, "(memcpy %p %u %s %u %u)", dest, doff, src, soff, n);
		if (n == dt->size && n)
			kt_emit(&g->b, "(store u8 %p %u 0)", dest, doff + n - 1);
		return;
	}
	kt_emit(&g->b, "(store u64 %p %u (load u64 %s %u))", dest, doff, src, soff);
}

void kt_gen_tuple(struct g *g, const struct kt_node *n, const struct kl_node *dest, const struct kt_type *dt)
{
	if (n->kind == KT_TUPLE) {
		for (uint32_t i = 0; i < n->nkids; i++) {
			const struct kt_type *e = &dt->elems[i];
			uint32_t off = kt_elem_off(dt, i);
			const struct kl_node *at = off ? kt_form(&g->b, "(+ %p %u)", dest, off) : dest;
			if (kt_is_bytes(e)) {
				kt_gen_str(g, n->kids[i], at, e->size);
			} else if (e->kind == KTT_TUPLE) {
				kt_gen_tuple(g, n->kids[i], at, e);
			} else {
				kt_emit(&g->b, "(store u64 %p %u ", dest, off);
				kt_gen_int(g, n->kids[i]);
				kt_emit(&g->b, ")");
			}
		}
		return;
	}
	struct troot r;
	open_root(g, n, &r);
	if (r.nullable)
		kt_emit(&g->b, "(if %s (progn ", r.addr);
	copy_leaves(g, r.addr, r.off, r.t, dest, 0, dt);
	if (r.nullable)
		kt_emit(&g->b, " 0) (memset %p 0 0 %u))", dest, kt_type_size(dt));
	close_root(g, &r);
}

static bool reads_var(const struct kt_node *n, int var)
{
	if (!n)
		return false;
	if (n->kind == KT_VAR && n->var_id == var)
		return true;
	for (uint32_t i = 0; i < n->nkids; i++)
		if (reads_var(n->kids[i], var))
			return true;
	return reads_var(n->a, var) || reads_var(n->b, var) || reads_var(n->c, var);
}

void kt_gen_tuple_var(struct g *g, const struct kt_node *s)
{
	const struct kt_type *vt = &g->s->vars[g->t->probe_index][s->a->var_id].type;
	struct kl_node *v = kt_form(&g->b, "v%d", s->a->var_id);
	if (!reads_var(s->b, s->a->var_id)) {
		kt_gen_tuple(g, s->b, v, vt);
		return;
	}
	/* $t = ($t.1, $t.0): built aside, then copied, so no element reads one already written */
	uint32_t size = kt_round8(kt_type_size(vt));
	const char *t = kt_fresh(g, "t");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u))) ", t, size);
	kt_gen_tuple(g, s->b, kt_atom(&g->b, t), vt);
	kt_emit(&g->b, "(memcpy %p 0 %s 0 %u))", v, t, size);
}

/* t.N as an integer (8 bytes in the tuple). */
void kt_gen_elem_int(struct g *g, const struct kt_node *n)
{
	struct troot r;
	open_root(g, n, &r);
	if (r.nullable)
		kt_emit(&g->b, "(if %s (load u64 %s %u) 0)", r.addr, r.addr, r.off);
	else
		kt_emit(&g->b, "(load u64 %s %u)", r.addr, r.off);
	close_root(g, &r);
}

/* t.N as a string, at most size bytes at d. */
void kt_gen_elem_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	struct troot r;
	open_root(g, n, &r);
	uint32_t want = r.t->size < size ? r.t->size : size;
	if (r.nullable)
		kt_emit(&g->b, "(if %s (memcpy %s 0 %s %u %u) (store u8 %s 0 0))", r.addr, d, r.addr, r.off, want, d);
	else
		kt_emit(&g->b, "(memcpy %s 0 %s %u %u)", d, r.addr, r.off, want);
	if (want == size && want)
		kt_emit(&g->b, "(store u8 %s %u 0)", d, want - 1);
	close_root(g, &r);
}

/* *p and p[i]: the pointee read from kernel or user memory (a failed read gives 0). */
void kt_gen_deref(struct g *g, const struct kt_node *n)
{
	const struct kt_node *p = n->a;
	uint32_t size = n->type.size ? n->type.size : 8;
	const char *b = kt_fresh(g, "r");
	kt_emit(&g->b, "(let ((%s (stack-buffer 8))) ", b);
	const char *rc = kt_check_open(g, kt_check_read_name(g, p->type.user), true, n->span);   /* -kk */
	kt_emit(&g->b, "(probe-read-%s %s %u ", p->type.user ? "user" : "kernel", b, size);
	if (n->kind == KT_INDEX) {
		kt_emit(&g->b, "(+ ");
		kt_gen_int(g, p);
		kt_emit(&g->b, " (* %u ", size);
		kt_gen_int(g, n->b);
		kt_emit(&g->b, "))");
	} else {
		kt_gen_int(g, p);
	}
	kt_emit(&g->b, ")");
	kt_check_close(g, rc);
	kt_emit(&g->b, " ");
	if (n->type.is_signed && size < 8)
		kt_emit(&g->b, "(cast i%u (load u%u %s 0)))", size * 8, size * 8, b);
	else
		kt_emit(&g->b, "(load u%u %s 0))", size * 8, b);
}

/* Two computed strings, each into a buffer, compared byte by byte up to the first NUL or
 * the shorter's size (bpftrace's strcmp): unrolled, the offsets constant. */
void kt_gen_strcmp2(struct g *g, const struct kt_node *n)
{
	uint32_t sa = n->a->type.size, sb = n->b->type.size, len = sa < sb ? sa : sb;
	const char *a = kt_fresh(g, "s"), *b = kt_fresh(g, "s"), *eq = kt_fresh(g, "q"), *go = kt_fresh(g, "q");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u)) (%s (stack-buffer %u))) ", a, kt_round8(sa), b, kt_round8(sb));
	kt_gen_str(g, n->a, kt_atom(&g->b, a), sa);
	kt_gen_str(g, n->b, kt_atom(&g->b, b), sb);
	kt_emit(&g->b, "(let ((%s 1) (%s 1))", eq, go);
	for (uint32_t i = 0; i < len; i++)
		kt_emit(&g->b, " (when %s (if (/= (load u8 %s %u) (load u8 %s %u)) (progn (setf %s 0) (setf %s 0)) "
			"(when (= (load u8 %s %u) 0) (setf %s 0))))", go, a, i, b, i, eq, go, a, i, go);
	if (n->op == KT_OP_EQ)
		kt_emit(&g->b, " %s))", eq);
	else
		kt_emit(&g->b, " (not %s)))", eq);
}
