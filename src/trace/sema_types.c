/* sema_types.c — sema's values beyond integers and strings (sema_priv.h): tuples (their
 * layout, `.N` elements, merging the types two assignments give one map or $variable),
 * pointers to integers (`(uint32 *)p`, a tracepoint's `char **` field) read with `*` and
 * `[i]`, and the kernel's task states that live in a #define of sched.h. */
#define _GNU_SOURCE
#include "trace/sema_priv.h"
#include "trace/ktypes.h"
#include "trace/cstruct.h"
#include <string.h>

/* Every element of a tuple starts at a multiple of 8 (integers are stored as 8 bytes; a
 * string is padded), so each integer is one aligned 8-byte access. */
uint32_t kt_elem_off(const struct kt_type *t, uint32_t i)
{
	uint32_t off = 0;
	for (uint32_t k = 0; k < i; k++)
		off += (kt_type_size(&t->elems[k]) + 7) & ~7u;
	return off;
}

static bool value_kind(const struct kt_type *t)
{
	return t->kind == KTT_INT || kt_is_bytes(t) || t->kind == KTT_PROBE || t->kind == KTT_TUPLE ||
	       kt_is_symbolic(t);
}

/* (a, b, ...): its elements' types; integers keep their size and sign (printing and
 * sizeof use them), the layout stores each in 8 bytes. */
int kt_sm_tuple(struct sm *m, struct kt_node *n)
{
	struct kt_type *e = kl_arena_array(m->a, struct kt_type, n->nkids);
	for (uint32_t i = 0; i < n->nkids; i++) {
		if (kt_sm_expr(m, n->kids[i]))
			return -1;
		e[i] = n->kids[i]->type;
		e[i].tname = e[i].kind == KTT_STRUCT ? e[i].tname : NULL;   /* a script's struct: printed by it */
		e[i].pointee = NULL;
		if (!value_kind(&e[i]))
			return kt_sm_err(m, n->kids[i]->span, "%s",
					 "tuple elements other than integers, strings and tuples are not supported yet by kiln trace");
	}
	n->type = (struct kt_type){ .kind = KTT_TUPLE, .nelems = n->nkids, .elems = e };
	return 0;
}

/* t.N */
int kt_sm_tuple_elem(struct sm *m, struct kt_node *n)
{
	if (kt_sm_expr(m, n->a))
		return -1;
	const struct kt_type *t = &n->a->type;
	if (t->kind != KTT_TUPLE)
		return kt_sm_err(m, n->span, "%s", "the element access .N needs a tuple");
	if (n->num < 0 || n->num >= t->nelems)
		return kl_error(m->d, n->span, "Invalid tuple index: %lld. Found %u elements in tuple.", (long long)n->num,
				t->nelems);
	n->type = t->elems[n->num];
	return 0;
}

/* A copy of t whose tuples (and theirs) are the copy's own: a map's or a $variable's type
 * grows in place when a longer string is stored. */
struct kt_type kt_type_own(struct kl_arena *a, const struct kt_type *t)
{
	struct kt_type c = *t;
	if (t->kind == KTT_TUPLE) {
		c.elems = kl_arena_array(a, struct kt_type, t->nelems);
		for (uint32_t i = 0; i < t->nelems; i++)
			c.elems[i] = kt_type_own(a, &t->elems[i]);
	}
	return c;
}

/* Merges the type of a value stored (src) into a storage's (dst): the same shape, strings
 * growing to the longest. false when the shapes differ. */
bool kt_type_merge(struct kt_type *dst, const struct kt_type *src)
{
	if (dst->kind != src->kind)
		return false;
	if (dst->kind == KTT_STR && src->size > dst->size)
		dst->size = src->size;
	if (dst->kind != KTT_TUPLE)
		return true;
	if (dst->nelems != src->nelems)
		return false;
	for (uint32_t i = 0; i < src->nelems; i++)
		if (!kt_type_merge(&dst->elems[i], &src->elems[i]))
			return false;
	return true;
}

/* The bytes of a value as bpftrace lays it out (sizeof): C's natural alignment, an integer
 * aligned to its size, a string to 1, a tuple to its widest member. */
static uint32_t c_align(const struct kt_type *t)
{
	if (t->kind == KTT_STR)
		return 1;
	if (t->kind != KTT_TUPLE)
		return t->kind == KTT_INT ? t->size : 8;
	uint32_t al = 1;
	for (uint32_t i = 0; i < t->nelems; i++)
		if (c_align(&t->elems[i]) > al)
			al = c_align(&t->elems[i]);
	return al;
}

