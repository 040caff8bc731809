/* fn_net.c — bpftrace's functions on addresses and bytes: ntop, pton, macaddr, buf, bswap,
 * strncmp, strcontains, cgroupid, and sizeof/offsetof (parsed as their own nodes, typed
 * here): how sema types each call and how gen writes it (funcs.h). Their values are bytes
 * written where they go, as strings are (sema.h's kt_is_bytes), printed by kind in user
 * space (src/cli/trace_val.c). */
#define _GNU_SOURCE
#include "trace/funcs.h"
#include "trace/ktypes.h"
#include "trace/cstruct.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define INET_SIZE 24    /* u64 family, 16 address bytes */
#define MAC_SIZE 8      /* 6 bytes, rounded to a u64 slot */

/* ---- sema ---- */

/* The bytes of an array value: pton()'s count them in nelems (its size is rounded to a u64
 * slot, for keys), a char array's in size. */
static uint32_t nbytes(const struct kt_type *t)
{
	return t->kind == KTT_BYTES ? t->nelems : t->size;
}

/* An address operand: an integer (IPv4) or 4 or 16 bytes (an array field, pton()). */
static bool addr_operand(const struct kt_type *t)
{
	return t->kind == KTT_INT || ((t->kind == KTT_STR || t->kind == KTT_BYTES) && (nbytes(t) == 4 || nbytes(t) == 16));
}

/* ntop([af,] addr): the family is the constant given, else AF_INET for an integer or 4
 * bytes and AF_INET6 for 16; kept in n->num for gen. */
static int ntop_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 2)
		return kt_sm_err(m, n->span, "%s", "ntop() takes an address, or a family and an address");
	struct kt_node *addr = n->kids[n->nkids - 1];
	if (!addr_operand(&addr->type))
		return kt_sm_err(m, addr->span, "%s", "ntop() expects an integer or an array of 4 or 16 bytes");
	n->num = addr->type.kind != KTT_INT && nbytes(&addr->type) == 16 ? AF_INET6 : AF_INET;
	if (n->nkids == 2) {
		if (n->kids[0]->kind != KT_INT || (n->kids[0]->num != AF_INET && n->kids[0]->num != AF_INET6))
			return kt_sm_err(m, n->kids[0]->span, "%s", "ntop()'s family must be the constant AF_INET or AF_INET6");
		n->num = n->kids[0]->num;
	}
	if (n->num == AF_INET6 && addr->type.kind == KTT_INT)
		return kt_sm_err(m, addr->span, "%s", "ntop(AF_INET6, ...) expects an array of 16 bytes");
	n->type = (struct kt_type){ .kind = KTT_INET, .size = INET_SIZE };
	return 0;
}

/* pton("address"): its bytes, at compile time. */
static int pton_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "pton() takes an IPv4 or IPv6 address as a string literal");
	uint8_t buf[16];
	const char *s = n->kids[0]->str;
	/* a dot means IPv4, as bpftrace reads it (so "::ffff:1.2.3.4" is refused there too) */
	uint32_t size = strchr(s, '.') ? (inet_pton(AF_INET, s, buf) == 1 ? 4 : 0) : inet_pton(AF_INET6, s, buf) == 1 ? 16 : 0;
	if (!size)
		return kt_sm_err(m, n->kids[0]->span, "pton(): '%s' is not an IPv4 or IPv6 address", s);
	char *bytes = kl_arena_alloc(m->a, size);
	memcpy(bytes, buf, size);
	n->str = bytes;
	n->strlen = size;
	n->type = (struct kt_type){ .kind = KTT_BYTES, .size = kt_round8(size), .nelems = size };
	return 0;
}

/* macaddr(a): the 6 bytes of an array (a struct's char[6]), or at a pointer into the
 * process (as bpftrace 0.17 reads an integer: user memory). */
static int macaddr_check(struct sm *m, struct kt_node *n)
{
	const struct kt_type *t = n->nkids == 1 ? &n->kids[0]->type : NULL;
	if (!t || (t->kind != KTT_INT && ((t->kind != KTT_STR && t->kind != KTT_BYTES) || nbytes(t) != 6)))
		return kt_sm_err(m, n->span, "%s", "macaddr() argument must be 6 bytes in size (a char[6] array) or a pointer");
	n->type = (struct kt_type){ .kind = KTT_MAC, .size = MAC_SIZE };
	return 0;
}

