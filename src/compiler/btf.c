/* btf.c — the .BTF section of a kiln object: types, maps in libbpf's BTF-defined shape,
 * function prototypes, the license and the data sections, in the order clang -g writes them.
 * btf_build.c drives it; btf_ext.c asks it for type ids. */
#include "btf_internal.h"
#include "btf.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_fail(struct bb *b, int errnum, const char *fmt, ...)
{
	if (b->err && b->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b->err, b->errlen, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

/* libbpf's btf__add_* return a negative errno on failure; keep the first cause. */
int bb_check(struct bb *b, int id, const char *what)
{
	if (id < 0)
		return bb_fail(b, -id, "BTF: cannot add %s: %s", what, strerror(-id));
	return id;
}

char *bb_scratch(struct bb *b, size_t n)
{
	if (n + 1 > b->scratch_cap) {
		size_t cap = b->scratch_cap ? b->scratch_cap : 64;
		while (cap < n + 1)
			cap *= 2;
		char *p = realloc(b->scratch, cap);
		if (!p) {
			b->nomem = true;
			return NULL;
		}
		b->scratch = p;
		b->scratch_cap = cap;
	}
	return b->scratch;
}

/* BTF names must be C identifiers: kiln's `src-ip` becomes `src_ip`, and so does anything
 * else the kernel's name check would refuse. */
static const char *mangle(struct bb *b, const char *name)
{
	if (!name || !name[0])
		return NULL;
	size_t n = strlen(name);
	char *s = bb_scratch(b, n + 1);
	if (!s)
		return NULL;
	char *p = s;
	if (name[0] >= '0' && name[0] <= '9')
		*p++ = '_';
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';
		*p++ = ok ? c : '_';
	}
	*p = 0;
	return s;
}

static bool by_string(enum memo_kind kind)
{
	return kind == MEMO_INT || kind == MEMO_FWD || kind == MEMO_CTX;
}

static uint64_t memo_hash(enum memo_kind kind, const void *key, uint32_t x, uint32_t y)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
	if (by_string(kind))
		for (const char *p = key; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
	else
		h = (h ^ (uint64_t)(uintptr_t)key) * 1099511628211ull;
	h = (h ^ x) * 1099511628211ull;
	h = (h ^ y) * 1099511628211ull;
	return h ^ (h >> 29);
}

static bool memo_is(const struct memo *m, enum memo_kind kind, const void *key, uint32_t x, uint32_t y)
{
	if (m->kind != kind || m->a != x || m->b != y)
		return false;
	return by_string(kind) ? !strcmp(m->key, key) : m->key == key;
}

/* An open-addressed table of memo indices + 1 (0: empty), so that a big object's thousands
 * of types are each found in constant time. */
static struct memo *memo_find(struct bb *b, enum memo_kind kind, const void *key,
			      uint32_t x, uint32_t y)
{
	if (!b->hcap)
		return NULL;
	size_t mask = b->hcap - 1;
	for (size_t i = memo_hash(kind, key, x, y) & mask; b->hash[i]; i = (i + 1) & mask) {
		struct memo *m = &b->memo[b->hash[i] - 1];
		if (memo_is(m, kind, key, x, y))
			return m;
	}
	return NULL;
}

static void hash_put(struct bb *b, size_t idx)
{
	const struct memo *m = &b->memo[idx];
	size_t mask = b->hcap - 1, i = memo_hash(m->kind, m->key, m->a, m->b) & mask;
	while (b->hash[i])
		i = (i + 1) & mask;
	b->hash[i] = idx + 1;
}

static int memo_add(struct bb *b, enum memo_kind kind, const void *key, uint32_t x,
		    uint32_t y, int id)
{
	if (b->nmemo == b->capmemo) {
		size_t cap = b->capmemo ? b->capmemo * 2 : 64;
		struct memo *m = realloc(b->memo, cap * sizeof(*m));
		if (!m)
			return bb_fail(b, ENOMEM, "out of memory");
		b->memo = m;
		b->capmemo = cap;
	}
	if (2 * (b->nmemo + 1) > b->hcap) {
		size_t cap = b->hcap ? b->hcap * 2 : 128;
		size_t *h = calloc(cap, sizeof(*h));
		if (!h)
			return bb_fail(b, ENOMEM, "out of memory");
		free(b->hash);
		b->hash = h;
		b->hcap = cap;
		for (size_t i = 0; i < b->nmemo; i++)
			hash_put(b, i);
	}
	b->memo[b->nmemo++] = (struct memo){ kind, key, x, y, id };
	hash_put(b, b->nmemo - 1);
	return id;
}

/* `name` must outlive the build: a string literal or a name owned by obj. */
static int int_id(struct bb *b, const char *name, uint32_t size, int encoding)
{
	/* by name and encoding: kiln's char is signed, the kernel's is not */
	struct memo *m = memo_find(b, MEMO_INT, name, (uint32_t)encoding + 2, 0);
	if (m)
		return m->id;
	int id = bb_check(b, btf__add_int(b->btf, name, size, encoding), name);
	return id < 0 ? id : memo_add(b, MEMO_INT, name, (uint32_t)encoding + 2, 0, id);
}

static int ptr_id(struct bb *b, int target)
{
	struct memo *m = memo_find(b, MEMO_PTR, NULL, (uint32_t)target, 0);
	if (m)
		return m->id;
	int id = bb_check(b, btf__add_ptr(b->btf, target), "PTR");
	return id < 0 ? id : memo_add(b, MEMO_PTR, NULL, (uint32_t)target, 0, id);
}

/* Array indices are clang's pseudo type; every ARRAY uses it. */
static int array_id(struct bb *b, int elem, uint32_t count)
{
	struct memo *m = memo_find(b, MEMO_ARRAY, NULL, (uint32_t)elem, count);
	if (m)
		return m->id;
	int index = int_id(b, "__ARRAY_SIZE_TYPE__", 4, 0);
	if (index < 0)
		return index;
	int id = bb_check(b, btf__add_array(b->btf, index, elem, count), "ARRAY");
	return id < 0 ? id : memo_add(b, MEMO_ARRAY, NULL, (uint32_t)elem, count, id);
}

/* `key` names the struct for the memo and must outlive the build; `name` is its BTF name. */
static int fwd_id(struct bb *b, const char *key, const char *name)
{
	struct memo *m = memo_find(b, MEMO_FWD, key, 0, 0);
	if (m)
		return m->id;
	int id = bb_check(b, btf__add_fwd(b->btf, name, BTF_FWD_STRUCT), "FWD");
	return id < 0 ? id : memo_add(b, MEMO_FWD, key, 0, 0, id);
}



static uint32_t member_bitoff(const struct kl_field *f)
{
	return f->bitsize ? f->bitoff : f->offset * 8;
}

static int struct_id(struct bb *b, const struct kl_type *t)
{
	struct memo *m = memo_find(b, MEMO_STRUCT, t, 0, 0);
	if (m && m->id > 0)
		return m->id;
	if (m) {
		/* A struct reached again through a pointer in its own members: as in C, the
		 * inner mention is a forward declaration. */
		if (!t->name)
			return bb_fail(b, EINVAL, "BTF: anonymous struct refers to itself");
		return fwd_id(b, t->name, mangle(b, t->name));
	}
	size_t slot = b->nmemo;
	int err = memo_add(b, MEMO_STRUCT, t, 0, 0, -1);
	if (b->nmemo == slot)
		return err;
	err = 0;            /* a struct with no members (a projection only sized or named) */

	/* Members' types first: libbpf appends fields to the type added last. */
	int *ids = calloc(t->nfields ? t->nfields : 1, sizeof(*ids));
	if (!ids)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < t->nfields; i++) {
		ids[i] = bb_type_id(b, t->fields[i].type);
		if (ids[i] < 0) {
			err = ids[i];
			goto out;
		}
	}
	int id = t->is_union ? bb_check(b, btf__add_union(b->btf, mangle(b, t->name), t->size), "UNION")
			     : bb_check(b, btf__add_struct(b->btf, mangle(b, t->name), t->size), "STRUCT");
	if (id < 0) {
		err = id;
		goto out;
	}
	/* in offset order, as the kernel wants them: a projection's are sorted by core.c */
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct kl_field *f = &t->fields[i];
		err = bb_check(b, btf__add_field(b->btf, mangle(b, f->name), ids[i], member_bitoff(f), f->bitsize),
			    "struct member");
		if (err < 0)
			break;
	}
	if (err < 0)
		goto out;
	b->memo[slot].id = id;
	err = id;
