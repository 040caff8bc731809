/* gen.c — `kiln gen c|python|go|rust|lisp|skeleton FILE`: the types a user-space program needs to
 * read an object's maps and events, from the object's BTF, so a clang-built object works as
 * well as a kiln source. C goes through libbpf's btf_dump; Python, Go and Rust share one walk
 * over the BTF (structs in dependency order, every member at its BTF offset with explicit
 * padding between) and differ only in a table of type names and spellings; Lisp for kiln's
 * host is gen_lisp.c's. */
#include "cli.h"
#include "gen_c.h"
#include "gen_lisp.h"
#include "gen_cbtf.h"
#include "gen_skel.h"
#include "gen_names.h"
#include "compiler/diag.h"
#include <kiln/compile.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char gen_help[] =
	"usage: kiln gen c|python|go|rust|lisp|skeleton FILE [-o OUT] [--name NAME] [-w] [--btf FILE]\n"
	"\n"
	"Write the types a user-space program needs to use FILE's maps and events: the key and\n"
	"value types of every map, the event struct of every ring or perf buffer (the BTF decl\n"
	"tag kiln.event:EVENT that defevent and with-event leave, or that clang code writes with\n"
	"__attribute__((btf_decl_tag(\"kiln.event:EVENT\")))), and every named struct and union.\n"
	"FILE is a kiln source (.lisp, compiled in memory) or a BPF object, kiln's or clang's:\n"
	"the types come from its BTF.\n"
	"\n"
	"  c         a C header (libbpf's btf_dump), with a list of the maps and events\n"
	"  python    ctypes.Structure classes (_pack_ = 1, every field at its BTF offset with\n"
	"            explicit padding), and MAPS {name: (key, value)} and EVENTS {map: event}\n"
	"  go        a Go package of structs with sized ints and explicit padding fields\n"
	"            (`_ [N]byte`); a packed struct's fields become byte arrays, as Go has no\n"
	"            packed layout, and a union its bytes (Raw)\n"
	"  rust      #[repr(C)] structs (#[repr(C, packed)] where the BTF layout is packed)\n"
	"            with explicit padding, deriving Clone and Copy\n"
	"  lisp      for kiln's host (a session file, kiln run, the REPL), as Whistler's\n"
	"            defstruct gives a session: a record of each struct and union as a list\n"
	"            (NAME-record :FIELD VALUE ...), make-NAME-record (&key FIELD...),\n"
	"            NAME-record-FIELD, decode-NAME (BYTES [OFFSET]) to a record,\n"
	"            encode-NAME (RECORD [BYTES OFFSET]) to bytes, +NAME-size+, and\n"
	"            *NAME-maps* and *NAME-events*; Lisp names are in lower case with - for _\n"
	"  skeleton  a C header in the manner of `bpftool gen skeleton`: the object embedded as\n"
	"            bytes, a struct NAME with the object's maps, programs and links by name,\n"
	"            NAME__open, __load, __open_and_load, __attach (the programs whose section\n"
	"            names their hook), NAME__PROG__attach(skel, opts) for the others (xdp, tc,\n"
	"            cgroup), __detach and __destroy on libkiln (kiln/object.h; link with\n"
	"            -lkiln -lbpf -lelf -ldw -lz -lpthread), and typed lookup, update and\n"
	"            delete functions for each map with a key\n"
	"            (NAME__MAP__lookup(skel, &key, &value))\n"
	"\n"
	"Names are the object's, made identifiers: every character not an ASCII letter, digit or _\n"
	"becomes _ (a leading digit gets a _ first). A name that is then a keyword or built-in\n"
	"name of the language, or one a name of the same scope took first (names that were\n"
	"identifiers already go first), gets _ appended, then _2, _3...; each name so changed is\n"
	"said on stderr. Strings are escaped; comments show names reduced to plain characters.\n"
	"An anonymous member whose fields would hide its struct's own stays a member of its own\n"
	"(anonN). Go names are exported (CamelCase). Bitfields are left to padding.\n"
	"\n"
	"  -o OUT        write to OUT rather than standard output\n"
	"  --name NAME   the skeleton's, Go package's and guard's name (default: FILE's stem)\n"
	"  --btf FILE    kiln sources: take kernel types from FILE instead of\n"
	"                /sys/kernel/btf/vmlinux\n"
	"  -w, --no-warnings\n"
	"                do not print a kiln source's compile warnings\n";