/* buf(p [, length]): at most BPFTRACE_STRLEN bytes of memory, an array or a string; the
 * length a constant or computed (then capped). */
static int buf_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 2)
		return kt_sm_err(m, n->span, "%s", "buf() takes a pointer or an array, and an optional length");
	const struct kt_type *t = &n->kids[0]->type;
	if (t->kind != KTT_INT && !kt_is_bytes(t))
		return kt_sm_err(m, n->kids[0]->span, "%s", "buf() expects a pointer or an array");
	if (t->kind != KTT_INT && t->kind != KTT_STR && t->kind != KTT_BYTES)
		return kt_sm_err(m, n->kids[0]->span, "%s", "buf() of this value is not supported yet by kiln trace");
	uint32_t max = t->kind == KTT_INT ? m->s->strlen : n->kids[0]->kind == KT_STR ? n->kids[0]->strlen : nbytes(t);
	if (n->nkids == 2) {
		const struct kt_node *l = n->kids[1];
		if (l->type.kind != KTT_INT)
			return kt_sm_err(m, l->span, "%s", "buf()'s length must be an integer");
		/* a literal is padded with zeros to the length (bpftrace's buf("ok", 8)); an array is not */
		if (l->kind == KT_INT && n->kids[0]->kind == KT_STR && l->num >= 0 && l->num <= 4096)
			max = (uint32_t)l->num;
		if (l->kind == KT_INT && (l->num < 0 || (t->kind != KTT_INT && l->num > max)))
			return kt_sm_err(m, l->span, "%s", "buf()'s length is negative or beyond the array");
		if (l->kind == KT_INT && (uint64_t)l->num < max)
			max = (uint32_t)l->num;
	} else if (t->kind == KTT_INT) {
		return kt_sm_err(m, n->span, "%s", "buf() of a pointer needs a length");
	}
	n->type = (struct kt_type){ .kind = KTT_BUF, .size = kt_round8(8 + max) };
	return 0;
}

/* bswap(n): the bytes of an integer of its size reversed (a u8 as it is). */
static int bswap_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->type.kind != KTT_INT)
		return kt_sm_err(m, n->span, "%s", "bswap() takes one integer");
	n->type = kt_t_int(n->kids[0]->type.size ? n->kids[0]->type.size : 8, false);
	return 0;
}

/* strncmp(a, b, n): two strings and a constant length; 0 when equal. */
static int strncmp_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 3 || n->kids[0]->type.kind != KTT_STR || n->kids[1]->type.kind != KTT_STR)
		return kt_sm_err(m, n->span, "%s", "strncmp() takes two strings and a length");
	if (n->kids[2]->kind != KT_INT || n->kids[2]->num < 0)
		return kt_sm_err(m, n->kids[2]->span, "%s", "strncmp()'s length must be a non-negative integer literal");
	n->type = kt_t_int(8, false);
	return 0;
}

/* strcontains(haystack, "needle"): 1 when the needle is in it. */
static int strcontains_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 2 || n->kids[0]->type.kind != KTT_STR || n->kids[1]->type.kind != KTT_STR)
		return kt_sm_err(m, n->span, "%s", "strcontains() takes two strings");
	if (n->kids[1]->kind != KT_STR)
		return kt_sm_err(m, n->kids[1]->span, "%s", "strcontains() with a computed needle is not supported yet by kiln trace (use a literal)");
	n->type = kt_t_int(8, false);
	return 0;
}

/* cgroupid("/sys/fs/cgroup/..."): the cgroup's id (its directory's inode), now. */
static int cgroupid_check(struct sm *m, struct kt_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != KT_STR)
		return kt_sm_err(m, n->span, "%s", "cgroupid() takes a cgroup's path as a string literal");
	struct stat st;
	if (stat(n->kids[0]->str, &st))
		return kt_sm_err(m, n->kids[0]->span, "cgroupid: cannot read the cgroup '%s'", n->kids[0]->str);
	n->kind = KT_INT;
	n->num = (int64_t)st.st_ino;
	n->nkids = 0;
	n->type = kt_t_int(8, false);
	return 0;
}

