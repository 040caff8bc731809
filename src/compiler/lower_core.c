/* lower_core.c — kernel types and CO-RE: reads through kernel pointers (core-read, ->,
 * core-read-into, core-read-str), the relocated constants (core-field-*, core-type-*,
 * core-enum-value*), Whistler's core-load and core-ctx-load, typed pointers (current-task,
 * kernel-ptr) and import-kernel-struct's accessors. Every offset, size and value that depends
 * on the kernel is an instruction carrying a CO-RE relocation (core.c records it; btf.c writes
 * it as clang does), never a folded constant. */
#include "core.h"
#include "kbtf.h"
#include "lower_internal.h"
#include <linux/bpf.h>

enum { H_GET_CURRENT_TASK_BTF = 158, H_PROBE_READ_KERNEL = 113, H_PROBE_READ_KERNEL_STR = 115, H_GET_CURRENT_TASK = 35 };

#define MAX_ACCESS 64

/* Where a chain of fields has got to: the access from its root type (a new root after each
 * pointer followed), the offset in bits, and the type reached. */
struct path {
	struct kl_type *root;
	uint32_t access[MAX_ACCESS];
	uint32_t n;
	uint32_t bitoff;
	struct kl_type *t;                 /* the type reached */
	const struct kl_field *f;          /* the member reached (NULL: the root or an element) */
};

static void path_start(struct path *p, struct kl_type *root)
{
	p->root = p->t = root;
	p->access[0] = 0;
	p->n = 1;
	p->bitoff = 0;
	p->f = NULL;
}

/* One step: a member by name or an array index. */
static int path_step(struct lw *l, struct path *p, struct kl_node *s)
{
	if (p->n == MAX_ACCESS)
		return kl_error(l->c->d, s->span, "a chain of more than %d fields", MAX_ACCESS - 1);
	if (s->kind == KL_N_INT) {
		if (p->t->kind != KL_T_ARRAY)
			return kl_error(l->c->d, s->span, "index %lld of %s, which is not an array", (long long)s->ival,
					p->f ? p->f->name : p->t->name ? p->t->name : "a value");
		if (s->ival < 0 || (p->t->count && (uint64_t)s->ival >= p->t->count))
			return kl_error(l->c->d, s->span, "index %lld is outside %s[%u]", (long long)s->ival,
					p->f ? p->f->name : "the array", p->t->count);
		p->access[p->n++] = (uint32_t)s->ival;
		p->bitoff += (uint32_t)s->ival * p->t->elem->size * 8;
		p->t = p->t->elem;
		p->f = NULL;
		return 0;
	}
	if (s->kind != KL_N_SYM && s->kind != KL_N_KEY)
		return kl_error(l->c->d, s->span, "expected a field name or an array index");
	if (p->t->kind != KL_T_STRUCT || !p->t->core) {
		const char *what = p->t->kind == KL_T_PTR ? "a pointer to no struct"
			       : p->t->kind == KL_T_ARRAY ? "an array (index it with a number)"
			       : p->t->kind == KL_T_ENUM ? "an enum, not a struct" : "an integer, not a struct";
		return kl_error(l->c->d, s->span, "cannot take field '%s' of %s: %s", s->str,
				p->f ? p->f->name : p->t->name ? p->t->name : "the value", what);
	}
	uint32_t idx;
	if (kl_core_member(l->c, p->t, kl_name(s), s->span, &idx))
		return -1;
	const struct kl_field *f = &p->t->fields[idx];
	p->access[p->n++] = idx;
	p->bitoff += f->bitsize ? f->bitoff : f->offset * 8;
	p->t = f->type;
	p->f = f;
	return 0;
}

/* A relocated constant: d = the local value of `kind` on the path, patched by libbpf. */
static kl_vreg reloc_const(struct lw *l, const struct kl_type *type, const uint32_t *access, uint32_t n,
			   uint32_t kind, int64_t local, bool wide)
{
	struct kl_ir_ins *i = emit(l, IR_MOVI);
	i->d = vreg(l);
	i->imm = local;
	i->size = wide ? 8 : 4;
	i->core = kl_core_reloc(l->c, type, access, n, kind);
	return i->d;
}

