/* gen_cbtf.c — the object's BTF with every name made safe for C, for libbpf's btf_dump
 * (which prints names as they are): struct, union and enum tags, typedefs and enumerators,
 * and members as identifiers unique in their C namespace and not reserved (gen_names.h);
 * integer and float names as C spells them; tags reduced to harmless text. Type ids stay
 * the same, so the object's own BTF still answers which types to write. */
#include "gen_cbtf.h"
#include <stdbool.h>
#include <stdint.h>
#include "gen_names.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A name to write into the copy: type id's own (idx < 0) or its member or enumerator idx. */
struct slot {
	uint32_t id;
	int idx;
};

struct names {
	struct slot *slot;
	const char **raw;
	char **key;
	char **name;
	size_t n, cap;
};

static int names_add(struct names *s, uint32_t id, int idx, const char *raw, const char *kind)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct slot *sl = realloc(s->slot, cap * sizeof(*sl));
		s->slot = sl ? sl : s->slot;
		const char **r = sl ? realloc(s->raw, cap * sizeof(*r)) : NULL;
		s->raw = r ? r : s->raw;
		char **k = r ? realloc(s->key, cap * sizeof(*k)) : NULL;
		s->key = k ? k : s->key;
		if (!k)
			return -ENOMEM;
		s->cap = cap;
	}
	size_t len = strlen(kind) + strlen(raw) + 1;
	if (!(s->key[s->n] = malloc(len)))
		return -ENOMEM;
	snprintf(s->key[s->n], len, "%s%s", kind, raw);
	s->slot[s->n] = (struct slot){ id, idx };
	s->raw[s->n++] = raw;
	return 0;
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->key[i]);
	gen_names_free(s->name, s->n);
	free(s->name);
	free(s->slot);
	free(s->raw);
	free(s->key);
}

static uint32_t *name_off_of(struct btf_type *t, int idx)
{
	if (idx < 0)
		return &t->name_off;
	if (btf_is_composite(t))
		return &btf_members(t)[idx].name_off;
	if (btf_is_enum(t))
		return &btf_enum(t)[idx].name_off;
	if (btf_is_enum64(t))
		return &btf_enum64(t)[idx].name_off;
	return &btf_params(t)[idx].name_off;
}

/* libbpf has no call to rename a type: after btf__add_str the copy's types are its own
 * writable memory (btf_ensure_modifiable), which btf__add_str does not move again */
static int set_name(struct btf *copy, uint32_t id, int idx, const char *name)
{
	int off = *name ? btf__add_str(copy, name) : 0;
	if (off < 0)
		return off;
	*name_off_of((struct btf_type *)btf__type_by_id(copy, id), idx) = (uint32_t)off;
	return 0;
}

static int assign_and_set(struct btf *copy, struct names *s, enum gen_space sp, const char *what, bool share)
{
	if (!s->n)
		return 0;
	if (!(s->name = calloc(s->n, sizeof(*s->name))))
		return -ENOMEM;
	int err = gen_names_assign(GEN_C, sp, what, s->raw, share ? (const char *const *)s->key : NULL, s->n,
				   s->name);
	for (size_t i = 0; i < s->n && !err; i++)
		err = set_name(copy, s->slot[i].id, s->slot[i].idx, s->name[i]);
	return err;
}

static bool c_spells(const char *name, const char *const *words)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p += *p == ' ') {
		size_t len = strcspn(p, " ");
		const char *const *w = words;
		while (*w && (strlen(*w) != len || strncmp(*w, p, len)))
			w++;
		if (!*w || (p[len] == ' ' && !p[len + 1]))
			return false;
		p += len;
	}
	return true;
}

/* an integer's or float's name as C spells it: the object's if it is made of C's words,
 * else the one of its size and sign */
static const char *c_scalar(const struct btf_type *t, const char *name)
{
	static const char *const int_words[] = { "signed", "unsigned", "char", "short", "int", "long",
						  "_Bool", "__int128", NULL };
	static const char *const float_words[] = { "float", "double", "long", NULL };
	static const char *const ints[2][5] = {
		{ "unsigned char", "unsigned short", "unsigned int", "unsigned long long", "unsigned __int128" },
		{ "signed char", "short", "int", "long long", "__int128" },
	};
	if (btf_is_float(t))
		return c_spells(name, float_words) ? name : t->size == 4 ? "float" : t->size == 8 ? "double" : "long double";
	if (c_spells(name, int_words))
		return name;
	uint8_t enc = btf_int_encoding(t);
	if (enc & BTF_INT_BOOL)
		return "_Bool";
	if (enc & BTF_INT_CHAR)
		return "char";
	unsigned lg = t->size >= 16 ? 4 : t->size >= 8 ? 3 : t->size >= 4 ? 2 : t->size >= 2 ? 1 : 0;
	return ints[!!(enc & BTF_INT_SIGNED)][lg];
}