/* The bytes of a type written in sizeof()/offsetof(): n->str, a pointer when is_ptr_cast. */
static int type_size(struct sm *m, const struct kt_node *n, uint32_t *size)
{
	char msg[1024];
	struct kt_type it;
	if (n->is_ptr_cast) {
		*size = 8;
		return 0;
	}
	if (kt_int_type(n->str, strlen(n->str), &it)) {   /* uint32, unsigned int, pid_t ... */
		*size = it.size;
		return 0;
	}
	if (!strcmp(n->str, "bool")) {
		*size = 1;
		return 0;
	}
	const char *sname = !strncmp(n->str, "struct ", 7) ? n->str + 7 : !strncmp(n->str, "union ", 6) ? n->str + 6 : NULL;
	if (!sname)
		return kt_sm_err(m, n->span, "sizeof(%s): only integer types, pointers and kernel structs are known to kiln trace", n->str);
	if (kt_struct_sizeof(m->cdefs, sname, size, msg, sizeof(msg)))
		return kt_sm_err(m, n->span, "%s", msg);
	return 0;
}

static void constant(struct kt_node *n, uint32_t v)
{
	n->kind = KT_INT;
	n->num = v;
	n->nkids = 0;
	n->a = NULL;
	n->type = kt_t_int(8, false);
}

/* sizeof(TYPE) or sizeof(EXPR): the expression is typed, not computed. */
static int sizeof_check(struct sm *m, struct kt_node *n)
{
	uint32_t size;
	if (n->str) {
		if (type_size(m, n, &size))
			return -1;
	} else {
		if (!n->a || kt_sm_expr(m, n->a))
			return n->a ? -1 : kt_sm_err(m, n->span, "%s", "sizeof() needs a type or an expression");
		const struct kt_type *t = &n->a->type;
		if (t->kind == KTT_STRUCT) {
			char msg[1024];
			if (kt_struct_sizeof(m->cdefs, t->tname, &size, msg, sizeof(msg)))
				return kt_sm_err(m, n->span, "%s", msg);
		} else {
			size = kt_c_sizeof(t);   /* a tuple as bpftrace lays it out */
		}
	}
	constant(n, size);
	return 0;
}

/* offsetof(struct NAME, field[.field]): the member's offset from the kernel's BTF. */
static int offsetof_check(struct sm *m, struct kt_node *n)
{
	if (!n->str || strncmp(n->str, "struct ", 7) || !n->nkids)
		return kt_sm_err(m, n->span, "%s", "offsetof() takes a kernel struct and a field (offsetof(struct NAME, field))");
	const char **fields = kl_arena_array(m->a, const char *, n->nkids);
	for (uint32_t i = 0; i < n->nkids; i++)
		fields[i] = n->kids[i]->name;
	uint32_t off;
	char msg[1024];
	if (kt_struct_offsetof(m->cdefs, n->str + 7, fields, n->nkids, &off, msg, sizeof(msg)))
		return kt_sm_err(m, n->span, "%s", msg);
	constant(n, off);
	return 0;
}

/* ---- gen ---- */

/* size raw bytes of operand a (an array field, a string, a variable, pton()) at dest. */
static void raw_bytes(struct g *g, const struct kt_node *a, const struct kl_node *dest, uint32_t size)
{
	if (kt_gen_core_into(g, a, dest))
		return;
	/* one byte more than the array: no terminating NUL is stored over its last byte */
	kt_gen_str(g, a, dest, size + 1);
}

static void ntop_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	const struct kt_node *a = n->kids[n->nkids - 1];
	kt_emit(&g->b, "(store u64 %s 0 %lld) (store u64 %s 8 0) (store u64 %s 16 0) ", d, (long long)n->num, d, d);
	if (a->type.kind == KTT_INT) {
		kt_emit(&g->b, "(store u32 %s 8 ", d);
		kt_gen_int(g, a);
		kt_emit(&g->b, ")");
	} else {
		raw_bytes(g, a, kt_form(&g->b, "(+ %s 8)", d), nbytes(&a->type));
	}
}