uint32_t kt_c_sizeof(const struct kt_type *t)
{
	if (t->kind == KTT_STR || t->kind == KTT_INT)
		return t->size;
	if (t->kind != KTT_TUPLE)
		return kt_type_size(t);
	uint32_t off = 0;
	for (uint32_t i = 0; i < t->nelems; i++) {
		uint32_t al = c_align(&t->elems[i]);
		off = (off + al - 1) / al * al + kt_c_sizeof(&t->elems[i]);
	}
	uint32_t al = c_align(t);
	return (off + al - 1) / al * al;
}

/* ---- pointers to integers ---- */

static const struct { const char *name; uint32_t size; bool sign; } int_types[] = {
	{ "int8", 1, true }, { "int16", 2, true }, { "int32", 4, true }, { "int64", 8, true }, { "uint8", 1, false },
	{ "uint16", 2, false }, { "uint32", 4, false }, { "uint64", 8, false },
	/* C's names, as tracefs writes a field's type */
	{ "char", 1, true }, { "signed char", 1, true }, { "unsigned char", 1, false }, { "u8", 1, false },
	{ "s8", 1, true }, { "short", 2, true }, { "unsigned short", 2, false }, { "u16", 2, false },
	{ "s16", 2, true }, { "int", 4, true }, { "unsigned int", 4, false }, { "unsigned", 4, false },
	{ "u32", 4, false }, { "s32", 4, true }, { "long", 8, true }, { "unsigned long", 8, false },
	{ "long long", 8, true }, { "unsigned long long", 8, false }, { "u64", 8, false }, { "s64", 8, true },
	{ "size_t", 8, false }, { "pid_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false },
};

/* The integer type a name stands for ("uint32", "unsigned int"); false when none. */
bool kt_int_type(const char *name, size_t len, struct kt_type *out)
{
	for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
		if (strlen(int_types[i].name) == len && !strncmp(int_types[i].name, name, len)) {
			*out = kt_t_int(int_types[i].size, int_types[i].sign);
			return true;
		}
	return false;
}

/* A pointer to pointee: an 8-byte unsigned integer that `*` and `[i]` read through. */
struct kt_type kt_t_ptr(struct kl_arena *a, struct kt_type pointee, bool user)
{
	struct kt_type t = kt_t_int(8, false);
	t.pointee = kl_arena_new(a, struct kt_type);
	*t.pointee = pointee;
	t.user = user;
	return t;
}

/* A C type as tracefs writes a field's ("const char *const *", "int *"): a pointer to an
 * integer (or to a pointer, one level down, a u64), else false. */
bool kt_ctype_ptr(struct kl_arena *a, const char *ct, bool user, struct kt_type *out)
{
	size_t len = strlen(ct);
	while (len && ct[len - 1] == ' ')
		len--;
	if (!len || ct[len - 1] != '*')
		return false;
	len--;
	while (len && ct[len - 1] == ' ')
		len--;
	struct kt_type pointee;
	if (len > 5 && !strncmp(ct + len - 5, "const", 5) && (ct[len - 6] == ' ' || ct[len - 6] == '*'))
		len -= 5;   /* "char *const *": the const belongs to the inner pointer */
	while (len && ct[len - 1] == ' ')
		len--;
	if (len && ct[len - 1] == '*') {
		pointee = kt_t_int(8, false);
	} else {
		size_t start = 0;
		while (!strncmp(ct + start, "const ", 6) || !strncmp(ct + start, "volatile ", 9))
			start += ct[start] == 'c' ? 6 : 9;
		if (!kt_int_type(ct + start, len - start, &pointee))
			return false;
	}
	*out = kt_t_ptr(a, pointee, user);
	return true;
}

/* *p: p's pointee; a plain integer reads 8 bytes (bpftrace's uint64). A struct pointer is
 * only dereferenced to reach a field, (*p).f, which is p->f. */
int kt_sm_deref(struct sm *m, struct kt_node *n)
{
	if (kt_sm_expr(m, n->a))
		return -1;
	const struct kt_type *p = &n->a->type;
	if (p->kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "The * operator can not be used on this type: it needs a pointer or an integer");
	if (p->tname) {
		n->type = (struct kt_type){ .kind = KTT_STRUCT, .tname = p->tname, .user = p->user,
					    .size = kt_cs_size(m->cdefs, p->tname) };   /* a script's: a value */
		return 0;
	}
	n->type = p->pointee ? *p->pointee : kt_t_int(8, false);
	if (n->type.kind == KTT_INT && n->type.size == 8 && p->pointee)
		n->type.user = p->user;   /* a pointer read through a user pointer points there too */
	return 0;
}

/* p[i]: *(p + i) for a pointer to integers, i a literal (as bpftrace 0.17 has it). */
int kt_sm_index(struct sm *m, struct kt_node *n)
{
	if (kt_sm_expr(m, n->a) || kt_sm_expr(m, n->b))
		return -1;
	const struct kt_type *p = &n->a->type;
	if (p->kind != KTT_INT || !p->pointee)
		return kt_sm_err(m, n->span, "%s",
				 "indexing with [] needs a pointer to integers (a cast such as (uint32 *), a field such as args->argv) in kiln trace");
	if (n->b->kind != KT_INT)   /* bpftrace 0.17's rule, in its words */
		return kt_sm_err(m, n->span, "%s", "The array index operator [] only accepts literal integer indices.");
	if (p->nelems && (n->b->num < 0 || n->b->num >= p->nelems))
		return kl_error(m->d, n->span, "the index %lld is out of bounds for array of size %u", (long long)n->b->num,
				p->nelems);
	n->type = *p->pointee;
	if ((n->type.size == 8 && !n->type.is_signed) || n->type.kind == KTT_STRUCT)
		n->type.user = p->user;
	return 0;
}

/* An array field of a tracepoint's record (raw_syscalls' `unsigned long args[6]`): the
 * address of its first element in the record, read with [i]; KTT_NONE for elements that
 * are not integers of 1, 2, 4 or 8 bytes. */
struct kt_type kt_tp_array(struct sm *m, const struct kl_tp_field *f)
{
	uint32_t es = f->size / f->count;
	if (es != 2 && es != 4 && es != 8)
		return (struct kt_type){ .kind = KTT_NONE };
	struct kt_type t = kt_t_ptr(m->a, kt_t_int(es, f->is_signed), false);
	t.nelems = f->count;   /* an array: [i] is checked against it */
	return t;
}

/* (uint32 *)x: x as a pointer to that integer type, in x's memory (user for a uprobe's
 * arguments and a syscall's pointers). */
int kt_sm_ptr_cast(struct sm *m, struct kt_node *n)
{
	struct kt_type pointee;
	if (!kt_int_type(n->name, strlen(n->name), &pointee))
		return 1;
	if (n->a->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "cannot cast to (%s *): the value is not an integer", n->name);
	for (uint8_t k = 1; k < n->ptr_stars; k++)   /* (int32 **): a pointer to pointers to int32 */
		pointee = kt_t_ptr(m->a, pointee, kt_sm_cast_user(m, n->a));
	n->type = kt_t_ptr(m->a, pointee, kt_sm_cast_user(m, n->a));
	return 0;
}

/* (struct X **)p: a pointer to pointers to X (each read as 8 bytes, a struct pointer). */
void kt_struct_ptr_levels(struct sm *m, struct kt_node *n)
{
	for (uint8_t k = 1; k < n->ptr_stars; k++) {
		struct kt_type p = n->type;
		n->type = kt_t_ptr(m->a, p, p.user);
	}
}

/* ---- pointer arithmetic ---- */

/* The bytes p + 1 moves for a pointer p (bpftrace scales p + i, p - i, p++ and p += i by
 * them): its pointee's size, a kernel struct's from BTF; *size is 0 for a plain integer. */
int kt_sm_elem_size(struct sm *m, struct kl_span at, const struct kt_type *t, uint32_t *size)
{
	*size = 0;
	if (t->kind != KTT_INT)
		return 0;
	if (t->pointee) {
		*size = t->pointee->size ? t->pointee->size : 8;
		return 0;
	}
	char msg[1024];
	if (t->tname && kt_struct_sizeof(m->cdefs, t->tname, size, msg, sizeof(msg)))
		return kt_sm_err(m, at, "%s", msg);
	return 0;
}

/* A pointer's type as bpftrace names it in errors ("int32 *", "struct sock *"). */
static const char *ptr_name(struct kl_arena *a, const struct kt_type *t)
{
	if (t->tname)
		return kl_arena_printf(a, "struct %s *", t->tname);
	const struct kt_type *e = t->pointee;
	if (!e)
		return kl_arena_printf(a, "%sint%u", t->is_signed ? "" : "u", t->size * 8);
	return kl_arena_printf(a, "%s *", ptr_name(a, e));
}

/* a + b and a - b with a pointer: p + i and p - i move i elements (n->num: the element's
 * bytes, gen scales by them), i + p too; two pointers are refused, as bpftrace refuses
 * them. Sets n->type to the pointer's; 1 when neither side is a pointer. */
int kt_sm_ptr_arith(struct sm *m, struct kt_node *n)
{
	const struct kt_type *l = &n->a->type, *r = &n->b->type;
	bool lp = l->pointee || l->tname, rp = r->pointee || r->tname;
	if ((n->op != '+' && n->op != '-') || (!lp && !rp) || (!lp && n->op == '-'))
		return 1;
	if (lp && rp)   /* bpftrace's words */
		return kl_error(m->d, n->span, "The %c operator can not be used on expressions of types %s, %s", n->op,
				ptr_name(m->a, l), ptr_name(m->a, r));
	uint32_t size;
	if (kt_sm_elem_size(m, n->span, lp ? l : r, &size))
		return -1;
	n->type = lp ? *l : *r;
	n->num = size;
	return 0;
}

/* ---- the kernel's task states ---- */

/* include/linux/sched.h #defines them (no enum, so not in BTF), and no header under
 * /usr/include has them: the values every kernel since 4.14 uses. */
static const struct { const char *name; int64_t value; } task_states[] = {
	{ "TASK_RUNNING", 0x0 }, { "TASK_INTERRUPTIBLE", 0x1 }, { "TASK_UNINTERRUPTIBLE", 0x2 },
	{ "__TASK_STOPPED", 0x4 }, { "__TASK_TRACED", 0x8 }, { "EXIT_DEAD", 0x10 }, { "EXIT_ZOMBIE", 0x20 },
	{ "TASK_PARKED", 0x40 }, { "TASK_DEAD", 0x80 }, { "TASK_WAKEKILL", 0x100 }, { "TASK_WAKING", 0x200 },
	{ "TASK_NOLOAD", 0x400 }, { "TASK_NEW", 0x800 }, { "TASK_KILLABLE", 0x102 }, { "TASK_STOPPED", 0x104 },
	{ "TASK_IDLE", 0x402 },   /* TASK_TRACED is not here: it changed in 5.19 */
};

int kt_task_state(const char *name, int64_t *v)
{
	for (size_t i = 0; i < sizeof(task_states) / sizeof(task_states[0]); i++)
		if (!strcmp(task_states[i].name, name)) {
			*v = task_states[i].value;
			return 0;
		}
	return -1;
}

/* ---- string $variables ---- */

/* bpftrace sizes a string $variable to the longest string assigned to it anywhere in the
 * probe ($s = "a"; ...; $s = "longer"). A pass grows the variable as it meets longer ones
 * (sema.c's assignment); the next pass, kt_sema's last among them, starts it at the size
 * the one before ended with (the probe's variables it left in s->vars), so every read and
 * write of it has the one size. */
void kt_sm_var_seed(struct sm *m, struct kt_var *v)
{
	uint32_t p = m->first->probe_index;
	if (v->type.kind != KTT_STR || !m->s->vars || !m->s->vars[p])
		return;
	for (uint32_t i = 0; i < m->s->nvars[p]; i++) {
		const struct kt_var *prev = &m->s->vars[p][i];
		if (!strcmp(prev->name, v->name) && prev->type.kind == KTT_STR && prev->type.size > v->type.size)
			v->type.size = prev->type.size;
	}
}

/* bpftrace makes `@a += x` (and -=, ...) on a map nothing assigns before it an unsigned
 * integer map whose missing entries read 0 (pointers.bt's struct walk sums `@a += $c->a` so). Only on
 * the last pass: a map a later probe assigns is typed by that assignment first. */
void kt_sm_compound_new(struct sm *m, struct kt_node *mn)
{
	struct kt_map *mp = &m->maps.items[mn->map_id];
	mp->kind = KM_INT;
	mp->value = kt_t_int(8, false);   /* bpftrace's uint64: @b -= 2 prints 18446744073709551614 */
}

bool kt_sm_cast_user(const struct sm *m, const struct kt_node *x)
{
	if (x->type.user || x->type.tname || x->type.pointee)   /* a pointer keeps its memory */
		return x->type.user;
	for (uint32_t i = 0; i < m->s->ntargets; i++) {
		const struct kt_target *t = &m->s->targets[i];
		if (t->probe_index == m->first->probe_index && t->kind != KP_UPROBE && t->kind != KP_URETPROBE &&
		    t->kind != KP_USDT)
			return false;
	}
	return true;
}
