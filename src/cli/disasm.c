/* disasm.c — `kiln disasm OBJ.o|FILE.lisp`: the instructions of every program and function
 * of a BPF object, interleaved with the source lines its .BTF.ext line info names. */
#include "cli.h"
#include "insn.h"
#include "compiler/diag.h"
#include <kiln/compile.h>
#include "lib/text.h"
#include <bpf/btf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif

static const char disasm_help[] =
	"usage: kiln disasm OBJ.o|FILE.lisp [--prog NAME] [--json] [-O0|-O1|-O2] [--btf FILE]\n"
	"\n"
	"Print the instructions of each program (and each function of .text) of a BPF ELF\n"
	"object, kiln's or clang's, with the source line of each taken from the object's line\n"
	"info: `; TEXT @ FILE:LINE` before the first instruction of a line. A kiln source is\n"
	"compiled first (at -O2 unless told otherwise). An instruction libbpf patches for CO-RE\n"
	"ends with the relocation, `; CO-RE byte_off task_struct.real_parent` (\"core\" in JSON).\n"
	"\n"
	"  --prog NAME  only the program or function NAME\n"
	"  --json       one object per program: {\"prog\",\"section\",\"subprog\",\"insn_count\",\n"
	"               \"insns\":[{\"off\",\"text\",\"line\",\"col\",\"file\",\"src\"}]}\n"
	"  -O0 -O1 -O2  optimisation level for a kiln source\n"
	"  --btf FILE   a kiln source's kernel types from FILE, not the running kernel's\n";

struct rel {                    /* one relocation of a code section */
	uint64_t off;           /* byte offset of the instruction */
	GElf_Sym sym;
	const char *name;       /* the symbol's name, or its section's for a section symbol */
};

struct linfo {                  /* one .BTF.ext line_info record */
	uint32_t off, file, text, line_col;
};

struct crel {                   /* one .BTF.ext CO-RE relocation record */
	uint32_t off, type, access, kind;
};

struct sec {                    /* an executable section */
	size_t idx;
	const char *name;
	struct bpf_insn *insns;
	size_t n;               /* 8-byte slots */
	struct rel *rels;
	size_t nrels;
	struct linfo *lines;
	size_t nlines;
	struct crel *cores;
	size_t ncores;
};

struct func {                   /* a program (FUNC symbol) or .text function */
	const char *name;
	struct sec *sec;
	size_t start, end;      /* slots [start, end) of sec */
};

struct label {                  /* a NOTYPE symbol in code: clang's LBB0_2 */
	size_t sec, slot;
	const char *name;
};

struct obj {
	const char *path;
	Elf *elf;
	size_t shstrndx, symstr, nsyms;
	Elf_Data *syms;
	struct btf *btf;
	struct sec *secs;
	size_t nsecs;
	struct func *funcs;
	size_t nfuncs;
	struct label *labels;
	size_t nlabels;
	bool bad;               /* something was wrong (and said) though the code printed */
	FILE *out, *err;        /* the code; the problems */
};

static int fail(const struct obj *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct obj *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);   /* names in it are the object's: escaped */
	fprintf(o->err, "kiln disasm: %s: ""%s\n", kl_safe(o->path), kl_safe(msg));
	va_end(ap);
	return 1;
}

/* A problem in an object that does not stop disassembly: said once, and the exit status 1. */
static void warn(struct obj *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct obj *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);   /* names in it are the object's: escaped */
	fprintf(o->err, "kiln disasm: %s: warning: ""%s\n", kl_safe(o->path), kl_safe(msg));
	va_end(ap);
	o->bad = true;
}

static const char *sec_name(const struct obj *o, size_t idx)
{
	Elf_Scn *scn = elf_getscn(o->elf, idx);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh))
		return NULL;
	return elf_strptr(o->elf, o->shstrndx, sh.sh_name);
}

static struct sec *find_sec(const struct obj *o, size_t idx)
{
	for (size_t i = 0; i < o->nsecs; i++)
		if (o->secs[i].idx == idx)
			return &o->secs[i];
	return NULL;
}

static const struct func *func_at(const struct obj *o, size_t secidx, int64_t slot)
{
	for (size_t i = 0; i < o->nfuncs; i++)
		if (o->funcs[i].sec->idx == secidx && (int64_t)o->funcs[i].start == slot)
			return &o->funcs[i];
	return NULL;
}