static void pton_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	for (uint32_t i = 0; i < n->strlen && i < size; i++)
		kt_emit(&g->b, "(store u8 %s %u %u)", d, i, (uint8_t)n->str[i]);
}

static void macaddr_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	kt_emit(&g->b, "(store u64 %s 0 0) ", d);
	if (n->kids[0]->type.kind == KTT_INT) {
		kt_emit(&g->b, "(probe-read-user %s 6 ", d);
		kt_gen_int(g, n->kids[0]);
		kt_emit(&g->b, ")");
		return;
	}
	raw_bytes(g, n->kids[0], kt_atom(&g->b, d), 6);
}

/* A u64 length, then the bytes; the length is capped at the value's room. */
static void buf_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size)
{
	const struct kt_node *a = n->kids[0], *l = n->nkids > 1 ? n->kids[1] : NULL;
	uint32_t room = (n->type.size < size ? n->type.size : size) - 8;
	const struct kl_node *data = kt_form(&g->b, "(+ %s 8)", d);
	if (a->type.kind != KTT_INT) {   /* an array or a string: its bytes, the length a constant */
		uint32_t len = l && l->kind == KT_INT ? (uint32_t)l->num : room;
		if (len > room)
			len = room;
		kt_emit(&g->b, "(store u64 %s 0 %u) ", d, len);
		if (a->kind == KT_STR) {
			for (uint32_t i = 0; i < len; i++)
				kt_emit(&g->b, "(store u8 %s %u %u)", d, 8 + i, i < a->strlen ? (uint8_t)a->str[i] : 0);
			return;
		}
		raw_bytes(g, a, data, len);
		return;
	}
	const char *len = kt_fresh(g, "n");
	kt_emit(&g->b, "(let ((%s ", len);
	kt_gen_int(g, l);
	kt_emit(&g->b, ")) (when (> %s %u) (setf %s %u)) (store u64 %s 0 %s) (when (> %s 0) (probe-read %p %s ", len, room, len,
		room, d, len, len, data, len);
	kt_gen_int(g, a);
	kt_emit(&g->b, ")))");
}

static void bswap_value(struct g *g, const struct kt_node *n)
{
	uint32_t size = n->type.size;
	if (size == 1) {
		kt_gen_int(g, n->kids[0]);
		return;
	}
	kt_emit(&g->b, "(bswap%u ", size * 8);
	kt_gen_int(g, n->kids[0]);
	kt_emit(&g->b, ")");
}

/* A string operand into a fresh buffer: its name. Opens one let for the caller to close. */
static const char *str_buffer(struct g *g, const struct kt_node *s)
{
	const char *b = kt_fresh(g, "s");
	kt_emit(&g->b, "(let ((%s (stack-buffer %u))) ", b, kt_round8(s->type.size));
	kt_gen_str(g, s, kt_atom(&g->b, b), s->type.size);
	return b;
}

/* Byte by byte, unrolled into one flat sequence (nested ifs would each keep a value on the
 * stack): differ -> 1; both end -> 0; past n -> 0. */
static void strncmp_value(struct g *g, const struct kt_node *n)
{
	const struct kt_node *x = n->kids[0], *y = n->kids[1];
	uint32_t len = (uint32_t)n->kids[2]->num, most = x->type.size > y->type.size ? x->type.size : y->type.size;
	if (len > most)
		len = most;
	const char *a = str_buffer(g, x), *b = str_buffer(g, y);
	const char *r = kt_fresh(g, "r"), *on = kt_fresh(g, "go");
	kt_emit(&g->b, "(let ((%s 0) (%s 1)) ", r, on);
	for (uint32_t i = 0; i < len; i++) {
		const struct kl_node *ca = i < x->type.size ? kt_form(&g->b, "(load u8 %s %u)", a, i) : kt_atom(&g->b, "0");
		const struct kl_node *cb = i < y->type.size ? kt_form(&g->b, "(load u8 %s %u)", b, i) : kt_atom(&g->b, "0");
		kt_emit(&g->b, "(when %s (if (/= %p %p) (progn (setf %s 1) (setf %s 0)) (when (= %p 0) (setf %s 0)))) ", on, ca,
			cb, r, on, ca, on);
	}
	kt_emit(&g->b, "%s)))", r);
}