/* what has a name that btf_dump might print but no namespace to be unique in: scalars as C
 * spells them, tags as harmless text, variables and functions as identifiers, parameters
 * nameless */
static int plain_names(const struct btf *src, struct btf *copy, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(src, id);
	const char *raw = btf__name_by_offset(src, t->name_off);
	char buf[GEN_NAME_MAX + 1];
	int err = 0;
	if (!raw || !*raw) {
		buf[0] = 0;
	} else if (btf_is_int(t) || btf_is_float(t)) {
		snprintf(buf, sizeof(buf), "%s", c_scalar(t, raw));
	} else if (btf_is_type_tag(t) || btf_is_decl_tag(t)) {
		gen_comment_text(buf, sizeof(buf), raw);
	} else {
		gen_ident(buf, sizeof(buf), raw);
	}
	if (raw && *raw && !btf_is_composite(t) && !btf_is_any_enum(t) && !btf_is_fwd(t) && !btf_is_typedef(t))
		err = set_name(copy, id, -1, buf);
	for (int i = 0; btf_is_func_proto(t) && i < btf_vlen(t) && !err; i++)
		err = set_name(copy, id, i, "");
	return err;
}

/* ---- members, and anonymous members whose fields would hide others ---- */

struct strs {
	char **v;
	size_t n, cap;
};

static bool strs_has(const struct strs *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return true;
	return false;
}

static int strs_add(struct strs *s, const char *x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	return (s->v[s->n] = strdup(x)) ? (s->n++, 0) : -ENOMEM;
}

static void strs_cut(struct strs *s, size_t n)
{
	while (s->n > n)
		free(s->v[--s->n]);
}

/* the struct or union id names through typedefs and modifiers, or 0 */
static uint32_t composite_id(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int hops = 0; t && hops < 64 && (btf_is_typedef(t) || btf_is_mod(t) || btf_is_type_tag(t)); hops++)
		t = btf__type_by_id(btf, id = t->type);
	return t && btf_is_composite(t) ? id : 0;
}

#define MAX_NEST 8
static int c_member_names(const struct btf *src, uint32_t id, int depth, const char *what, char **names);

/* Onto p, the names composite id's members put into the scope of a struct that holds it as
 * an anonymous member (theirs, and those of its anonymous members in turn): 0, 1 if one is
 * there already (or the nesting is too deep), or -ENOMEM. */
static int c_promoted(const struct btf *src, uint32_t id, int depth, struct strs *p)
{
	const struct btf_type *t = btf__type_by_id(src, id);
	uint16_t vlen = btf_vlen(t);
	char **names = depth > MAX_NEST ? NULL : calloc(vlen ? vlen : 1, sizeof(*names));
	int r = depth > MAX_NEST ? 1 : names ? c_member_names(src, id, depth, NULL, names) : -ENOMEM;
	for (uint16_t i = 0; i < vlen && !r; i++) {
		uint32_t c = composite_id(src, btf_members(t)[i].type);
		if (names[i])
			r = strs_has(p, names[i]) ? 1 : strs_add(p, names[i]);
		else if (c)
			r = c_promoted(src, c, depth + 1, p);
	}
	if (names)
		gen_names_free(names, vlen);
	free(names);
	return r;
}

/* Composite id's members' names into names (NULL: an anonymous member that stays so): unique
 * among themselves and with what its anonymous members bring in; an anonymous member whose
 * fields would clash gets a name, anonN. what NULL: nothing said. 0 or -ENOMEM. */