static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec->idx < y->sec->idx ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct rel *rel_at(const struct sec *s, size_t slot)
{
	struct rel key = { .off = (uint64_t)slot * 8 };
	return s->nrels ? bsearch(&key, s->rels, s->nrels, sizeof(key), cmp_rel) : NULL;
}

/* The relocations of code section s: what its ld_imm64s and calls refer to. */
static int read_rels(struct obj *o, struct sec *s, Elf_Scn *rscn, const GElf_Shdr *rsh)
{
	Elf_Data *d = elf_getdata(rscn, NULL);
	size_t n = rsh->sh_entsize ? rsh->sh_size / rsh->sh_entsize : 0;
	if (!d || !n)
		return 0;
	if (s->rels)            /* the count below would run past the first table */
		return fail(o, "%s has a second relocation section", s->name);
	s->rels = calloc(n, sizeof(*s->rels));
	if (!s->rels)
		return fail(o, "out of memory");
	for (size_t i = 0; i < n; i++) {
		GElf_Rel r;
		struct rel *x = &s->rels[s->nrels];
		if (!gelf_getrel(d, (int)i, &r) || ELF64_R_SYM(r.r_info) >= o->nsyms ||
		    !gelf_getsym(o->syms, (int)ELF64_R_SYM(r.r_info), &x->sym))
			return fail(o, "relocation %zu of %s is malformed", i, s->name);
		x->off = r.r_offset;
		x->name = elf_strptr(o->elf, o->symstr, x->sym.st_name);
		if (GELF_ST_TYPE(x->sym.st_info) == STT_SECTION || !x->name || !*x->name)
			x->name = sec_name(o, x->sym.st_shndx);
		if (!x->name)
			x->name = "?";
		s->nrels++;
	}
	qsort(s->rels, s->nrels, sizeof(*s->rels), cmp_rel);
	return 0;
}

/* Programs and functions: the FUNC symbols of code sections, each to its size or to the next
 * one; a section without any (a stripped object) is one block named after the section.
 * Named NOTYPE symbols there are labels, for jump targets. */
static int find_funcs(struct obj *o)
{
	o->funcs = calloc(o->nsyms + o->nsecs + 1, sizeof(*o->funcs));
	o->labels = calloc(o->nsyms + 1, sizeof(*o->labels));
	if (!o->funcs || !o->labels)
		return fail(o, "out of memory");
	for (size_t i = 0; i < o->nsyms; i++) {
		GElf_Sym sym;
		struct sec *s;
		if (!gelf_getsym(o->syms, (int)i, &sym) || !(s = find_sec(o, sym.st_shndx)) ||
		    sym.st_value % 8 || sym.st_value / 8 >= s->n)
			continue;
		const char *name = elf_strptr(o->elf, o->symstr, sym.st_name);
		if (GELF_ST_TYPE(sym.st_info) == STT_NOTYPE && name && *name)
			o->labels[o->nlabels++] = (struct label){ s->idx, sym.st_value / 8, name };
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		size_t start = sym.st_value / 8, end = sym.st_size ? start + (sym.st_size + 7) / 8 : 0;
		o->funcs[o->nfuncs++] = (struct func){ name && *name ? name : s->name, s, start,
						       end > s->n ? s->n : end };
	}
	for (size_t i = 0; i < o->nsecs; i++) {
		bool any = false;
		for (size_t k = 0; k < o->nfuncs; k++)
			any |= o->funcs[k].sec == &o->secs[i];
		if (!any)
			o->funcs[o->nfuncs++] = (struct func){ o->secs[i].name, &o->secs[i], 0, o->secs[i].n };
	}
	qsort(o->funcs, o->nfuncs, sizeof(*o->funcs), cmp_func);
	qsort(o->labels, o->nlabels, sizeof(*o->labels), cmp_label);
	for (size_t i = 0; i < o->nfuncs; i++) {
		struct func *f = &o->funcs[i];
		if (!f->end)       /* no size: up to the next function of the section */
			f->end = i + 1 < o->nfuncs && o->funcs[i + 1].sec == f->sec ? o->funcs[i + 1].start : f->sec->n;
	}
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);       /* .BTF.ext is in the object's byte order: little-endian here */
	return v;
}