static int64_t field_value(const struct path *p, uint32_t kind)
{
	return kl_core_field_value(kind, p->bitoff, p->f, p->t);
}

/* base + the path's relocated byte offset. */
static kl_vreg field_addr(struct lw *l, kl_vreg base, const struct path *p)
{
	struct kl_ir_ins *i = emit(l, IR_ALU);
	i->alu = BPF_ADD;
	i->a = base;
	i->has_imm = true;
	i->imm = field_value(p, BPF_CORE_FIELD_BYTE_OFFSET);
	i->d = vreg(l);
	i->core = kl_core_reloc(l->c, p->root, p->access, p->n, BPF_CORE_FIELD_BYTE_OFFSET);
	return i->d;
}

/* bpf_probe_read_kernel of `size` (a register) bytes at addr into a fresh 8-byte slot. */
static uint32_t probe(struct lw *l, kl_vreg addr, kl_vreg size, bool zero)
{
	uint32_t s = kl_lw_slot(l, 8, 8);
	l->f->slots[s].temp = true;
	if (zero) {
		struct kl_ir_ins *z = emit(l, IR_STORE);
		z->slot = s;
		z->size = 8;
		z->has_imm = true;
	}
	kl_vreg args[3] = { kl_lw_slot_addr(l, s), size, addr };
	kl_lw_call(l, H_PROBE_READ_KERNEL, args, 3);
	return s;
}

static kl_vreg load_slot(struct lw *l, uint32_t s, uint32_t size)
{
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->slot = s;
	i->size = (uint8_t)size;
	i->d = vreg(l);
	return i->d;
}

/* The pointer stored at the path's end, read from the kernel. */
static kl_vreg read_ptr(struct lw *l, kl_vreg base, const struct path *p)
{
	kl_vreg addr = field_addr(l, base, p);
	uint32_t s = probe(l, addr, kl_lw_reg_of(l, cval(8)), false);
	return load_slot(l, s, 8);
}

static const char *pointee(const struct kl_type *t)
{
	return t->kind == KL_T_PTR && t->elem && t->elem->kind == KL_T_STRUCT ? t->elem->name : NULL;
}

/* Follow items[0..n) from base (a pointer to root): pointers before the last item are read.
 * On return p describes the last item from the last root and *base is that root's address. */
static int walk(struct lw *l, kl_vreg *base, struct kl_type *root, struct kl_node **items, uint32_t n,
		struct path *p)
{
	path_start(p, root);
	for (uint32_t i = 0; i < n; i++) {
		if (path_step(l, p, items[i]))
			return -1;
		if (i + 1 < n && p->t->kind == KL_T_PTR) {
			struct kl_type *next = p->t->elem;
			if (!next || next->kind != KL_T_STRUCT)
				return kl_error(l->c->d, items[i]->span, "'%s' points at no struct whose fields could be read",
						items[i]->str);
			*base = read_ptr(l, *base, p);
			path_start(p, next);
		}
	}
	return 0;
}

/* BPF_CORE_READ_BITFIELD_PROBED: the bytes holding the field read into a zeroed u64, shifted
 * left then right (arithmetic when the field is signed), every amount relocated. */