out:
	free(ids);
	return err;
}

/* A typedef (u32, __u32, ipv4_addr...) over the type it names, each once per object, so
 * that u32 -> __u32 -> unsigned int is one chain however many maps and members use it. */
static int typedef_id(struct bb *b, const struct kl_type *t)
{
	struct memo *m = memo_find(b, MEMO_INT, t->typedef_name, 1, 0);
	if (m)
		return m->id;
	if (!t->under)
		return bb_fail(b, EINVAL, "BTF: typedef %s names no type", t->typedef_name);
	int base = bb_type_id(b, t->under);
	if (base < 0)
		return base;
	int id = bb_check(b, btf__add_typedef(b->btf, t->typedef_name, base), t->typedef_name);
	return id < 0 ? id : memo_add(b, MEMO_INT, t->typedef_name, 1, 0, id);
}

/* A kernel enum's projection: the enumerators the program names, with the values kiln
 * compiled against (ENUM64 when one does not fit 32 bits). */
static int enum_id(struct bb *b, const struct kl_type *t)
{
	struct memo *m = memo_find(b, MEMO_ENUM, t, 0, 0);
	if (m)
		return m->id;
	bool wide = false;
	for (uint32_t i = 0; i < t->nvals; i++)
		if (t->vals[i].value < INT32_MIN || t->vals[i].value > UINT32_MAX)
			wide = true;
	int id = wide ? btf__add_enum64(b->btf, mangle(b, t->name), t->size, t->is_signed)
		      : btf__add_enum(b->btf, mangle(b, t->name), t->size);
	id = bb_check(b, id, "ENUM");
	for (uint32_t i = 0; i < t->nvals && id > 0; i++) {
		int r = wide ? btf__add_enum64_value(b->btf, mangle(b, t->vals[i].name), (uint64_t)t->vals[i].value)
			     : btf__add_enum_value(b->btf, mangle(b, t->vals[i].name), t->vals[i].value);
		if (r < 0)
			id = bb_check(b, r, "enumerator");
	}
	return id < 0 ? id : memo_add(b, MEMO_ENUM, t, 0, 0, id);
}