/* ---- the BTF: what to generate ---- */

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	while (t && (btf_is_typedef(t) || btf_is_mod(t) || btf_is_type_tag(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/* ---- Python, Go, Rust: one walk, a table per language ---- */

struct gen_lang {
	const char *name;
	const char *ints[2][4];           /* [signed][1, 2, 4, 8 bytes] */
	const char *f32, *f64;
	const char *chr;                  /* C's char: text in a char array */
	const char *array;                /* printf of (element, count), or of (count, element) */
	bool count_first;
	bool bytes_when_packed;           /* a packed struct's fields as byte arrays (Go) */
	enum gen_target id;                 /* whose reserved words and spelling (gen_names.h) */
	void (*head)(FILE *out, const struct gen_input *in);
	/* anon: the anonymous members' names, quoted, comma-separated ("" if none) */
	void (*open)(FILE *out, const char *name, bool is_union, bool packed, const char *anon);
	const char *field;                /* printf of (name, type) */
	const char *pad;                  /* of (bytes, number): explicit padding */
	const char *close;                /* of (name, size) */
	void (*tail)(FILE *out, const struct gen_input *in, const struct gen_lang *l, char **names);
};

struct walk {
	FILE *out;
	const struct gen_input *in;
	const struct gen_lang *l;
	uint8_t *done;                    /* by type id: emitted (2) or being emitted (1) */
	char **names;                     /* by type id: a struct's or union's name (gen_names.h) */
};

static void type_name(const struct walk *w, uint32_t id, char *dst, size_t n)
{
	snprintf(dst, n, "%s", w->names[id] ? w->names[id] : "_");
}

/* The names of type id's first vlen (at most MAX_MEMBERS) members (anonN for anonymous
 * member N): unique among themselves, or -ENOMEM. For gen_names_free. */
#define MAX_MEMBERS 64
static int member_names(const struct walk *w, uint32_t id, uint16_t vlen, bool quiet, char **names)
{
	const struct btf_type *t = btf__type_by_id(w->in->btf, id);
	const char *raw[MAX_MEMBERS];
	char anon[MAX_MEMBERS][16], what[GEN_NAME_MAX + 16];
	for (uint16_t i = 0; i < vlen; i++) {
		raw[i] = btf__name_by_offset(w->in->btf, btf_members(t)[i].name_off);
		if (!raw[i] || !*raw[i]) {
			snprintf(anon[i], sizeof(anon[i]), "anon%u", i);
			raw[i] = anon[i];
		}
	}
	snprintf(what, sizeof(what), "member of %s", w->names[id] ? w->names[id] : "_");
	return gen_names_assign(w->l->id, GEN_MEMBER, quiet ? NULL : what, raw, NULL, vlen, names);
}

static void array_expr(const struct gen_lang *l, char *dst, size_t n, const char *elem, uint32_t count)
{
	if (l->count_first)
		snprintf(dst, n, l->array, count, elem);
	else
		snprintf(dst, n, l->array, elem, count);
}

static bool btf_is_void_like(const struct btf_type *t)
{
	return btf_is_func(t) || btf_is_func_proto(t) || btf_is_fwd(t);
}

static int emit_type(struct walk *w, uint32_t id);

/* ---- anonymous members whose fields read as the parent's own (Python's _anonymous_) ---- */

#define MAX_PROMOTED 512
struct promoted {
	char *names[MAX_PROMOTED];        /* the parent's field names, and those promoted so far */
	size_t n;
};

static bool promoted_has(const struct promoted *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->names[i], name))
			return true;
	return false;
}

/* The names member type id would add to its parent (its members', and its anonymous
 * members' in turn; a superset of what its _fields_ holds) onto p; false, with p as it was,
 * if one is there already or there are too many or too deep. */
static bool promote(const struct walk *w, uint32_t id, int depth, struct promoted *p)
{
	const struct btf_type *t = skip_mods(w->in->btf, &id);
	size_t had = p->n;
	char *names[MAX_MEMBERS];
	if (!t || !btf_is_composite(t) || depth > 8)
		return false;
	uint16_t vlen = btf_vlen(t) < MAX_MEMBERS ? btf_vlen(t) : MAX_MEMBERS;
	bool ok = !member_names(w, id, vlen, true, names);
	for (uint16_t i = 0; i < vlen && ok; i++) {
		/* an anonymous member's own name too: it is a field of type id when not promoted */
		if (!promoted_has(p, names[i]) && p->n < MAX_PROMOTED && (p->names[p->n] = strdup(names[i])))
			p->n++;
		else
			ok = false;
		if (ok && !*btf__name_by_offset(w->in->btf, btf_members(t)[i].name_off) &&
		    btf_is_composite(skip_mods(w->in->btf, &(uint32_t){ btf_members(t)[i].type })))
			ok = promote(w, btf_members(t)[i].type, depth + 1, p);
	}
	gen_names_free(names, vlen);
	while (!ok && p->n > had)
		free(p->names[--p->n]);
	return ok;
}

/* The quoted, comma-separated names of struct id's anonymous members to promote into anon:
 * each whose fields clash with none of the struct's own or an earlier one's (else it stays
 * a field of its own, said on stderr). */
static void anon_list(const struct walk *w, uint32_t id, uint16_t vlen, char types[][256], char **fnames,
		      char *anon, size_t n)
{
	const struct btf_type *t = btf__type_by_id(w->in->btf, id);
	const struct btf_member *m = btf_members(t);
	struct promoted p = { .n = 0 };
	for (uint16_t i = 0; i < vlen; i++)
		if (types[i][0] && *btf__name_by_offset(w->in->btf, m[i].name_off) && p.n < MAX_PROMOTED)
			p.names[p.n++] = fnames[i];
	size_t own = p.n;
	for (uint16_t i = 0; i < vlen; i++) {
		if (!types[i][0] || *btf__name_by_offset(w->in->btf, m[i].name_off))
			continue;
		if (!promote(w, m[i].type, 0, &p))
			fprintf(stderr, "kiln gen: warning: the fields of %s.%s would hide others: they stay under %s\n",
				w->names[id], fnames[i], fnames[i]);
		else if (strlen(anon) + strlen(fnames[i]) + 5 < n)
			snprintf(anon + strlen(anon), n - strlen(anon), "%s\"%s\"", *anon ? ", " : "", fnames[i]);
	}
	while (p.n > own)
		free(p.names[--p.n]);
}

static unsigned log2_size(uint32_t size)
{
	return size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
}

/* The language's spelling of type id (arrays included) into dst; structs it names are
 * emitted first. 0, or -errno for what has no spelling (a function). */
static int type_expr(struct walk *w, uint32_t id, char *dst, size_t n)
{
	const struct btf *btf = w->in->btf;
	const struct btf_type *t = skip_mods(btf, &id);
	if (!t || btf_is_void_like(t))
		return -EINVAL;
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		char elem[256];
		int err = type_expr(w, a->type, elem, sizeof(elem));
		if (err)
			return err;
		array_expr(w->l, dst, n, elem, a->nelems);
		return 0;
	}
	if (btf_is_composite(t)) {
		int err = emit_type(w, id);
		if (!err)
			type_name(w, id, dst, n);
		return err;
	}
	if (btf_is_int(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "char")) {
		snprintf(dst, n, "%s", w->l->chr);
		return 0;
	}
	if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_ptr(t)) {
		bool sign = btf_is_int(t) ? !!(btf_int_encoding(t) & BTF_INT_SIGNED)
			  : btf_is_any_enum(t) ? btf_kflag(t) : false;
		uint32_t size = btf_is_ptr(t) ? 8 : t->size;
		snprintf(dst, n, "%s", w->l->ints[sign][log2_size(size)]);
		return 0;
	}
	if (btf_is_float(t)) {
		snprintf(dst, n, "%s", t->size == 4 ? w->l->f32 : w->l->f64);
		return 0;
	}
	return -EINVAL;
}