static struct val read_bitfield(struct lw *l, kl_vreg base, const struct path *p)
{
	kl_vreg addr = field_addr(l, base, p);
	kl_vreg size = reloc_const(l, p->root, p->access, p->n, BPF_CORE_FIELD_BYTE_SIZE,
				   field_value(p, BPF_CORE_FIELD_BYTE_SIZE), false);
	uint32_t s = probe(l, addr, size, true);
	kl_vreg v = load_slot(l, s, 8);
	kl_vreg lsh = reloc_const(l, p->root, p->access, p->n, BPF_CORE_FIELD_LSHIFT_U64,
				  field_value(p, BPF_CORE_FIELD_LSHIFT_U64), false);
	struct kl_ir_ins *i = emit(l, IR_ALU);
	i->alu = BPF_LSH;
	i->d = i->a = v;
	i->b = lsh;
	kl_vreg sign = reloc_const(l, p->root, p->access, p->n, BPF_CORE_FIELD_SIGNED,
				   field_value(p, BPF_CORE_FIELD_SIGNED), false);
	kl_vreg rsh = reloc_const(l, p->root, p->access, p->n, BPF_CORE_FIELD_RSHIFT_U64,
				  field_value(p, BPF_CORE_FIELD_RSHIFT_U64), false);
	uint32_t lu = label(l), le = label(l);
	kl_lw_branch(l, BPF_JEQ, rval(sign), cval(0), lu);
	i = emit(l, IR_ALU);
	i->alu = BPF_ARSH;
	i->d = i->a = v;
	i->b = rsh;
	jump(l, le);
	place(l, lu);
	i = emit(l, IR_ALU);
	i->alu = BPF_RSH;
	i->d = i->a = v;
	i->b = rsh;
	place(l, le);
	return rval(v);
}

/* The value at the end of a path: an integer (sign-extended when signed), an enum or a
 * pointer (typed by what it points at). */
static int read_value(struct lw *l, kl_vreg base, const struct path *p, struct kl_node *at, struct val *out)
{
	if (p->f && p->f->bitsize) {
		*out = read_bitfield(l, base, p);
		return 0;
	}
	const struct kl_type *t = p->t;
	if (t->kind == KL_T_STRUCT || t->kind == KL_T_ARRAY)
		return kl_error(l->c->d, at->span, "'%s' is %s of %u bytes, not a value: copy it with "
				"core-read-into, read a string with core-read-str, or name one of its %s",
				p->f ? p->f->name : "the value", t->kind == KL_T_ARRAY ? "an array" : "a struct",
				t->size, t->kind == KL_T_ARRAY ? "elements by index" : "fields");
	uint32_t size = t->size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return kl_error(l->c->d, at->span, "'%s' is %u bytes; kiln reads values of 1, 2, 4 or 8",
				p->f ? p->f->name : "the value", size);
	kl_vreg addr = field_addr(l, base, p);
	uint32_t s = probe(l, addr, kl_lw_reg_of(l, cval(size)), false);
	*out = rval(load_slot(l, s, size));
	if (t->kind != KL_T_PTR && t->is_signed && size < 8)
		*out = kl_lw_truncate(l, *out, size, true);
	out->kt = pointee(t);
	return 0;
}

static int struct_of(struct lw *l, struct kl_node *n, struct kl_type **out)
{
	if (n->kind != KL_N_SYM && n->kind != KL_N_KEY)
		return kl_error(l->c->d, n->span, "expected the name of a kernel struct or union");
	*out = kl_core_type(l->c, kl_name(n), KL_KB_STRUCT, n->span);
	return *out ? 0 : -1;
}

/* A kernel pointer: the value of PTR, and the struct it points at named by TYPE or, when
 * type is NULL, by the value's own type. */
static int kernel_ptr_of(struct lw *l, struct kl_node *ptr, struct val v, struct kl_node *type, kl_vreg *base,
			 struct kl_type **st);

static int kernel_ptr(struct lw *l, struct kl_node *ptr, struct kl_node *type, kl_vreg *base, struct kl_type **st)
{
	struct val v;
	if (kl_lw_lower(l, ptr, &v))
		return -1;
	return kernel_ptr_of(l, ptr, v, type, base, st);
}

/* kernel_ptr on a value already lowered. */
static int kernel_ptr_of(struct lw *l, struct kl_node *ptr, struct val v, struct kl_node *type, kl_vreg *base,
			 struct kl_type **st)
{
	if (type) {
		if (struct_of(l, type, st))
			return -1;
	} else {
		if (!v.kt)
			return kl_error(l->c->d, ptr->span, "-> needs a typed kernel pointer (from current-task, a "
					"pointer field, a tp_btf argument or (kernel-ptr TYPE x)); name the type "
					"with (core-read PTR TYPE FIELD ...)");
		if (!(*st = kl_core_type(l->c, v.kt, KL_KB_STRUCT, ptr->span)))
			return -1;
	}
	*base = kl_lw_reg_of(l, v);
	return 0;
}

