/* gen_skel.c — `kiln gen skeleton FILE`: one C header that carries the object (its ELF bytes
 * as a string literal) and opens, loads, attaches and destroys it through libkiln, with the
 * object's maps, programs and links as named members and typed map accessors, so a program
 * needs neither the object file at run time nor lookups by name. */
#include "cli.h"
#include "gen_skel.h"
#include "gen_names.h"
#include "kfacts/prog_types.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The maps' and programs' names as members and function-name parts, in the object's order:
 * identifiers, unique, not C keywords (runqlat's program `switch` becomes switch_). */
struct skel {
	const char *s;                    /* the skeleton's name */
	char **maps, **progs;
	size_t nmaps, nprogs;
};

static int skel_names(struct skel *k, struct bpf_object *o)
{
	struct bpf_map *m;
	struct bpf_program *p;
	bpf_object__for_each_map(m, o)
		k->nmaps++;
	bpf_object__for_each_program(p, o)
		k->nprogs++;
	const char **raw = calloc(k->nmaps + k->nprogs + 1, sizeof(*raw));
	k->maps = calloc(k->nmaps + 1, sizeof(char *));
	k->progs = calloc(k->nprogs + 1, sizeof(char *));
	int err = raw && k->maps && k->progs ? 0 : -ENOMEM;
	size_t i = 0;
	bpf_object__for_each_map(m, o)
		if (raw)
			raw[i++] = bpf_map__name(m);
	bpf_object__for_each_program(p, o)
		if (raw)
			raw[i++] = bpf_program__name(p);
	err = err ? err : gen_names_assign(GEN_C, GEN_MEMBER, "map", raw, NULL, k->nmaps, k->maps);
	err = err ? err : gen_names_assign(GEN_C, GEN_MEMBER, "program", raw + k->nmaps, NULL, k->nprogs, k->progs);
	free(raw);
	return err;
}

static void skel_free(struct skel *k)
{
	gen_names_free(k->maps, k->nmaps);
	gen_names_free(k->progs, k->nprogs);
	free(k->maps);
	free(k->progs);
}

static void decl_printf(void *ctx, const char *fmt, va_list args)
{
	FILE *f = ctx;
	vfprintf(f, fmt, args);
}

/* The C spelling of type id for a pointer parameter ("struct stats", "u32"); "void" for
 * what has none a pointer can name directly (arrays, no BTF). */
static void c_type(const struct btf *btf, uint32_t id, char *dst, size_t n)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	snprintf(dst, n, "void");
	if (!t || btf_is_array(t) || (!t->name_off && !btf_is_int(t)))
		return;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);   /* btf: the C-safe copy (gen_c_btf) */
	struct btf_dump *d = f ? btf_dump__new(btf, decl_printf, f, NULL) : NULL;
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	bool ok = d && !btf_dump__emit_type_decl(d, id, &o);
	btf_dump__free(d);
	if (f)
		fclose(f);
	if (ok && buf && *buf)
		snprintf(dst, n, "%s", buf);
	free(buf);
}

/* The ELF bytes as string literal lines: printable characters as themselves, zero as \0,
 * the rest as \xNN, which takes about half the text of escaping every byte. An escape must
 * not run on into the next character: no digit after \0 (octal), no hex digit after \xNN. */
static void emit_bytes(FILE *out, const uint8_t *p, size_t n)
{
	size_t col = 0;
	enum { PLAIN, OCT, HEX } last = PLAIN;
	fputs("\t\t\"", out);
	for (size_t i = 0; i < n; i++) {
		int c = p[i];
		bool printable = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?';
		if (printable && ((last == OCT && isdigit(c)) || (last == HEX && isxdigit(c))))
			printable = false;
		if (col >= 72) {
			fputs("\"\n\t\t\"", out);
			col = 0;
			last = PLAIN;
		}
		if (printable) {
			fputc(c, out);
			col++;
			last = PLAIN;
		} else if (!c) {
			fputs("\\0", out);
			col += 2;
			last = OCT;
		} else {
			fprintf(out, "\\x%02x", (unsigned)c);
			col += 4;
			last = HEX;
		}
	}
	fputc('"', out);
}