/* Whether the natural layout of the language (each member aligned to its size) would move
 * a member or the size: then the BTF layout is packed. */
static bool is_packed(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	int maxal = 1;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		int al = btf__align_of(btf, m[i].type);
		if (al <= 0)
			continue;
		if (al > maxal)
			maxal = al;
		if (!btf_member_bitfield_size(t, i) && btf_member_bit_offset(t, i) % (8u * (unsigned)al))
			return true;
	}
	return t->size % (uint32_t)maxal != 0;
}

static int emit_type(struct walk *w, uint32_t id)
{
	const struct btf *btf = w->in->btf;
	if (w->done[id])
		return w->done[id] == 2 ? 0 : -ELOOP;
	w->done[id] = 1;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	bool packed = is_packed(btf, t), as_bytes = packed && w->l->bytes_when_packed;
	char types[MAX_MEMBERS][256], *fnames[MAX_MEMBERS];
	uint16_t vlen = btf_vlen(t) < MAX_MEMBERS ? btf_vlen(t) : MAX_MEMBERS;
	/* every member's type first, so that the structs they name come before this one */
	for (uint16_t i = 0; i < vlen; i++) {
		uint32_t size = (uint32_t)btf__resolve_size(btf, m[i].type);
		int err = 0;
		if (btf_member_bitfield_size(t, i))
			types[i][0] = 0;
		else if (as_bytes)
			array_expr(w->l, types[i], sizeof(types[i]), w->l->ints[0][0], size);
		else
			err = type_expr(w, m[i].type, types[i], sizeof(types[i]));
		if (err == -ELOOP)
			return err;
		if (err)
			types[i][0] = 0;   /* no spelling: left to padding */
	}
	char name[128], anon[256] = "";
	if (member_names(w, id, vlen, false, fnames))
		return -ENOMEM;
	type_name(w, id, name, sizeof(name));
	if (w->l->id == GEN_PY)
		anon_list(w, id, vlen, types, fnames, anon, sizeof(anon));
	bool is_union = btf_is_union(t) && !(w->l->bytes_when_packed);
	w->l->open(w->out, name, is_union, packed, anon);
	uint32_t at = 0;
	unsigned npad = 0;
	for (uint16_t i = 0; i < vlen && !btf_is_union(t); i++) {
		uint32_t off = btf_member_bit_offset(t, i) / 8;
		if (!types[i][0] || off < at)
			continue;
		if (off > at)
			fprintf(w->out, w->l->pad, off - at, npad++);
		fprintf(w->out, w->l->field, fnames[i], types[i]);
		at = off + (uint32_t)btf__resolve_size(btf, m[i].type);
	}
	if (btf_is_union(t) && is_union)
		for (uint16_t i = 0; i < vlen; i++)
			if (types[i][0])
				fprintf(w->out, w->l->field, fnames[i], types[i]);
	gen_names_free(fnames, vlen);
	/* the tail, and a union's full size: explicit bytes; a language without unions (Go)
	 * reads a union as its bytes, Raw */
	char raw[64];
	array_expr(w->l, raw, sizeof(raw), w->l->ints[0][0], t->size);
	if (btf_is_union(t) && !is_union)
		fprintf(w->out, w->l->field, "Raw", raw);
	else if (btf_is_union(t))
		fprintf(w->out, w->l->pad, t->size, npad++);
	else if (at < t->size)
		fprintf(w->out, w->l->pad, t->size - at, npad++);
	fprintf(w->out, w->l->close, name, t->size);
	w->done[id] = 2;
	return 0;
}