/* (core-read PTR TYPE FIELD ...) */
static int f_core_read(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 3, UINT32_MAX))
		return -1;
	kl_vreg base;
	struct kl_type *st = NULL;
	struct path p;
	if (kernel_ptr(l, n->items[1], n->items[2], &base, &st) ||
	    walk(l, &base, st, n->items + 3, n->nitems - 3, &p))
		return -1;
	return read_value(l, base, &p, n->items[n->nitems - 1], out);
}

/* A load of the field at the path's end straight from base, a PTR_TO_BTF_ID, its offset
 * relocated (FIELD_BYTE_OFFSET on the LDX, as clang writes prev->pid under
 * preserve_access_index). */
static kl_vreg direct_field(struct lw *l, kl_vreg base, const struct path *p, uint32_t size)
{
	int64_t off = field_value(p, BPF_CORE_FIELD_BYTE_OFFSET);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = base;
	i->off = (int32_t)off;
	i->size = (uint8_t)size;
	i->d = vreg(l);
	i->core = kl_core_reloc(l->c, p->root, p->access, p->n, BPF_CORE_FIELD_BYTE_OFFSET);
	return i->d;
}

/* The path to the last of n fields from a trusted pointer base, each pointer along it loaded
 * directly; *base becomes the pointer holding the last field. */
static int direct_path(struct lw *l, kl_vreg *basep, struct kl_type *st, struct kl_node **items, uint32_t n,
		       struct path *pp)
{
	struct path p;
	kl_vreg base = *basep;
	path_start(&p, st);
	for (uint32_t i = 0; i < n; i++) {
		if (path_step(l, &p, items[i]))
			return -1;
		if (field_value(&p, BPF_CORE_FIELD_BYTE_OFFSET) > INT16_MAX)
			return kl_error(l->c->d, items[i]->span, "'%s' is %lld bytes into %s, beyond a direct load's "
					"reach: read it with core-read", items[i]->str,
					(long long)field_value(&p, BPF_CORE_FIELD_BYTE_OFFSET), p.root->name);
		if (i + 1 < n && p.t->kind == KL_T_PTR) {
			struct kl_type *next = p.t->elem;
			if (!next || next->kind != KL_T_STRUCT)
				return kl_error(l->c->d, items[i]->span, "'%s' points at no struct whose fields could be read",
						items[i]->str);
			base = direct_field(l, base, &p, 8);
			path_start(&p, next);
		}
	}
	*basep = base;
	*pp = p;
	return 0;
}

/* (-> PTR FIELD ...) on a trusted pointer: every pointer along the chain and the value at its
 * end loaded directly (the verifier types each pointer read from a PTR_TO_BTF_ID by its BTF,
 * so the next load is checked too); a bitfield is read with the probe, as core-read does. */
static int arrow_direct(struct lw *l, kl_vreg base, struct kl_type *st, struct kl_node **items, uint32_t n,
			struct val *out)
{
	struct path p;
	if (direct_path(l, &base, st, items, n, &p))
		return -1;
	struct kl_node *at = items[n - 1];
	if (p.f && p.f->bitsize) {
		*out = read_bitfield(l, base, &p);
		return 0;
	}
	const struct kl_type *t = p.t;
	if (t->kind == KL_T_STRUCT || t->kind == KL_T_ARRAY || (t->size != 1 && t->size != 2 && t->size != 4 &&
								 t->size != 8))
		return read_value(l, base, &p, at, out);   /* its error */
	*out = rval(direct_field(l, base, &p, t->size));
	if (t->kind != KL_T_PTR && t->is_signed && t->size < 8)
		*out = kl_lw_truncate(l, *out, t->size, true);
	out->kt = pointee(t);
	out->trusted = out->kt != NULL;
	return 0;
}