/* Data section i's member name (rodata, data, bss, data_x), its section's name and its C type */
static void data_names(const struct gen_input *in, size_t i, char *member, size_t mlen, const char **sec,
		       char *type, size_t tlen)
{
	const struct btf_type *t = btf__type_by_id(in->btf, in->data[i].datasec);
	*sec = btf__name_by_offset(in->btf, t->name_off);
	gen_ident(member, mlen, **sec == '.' ? *sec + 1 : *sec);
	c_type(in->cbtf, in->data[i].st, type, tlen);
}

/* __load's lines that make each data section's pointer the programs' own ("" when none) */
static char *data_live(const struct gen_input *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0; f && i < in->ndata; i++) {
		char member[64], type[256];
		const char *sec;
		data_names(in, i, member, sizeof(member), &sec, type, sizeof(type));
		fputs("\tif (!err)\n\t\tkiln_object_global_data(skel->obj, ", f);
		gen_c_string(f, sec);
		fputs(", NULL);\n", f);
	}
	if (f)
		fclose(f);
	return buf ? buf : strdup("");
}

static void emit_struct(FILE *out, const struct skel *k, const struct gen_input *in)
{
	fprintf(out, "struct %s {\n\tstruct kiln_object *obj;\n\tstruct {\n", k->s);
	for (size_t i = 0; i < k->nmaps; i++)
		fprintf(out, "\t\tstruct kiln_map *%s;\n", k->maps[i]);
	fputs("\t} maps;\n\tstruct {\n", out);
	for (size_t i = 0; i < k->nprogs; i++)
		fprintf(out, "\t\tstruct kiln_prog *%s;\n", k->progs[i]);
	fputs("\t} progs;\n\tstruct {\n", out);
	for (size_t i = 0; i < k->nprogs; i++)
		fprintf(out, "\t\tstruct kiln_link *%s;\n", k->progs[i]);
	fputs("\t} links;\n", out);
	if (in->ndata)
		fputs("\t/* the global variables, by section: before load their first values, to set;\n"
		      "\t * after load the programs' own (.rodata read-only) */\n", out);
	for (size_t i = 0; i < in->ndata; i++) {
		char member[64], type[256];
		const char *sec;
		data_names(in, i, member, sizeof(member), &sec, type, sizeof(type));
		fprintf(out, "\t%s *%s;\n", type, member);
	}
	fputs("};\n\n", out);
}

/* open: the embedded object, and every map and program found by name into the struct */
static void emit_open(FILE *out, const struct skel *k, struct bpf_object *o, const struct gen_input *in)
{
	struct bpf_map *m;
	struct bpf_program *p;
	const char *s = k->s;
	size_t i = 0;
	fprintf(out,
		"static inline void %s__destroy(struct %s *skel);\n\n"
		"/* NULL on failure, with errno set and kiln_errmsg() saying why */\n"
		"static inline struct %s *%s__open(void)\n{\n"
		"\tstruct %s *skel = (struct %s *)calloc(1, sizeof(*skel));\n"
		"\tsize_t size;\n\tconst void *elf = %s__elf_bytes(&size);\n"
		"\tstruct kiln_object_opts opts = { .sz = sizeof(opts), .name = \"%s\" };\n"
		"\tint err = skel ? kiln_object_open_mem(elf, size, &opts, &skel->obj) : -ENOMEM;\n"
		"\tif (err)\n\t\tgoto fail;\n",
		s, s, s, s, s, s, s, s);
	bpf_object__for_each_map(m, o) {
		fprintf(out, "\tif (!(skel->maps.%s = kiln_object_find_map(skel->obj, ", k->maps[i++]);
		gen_c_string(out, bpf_map__name(m));
		fputs(")))\n\t\tgoto missing;\n", out);
	}
	i = 0;
	bpf_object__for_each_program(p, o) {
		fprintf(out, "\tif (!(skel->progs.%s = kiln_object_find_prog(skel->obj, ", k->progs[i++]);
		gen_c_string(out, bpf_program__name(p));
		fputs(")))\n\t\tgoto missing;\n", out);
	}
	for (size_t d = 0; d < in->ndata; d++) {
		char member[64], type[256];
		const char *sec;
		data_names(in, d, member, sizeof(member), &sec, type, sizeof(type));
		fprintf(out, "\tif (!(skel->%s = (%s *)kiln_object_global_data(skel->obj, ", member, type);
		gen_c_string(out, sec);
		fputs(", NULL)))\n\t\tgoto missing;\n", out);
	}
	fprintf(out, "\treturn skel;\nmissing:\n\terr = -ENOENT;\nfail:\n\t%s__destroy(skel);\n"
		     "\terrno = -err;\n\treturn NULL;\n}\n\n", s);
}