static int emit_walk(FILE *out, const struct gen_input *in, const struct gen_lang *l)
{
	struct gen_roots r = { 0 };
	struct walk w = { out, in, l, calloc(btf__type_cnt(in->btf), 1), gen_type_names(in->btf, l->id) };
	int err = w.done && w.names ? gen_roots(in, false, &r) : -ENOMEM;
	l->head(out, in);
	for (size_t i = 0; i < r.n && !err; i++) {
		uint32_t id = r.ids[i];
		const struct btf_type *t = skip_mods(in->btf, &id);
		if (t && btf_is_composite(t))
			err = emit_type(&w, id);
	}
	if (!err)
		l->tail(out, in, l, w.names);
	free(w.done);
	if (w.names)
		gen_names_free(w.names, btf__type_cnt(in->btf));
	free(w.names);
	free(r.ids);
	return err;
}

/* The spelling of a map's key or value type for a language's list of maps ("" if none). */
static void map_type_expr(FILE *out, const struct gen_input *in, const struct gen_lang *l, char **names,
			  uint32_t id, const char *none)
{
	char buf[256];
	struct walk w = { out, in, l, calloc(btf__type_cnt(in->btf), 1), names };
	if (w.done)   /* every struct was emitted already: mark them so nothing prints again */
		memset(w.done, 2, btf__type_cnt(in->btf));
	fputs(id && w.done && !type_expr(&w, id, buf, sizeof(buf)) ? buf : none, out);
	free(w.done);
}