/* (setf (-> PTR FIELD ...) v) through a trusted pointer: a direct store whose offset is
 * relocated as a direct load's is. Which fields the kernel lets a program write is the
 * verifier's to say (a struct_ops congestion control writes tcp_sock's snd_cwnd). */
int kl_lw_arrow_store(struct lw *l, struct kl_node *n, struct val v)
{
	if (kl_lw_arity(l, n, 2, UINT32_MAX))
		return -1;
	kl_vreg base = 0;
	struct kl_type *st = NULL;
	struct val pv;
	struct path p;
	if (kl_lw_lower(l, n->items[1], &pv) || kernel_ptr_of(l, n->items[1], pv, NULL, &base, &st))
		return -1;
	if (!pv.trusted)
		return kl_error(l->c->d, n->span, "(setf (-> ...)) writes through a pointer the verifier knows by its "
				"BTF (a struct_ops or tracing program's argument); this one is read with probes");
	if (direct_path(l, &base, st, n->items + 2, n->nitems - 2, &p))
		return -1;
	const struct kl_type *t = p.t;
	if ((p.f && p.f->bitsize) || (t->kind != KL_T_INT && t->kind != KL_T_ENUM && t->kind != KL_T_PTR) ||
	    (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8))
		return kl_error(l->c->d, n->items[n->nitems - 1]->span, "'%s' is not a field of 1, 2, 4 or 8 bytes "
				"that a store can write", n->items[n->nitems - 1]->str);
	kl_vreg rv = kl_lw_reg_of(l, v);
	struct kl_ir_ins *i = emit(l, IR_STORE);
	i->a = base;
	i->b = rv;
	i->off = (int32_t)field_value(&p, BPF_CORE_FIELD_BYTE_OFFSET);
	i->size = (uint8_t)t->size;
	i->core = kl_core_reloc(l->c, p.root, p.access, p.n, BPF_CORE_FIELD_BYTE_OFFSET);
	return 0;
}

/* (-> PTR FIELD ...) */
static int f_arrow(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, UINT32_MAX))
		return -1;
	kl_vreg base = 0;
	struct kl_type *st = NULL;
	struct path p;
	struct val v;
	if (kl_lw_lower(l, n->items[1], &v) || kernel_ptr_of(l, n->items[1], v, NULL, &base, &st))
		return -1;
	if (v.trusted)
		return arrow_direct(l, base, st, n->items + 2, n->nitems - 2, out);
	if (walk(l, &base, st, n->items + 2, n->nitems - 2, &p))
		return -1;
	return read_value(l, base, &p, n->items[n->nitems - 1], out);
}

/* (core-read-into BUF PTR TYPE FIELD ...): the last field copied whole into BUF. */
static int f_core_read_into(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 4, UINT32_MAX))
		return -1;
	struct val buf;
	kl_vreg base;
	struct kl_type *st;
	struct path p;
	if (kl_lw_lower(l, n->items[1], &buf) || kernel_ptr(l, n->items[2], n->items[3], &base, &st) ||
	    walk(l, &base, st, n->items + 4, n->nitems - 4, &p))
		return -1;
	if (p.f && p.f->bitsize)
		return kl_error(l->c->d, n->items[n->nitems - 1]->span, "'%s' is a bitfield: read it with core-read",
				p.f->name);
	kl_vreg args[3] = { kl_lw_reg_of(l, buf), kl_lw_reg_of(l, cval(p.t->size)), field_addr(l, base, &p) };
	*out = rval(kl_lw_call(l, H_PROBE_READ_KERNEL, args, 3));
	return 0;
}

/* (core-read-str BUF SIZE PTR TYPE FIELD ...): a char array read in place, a char pointer
 * followed. */