/* NULL is void, BTF type 0. */
int bb_type_id(struct bb *b, const struct kl_type *t)
{
	int id;
	if (!t)
		return 0;
	if (t->typedef_name)
		return typedef_id(b, t);
	switch (t->kind) {
	case KL_T_INT: {
		/* C's name ("unsigned int"); a kernel integer keeps its own */
		const char *name = t->cname ? t->cname : t->name;
		if (!name)
			return bb_fail(b, EINVAL, "BTF: an integer type of %u bytes without a name", t->size);
		/* kiln's char is signed, as clang describes it; a kernel char keeps the kernel's
		 * encoding (none), which libbpf's type matching compares */
		int enc = t->is_bool ? BTF_INT_BOOL : t->is_signed || (t->is_char && !t->core) ? BTF_INT_SIGNED : 0;
		return int_id(b, name, t->size, enc);
	}
	case KL_T_PTR:
		id = bb_type_id(b, t->elem);
		return id < 0 ? id : ptr_id(b, id);
	case KL_T_ARRAY:
		if (!t->elem)
			return bb_fail(b, EINVAL, "BTF: array without an element type");
		id = bb_type_id(b, t->elem);
		return id < 0 ? id : array_id(b, id, t->count);
	case KL_T_STRUCT:
		return struct_id(b, t);
	case KL_T_ENUM:
		return enum_id(b, t);
	}
	return bb_fail(b, EINVAL, "BTF: unknown type kind %d", (int)t->kind);
}