/* __attach's registration of each struct_ops map, its link in the slot of one of its struct_ops
 * programs (as kiln run keeps it), which are not attached one by one */
static void emit_struct_ops_attach(FILE *out, const struct skel *k, struct bpf_object *o)
{
	struct bpf_map *m;
	struct bpf_program *p = bpf_object__next_program(o, NULL);
	size_t j = 0, slot = 0;
	bpf_object__for_each_map(m, o) {
		j++;
		if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		while (p && bpf_program__type(p) != BPF_PROG_TYPE_STRUCT_OPS) {
			p = bpf_object__next_program(o, p);
			slot++;
		}
		if (!p)
			return;
		fprintf(out, "\tif (!err)\n\t\terr = kiln_object_attach_struct_ops(skel->obj, %zu, &skel->links.%s);\n",
			j - 1, k->progs[slot]);
		p = bpf_object__next_program(o, p);
		slot++;
	}
}

static void emit_attach(FILE *out, const struct skel *k, struct bpf_object *o)
{
	struct bpf_program *p;
	const char *s = k->s, *id;
	char name[GEN_NAME_MAX + 1], sec[GEN_NAME_MAX + 1];
	size_t i = 0;
	bpf_object__for_each_program(p, o) {
		id = k->progs[i++];
		gen_comment_text(name, sizeof(name), bpf_program__name(p));
		gen_comment_text(sec, sizeof(sec), bpf_program__section_name(p));
		fprintf(out,
			"/* %s (section %s) at its hook: opts names the interface, cgroup, binary... */\n"
			"static inline int %s__%s__attach(struct %s *skel, const struct kiln_attach_opts *opts)\n{\n"
			"\treturn kiln_prog_attach(skel->progs.%s, opts, &skel->links.%s);\n}\n\n",
			name, sec, s, id, s, id, id);
	}
	fprintf(out, "/* the programs whose section names their hook (tracepoints, raw tracepoints,\n"
		     " * tracing, uprobes) and the struct_ops maps (registered); 0 or a negative errno,\n"
		     " * with everything attached detached */\n"
		     "static inline void %s__detach(struct %s *skel);\n"
		     "static inline int %s__attach(struct %s *skel)\n{\n\tint err = 0;\n", s, s, s, s);
	i = 0;
	bpf_object__for_each_program(p, o) {
		id = k->progs[i++];
		const struct kl_attach_section *row = kl_attach_section_find(bpf_program__section_name(p));
		/* not those without a hook kiln attaches to (lwt, tc actions, sk_reuseport), nor the
		 * struct_ops ones, registered with their map below */
		if (!kl_prog_kind_facts(bpf_program__type(p))->attach_opts && row && row->kind != KILN_ATTACH_NONE &&
		    row->kind != KILN_ATTACH_STRUCT_OPS)
			fprintf(out, "\tif (!err)\n\t\terr = %s__%s__attach(skel, NULL);\n", s, id);
	}
	emit_struct_ops_attach(out, k, o);
	fprintf(out, "\tif (err)\n\t\t%s__detach(skel);\n\treturn err;\n}\n\n", s);
	fprintf(out, "static inline void %s__detach(struct %s *skel)\n{\n", s, s);
	for (i = 0; i < k->nprogs; i++)
		fprintf(out, "\tkiln_link_destroy(skel->links.%s);\n\tskel->links.%s = NULL;\n", k->progs[i],
			k->progs[i]);
	fputs("}\n\n", out);
}