static int f_core_read_str(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 5, UINT32_MAX))
		return -1;
	struct val buf, size;
	kl_vreg base;
	struct kl_type *st;
	struct path p;
	if (kl_lw_lower(l, n->items[1], &buf) || kl_lw_lower(l, n->items[2], &size) ||
	    kernel_ptr(l, n->items[3], n->items[4], &base, &st) || walk(l, &base, st, n->items + 5, n->nitems - 5, &p))
		return -1;
	kl_vreg src;
	if (p.t->kind == KL_T_PTR)
		src = read_ptr(l, base, &p);
	else if (p.t->kind == KL_T_ARRAY)
		src = field_addr(l, base, &p);
	else
		return kl_error(l->c->d, n->items[n->nitems - 1]->span, "'%s' is neither a char array nor a pointer: "
				"not a string", p.f ? p.f->name : "the value");
	kl_vreg args[3] = { kl_lw_reg_of(l, buf), kl_lw_reg_of(l, size), src };
	*out = rval(kl_lw_call(l, H_PROBE_READ_KERNEL_STR, args, 3));
	return 0;
}

/* A field's relocated facts: (core-field-exists|size|offset TYPE FIELD ...). */
static int field_fact(struct lw *l, struct kl_node *n, uint32_t kind, struct val *out)
{
	if (kl_lw_arity(l, n, 2, UINT32_MAX))
		return -1;
	struct kl_type *st;
	struct path p;
	if (struct_of(l, n->items[1], &st))
		return -1;
	path_start(&p, st);
	for (uint32_t i = 2; i < n->nitems; i++)
		if (path_step(l, &p, n->items[i]))
			return -1;
	*out = rval(reloc_const(l, p.root, p.access, p.n, kind, field_value(&p, kind), false));
	return 0;
}

static int f_field_exists(struct lw *l, struct kl_node *n, struct val *out)
{
	return field_fact(l, n, BPF_CORE_FIELD_EXISTS, out);
}
static int f_field_size(struct lw *l, struct kl_node *n, struct val *out)
{
	return field_fact(l, n, BPF_CORE_FIELD_BYTE_SIZE, out);
}
static int f_field_offset(struct lw *l, struct kl_node *n, struct val *out)
{
	return field_fact(l, n, BPF_CORE_FIELD_BYTE_OFFSET, out);
}
static int f_field_signed(struct lw *l, struct kl_node *n, struct val *out)
{
	return field_fact(l, n, BPF_CORE_FIELD_SIGNED, out);
}

/* A type's relocated facts: (core-type-exists|size|id|id-local TYPE). */
static int type_fact(struct lw *l, struct kl_node *n, uint32_t kind, struct val *out)
{
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	struct kl_node *tn = n->items[1];
	if (tn->kind != KL_N_SYM && tn->kind != KL_N_KEY)
		return kl_error(l->c->d, tn->span, "expected the name of a kernel type");
	struct kl_type *t = kl_core_type(l->c, kl_name(tn), KL_KB_STRUCT | KL_KB_ENUM, tn->span);
	if (!t)
		return -1;
	uint32_t zero = 0;
	int64_t local = kind == BPF_CORE_TYPE_SIZE ? t->size : kind == BPF_CORE_TYPE_EXISTS || kind == BPF_CORE_TYPE_MATCHES;
	*out = rval(reloc_const(l, t, &zero, 1, kind, local, false));
	return 0;
}

static int f_type_exists(struct lw *l, struct kl_node *n, struct val *out)
{
	return type_fact(l, n, BPF_CORE_TYPE_EXISTS, out);
}
static int f_type_size(struct lw *l, struct kl_node *n, struct val *out)
{
	return type_fact(l, n, BPF_CORE_TYPE_SIZE, out);
}
static int f_type_matches(struct lw *l, struct kl_node *n, struct val *out)
{
	return type_fact(l, n, BPF_CORE_TYPE_MATCHES, out);
}
static int f_type_id(struct lw *l, struct kl_node *n, struct val *out)
{
	return type_fact(l, n, BPF_CORE_TYPE_ID_TARGET, out);
}
static int f_type_id_local(struct lw *l, struct kl_node *n, struct val *out)
{
	return type_fact(l, n, BPF_CORE_TYPE_ID_LOCAL, out);
}