/* Python */
static void py_head(FILE *out, const struct gen_input *in)
{
	char path[256];
	gen_comment_text(path, sizeof(path), in->path);
	fprintf(out, "# %s types, generated by `kiln gen python` from the BTF of %s.\n", in->name, path);
	gen_list_maps(out, in, "#");
	fputs("import ctypes\n", out);
}

static void py_open(FILE *out, const char *name, bool is_union, bool packed, const char *anon)
{
	fprintf(out, "\n\nclass %s(ctypes.%s):\n    _pack_ = 1\n", name, is_union ? "Union" : "Structure");
	if (*anon)   /* their fields read as the struct's own, as in C */
		fprintf(out, "    _anonymous_ = (%s,)\n", anon);
	fputs("    _fields_ = [\n", out);
}

static void py_tail(FILE *out, const struct gen_input *in, const struct gen_lang *l, char **names)
{
	struct bpf_map *m;
	fputs("\n# each map's key and value type (None: no BTF type)\nMAPS = {\n", out);
	bpf_object__for_each_map(m, kiln_object_libbpf(in->obj)) {
		fputs("    ", out);
		gen_py_string(out, bpf_map__name(m));
		fputs(": (", out);
		map_type_expr(out, in, l, names, bpf_map__btf_key_type_id(m), "None");
		fputs(", ", out);
		map_type_expr(out, in, l, names, gen_value_type(in, m), "None");
		fputs("),\n", out);
	}
	fputs("}\n\n# the record type of each ring or perf buffer that says it\nEVENTS = {\n", out);
	bpf_object__for_each_map(m, kiln_object_libbpf(in->obj)) {
		uint32_t ev = gen_event_type(in->btf, bpf_map__name(m));
		if (!ev)
			continue;
		fputs("    ", out);
		gen_py_string(out, bpf_map__name(m));
		fputs(": ", out);
		map_type_expr(out, in, l, names, ev, "None");
		fputs(",\n", out);
	}
	fputs("}\n", out);
}