/* Which layout a ring or perf buffer carries, for user space: a decl tag on the map's VAR,
 * as clang writes for __attribute__((btf_decl_tag("kiln.event:NAME"))). The layout's own
 * STRUCT is emitted with the other structs. */
static int event_tag(struct bb *b, int var, const struct kl_type *ev)
{
	const char *name = mangle(b, ev->name);
	size_t n = strlen(name) + sizeof("kiln.event:");
	char *tag = malloc(n);
	if (!tag)
		return bb_fail(b, ENOMEM, "out of memory");
	snprintf(tag, n, "kiln.event:%s", name);
	int id = bb_check(b, btf__add_decl_tag(b->btf, tag, var, -1), "DECL_TAG");
	free(tag);
	return id < 0 ? id : 0;
}

/* "kiln.display:log2-hist" (or linear-hist:LO:HI:STEP) on a map's VAR: how kiln run draws it. */
static int display_tag(struct bb *b, int var, const char *display)
{
	char tag[96];
	snprintf(tag, sizeof(tag), "kiln.display:%s", display);
	int id = bb_check(b, btf__add_decl_tag(b->btf, tag, var, -1), "DECL_TAG");
	return id < 0 ? id : 0;
}

/* libbpf reads a map attribute N from `int (*name)[N]`, i.e. __uint(name, N). */
static int uint_attr(struct bb *b, uint32_t n)
{
	int i = int_id(b, "int", 4, BTF_INT_SIGNED);
	int a = i < 0 ? i : array_id(b, i, n);
	return a < 0 ? a : ptr_id(b, a);
}

struct member {
	const char *name;
	int type;
};

/* The anonymous struct of a BTF-defined map, members in the order libbpf needs (a
 * map-in-map's `values` last). Its size is 8 per pointer member; `values` is zero-sized. */
static int map_struct(struct bb *b, uint32_t idx, bool as_inner)
{
	const struct kl_map *map = &b->obj->maps[idx];
	if (b->map_struct[idx] > 0)
		return b->map_struct[idx];
	if (b->map_struct[idx] < 0 || (as_inner && map->inner >= 0))
		return bb_fail(b, EINVAL, "map %s: inner maps cannot hold maps themselves",
			    map->name);
	b->map_struct[idx] = -1;

	struct member mem[8];
	int n = 0, values = 0, id;
	mem[n++] = (struct member){ "type", uint_attr(b, map->type) };
	if (map->key) {
		if (map->sizes_only)
			mem[n++] = (struct member){ "key_size", uint_attr(b, map->key->size) };
		else if ((id = bb_type_id(b, map->key)) >= 0)
			mem[n++] = (struct member){ "key", ptr_id(b, id) };
		else
			return id;
	}
	if (map->value && map->inner < 0) {
		if (map->sizes_only)
			mem[n++] = (struct member){ "value_size", uint_attr(b, map->value->size) };
		else if ((id = bb_type_id(b, map->value)) >= 0)
			mem[n++] = (struct member){ "value", ptr_id(b, id) };
		else
			return id;
	}
	if (map->max_entries)   /* 0: a perf-event array the loader sizes to the cpus */
		mem[n++] = (struct member){ "max_entries", uint_attr(b, map->max_entries) };
	if (map->map_flags)
		mem[n++] = (struct member){ "map_flags", uint_attr(b, map->map_flags) };
	if (map->pinning)
		mem[n++] = (struct member){ "pinning", uint_attr(b, map->pinning) };
	if (map->inner >= 0) {
		/* __array(values, struct inner): a zero-length array of pointers to the
		 * inner map's own definition */
		if ((uint32_t)map->inner >= b->obj->nmaps)
			return bb_fail(b, EINVAL, "map %s: inner map index %d out of range",
				    map->name, map->inner);
		id = map_struct(b, (uint32_t)map->inner, true);
		if (id < 0)
			return id;
		id = ptr_id(b, id);
		values = id < 0 ? id : array_id(b, id, 0);
	}
	for (int i = 0; i < n; i++)
		if (mem[i].type < 0)
			return mem[i].type;
	if (values < 0)
		return values;

	uint32_t size = 8 * (uint32_t)n;
	int sid = bb_check(b, btf__add_struct(b->btf, NULL, size), "map definition");
	if (sid < 0)
		return sid;
	for (int i = 0; i < n; i++) {
		int err = bb_check(b, btf__add_field(b->btf, mem[i].name, mem[i].type, i * 64, 0),
				"map definition member");
		if (err < 0)
			return err;
	}
	if (values) {
		int err = bb_check(b, btf__add_field(b->btf, "values", values, size * 8, 0),
				"map definition member");
		if (err < 0)
			return err;
	}
	b->map_size[idx] = size;
	return b->map_struct[idx] = sid;
}