/* (core-enum-value[-exists] ENUM NAME) */
static int enum_fact(struct lw *l, struct kl_node *n, uint32_t kind, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	struct kl_node *en = n->items[1], *vn = n->items[2];
	if ((en->kind != KL_N_SYM && en->kind != KL_N_KEY) || (vn->kind != KL_N_SYM && vn->kind != KL_N_KEY))
		return kl_error(l->c->d, n->span, "expected (%s ENUM NAME)", n->items[0]->str);
	struct kl_type *et = kl_core_type(l->c, kl_name(en), KL_KB_ENUM, en->span);
	uint32_t idx;
	if (!et || kl_core_enumval(l->c, et, kl_name(vn), vn->span, &idx))
		return -1;
	int64_t local = kind == BPF_CORE_ENUMVAL_VALUE ? et->vals[idx].value : 1;
	*out = rval(reloc_const(l, et, &idx, 1, kind, local, kind == BPF_CORE_ENUMVAL_VALUE && !fits32(local)));
	return 0;
}

static int f_enum_value(struct lw *l, struct kl_node *n, struct val *out)
{
	return enum_fact(l, n, BPF_CORE_ENUMVAL_VALUE, out);
}
static int f_enum_exists(struct lw *l, struct kl_node *n, struct val *out)
{
	return enum_fact(l, n, BPF_CORE_ENUMVAL_EXISTS, out);
}

/* (current-task), (get-current-task): bpf_get_current_task, typed task_struct *. */
static int f_current_task(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	*out = rval(kl_lw_call(l, H_GET_CURRENT_TASK, NULL, 0));
	out->kt = "task_struct";
	return 0;
}

/* (get-current-task-btf): bpf_get_current_task_btf, a trusted task_struct * (PTR_TO_BTF_ID):
 * read with direct loads, and what task-storage-get and the like take. */
static int f_current_task_btf(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 0, 0))
		return -1;
	*out = rval(kl_lw_call(l, H_GET_CURRENT_TASK_BTF, NULL, 0));
	out->kt = "task_struct";
	out->trusted = true;
	return 0;
}

/* (kernel-ptr TYPE X): X typed as a pointer to kernel struct TYPE. */
static int f_kernel_ptr(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 2, 2))
		return -1;
	struct kl_type *st;
	if (struct_of(l, n->items[1], &st) || kl_lw_lower(l, n->items[2], out))
		return -1;
	out->is_ptr = false;
	out->kt = st->name;
	out->trusted = false;   /* the verifier knows the type it came with, not this one */
	return 0;
}

static int type_size(struct lw *l, struct kl_node *tn, uint32_t *size)
{
	const struct kl_type *t = kl_type_parse(l->c, tn);
	if (!t)
		return -1;
	if (t->kind != KL_T_INT && t->kind != KL_T_PTR)
		return kl_error(l->c->d, tn->span, "core-load reads an integer or a pointer, not %s", tn->str);
	*size = t->size;
	return 0;
}

/* Whistler's (core-load TYPE PTR OFFSET STRUCT FIELD) and (core-ctx-load TYPE OFFSET STRUCT
 * FIELD): a direct load whose offset is relocated to STRUCT.FIELD (OFFSET is what Whistler
 * read on its build host; kiln takes the offset from the BTF it compiles against). */
static int direct_load(struct lw *l, struct kl_node *n, kl_vreg base, struct kl_node **rest, struct val *out)
{
	uint32_t size = 8;
	struct kl_type *st;
	struct path p;
	if (type_size(l, n->items[1], &size) || struct_of(l, rest[0], &st))
		return -1;
	path_start(&p, st);
	if (path_step(l, &p, rest[1]))
		return -1;
	if (p.f && p.f->bitsize)
		return kl_error(l->c->d, rest[1]->span, "'%s' is a bitfield: read it with core-read", p.f->name);
	struct kl_ir_ins *i = emit(l, IR_LOAD);
	i->a = base;
	i->off = (int32_t)field_value(&p, BPF_CORE_FIELD_BYTE_OFFSET);
	i->size = (uint8_t)size;
	i->d = vreg(l);
	i->core = kl_core_reloc(l->c, p.root, p.access, p.n, BPF_CORE_FIELD_BYTE_OFFSET);
	*out = rval(i->d);
	const struct kl_type *t = kl_type_parse(l->c, n->items[1]);
	if (t->kind == KL_T_INT && t->is_signed && size < 8)
		*out = kl_lw_truncate(l, *out, size, true);
	return 0;
}