/* The line_info of .BTF.ext (func_info and CO-RE relocations are not needed to print code):
 * a header, then rec_size and per section {sec_name_off, num_info, records}. Problems are
 * warnings: the code prints without source lines. */
/* One part of .BTF.ext (its offset and length at byte `at` of the header): the records'
 * size in *rec, the groups {sec_name_off, num_info, records} between *q and *end. 0 when
 * there is nothing to read; a problem is a warning saying what is left out. */
static int ext_part(struct obj *o, const uint8_t *p, size_t n, uint32_t at, const char *what,
		    const char *lost, const uint8_t **q, const uint8_t **end, uint32_t *rec)
{
	if (n < 24 || (rd32(p) & 0xffff) != 0xeB9F) {
		warn(o, ".BTF.ext has no valid header%s", lost);
		return 0;
	}
	uint32_t hdr_len = rd32(p + 4);
	if (hdr_len < at + 8)
		return 0;             /* an older header, without this part */
	uint32_t off = rd32(p + at), len = rd32(p + at + 4);
	if ((uint64_t)hdr_len + off + len > n || (len && len < 4)) {
		warn(o, ".BTF.ext %s lies outside the section%s", what, lost);
		return 0;
	}
	if (!len)
		return 0;
	*q = p + hdr_len + off + 4;
	*end = p + hdr_len + off + len;
	if ((*rec = rd32(*q - 4)) < 16) {
		warn(o, ".BTF.ext %s records of %u bytes (at least 16)%s", what, *rec, lost);
		return 0;
	}
	return 1;
}

/* The code section a group of .BTF.ext records names; NULL if none. */
static struct sec *ext_sec(struct obj *o, uint32_t name_off)
{
	const char *name = btf__name_by_offset(o->btf, name_off);
	for (size_t i = 0; name && i < o->nsecs; i++)
		if (!strcmp(o->secs[i].name, name))
			return &o->secs[i];
	return NULL;
}