/* struct xdp_md as the uapi header defines it: six __u32 (TYPEDEF __u32 -> unsigned int). */
static int xdp_md_id(struct bb *b)
{
	static const char *const fields[] = { "data", "data_end", "data_meta",
		"ingress_ifindex", "rx_queue_index", "egress_ifindex" };
	struct memo *m = memo_find(b, MEMO_CTX, "xdp_md", 0, 0);
	if (m)
		return m->id;
	int u32 = bb_type_id(b, kl_type_builtin("__u32"));
	if (u32 < 0)
		return u32;
	int id = bb_check(b, btf__add_struct(b->btf, "xdp_md", 24), "xdp_md");
	for (uint32_t i = 0; id > 0 && i < 6; i++) {
		int err = bb_check(b, btf__add_field(b->btf, fields[i], u32, i * 32, 0), "xdp_md");
		if (err < 0)
			return err;
	}
	return id < 0 ? id : memo_add(b, MEMO_CTX, "xdp_md", 0, 0, id);
}

/* The type of a program's ctx argument. The kernel checks no layout for a main program's
 * argument, so the big kernel structs are forward declarations. */
static int ctx_type(struct bb *b, enum kl_ctx_btf ctx)
{
	int id;
	switch (ctx) {
	case KL_CTX_VOID:
		return ptr_id(b, 0);
	case KL_CTX_XDP_MD:
		id = xdp_md_id(b);
		break;
	case KL_CTX_SK_BUFF:
		id = fwd_id(b, "__sk_buff", "__sk_buff");
		break;
	case KL_CTX_U64_ARRAY:
		id = int_id(b, "unsigned long long", 8, 0);
		break;
	case KL_CTX_PT_REGS:
		id = fwd_id(b, "pt_regs", "pt_regs");
		break;
	default:
		return bb_fail(b, EINVAL, "BTF: unknown program context kind %d", (int)ctx);
	}
	return id < 0 ? id : ptr_id(b, id);
}

