/* ktypes.c — kernel struct members for kiln trace (ktypes.h), from the kernel's BTF. */
#include "trace/ktypes.h"
#include "compiler/kbtf.h"
#include "compiler/nearest.h"
#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>

static const struct btf *kernel_btf(char *msg, size_t len, const struct kl_kbtf **kout)
{
	char err[256] = "";
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	if (!k) {
		snprintf(msg, len, "struct access needs the kernel's BTF: %s", err);
		return NULL;
	}
	*kout = k;
	return kl_kbtf_btf(k);
}

static uint32_t struct_id(const struct kl_kbtf *k, const char *name, char *msg, size_t len)
{
	uint32_t id = kl_kbtf_find(k, name, KL_KB_STRUCT);
	if (id)
		return id;
	struct kl_nearest nb;
	char hint[400];
	kl_nearest_init(&nb, name);
	kl_kbtf_nearest(k, &nb, KL_KB_STRUCT);
	kl_nearest_hint(&nb, hint, sizeof(hint));
	snprintf(msg, len, "the kernel has no struct or union '%s'%s%s", name, *hint ? "; " : "", hint);
	return 0;
}

int kt_kstruct(const char *name, char *msg, size_t len)
{
	uint32_t size;
	return kt_kstruct_size(name, &size, msg, len);
}

int kt_kstruct_size(const char *name, uint32_t *size, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	if (!btf)
		return -1;
	uint32_t id = struct_id(k, name, msg, len);
	if (!id)
		return -1;
	*size = btf__type_by_id(btf, id)->size;
	return 0;
}

/* Member `name` of struct sid, looking into anonymous members; its type id, or 0. */
static uint32_t member(const struct btf *btf, uint32_t sid, const char *name, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	if (!t || depth > 8 || (!btf_is_struct(t) && !btf_is_union(t)))
		return 0;
	const struct btf_member *mb = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, mb[i].name_off);
		if (mn && *mn && !strcmp(mn, name))
			return mb[i].type;
		if (!mn || !*mn) {
			uint32_t inner = member(btf, (uint32_t)btf__resolve_type(btf, mb[i].type), name, depth + 1);
			if (inner)
				return inner;
		}
	}
	return 0;
}

/* Skip typedefs, const, volatile and restrict. */
static uint32_t strip(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t || !(btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t)))
			return id;
		id = t->type;
	}
	return id;
}

int kt_kenum(const char *name, int64_t *val)
{
	char err[256];
	const struct kl_kbtf *k = kl_kbtf_open(NULL, err, sizeof(err));
	const struct btf *btf = k ? kl_kbtf_btf(k) : NULL;
	uint32_t n = btf ? btf__type_cnt(btf) : 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*val = btf_kflag(t) ? (int64_t)e[i].val : (int64_t)(uint32_t)e[i].val;
					return 0;
				}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name)) {
					*val = (int64_t)btf_enum64_value(e + i);
					return 0;
				}
		}
	}
	return -1;
}

/* The pointee of a pointer to an integer of size bytes (1, 2, 4, 8), shared. */
static struct kt_type *int_type(uint32_t size, bool sign)
{
	static struct kt_type types[2][9];
	struct kt_type *t = &types[sign][size];
	*t = (struct kt_type){ .kind = KTT_INT, .size = size, .is_signed = sign };
	return t;
}

int kt_kfield(const char *sname, const char *field, struct kt_type *out, char *msg, size_t len)
{
	const struct kl_kbtf *k;
	const struct btf *btf = kernel_btf(msg, len, &k);
	if (!btf)
		return -1;
	uint32_t sid = struct_id(k, sname, msg, len);
	if (!sid)
		return -1;
	uint32_t mt = member(btf, sid, field, 0);
	if (!mt) {
		snprintf(msg, len, "struct %s has no field named %s", sname, field);
		return -1;
	}
	mt = strip(btf, mt);
	const struct btf_type *t = btf__type_by_id(btf, mt);
	*out = (struct kt_type){ .kind = KTT_INT, .size = 8 };
	if (btf_is_int(t) || btf_is_any_enum(t)) {
		out->size = t->size;
		out->is_signed = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 : btf_kflag(t);
		if (out->size == 1 || out->size == 2 || out->size == 4 || out->size == 8)
			return 0;
	} else if (btf_is_ptr(t)) {
		const struct btf_type *to = btf__type_by_id(btf, strip(btf, t->type));
		if (to && (btf_is_struct(to) || btf_is_union(to)) && to->name_off)
			out->tname = btf__name_by_offset(btf, to->name_off);
		else if (to && btf_is_ptr(to))   /* *p reads the pointer (8 bytes), an integer its size */
			out->pointee = int_type(8, false);
		else if (to && btf_is_int(to) && (to->size == 1 || to->size == 2 || to->size == 4 || to->size == 8))
			out->pointee = int_type(to->size, (btf_int_encoding(to) & BTF_INT_SIGNED) != 0);
		return 0;
	} else if ((btf_is_struct(t) || btf_is_union(t)) && t->name_off) {
		*out = (struct kt_type){ .kind = KTT_STRUCT, .tname = btf__name_by_offset(btf, t->name_off) };
		return 0;
	} else if (btf_is_array(t)) {
		const struct btf_array *ar = btf_array(t);
		const struct btf_type *e = btf__type_by_id(btf, strip(btf, ar->type));
		if (e && btf_is_int(e) && e->size == 1) {
			*out = (struct kt_type){ .kind = KTT_STR, .size = ar->nelems };
			return 0;
		}
	}
	snprintf(msg, len, "the field %s of struct %s (neither an integer, a pointer, a named struct nor a char array) is not supported yet by kiln trace",
		 field, sname);
	return -1;
}