static void read_lines(struct obj *o, const uint8_t *p, size_t n)
{
	const uint8_t *q, *end;
	uint32_t rec;
	if (!ext_part(o, p, n, 16, "line info", "; no source lines", &q, &end, &rec))
		return;
	for (; q + 8 <= end;) {
		uint32_t name_off = rd32(q), num = rd32(q + 4);
		q += 8;
		if ((uint64_t)num * rec > (uint64_t)(end - q)) {
			warn(o, ".BTF.ext line info of a section runs past its end");
			return;
		}
		const char *name = btf__name_by_offset(o->btf, name_off);
		struct sec *s = ext_sec(o, name_off);
		if (!s) {
			warn(o, ".BTF.ext has line info for %s, which is no code section", name ? name : "?");
		} else if (s->lines) {
			warn(o, ".BTF.ext has line info for %s twice", s->name);
		} else if (num && !(s->lines = calloc(num, sizeof(*s->lines)))) {
			warn(o, "out of memory");
			return;
		} else {
			/* what the kernel would refuse, reported once per kind and section; no record
			 * may point into the second half of an ld_imm64 */
			bool order = false, place = false, strs = false;
			uint8_t *second = calloc(s->n + 1, 1);
			for (size_t i = 0; second && i + 1 < s->n; i++)
				if (s->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
					second[++i] = 1;
			for (uint32_t k = 0; k < num; k++) {
				const uint8_t *r = q + (size_t)k * rec;
				struct linfo l = { rd32(r), rd32(r + 4), rd32(r + 8), rd32(r + 12) };
				if (k && l.off <= s->lines[k - 1].off && !order)
					order = true, warn(o, "%s: line info not in increasing instruction order "
							 "(byte %u after %u)", s->name, l.off, s->lines[k - 1].off);
				if ((l.off % 8 || l.off / 8 >= s->n || (second && second[l.off / 8])) && !place)
					place = true, warn(o, "%s: line info at byte %u, which starts no instruction",
							   s->name, l.off);
				if ((!btf__name_by_offset(o->btf, l.file) || !btf__name_by_offset(o->btf, l.text)) &&
				    !strs)
					strs = true, warn(o, "%s: line info names strings outside .BTF", s->name);
				s->lines[k] = l;
			}
			free(second);
			s->nlines = num;
		}
		q += (size_t)num * rec;
	}
}

/* The CO-RE relocations of .BTF.ext (header of 32 bytes or more), shown beside the
 * instructions they patch. Problems are warnings. */
static void read_cores(struct obj *o, const uint8_t *p, size_t n)
{
	const uint8_t *q, *end;
	uint32_t rec;
	if (n < 24 || (rd32(p) & 0xffff) != 0xeB9F ||
	    !ext_part(o, p, n, 24, "CO-RE relocations", "; none shown", &q, &end, &rec))
		return;
	for (; q + 8 <= end;) {
		uint32_t name_off = rd32(q), num = rd32(q + 4);
		q += 8;
		if ((uint64_t)num * rec > (uint64_t)(end - q)) {
			warn(o, ".BTF.ext CO-RE relocations of a section run past its end");
			return;
		}
		struct sec *s = ext_sec(o, name_off);
		if (s && !s->cores && num && (s->cores = calloc(num, sizeof(*s->cores)))) {
			for (uint32_t k = 0; k < num; k++) {
				const uint8_t *r = q + (size_t)k * rec;
				s->cores[k] = (struct crel){ rd32(r), rd32(r + 4), rd32(r + 8), rd32(r + 12) };
			}
			s->ncores = num;
		}
		q += (size_t)num * rec;
	}
}

static const struct btf_type *skip_typedefs(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	for (int guard = 0; t && guard < 32 && (btf_is_mod(t) || btf_is_typedef(t)); guard++)
		t = btf__type_by_id(btf, *id = t->type);
	return t;
}

/* "byte_off task_struct.real_parent": the kind and the access in the local types' names. */
static void describe_core(const struct obj *o, const struct crel *c, char *buf, size_t size)
{
	static const char *const kinds[] = {
		"byte_off", "byte_sz", "field_exists", "signed", "lshift_u64", "rshift_u64", "local_type_id",
		"target_type_id", "type_exists", "type_size", "enumval_exists", "enumval_value", "type_matches",
	};
	const char *kind = c->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[c->kind] : "?";
	const char *acc = btf__name_by_offset(o->btf, c->access);
	uint32_t id = c->type;
	const struct btf_type *t = skip_typedefs(o->btf, &id);
	const char *tn = t ? btf__name_by_offset(o->btf, t->name_off) : NULL;
	size_t len = (size_t)snprintf(buf, size, "CO-RE %s %s", kind, tn && *tn ? tn : "(anon)");
	if (!t || !acc || len >= size)
		return;
	if (btf_is_any_enum(t)) {
		unsigned long k = strtoul(acc, NULL, 10);
		if (k < btf_vlen(t))
			snprintf(buf + len, size - len, "::%s", btf__name_by_offset(o->btf, btf_is_enum(t)
					? btf_enum(t)[k].name_off : btf_enum64(t)[k].name_off));
		return;
	}
	if (c->kind >= BPF_CORE_TYPE_ID_LOCAL && c->kind <= BPF_CORE_TYPE_SIZE)   /* type kinds: no members */
		return;
	char *e;
	strtoul(acc, &e, 10);               /* the first index is the root pointer's */
	while (*e == ':' && len < size) {
		unsigned long k = strtoul(e + 1, &e, 10);
		if (btf_is_composite(t) && k < btf_vlen(t)) {
			const struct btf_member *m = btf_members(t) + k;
			const char *mn = btf__name_by_offset(o->btf, m->name_off);
			if (mn && *mn)
				len += (size_t)snprintf(buf + len, size - len, ".%s", mn);
			id = m->type;
		} else if (btf_is_array(t)) {
			len += (size_t)snprintf(buf + len, size - len, "[%lu]", k);
			id = btf_array(t)->type;
		} else {
			return;
		}
		if (!(t = skip_typedefs(o->btf, &id)))
			return;
	}
}

static int open_obj(struct obj *o, const char *img, size_t size)
{
	if (size < 4 || memcmp(img, ELFMAG, SELFMAG))
		return fail(o, "not an ELF object");
	o->elf = elf_memory((char *)img, size);
	GElf_Ehdr eh;
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh))
		return fail(o, "not a valid ELF object (%s)", elf_errmsg(-1));
	if (eh.e_machine != EM_BPF)
		return fail(o, "not a BPF object (ELF machine %u)", eh.e_machine);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(o, "only 64-bit little-endian BPF objects are supported");
	size_t nscn;
	if (elf_getshdrstrndx(o->elf, &o->shstrndx) || elf_getshdrnum(o->elf, &nscn))
		return fail(o, "malformed section headers (%s)", elf_errmsg(-1));
	o->secs = calloc(nscn + 1, sizeof(*o->secs));
	if (!o->secs)
		return fail(o, "out of memory");

	Elf_Data *btf = NULL, *ext = NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(o->elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(o->elf, o->shstrndx, sh.sh_name)))
			return fail(o, "malformed section header (%s)", elf_errmsg(-1));
		if (sh.sh_type == SHT_SYMTAB) {
			o->syms = elf_getdata(scn, NULL);
			o->symstr = sh.sh_link;
			o->nsyms = sh.sh_entsize && o->syms ? sh.sh_size / sh.sh_entsize : 0;
		} else if (sh.sh_type == SHT_PROGBITS && !strcmp(name, ".BTF")) {
			btf = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_PROGBITS && !strcmp(name, ".BTF.ext")) {
			ext = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			Elf_Data *d = elf_getdata(scn, NULL);
			struct sec *s = &o->secs[o->nsecs];
			if (!d || d->d_size != sh.sh_size)
				return fail(o, "section %s cannot be read (%s)", name, elf_errmsg(-1));
			if (sh.sh_size % 8)
				warn(o, "section %s is %llu bytes, not a whole number of instructions", name,
				     (unsigned long long)sh.sh_size);
			s->idx = elf_ndxscn(scn);
			s->name = name;
			s->n = sh.sh_size / 8;
			if (!(s->insns = malloc(s->n * 8 + 8)))
				return fail(o, "out of memory");
			memcpy(s->insns, d->d_buf, s->n * 8);     /* aligned copies of the slots */
			o->nsecs++;
		}
	}
	if (!o->nsecs)
		return fail(o, "no BPF instructions in it (no executable section)");
	for (Elf_Scn *scn = NULL; o->syms && (scn = elf_nextscn(o->elf, scn));) {
		GElf_Shdr sh;
		struct sec *s;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_REL && (s = find_sec(o, sh.sh_info)) &&
		    read_rels(o, s, scn, &sh))
			return 1;
	}
	if (find_funcs(o))
		return 1;
	if (btf && !(o->btf = btf__new(btf->d_buf, (uint32_t)btf->d_size)))
		warn(o, ".BTF cannot be parsed (%s); no source lines", strerror(errno));
	if (o->btf && ext) {
		read_lines(o, ext->d_buf, ext->d_size);
		read_cores(o, ext->d_buf, ext->d_size);
	}
	return 0;
}