static int func_btf(struct bb *b, const struct kl_func *f)
{
	int proto, id;
	if (f->section) {
		int ret = int_id(b, "int", 4, BTF_INT_SIGNED);
		int ctx = ret < 0 ? ret : ctx_type(b, f->ctx);
		if (ctx < 0)
			return ctx;
		proto = bb_check(b, btf__add_func_proto(b->btf, ret), "FUNC_PROTO");
		if (proto < 0)
			return proto;
		id = bb_check(b, btf__add_func_param(b->btf, "ctx", ctx), "FUNC_PROTO param");
		if (id < 0)
			return id;
	} else {
		static const char *const args[] = { "a0", "a1", "a2", "a3", "a4" };
		if (f->nargs > 5)
			return bb_fail(b, EINVAL, "function %s: %u arguments, BPF allows 5",
				    f->name, f->nargs);
		int ret = int_id(b, "long", 8, BTF_INT_SIGNED);
		if (ret < 0)
			return ret;
		proto = bb_check(b, btf__add_func_proto(b->btf, ret), "FUNC_PROTO");
		if (proto < 0)
			return proto;
		for (uint32_t i = 0; i < f->nargs; i++) {
			id = bb_check(b, btf__add_func_param(b->btf, args[i], ret), "FUNC_PROTO param");
			if (id < 0)
				return id;
		}
	}
	/* A .text subprogram is static, checked in its caller's context at every call, unless
	 * globals.c found it can be checked once, alone, as a global function. */
	return bb_check(b, btf__add_func(b->btf, f->name,
				      f->section || f->global ? BTF_FUNC_GLOBAL : BTF_FUNC_STATIC, proto),
		     "FUNC");
}

/* The maps' VARs (each over its anonymous definition struct, with its event and display tags),
 * in vars[]. */
static int add_maps(struct bb *b, int *vars)
{
	const struct kl_obj *obj = b->obj;
	int err = 0;
	for (uint32_t i = 0; i < obj->nmaps && !err; i++) {
		int sid = map_struct(b, i, false);
		if (sid < 0)
			err = sid;
		else if ((vars[i] = bb_check(b, btf__add_var(b->btf, obj->maps[i].name,
							     BTF_VAR_GLOBAL_ALLOCATED, sid),
					     "map VAR")) < 0)
			err = vars[i];
		else if (obj->maps[i].event)
			err = event_tag(b, vars[i], obj->maps[i].event);
		if (!err && obj->maps[i].display)
			err = display_tag(b, vars[i], obj->maps[i].display);
	}
	return err;
}

/* Every function's FUNC, then the structs the program declared. */
static int add_funcs_structs(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	int err = 0;
	for (uint32_t i = 0; i < obj->nfuncs && !err; i++)
		if ((b->func_id[i] = func_btf(b, &obj->funcs[i])) < 0)
			err = b->func_id[i];
	for (uint32_t i = 0; i < obj->nstructs && !err; i++) {
		const struct kl_type *t = obj->structs[i];
		int id = t->kind == KL_T_STRUCT ? struct_id(b, t)
			: bb_fail(b, EINVAL, "structs[%u] is not a struct", i);
		if (id < 0)
			err = id;
	}
	return err;
}

/* The global variables' VARs (a defparameter's const volatile, as C's settings are written, so
 * that skeletons show them so), then their data sections, each with its true size and the
 * variables' offsets (libbpf checks them against the section and the symbols). */
static const char *const data_sec_names[KL_NDATA] = { ".rodata", ".data", ".bss" };

static int add_globals(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	if (!obj->nglobals)
		return 0;
	int *vars = calloc(obj->nglobals, sizeof(*vars)), err = 0;
	if (!vars)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nglobals && !err; i++) {
		const struct kl_global *g = &obj->globals[i];
		int id = bb_type_id(b, g->type);
		if (id >= 0 && g->sec == KL_DATA_RODATA) {
			id = bb_check(b, btf__add_volatile(b->btf, id), "VOLATILE");
			id = id < 0 ? id : bb_check(b, btf__add_const(b->btf, id), "CONST");
		}
		id = id < 0 ? id : bb_check(b, btf__add_var(b->btf, g->name, BTF_VAR_GLOBAL_ALLOCATED, id), "global VAR");
		if (id < 0)
			err = id;
		vars[i] = id;
	}
	for (int s = 0; s < KL_NDATA && !err; s++) {
		if (!obj->data_size[s])
			continue;
		err = bb_check(b, btf__add_datasec(b->btf, data_sec_names[s], obj->data_size[s]), "DATASEC");
		for (uint32_t i = 0; i < obj->nglobals && err >= 0; i++)
			if (obj->globals[i].sec == (enum kl_data_sec)s)
				err = bb_check(b, btf__add_datasec_var_info(b->btf, vars[i], obj->globals[i].off,
									     obj->globals[i].type->size), "global entry");
		err = err < 0 ? err : 0;
	}
	free(vars);
	return err;
}