/* typed lookup, update, delete for the maps with keys */
static void emit_accessors(FILE *out, const struct skel *sk, const struct gen_input *in)
{
	struct bpf_map *m;
	const char *s = sk->s, *id;
	char k[256], v[256], name[GEN_NAME_MAX + 1];
	size_t i = 0;
	bpf_object__for_each_map(m, kiln_object_libbpf(in->obj)) {
		id = sk->maps[i++];
		if (!bpf_map__key_size(m) || !bpf_map__value_size(m))
			continue;
		gen_comment_text(name, sizeof(name), bpf_map__name(m));
		c_type(in->cbtf, bpf_map__btf_key_type_id(m), k, sizeof(k));
		c_type(in->cbtf, gen_value_type(in, m), v, sizeof(v));
		fprintf(out,
			"/* %s: key %u bytes, value %u bytes%s; 0 or a negative errno (-ENOENT: no entry) */\n"
			"static inline int %s__%s__lookup(struct %s *skel, const %s *key, %s *value)\n{\n"
			"\treturn kiln_map_lookup(skel->maps.%s, key, value);\n}\n\n"
			"static inline int %s__%s__update(struct %s *skel, const %s *key, const %s *value, uint64_t flags)\n{\n"
			"\treturn kiln_map_update(skel->maps.%s, key, value, flags);\n}\n\n"
			"static inline int %s__%s__delete(struct %s *skel, const %s *key)\n{\n"
			"\treturn kiln_map_delete(skel->maps.%s, key);\n}\n\n",
			name, bpf_map__key_size(m), bpf_map__value_size(m),
			libbpf_bpf_map_type_str(bpf_map__type(m)) && strstr(libbpf_bpf_map_type_str(bpf_map__type(m)), "percpu")
				? ", one per possible CPU (kiln_map_value_buf_size())" : "",
			s, id, s, k, v, id, s, id, s, k, v, id, s, id, s, k, id);
	}
}

int gen_skeleton(FILE *out, const struct gen_input *in)
{
	const char *s = in->name;
	struct bpf_object *o = kiln_object_libbpf(in->obj);
	struct skel k = { .s = s };
	char guard[80], path[256];
	int err = skel_names(&k, o);
	if (err) {
		skel_free(&k);
		return err;
	}
	gen_comment_text(path, sizeof(path), in->path);
	snprintf(guard, sizeof(guard), "%s_SKEL_H", s);
	for (char *p = guard; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	fprintf(out, "/* %s skeleton, generated by `kiln gen skeleton` from %s: the object embedded,\n"
		     " * opened, loaded, attached and destroyed through libkiln (kiln/object.h). */\n"
		     "#ifndef %s\n#define %s\n#include <errno.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
		     "#include <kiln/kiln.h>\n\n",
		s, path, guard, guard);
	err = gen_c_types(out, in, true);
	if (err) {
		skel_free(&k);
		return err;
	}
	fputc('\n', out);
	emit_struct(out, &k, in);
	fprintf(out, "static inline const void *%s__elf_bytes(size_t *size)\n{\n\tstatic const char elf[] =\n", s);
	emit_bytes(out, in->elf, in->size);
	fprintf(out, ";\n\t*size = sizeof(elf) - 1;\n\treturn elf;\n}\n\n");
	emit_open(out, &k, o, in);
	char *live = data_live(in);
	fprintf(out,
		"/* create the maps, load the programs: 0 or a negative errno (kiln_object_verifier_error());\n"
		" * the global variables' pointers then show the programs' own */\n"
		"static inline int %s__load(struct %s *skel)\n{\n\tint err = kiln_object_load(skel->obj);\n"
		"%s\treturn err;\n}\n\n"
		"static inline struct %s *%s__open_and_load(void)\n{\n"
		"\tstruct %s *skel = %s__open();\n\tint err = skel ? %s__load(skel) : 0;\n"
		"\tif (err) {\n\t\t%s__destroy(skel);\n\t\terrno = -err;\n\t\treturn NULL;\n\t}\n"
		"\treturn skel;\n}\n\n",
		s, s, live, s, s, s, s, s, s);
	free(live);
	emit_attach(out, &k, o);
	fprintf(out, "/* detach, unload, free; NULL ok */\nstatic inline void %s__destroy(struct %s *skel)\n{\n"
		     "\tif (!skel)\n\t\treturn;\n\t%s__detach(skel);\n\tkiln_object_close(skel->obj);\n"
		     "\tfree(skel);\n}\n\n", s, s, s);
	emit_accessors(out, &k, in);
	fprintf(out, "#endif /* %s */\n", guard);
	skel_free(&k);
	return ferror(out) ? -EIO : 0;
}