static void close_obj(struct obj *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		free(o->secs[i].insns);
		free(o->secs[i].rels);
		free(o->secs[i].lines);
		free(o->secs[i].cores);
	}
	free(o->secs);
	free(o->funcs);
	free(o->labels);
	btf__free(o->btf);
	if (o->elf)
		elf_end(o->elf);
}

/* What an ld_imm64 with a relocation loads: a map of .maps by its name, a global in a data
 * section (libbpf turns the section into an array map), an extern, or a function. */
static const char *imm64_ref(const struct obj *o, const struct rel *r, const struct bpf_insn *in,
			     char *buf, size_t len)
{
	size_t shndx = r->sym.st_shndx;
	const char *sec = shndx != SHN_UNDEF && shndx < SHN_LORESERVE ? sec_name(o, shndx) : NULL;
	bool named = GELF_ST_TYPE(r->sym.st_info) != STT_SECTION;
	if (shndx == SHN_UNDEF) {
		snprintf(buf, len, "extern[%s]", r->name);
	} else if (sec && (!strcmp(sec, ".maps") || !strncmp(sec, "maps", 4))) {
		if (named)
			snprintf(buf, len, "map[%s]", r->name);
		else
			snprintf(buf, len, "map[%s+%llu]", sec, (unsigned long long)r->sym.st_value);
	} else if (find_sec(o, shndx)) {
		/* a callback's address (BPF_PSEUDO_FUNC): imm is a byte offset from the symbol */
		const struct func *f = func_at(o, shndx, ((int64_t)r->sym.st_value + in->imm) / 8);
		snprintf(buf, len, "func[%s]", f ? f->name : r->name);
	} else {
		unsigned long long off = r->sym.st_value + (uint32_t)in->imm;
		int k = snprintf(buf, len, "map[%s][0]+%llu", sec ? sec : "?", off);
		if (named && k > 0 && (size_t)k < len)
			snprintf(buf + k, len - (size_t)k, " <%s>", r->name);
	}
	return buf;
}