/* The data sections that list the variables: .maps, then license (the _license VAR, made
 * here). Size 0, as clang leaves it: libbpf fills in the section's size from the ELF and sets
 * each variable's offset from its symbol. The offsets here are already right. */
static int add_datasecs(struct bb *b, const int *vars)
{
	const struct kl_obj *obj = b->obj;
	uint32_t lic_len = (uint32_t)strlen(obj->license) + 1;
	int c = int_id(b, "char", 1, BTF_INT_SIGNED);
	int a = c < 0 ? c : array_id(b, c, lic_len);
	int lic = a < 0 ? a : bb_check(b, btf__add_var(b->btf, "_license", BTF_VAR_GLOBAL_ALLOCATED, a),
				       "_license");
	if (lic < 0)
		return lic;
	int err = 0;
	if (obj->nmaps) {
		err = bb_check(b, btf__add_datasec(b->btf, ".maps", 0), "DATASEC .maps");
		uint32_t off = 0;
		for (uint32_t i = 0; i < obj->nmaps && err >= 0; i++) {
			err = bb_check(b, btf__add_datasec_var_info(b->btf, vars[i], off,
								    b->map_size[i]), ".maps entry");
			off += b->map_size[i];
		}
		if (err < 0)
			return err;
	}
	err = bb_check(b, btf__add_datasec(b->btf, "license", 0), "DATASEC license");
	if (err >= 0)
		err = bb_check(b, btf__add_datasec_var_info(b->btf, lic, 0, lic_len), "license entry");
	return err < 0 ? err : 0;
}

/* The finished .BTF, checked against the kernel's limits (the source's are checked where it
 * is read: names, members, maps, forms and size keep an object well inside these), copied out. */
int bb_take_btf(struct bb *b, void **btf_out, uint32_t *btf_len)
{
	if (btf__type_cnt(b->btf) - 1 > 0xfffff)
		return bb_fail(b, E2BIG, "BTF: %u types; the kernel takes at most %u", btf__type_cnt(b->btf) - 1,
			       0xfffffu);
	uint32_t len = 0;
	const void *raw = btf__raw_data(b->btf, &len);
	const struct btf_header *h = raw;
	if (raw && h->str_len > 0xffffff)
		return bb_fail(b, E2BIG, "BTF: %u bytes of names and source lines; the kernel takes at most "
			       "16 MiB", h->str_len);
	void *copy = raw ? malloc(len) : NULL;
	if (!copy)
		return bb_fail(b, ENOMEM, "BTF: cannot serialize");
	memcpy(copy, raw, len);
	*btf_out = copy;
	*btf_len = len;
	return 0;
}

/* The whole .BTF, in the order clang writes it: maps, functions, the license, then the data
 * sections that list the variables. */
int bb_build_types(struct bb *b)
{
	const struct kl_obj *obj = b->obj;
	int *vars = calloc(obj->nmaps + 1, sizeof(*vars));
	b->map_struct = calloc(obj->nmaps + 1, sizeof(*b->map_struct));
	b->map_size = calloc(obj->nmaps + 1, sizeof(*b->map_size));
	b->func_id = calloc(obj->nfuncs + 1, sizeof(*b->func_id));
	if (!vars || !b->map_struct || !b->map_size || !b->func_id) {
		free(vars);
		return bb_fail(b, ENOMEM, "out of memory");
	}
	int err = add_maps(b, vars);
	err = err ? err : add_funcs_structs(b);
	err = err ? err : add_datasecs(b, vars);
	err = err ? err : add_globals(b);
	err = err ? err : bb_add_ksyms(b);
	err = err ? err : bb_add_struct_ops(b);
	free(vars);
	return err;
}