static int f_core_load(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 5, 5))
		return -1;
	struct val ptr;
	if (kl_lw_lower(l, n->items[2], &ptr))
		return -1;
	return direct_load(l, n, kl_lw_reg_of(l, ptr), n->items + 4, out);
}

static int f_core_ctx_load(struct lw *l, struct kl_node *n, struct val *out)
{
	if (kl_lw_arity(l, n, 4, 4))
		return -1;
	if (!l->ctx)
		return kl_error(l->c->d, n->span, "core-ctx-load reads the program's context: use it in a defprog");
	return direct_load(l, n, l->ctx, n->items + 3, out);
}

/* import-kernel-struct's (STRUCT-FIELD p): a value field read, an embedded struct or an array
 * as its (typed) address; (as-STRUCT p) types p. A pointer typed as another struct is an error,
 * as in Whistler. */
int kl_lw_kernel_accessor(struct lw *l, struct kl_node *n, struct val *out)
{
	const struct kl_kaccessor *a = kl_core_find_accessor(l->c, n->items[0]->str);
	if (!a)
		return 1;
	if (kl_lw_arity(l, n, 1, 1))
		return -1;
	struct kl_type *st = kl_core_type(l->c, a->st, KL_KB_STRUCT, n->items[0]->span);
	struct val v;
	if (!st || kl_lw_lower(l, n->items[1], &v))
		return -1;
	if (!a->field) {
		*out = v;
		out->is_ptr = false;
		out->kt = st->name;
		out->trusted = false;
		return 0;
	}
	if (v.kt && strcmp(v.kt, st->name))
		return kl_error(l->c->d, n->items[1]->span, "%s takes a pointer to %s, and this one points at %s; "
				"cast it with (as-%s p) if that is meant", a->name, st->name, v.kt, a->lisp);
	kl_vreg base = kl_lw_reg_of(l, v);
	struct path p;
	path_start(&p, st);
	struct kl_node field = *n->items[0];
	field.kind = KL_N_SYM;
	field.str = field.name = a->field;
	if (path_step(l, &p, &field))
		return -1;
	if (p.t->kind == KL_T_STRUCT || p.t->kind == KL_T_ARRAY) {
		*out = rval(field_addr(l, base, &p));
		out->kt = p.t->kind == KL_T_STRUCT ? p.t->name : NULL;
		return 0;
	}
	return read_value(l, base, &p, n, out);
}

const struct kl_lw_form kl_lw_core_forms[] = {
	{ "core-read", f_core_read, "ed" }, { "->", f_arrow, "ed" },
	{ "core-read-into", f_core_read_into, "eed" }, { "core-read-str", f_core_read_str, "eeed" },
	{ "core-field-exists", f_field_exists, "d" }, { "core-field-size", f_field_size, "d" },
	{ "core-field-offset", f_field_offset, "d" }, { "core-field-signed", f_field_signed, "d" },
	{ "core-type-matches", f_type_matches, "d" }, { "core-type-exists", f_type_exists, "d" },
	{ "core-type-size", f_type_size, "d" }, { "core-type-id", f_type_id, "d" },
	{ "core-type-id-local", f_type_id_local, "d" }, { "core-enum-value", f_enum_value, "d" },
	{ "core-enum-value-exists", f_enum_exists, "d" }, { "current-task", f_current_task, "d" },
	{ "get-current-task", f_current_task, "d" }, { "get-current-task-btf", f_current_task_btf, "d" },
	{ "kernel-ptr", f_kernel_ptr, "de" }, { "core-load", f_core_load, "ded" },
	{ "core-ctx-load", f_core_ctx_load, "d" },
};
const size_t kl_lw_ncore_forms = sizeof(kl_lw_core_forms) / sizeof(kl_lw_core_forms[0]);