/* The function a BPF-to-BPF call reaches: through its relocation (symbol + imm + 1, as libbpf
 * computes it) or, without one, pc-relative within the section. */
static const char *call_target(const struct obj *o, const struct sec *s, size_t slot,
			       const struct bpf_insn *in, const struct rel *r)
{
	if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
		return r ? r->name : NULL;
	if (in->src_reg != BPF_PSEUDO_CALL || BPF_SRC(in->code) != BPF_K)
		return NULL;
	const struct func *f = r ? func_at(o, r->sym.st_shndx, (int64_t)(r->sym.st_value / 8) + in->imm + 1)
				 : func_at(o, s->idx, (int64_t)slot + in->imm + 1);
	return f ? f->name : r ? r->name : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A line's text as the verifier prints it: without the indentation and the newline. */
static void trim(const char *s, char *buf, size_t len)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strcspn(s, "\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
}

/* The label at instruction pc of the function being printed (kl_insn_env.label); arg is
 * { obj, func }. */
static const char *label_at(const void *arg, long pc)
{
	const struct obj *o = ((const struct obj *const *)arg)[0];
	const struct func *f = ((const struct func *const *)arg)[1];
	if (pc < 0)
		return NULL;
	struct label key = { f->sec->idx, f->start + (size_t)pc, NULL };
	const struct label *l = o->nlabels ? bsearch(&key, o->labels, o->nlabels, sizeof(key), cmp_label) : NULL;
	return l ? l->name : NULL;
}

static void print_func(struct obj *o, const struct func *f, bool json)
{
	const struct sec *s = f->sec;
	bool sub = !strcmp(s->name, ".text");
	size_t width = 1;
	for (size_t n = f->end - f->start; n >= 10; n /= 10)
		width++;
	if (json) {
		fprintf(o->out, "{\"prog\":");
		cli_json_str(o->out, f->name, strlen(f->name));
		fprintf(o->out, ",\"section\":");
		cli_json_str(o->out, s->name, strlen(s->name));
		fprintf(o->out, ",\"subprog\":%s,\"insn_count\":%zu,\"insns\":[", sub ? "true" : "false", f->end - f->start);
	} else {
		fprintf(o->out, "%s %s (section %s, %zu insns)\n", sub ? "func" : "prog", kl_safe(f->name), kl_safe(s->name),
			f->end - f->start);
	}

	/* the records of this function: from the first at or after its start */
	size_t k = 0;
	while (k < s->nlines && s->lines[k].off < f->start * 8)
		k++;
	if (s->nlines && (k == s->nlines || s->lines[k].off != f->start * 8))
		warn(o, "%s: no line info at its first instruction", f->name);
	const struct linfo *cur = NULL, *shown = NULL;
	for (size_t i = f->start; i < f->end;) {
		const struct linfo *now = NULL;
		for (; k < s->nlines && s->lines[k].off <= i * 8; k++)
			if (s->lines[k].off == i * 8)
				now = &s->lines[k];
		const char *file = NULL, *text = NULL;
		char src[1024];
		if (now && !(now->line_col >> 10)) {
			/* line 0: code the compiler made up (clang does), from no source line; the
			 * line after it is shown again */
			cur = shown = NULL;
		} else if (now) {
			cur = now;
		}
		if (cur) {
			file = btf__name_by_offset(o->btf, cur->file);
			text = btf__name_by_offset(o->btf, cur->text);
			trim(text ? text : "", src, sizeof(src));
		}
		if (now && cur && !json && file &&
		    (!shown || shown->file != now->file || shown->line_col >> 10 != now->line_col >> 10)) {
			fprintf(o->out, ";%s%s @ %s:%u\n", src[0] ? " " : "", kl_safe(src), kl_safe(base_name(file)),
				now->line_col >> 10);
			shown = now;
		}

		char buf[256], ref[160];
		const struct bpf_insn *in = &s->insns[i];
		const struct rel *r = rel_at(s, i);
		const void *label_arg[2] = { o, f };
		struct kl_insn_env env = { .pc = (long)(i - f->start), .label = label_at, .label_arg = label_arg };
		if (r && in->code == (BPF_LD | BPF_IMM | BPF_DW))
			env.imm64_ref = imm64_ref(o, r, in, ref, sizeof(ref));
		if (BPF_CLASS(in->code) == BPF_JMP && BPF_OP(in->code) == BPF_CALL)
			env.call_target = call_target(o, s, i, in, r);
		int w = kl_insn_format(in, f->end - i, &env, buf, sizeof(buf));
		char core[200] = "";
		for (size_t c = 0; c < s->ncores; c++)
			if (s->cores[c].off == i * 8)
				describe_core(o, &s->cores[c], core, sizeof(core));
		if (json) {
			fprintf(o->out, "%s{\"off\":%zu,\"text\":", i > f->start ? "," : "", i - f->start);
			cli_json_str(o->out, buf, strlen(buf));
			if (core[0]) {
				fprintf(o->out, ",\"core\":");
				cli_json_str(o->out, core + 6, strlen(core + 6));
			}
			if (cur && file) {
				fprintf(o->out, ",\"line\":%u,\"col\":%u,\"file\":", cur->line_col >> 10, cur->line_col & 0x3ff);
				cli_json_str(o->out, file, strlen(file));
				fprintf(o->out, ",\"src\":");
				cli_json_str(o->out, src, strlen(src));
			}
			fprintf(o->out, "}");
		} else {
			fprintf(o->out, "  %*zu: %s%s%s\n", (int)width, i - f->start, kl_safe(buf), core[0] ? "  ; " : "",
				kl_safe(core));
		}
		i += (size_t)w;
	}
	fprintf(o->out, json ? "]}\n" : "\n");
}

int cli_disasm_image(const char *path, const void *img, size_t size, const char *only, bool json,
		     FILE *out, FILE *err)
{
	struct obj o = { .path = path, .out = out, .err = err };
	int rc = 1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fail(&o, "libelf is too old");
		goto out;
	}
	if (open_obj(&o, img, size))
		goto out;
	bool found = false;
	for (size_t i = 0; i < o.nfuncs; i++) {
		if (only && strcmp(only, o.funcs[i].name))
			continue;
		found = true;
		print_func(&o, &o.funcs[i], json);
	}
	if (only && !found)
		fail(&o, "no program or function named %s", only);
	else
		rc = o.bad ? 1 : 0;
out:
	close_obj(&o);
	return rc;
}