static int c_member_names(const struct btf *src, uint32_t id, int depth, const char *what, char **names)
{
	const struct btf_type *t = btf__type_by_id(src, id);
	uint16_t vlen = btf_vlen(t);
	const char **raw = calloc(vlen ? vlen : 1, sizeof(*raw));
	char (*anon)[16] = calloc(vlen ? vlen : 1, sizeof(*anon));
	struct strs set = { 0 };
	int err = raw && anon ? 0 : -ENOMEM;
	bool named = false;
	for (uint16_t i = 0; i < vlen && !err; i++) {
		raw[i] = btf__name_by_offset(src, btf_members(t)[i].name_off);
		raw[i] = raw[i] && *raw[i] ? raw[i] : NULL;
	}
	err = err ? err : gen_names_assign(GEN_C, GEN_MEMBER, NULL, raw, NULL, vlen, names);
	for (uint16_t i = 0; i < vlen && !err; i++)
		if (names[i])
			err = strs_add(&set, names[i]);
	for (uint16_t i = 0; i < vlen && !err; i++) {
		uint32_t c = raw[i] ? 0 : composite_id(src, btf_members(t)[i].type);
		size_t had = set.n;
		int r = c ? c_promoted(src, c, depth + 1, &set) : 0;
		if (r == 1) {
			strs_cut(&set, had);
			snprintf(anon[i], sizeof(anon[i]), "anon%u", i);
			raw[i] = anon[i];
			named = true;
			if (what)
				fprintf(stderr, "kiln gen: warning: anonymous member %u of %s would hide other fields: "
						"written as a member of its own\n", i, what + strlen("member of "));
		}
		err = r < 0 ? r : 0;
	}
	if (!err && (named || what)) {
		gen_names_free(names, vlen);
		err = gen_names_assign(GEN_C, GEN_MEMBER, what, raw, NULL, vlen, names);
	}
	strs_cut(&set, 0);
	free(set.v);
	free(raw);
	free(anon);
	return err;
}

/* the members of composite id in the copy */
static int member_names(const struct btf *src, struct btf *copy, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(src, id);
	uint16_t vlen = btf_vlen(t);
	char **names = calloc(vlen ? vlen : 1, sizeof(*names)), what[GEN_NAME_MAX + 32], tname[GEN_NAME_MAX + 1];
	if (!names)
		return -ENOMEM;
	gen_comment_text(tname, sizeof(tname), t->name_off ? btf__name_by_offset(src, t->name_off) : "");
	snprintf(what, sizeof(what), "member of %s", *tname ? tname : "an anonymous type");
	int err = c_member_names(src, id, 0, what, names);
	for (uint16_t i = 0; i < vlen && !err; i++)
		if (names[i])
			err = set_name(copy, id, i, names[i]);
	gen_names_free(names, vlen);
	free(names);
	return err;
}
/* tags (struct, union, enum: a namespace) and ordinary names (typedefs, enumerators: another);
 * one name for each tag or typedef of one spelling and kind, as C declares it once */
static int global_names(const struct btf *src, struct btf *copy, uint32_t n)
{
	struct names tags = { 0 }, ord = { 0 };
	int err = 0;
	for (uint32_t id = 1; id < n && !err; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);
		const char *raw = btf__name_by_offset(src, t->name_off);
		bool named = raw && *raw;
		if (named && (btf_is_struct(t) || (btf_is_fwd(t) && !btf_kflag(t))))
			err = names_add(&tags, id, -1, raw, "struct ");
		else if (named && (btf_is_union(t) || btf_is_fwd(t)))
			err = names_add(&tags, id, -1, raw, "union ");
		else if (named && btf_is_any_enum(t))
			err = names_add(&tags, id, -1, raw, "enum ");
		else if (named && btf_is_typedef(t))
			err = names_add(&ord, id, -1, raw, "typedef ");
		for (int i = 0; btf_is_any_enum(t) && i < btf_vlen(t) && !err; i++) {
			uint32_t off = btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off;
			const char *v = btf__name_by_offset(src, off);
			if (v && *v)
				err = names_add(&ord, id, i, v, "enumerator ");
		}
	}
	err = err ? err : assign_and_set(copy, &tags, GEN_TYPE, "type", true);
	err = err ? err : assign_and_set(copy, &ord, GEN_TYPE, "typedef or enumerator", true);
	names_free(&tags);
	names_free(&ord);
	return err;
}

struct btf *gen_c_btf(const struct btf *src)
{
	uint32_t size;
	const void *raw = btf__raw_data(src, &size);
	struct btf *copy = raw ? btf__new(raw, size) : NULL;
	if (!copy)
		return NULL;
	uint32_t n = btf__type_cnt(src);
	int err = btf__add_str(copy, "_") < 0 ? -ENOMEM : 0;   /* makes the types writable */
	err = err ? err : global_names(src, copy, n);
	for (uint32_t id = 1; id < n && !err; id++) {
		err = plain_names(src, copy, id);
		if (!err && btf_is_composite(btf__type_by_id(src, id)))
			err = member_names(src, copy, id);
	}
	if (err) {
		btf__free(copy);
		errno = -err;
		return NULL;
	}
	return copy;
}