/* At each start before the haystack's NUL, the needle's bytes compared there; flat, as
 * strncmp. */
static void strcontains_value(struct g *g, const struct kt_node *n)
{
	const struct kt_node *h = n->kids[0], *nd = n->kids[1];
	if (!nd->strlen) {
		kt_emit(&g->b, "1");
		return;
	}
	uint32_t size = h->type.size;
	const char *b = str_buffer(g, h);
	const char *r = kt_fresh(g, "r"), *on = kt_fresh(g, "go");
	kt_emit(&g->b, "(let ((%s 0) (%s 1)) ", r, on);
	uint32_t starts = nd->strlen <= size ? size - nd->strlen + 1 : 0;
	for (uint32_t i = 0; i < starts; i++) {
		kt_emit(&g->b, "(when %s (if (= (load u8 %s %u) 0) (setf %s 0) (when (and", on, b, i, on);
		for (uint32_t j = 0; j < nd->strlen; j++)
			kt_emit(&g->b, " (= (load u8 %s %u) %u)", b, i + j, (uint8_t)nd->str[j]);
		kt_emit(&g->b, ") (setf %s 1) (setf %s 0)))) ", r, on);
	}
	kt_emit(&g->b, "%s))", r);
}

void kt_buf_compare(struct g *g, const struct kt_node *n)
{
	const char *a = kt_fresh(g, "s"), *b = kt_fresh(g, "s");
	uint32_t sa = n->a->type.size, sb = n->b->type.size, room = (sa < sb ? sa : sb) - 8;
	kt_emit(&g->b, "(let ((%s (stack-buffer %u)) (%s (stack-buffer %u))) ", a, sa, b, sb);
	kt_gen_str(g, n->a, kt_atom(&g->b, a), sa);
	kt_gen_str(g, n->b, kt_atom(&g->b, b), sb);
	const char *r = kt_fresh(g, "r"), *len = kt_fresh(g, "n");
	kt_emit(&g->b, "(let ((%s (load u64 %s 0)) (%s (= (load u64 %s 0) (load u64 %s 0)))) ", len, a, r, a, b);
	kt_emit(&g->b, "(when (> %s %u) (setf %s 0)) ", len, room, r);   /* longer than one of them holds */
	for (uint32_t i = 0; i < room; i++)
		kt_emit(&g->b, "(when (and %s (> %s %u) (/= (load u8 %s %u) (load u8 %s %u))) (setf %s 0)) ", r, len, i, a, 8 + i, b,
			8 + i, r);
	if (n->op == KT_OP_EQ)
		kt_emit(&g->b, "%s))", r);
	else
		kt_emit(&g->b, "(not %s)))", r);
}

static const struct kt_fn fns[] = {
	/* name           check              own    stmt  value              str          site */
	{ "ntop", ntop_check, false, NULL, NULL, ntop_str, NULL },
	{ "pton", pton_check, true, NULL, NULL, pton_str, NULL },
	{ "macaddr", macaddr_check, false, NULL, NULL, macaddr_str, NULL },
	{ "buf", buf_check, false, NULL, NULL, buf_str, NULL },
	{ "bswap", bswap_check, false, NULL, bswap_value, NULL, NULL },
	{ "strncmp", strncmp_check, false, NULL, strncmp_value, NULL, NULL },
	{ "strcontains", strcontains_check, false, NULL, strcontains_value, NULL, NULL },
	{ "cgroupid", cgroupid_check, true, NULL, NULL, NULL, NULL },
	{ "sizeof", sizeof_check, true, NULL, NULL, NULL, NULL },
	{ "offsetof", offsetof_check, true, NULL, NULL, NULL, NULL },
};
const struct kt_fn_table kt_fns_net = { fns, sizeof(fns) / sizeof(fns[0]) };