int cmd_disasm(int argc, char **argv)
{
	const char *path = NULL, *only = NULL;
	bool json = false;
	int opt = 2;
	const struct cli_opt opts[] = {
		{ "--json", CLI_FLAG, &json, NULL }, { "--prog", CLI_STR, &only, "a name" },
		{ "-O", CLI_OLEVEL, &opt, NULL }, { "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { 0 },
	};
	const char *pos[2];
	int npos, r = cli_parse("disasm", disasm_help, argc, argv, opts, pos, 2, &npos);
	if (r != CLI_OK)
		return r;
	if (npos == 2) {
		fprintf(stderr, "kiln disasm: one file at a time ('%s' and '%s')\n", pos[0], pos[1]);
		return 2;
	}
	if (!npos) {
		fputs(disasm_help, stderr);
		return 2;
	}
	path = pos[0];

	void *img = NULL;
	size_t size = 0;
	if (kiln_compile_is_source(path)) {
		struct kiln_compile_opts co = { .sz = sizeof(co), .opt_level = opt ? opt : -1, .btf_path = cli_btf_path };
		if (kiln_compile(path, &img, &size, &co)) {
			/* a compile error is complete as the compiler prints it (file:line:col, caret) */
			if (*kiln_errlog())
				fprintf(stderr, "%s\n", kiln_errlog());
			else
				fprintf(stderr, "kiln disasm: %s\n", kiln_errmsg());
			return 1;
		}
	} else if (!(img = kl_read_file(path, &size))) {
		fprintf(stderr, "kiln disasm: cannot read %s: %s\n", path, kl_read_strerror(errno));
		return 1;
	}

	int rc = cli_disasm_image(path, img, size, only, json, stdout, stderr);
	fflush(stdout);
	free(img);
	return rc;
}