/* Go */
static void go_head(FILE *out, const struct gen_input *in)
{
	char path[256];
	gen_comment_text(path, sizeof(path), in->path);
	fprintf(out, "// %s types, generated by `kiln gen go` from the BTF of %s.\n", in->name, path);
	gen_list_maps(out, in, "//");
	fprintf(out, "\npackage %s\n", in->name);
}

static void go_open(FILE *out, const char *name, bool is_union, bool packed, const char *anon)
{
	fprintf(out, "\n%stype %s struct {\n", packed ? "// packed in the BTF: wide fields as bytes\n" : "",
		name);
}

static void go_tail(FILE *out, const struct gen_input *in, const struct gen_lang *l, char **names)
{
}

/* Rust */
static void rust_head(FILE *out, const struct gen_input *in)
{
	char path[256];
	gen_comment_text(path, sizeof(path), in->path);
	fprintf(out, "// %s types, generated by `kiln gen rust` from the BTF of %s.\n", in->name, path);
	gen_list_maps(out, in, "//");
}

static void rust_open(FILE *out, const char *name, bool is_union, bool packed, const char *anon)
{
	fprintf(out, "\n#[allow(non_camel_case_types, non_snake_case, dead_code)]\n#[repr(C%s)]\n"
		     "#[derive(Clone, Copy)]\npub %s %s {\n",
		packed ? ", packed" : "", is_union ? "union" : "struct", name);
}

static const struct gen_lang langs[] = {
	{ "python", { { "ctypes.c_uint8", "ctypes.c_uint16", "ctypes.c_uint32", "ctypes.c_uint64" },
		      { "ctypes.c_int8", "ctypes.c_int16", "ctypes.c_int32", "ctypes.c_int64" } },
	  "ctypes.c_float", "ctypes.c_double", "ctypes.c_char", "(%s * %u)", false, false, GEN_PY,
	  py_head, py_open, "        (\"%s\", %s),\n", "        (\"_pad%2$u\", ctypes.c_uint8 * %1$u),\n",
	  "    ]\n\n\nassert ctypes.sizeof(%s) == %u\n", py_tail },
	{ "go", { { "uint8", "uint16", "uint32", "uint64" }, { "int8", "int16", "int32", "int64" } },
	  "float32", "float64", "byte", "[%u]%s", true, true, GEN_GO,
	  go_head, go_open, "\t%s %s\n", "\t_ [%u]byte\n", "}\n\nconst %sSize = %u\n", go_tail },
	{ "rust", { { "u8", "u16", "u32", "u64" }, { "i8", "i16", "i32", "i64" } },
	  "f32", "f64", "u8", "[%s; %u]", false, false, GEN_RUST,
	  rust_head, rust_open, "    pub %s: %s,\n", "    pub _pad%2$u: [u8; %1$u],\n",
	  "}\n\nconst _: () = assert!(core::mem::size_of::<%s>() == %u);\n", go_tail },
};

/* ---- the command ---- */

static int gen_open(const char *path, const char *name, bool c, struct gen_input *in)
{
	*in = (struct gen_input){ .path = path };
	int err = 0;
	if (kiln_compile_is_source(path)) {
		char *warnings = NULL;
		struct kiln_compile_opts co = { .sz = sizeof(co), .btf_path = cli_btf_path, .warnings = &warnings };
		err = kiln_compile(path, &in->elf, &in->size, &co);
		if (!err && warnings && !cli_no_warnings)
			fputs(warnings, stderr);
		free(warnings);
	} else if (!(in->elf = kl_read_file(path, &in->size))) {
		fprintf(stderr, "kiln gen: cannot read %s: %s\n", path, kl_read_strerror(errno));
		return -1;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (name) {
		gen_ident(in->name, sizeof(in->name), name);
	} else {
		char stem[64];
		snprintf(stem, sizeof(stem), "%.*s", (int)strcspn(base, "."), base);
		gen_ident(in->name, sizeof(in->name), stem);
	}
	struct kiln_object_opts o = { .sz = sizeof(o), .name = base };
	if (!err)
		err = kiln_object_open_mem(in->elf, in->size, &o, &in->obj);
	if (err) {
		const char *log = kiln_errlog();
		if (*log)
			fprintf(stderr, "%s\n", log);
		else
			cli_fail("gen");
		return err;
	}
	const struct btf *obtf = bpf_object__btf(kiln_object_libbpf(in->obj));
	if (!obtf) {
		fprintf(stderr, "kiln gen: %s has no BTF to generate from\n", path);
		return -ENOENT;
	}
	if (!(in->btf = in->own = gen_data_btf(obtf, in->name, in->data, &in->ndata))) {
		fprintf(stderr, "kiln gen: %s: cannot copy its BTF: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	if (c && !(in->cbtf = gen_c_btf(in->btf))) {
		fprintf(stderr, "kiln gen: %s: cannot copy its BTF: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static void gen_close(struct gen_input *in)
{
	btf__free(in->cbtf);
	btf__free(in->own);
	kiln_object_close(in->obj);
	free(in->elf);
}

/* The skeleton's (C) or Go package's name: not a keyword of the language (nor main in Go) */
static int unit_name(struct gen_input *in, bool skel)
{
	const char *raw[1] = { in->name };
	char *name[1];
	if (gen_names_assign(skel ? GEN_C : GEN_GO, GEN_UNIT, skel ? "skeleton name" : "package name", raw, NULL,
			     1, name)) {
		fprintf(stderr, "kiln gen: %s\n", strerror(ENOMEM));
		return 1;
	}
	snprintf(in->name, sizeof(in->name), "%s", name[0]);
	gen_names_free(name, 1);
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	const char *outp = NULL, *name = NULL;
	const struct cli_opt opts[] = {
		{ "-o", CLI_STR, &outp, "a file name" }, { "--name", CLI_STR, &name, "a name" },
		{ "--no-warnings|-w", CLI_FLAG, &cli_no_warnings, NULL },
		{ "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { 0 },
	};
	const char *pos[3];
	int npos, r = cli_parse("gen", gen_help, argc, argv, opts, pos, 3, &npos);
	if (r != CLI_OK)
		return r;
	if (npos != 2) {
		fprintf(stderr, "%s", gen_help);
		return 2;
	}
	const struct gen_lang *l = NULL;
	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strcmp(langs[i].name, pos[0]))
			l = &langs[i];
	bool c = !strcmp(pos[0], "c"), skel = !strcmp(pos[0], "skeleton"), lisp = !strcmp(pos[0], "lisp");
	if (!l && !c && !skel && !lisp) {
		fprintf(stderr, "kiln gen: no generator '%s' (c, python, go, rust, lisp, skeleton)\n", pos[0]);
		return 2;
	}
	struct gen_input in;
	if (gen_open(pos[1], name, c || skel, &in) || ((skel || (l && l->id == GEN_GO)) && unit_name(&in, skel))) {
		gen_close(&in);
		return 1;
	}
	if (skel && (btf__find_by_name_kind(in.cbtf, in.name, BTF_KIND_STRUCT) > 0 ||
		     btf__find_by_name_kind(in.cbtf, in.name, BTF_KIND_UNION) > 0)) {
		fprintf(stderr, "kiln gen: the skeleton's name '%s' is a type of %s: give another with --name\n",
			in.name, pos[1]);
		gen_close(&in);
		return 1;
	}
	FILE *out = outp ? fopen(outp, "w") : stdout;
	int err = out ? 0 : -errno;
	if (out)
		err = c ? gen_c_header(out, &in) : skel ? gen_skeleton(out, &in) : lisp ? gen_lisp(out, &in)
									 : emit_walk(out, &in, l);
	if (err)
		fprintf(stderr, "kiln gen: %s: %s\n", outp ? outp : pos[1], strerror(-err));
	if (out && out != stdout && fclose(out) && !err)
		err = -errno;
	gen_close(&in);
	return err ? 1 : 0;
}
