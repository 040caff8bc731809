/* elf.c — writes a kiln object as the ELF relocatable clang -target bpf makes: a section
 * per program, .text for subprograms, .rel sections, .maps, license, .symtab, .BTF(.ext). */
#include "obj.h"
#include "btf.h"
#include "elf.h"
#include "struct_ops.h"
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif
#define R_BPF_64_64 1   /* ld_imm64 of a map */
#define R_BPF_64_32 10  /* call of a subprogram */
#define R_BPF_64_ABS64 2 /* a function's address in data: a struct_ops member */

struct strtab {
	char *buf;
	size_t len, cap;
	uint32_t *slot;         /* open addressing: offset + 1 of each string, 0 empty */
	size_t nslot, used;     /* nslot a power of two, at most half used */
};

struct code_sec {
	const char *name;
	char *rel_name;         /* ".rel" name */
	uint8_t *code;
	size_t size;
	Elf64_Rel *rels;
	size_t nrels;
	uint32_t shndx, rel_shndx;
	uint32_t sym;           /* its STT_SECTION symbol: what a callback's address is relative to */
};

struct writer {
	const struct kl_obj *obj;
	char *err;
	size_t errlen;
	struct strtab str;      /* section and symbol names share one table, as in clang's */
	struct code_sec *secs;
	uint32_t nsecs;
	Elf64_Sym *syms;
	size_t nsyms, capsyms;
	uint32_t nlocal;
	uint32_t *func_sym;
	uint32_t *map_sym;
	uint32_t *map_off, *map_size;
	uint32_t maps_size;
	uint32_t maps_shndx, license_shndx, btf_shndx, ext_shndx, symtab_shndx;
	uint32_t data_shndx[KL_NDATA];  /* .rodata, .data, .bss (0: none) */
	uint8_t *data[KL_NDATA];        /* .rodata's and .data's first bytes */
	uint32_t *global_sym;
	uint32_t ksym_sym0;             /* the first kernel symbol's (obj->ksyms[i] is ksym_sym0 + i) */
	uint32_t sops_shndx, sops_rel_shndx;  /* .struct_ops, .rel.struct_ops (0: none) */
	uint8_t *sops_data;
	Elf64_Rel *sops_rels;
	size_t nsops_rels;
	uint32_t *sops_sym;
	void *btf, *ext;
	uint32_t btf_len, ext_len;
};

static int fail(struct writer *w, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct writer *w, int errnum, const char *fmt, ...)
{
	if (w->err && w->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, w->errlen, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot holding s, or the empty one where it goes. */
static uint32_t *str_slot(const struct strtab *t, const char *s)
{
	for (size_t i = str_hash(s) & (t->nslot - 1);; i = (i + 1) & (t->nslot - 1))
		if (!t->slot[i] || !strcmp(t->buf + t->slot[i] - 1, s))
			return &t->slot[i];
}

/* Offset of s in the string table, added if new; shared strings found by a hash, not by
 * walking the table (which made thousands of symbols quadratic). */
static int str_add(struct writer *w, const char *s)
{
	struct strtab *t = &w->str;
	size_t n = strlen(s) + 1;
	if (2 * (t->used + 1) > t->nslot) {
		struct strtab g = *t;
		g.nslot = t->nslot ? 2 * t->nslot : 256;
		g.slot = calloc(g.nslot, sizeof(*g.slot));
		if (!g.slot)
			return fail(w, ENOMEM, "out of memory");
		for (size_t i = 0; i < t->nslot; i++)
			if (t->slot[i])
				*str_slot(&g, t->buf + t->slot[i] - 1) = t->slot[i];
		free(t->slot);
		*t = g;
	}
	uint32_t *slot = str_slot(t, s);
	if (*slot)
		return (int)(*slot - 1);
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap < t->len + n)
			cap *= 2;
		char *p = realloc(t->buf, cap);
		if (!p)
			return fail(w, ENOMEM, "out of memory");
		t->buf = p;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	*slot = (uint32_t)t->len + 1;
	t->used++;
	t->len += n;
	return (int)(t->len - n);
}

static int sym_add(struct writer *w, const char *name, int bind, int type, uint32_t shndx,
		   uint64_t value, uint64_t size)
{
	int name_off = name ? str_add(w, name) : 0;
	if (name_off < 0)
		return name_off;
	if (w->nsyms == w->capsyms) {
		size_t cap = w->capsyms ? w->capsyms * 2 : 32;
		Elf64_Sym *s = realloc(w->syms, cap * sizeof(*s));
		if (!s)
			return fail(w, ENOMEM, "out of memory");
		w->syms = s;
		w->capsyms = cap;
	}
	w->syms[w->nsyms] = (Elf64_Sym){
		.st_name = (uint32_t)name_off,
		.st_info = ELF64_ST_INFO(bind, type),
		.st_other = STV_DEFAULT,
		.st_shndx = (uint16_t)shndx,
		.st_value = value,
		.st_size = size,
	};
	return (int)w->nsyms++;
}

static const char *sec_of(const struct kl_func *f)
{
	return f->section ? f->section : ".text";
}

/* Code sections in the order btf.c's layout chose them (.text first; each function's sec),
 * each as big as the functions placed in it at their text_off. */
static int place_code(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	w->secs = calloc(obj->nfuncs + 1, sizeof(*w->secs));
	if (!w->secs)
		return fail(w, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nfuncs; i++) {
		const struct kl_func *f = &obj->funcs[i];
		struct code_sec *cs = &w->secs[f->sec];
		if (f->sec >= w->nsecs)
			w->nsecs = f->sec + 1;
		cs->name = sec_of(f);
		size_t end = (size_t)f->text_off + (size_t)f->ninsns * 8;
		if (end > cs->size)
			cs->size = end;
	}
	for (uint32_t s = 0; s < w->nsecs; s++) {
		struct code_sec *cs = &w->secs[s];
		cs->code = calloc(1, cs->size);
		cs->rels = calloc(cs->size / 8, sizeof(*cs->rels));
		cs->rel_name = malloc(strlen(cs->name) + 5);
		if (!cs->code || !cs->rels || !cs->rel_name)
			return fail(w, ENOMEM, "out of memory");
		strcpy(cs->rel_name, ".rel");
		strcat(cs->rel_name, cs->name);
	}
	for (uint32_t i = 0; i < obj->nfuncs; i++) {
		const struct kl_func *f = &obj->funcs[i];
		memcpy(w->secs[f->sec].code + f->text_off, f->insns, (size_t)f->ninsns * sizeof(*f->insns));
	}
	return 0;
}

/* Where each map's definition sits in .maps: read back from the DATASEC btf.c wrote, so
 * the section and its BTF cannot disagree. */
static int place_maps(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	if (!obj->nmaps)
		return 0;
	struct btf *btf = btf__new(w->btf, w->btf_len);
	if (!btf)
		return fail(w, errno ? errno : EINVAL, "BTF we wrote does not parse: %s",
			    strerror(errno ? errno : EINVAL));
	int err = 0;
	int id = btf__find_by_name_kind(btf, ".maps", BTF_KIND_DATASEC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || btf_vlen(t) != obj->nmaps) {
		err = fail(w, EINVAL, "BTF DATASEC .maps does not list the %u maps", obj->nmaps);
	} else {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint32_t i = 0; i < obj->nmaps; i++) {
			w->map_off[i] = v[i].offset;
			w->map_size[i] = v[i].size;
			if (v[i].offset + v[i].size > w->maps_size)
				w->maps_size = v[i].offset + v[i].size;
		}
	}
	btf__free(btf);
	return err;
}

/* .rodata's and .data's bytes: each integer's first value, little-endian as BPF reads it
 * (.bss has none: NOBITS, zero at load). */
static int place_data(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	for (int s = 0; s < KL_DATA_BSS; s++)
		if (obj->data_size[s] && !(w->data[s] = calloc(1, obj->data_size[s])))
			return fail(w, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nglobals; i++) {
		const struct kl_global *g = &obj->globals[i];
		if (g->sec == KL_DATA_BSS || !w->data[g->sec])
			continue;
		uint64_t v = (uint64_t)g->init;
		for (uint32_t k = 0; k < g->type->size && k < 8; k++)
			w->data[g->sec][g->off + k] = (uint8_t)(v >> (8 * k));
	}
	return 0;
}

/* .struct_ops: each defstruct-ops' bytes at its offset, and a relocation per function
 * pointer member (filled in by make_relocs, once the programs' symbols are made). */
static int place_struct_ops(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	size_t nrel = 0;
	for (uint32_t i = 0; i < obj->nsops; i++)
		for (uint32_t m = 0; m < obj->sops[i].nmembers; m++)
			nrel += obj->sops[i].members[m].kind == KL_SOPS_PROG;
	w->sops_data = calloc(1, obj->sops_size + 1);
	w->sops_rels = calloc(nrel + 1, sizeof(*w->sops_rels));
	w->sops_sym = calloc(obj->nsops + 1, sizeof(*w->sops_sym));
	if (!w->sops_data || !w->sops_rels || !w->sops_sym)
		return fail(w, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < obj->nsops; i++)
		memcpy(w->sops_data + obj->sops[i].off, obj->sops[i].image, obj->sops[i].size);
	w->nsops_rels = nrel;
	return 0;
}

/* Section numbers are fixed before any symbol is made, since symbols carry them:
 * .strtab, then each code section followed by its .rel, .maps, .rodata, .data, .bss,
 * license, .BTF, .BTF.ext, .symtab last. */
static void number_sections(struct writer *w)
{
	uint32_t n = 1;
	n++;    /* .strtab */
	for (uint32_t s = 0; s < w->nsecs; s++) {
		w->secs[s].shndx = n++;
		if (w->secs[s].nrels)
			w->secs[s].rel_shndx = n++;
	}
	if (w->obj->nmaps)
		w->maps_shndx = n++;
	for (int s = 0; s < KL_NDATA; s++)
		if (w->obj->data_size[s])
			w->data_shndx[s] = n++;
	if (w->obj->nsops)
		w->sops_shndx = n++;
	if (w->nsops_rels)
		w->sops_rel_shndx = n++;
	w->license_shndx = n++;
	w->btf_shndx = n++;
	if (w->ext_len)
		w->ext_shndx = n++;
	w->symtab_shndx = n++;
}

static struct code_sec *sec_for(struct writer *w, const struct kl_func *f)
{
	return &w->secs[f->sec];
}

/* Count relocations per section (so .rel sections can be numbered) and check each one
 * names an instruction of the right kind. */
static int check_relocs(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	for (uint32_t i = 0; i < obj->nfuncs; i++) {
		const struct kl_func *f = &obj->funcs[i];
		for (uint32_t r = 0; r < f->nrelocs; r++) {
			const struct kl_reloc *rel = &f->relocs[r];
			if (rel->insn >= f->ninsns)
				return fail(w, EINVAL, "%s: relocation at insn %u of %u", f->name,
					    rel->insn, f->ninsns);
			const struct bpf_insn *in = &f->insns[rel->insn];
			if (rel->kind == KL_RELOC_MAP) {
				if (rel->target >= obj->nmaps)
					return fail(w, EINVAL, "%s: relocation to map #%u of %u",
						    f->name, rel->target, obj->nmaps);
				if (in->code != (BPF_LD | BPF_IMM | BPF_DW) ||
				    rel->insn + 1 >= f->ninsns)
					return fail(w, EINVAL, "%s: map relocation at insn %u "
						    "which is not ld_imm64", f->name, rel->insn);
			} else if (rel->kind == KL_RELOC_DATA) {
				if (rel->target >= obj->nglobals)
					return fail(w, EINVAL, "%s: relocation to global #%u of %u",
						    f->name, rel->target, obj->nglobals);
				if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || rel->insn + 1 >= f->ninsns)
					return fail(w, EINVAL, "%s: data relocation at insn %u which is not ld_imm64",
						    f->name, rel->insn);
			} else if (rel->kind == KL_RELOC_KSYM) {
				if (rel->target >= obj->nksyms || in->code != (BPF_LD | BPF_IMM | BPF_DW) ||
				    rel->insn + 1 >= f->ninsns)
					return fail(w, EINVAL, "%s: relocation at insn %u to kernel symbol #%u of %u "
						    "(an ld_imm64's)", f->name, rel->insn, rel->target, obj->nksyms);
			} else if (rel->kind == KL_RELOC_CALL || rel->kind == KL_RELOC_FUNC) {
				bool call = rel->kind == KL_RELOC_CALL;
				if (rel->target >= obj->nfuncs || obj->funcs[rel->target].section)
					return fail(w, EINVAL, "%s: %s relocation to function "
						    "#%u, not a subprogram", f->name, call ? "call" : "callback",
						    rel->target);
				if (call ? in->code != (BPF_JMP | BPF_CALL)
					 : in->code != (BPF_LD | BPF_IMM | BPF_DW) || rel->insn + 1 >= f->ninsns)
					return fail(w, EINVAL, "%s: %s relocation at insn %u which is not %s",
						    f->name, call ? "call" : "callback", rel->insn,
						    call ? "a call" : "ld_imm64");
			} else {
				return fail(w, EINVAL, "%s: unknown relocation kind %d", f->name,
					    (int)rel->kind);
			}
			sec_for(w, f)->nrels++;
		}
	}
	return 0;
}

/* Symbols in clang's order: the file, then per code section its section symbol and its
 * static subprograms; after the locals, programs, maps and _license. Subprograms are
 * LOCAL FUNCs as clang makes static functions; libbpf takes any FUNC in .text as one. */
static int make_symbols(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	int rc = sym_add(w, NULL, STB_LOCAL, STT_NOTYPE, SHN_UNDEF, 0, 0);
	if (rc >= 0 && obj->source_path)
		rc = sym_add(w, obj->source_path, STB_LOCAL, STT_FILE, SHN_ABS, 0, 0);
	/* subprograms are all in .text, section 0 when there are any */
	for (uint32_t s = 0; s < w->nsecs && rc >= 0; s++) {
		rc = sym_add(w, NULL, STB_LOCAL, STT_SECTION, w->secs[s].shndx, 0, 0);
		w->secs[s].sym = (uint32_t)rc;
		for (uint32_t i = 0; i < obj->nfuncs && rc >= 0 && s == 0; i++) {
			const struct kl_func *f = &obj->funcs[i];
			if (f->section || f->global)
				continue;
			rc = sym_add(w, f->name, STB_LOCAL, STT_FUNC, w->secs[s].shndx,
				     f->text_off, (uint64_t)f->ninsns * 8);
			w->func_sym[i] = (uint32_t)rc;
		}
	}
	w->nlocal = (uint32_t)w->nsyms;
	for (uint32_t i = 0; i < obj->nfuncs && rc >= 0; i++) {
		const struct kl_func *f = &obj->funcs[i];
		if (!f->section && !f->global)
			continue;
		rc = sym_add(w, f->name, STB_GLOBAL, STT_FUNC, sec_for(w, f)->shndx,
			     f->text_off, (uint64_t)f->ninsns * 8);
		w->func_sym[i] = (uint32_t)rc;
	}
	for (uint32_t i = 0; i < obj->nmaps && rc >= 0; i++) {
		rc = sym_add(w, obj->maps[i].name, STB_GLOBAL, STT_OBJECT, w->maps_shndx,
			     w->map_off[i], w->map_size[i]);
		w->map_sym[i] = (uint32_t)rc;
	}
	for (uint32_t i = 0; i < obj->nglobals && rc >= 0; i++) {
		const struct kl_global *g = &obj->globals[i];
		rc = sym_add(w, g->name, STB_GLOBAL, STT_OBJECT, w->data_shndx[g->sec], g->off, g->type->size);
		w->global_sym[i] = (uint32_t)rc;
	}
	/* kernel symbols: undefined, global, no type, as clang leaves an extern __ksym */
	w->ksym_sym0 = (uint32_t)w->nsyms;
	for (uint32_t i = 0; i < obj->nksyms && rc >= 0; i++)
		rc = sym_add(w, obj->ksyms[i].name, STB_GLOBAL, STT_NOTYPE, SHN_UNDEF, 0, 0);
	for (uint32_t i = 0; i < obj->nsops && rc >= 0; i++) {
		rc = sym_add(w, obj->sops[i].var, STB_GLOBAL, STT_OBJECT, w->sops_shndx, obj->sops[i].off,
			     obj->sops[i].size);
		w->sops_sym[i] = (uint32_t)rc;
	}
	if (rc >= 0)
		rc = sym_add(w, "_license", STB_GLOBAL, STT_OBJECT, w->license_shndx, 0,
			     strlen(obj->license) + 1);
	return rc < 0 ? rc : 0;
}

/* Relocation records, and the instructions shaped as clang leaves them: a map's ld_imm64
 * with no register or immediate (libbpf puts the map fd in), and a call with
 * BPF_PSEUDO_CALL and imm -1 against the callee's symbol (libbpf's target is
 * symbol/8 + imm + 1), a callback's address (ld_imm64 BPF_PSEUDO_FUNC) against the section's
 * symbol with its byte offset in imm (libbpf's target is (symbol + imm)/8). */
static void make_relocs(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	for (uint32_t s = 0; s < w->nsecs; s++)
		w->secs[s].nrels = 0;   /* counted by check_relocs; now filled in */
	for (uint32_t i = 0; i < obj->nfuncs; i++) {
		const struct kl_func *f = &obj->funcs[i];
		struct code_sec *cs = sec_for(w, f);
		for (uint32_t r = 0; r < f->nrelocs; r++) {
			const struct kl_reloc *rel = &f->relocs[r];
			uint32_t off = f->text_off + rel->insn * 8;
			struct bpf_insn *in = (struct bpf_insn *)(cs->code + off);
			Elf64_Rel *out = &cs->rels[cs->nrels++];
			out->r_offset = off;
			if (rel->kind == KL_RELOC_MAP || rel->kind == KL_RELOC_DATA || rel->kind == KL_RELOC_KSYM) {
				/* a variable's address: its symbol, no addend (libbpf adds the symbol's
				 * offset in its section to imm; a kernel symbol's it resolves) */
				in[0].src_reg = 0;
				in[0].imm = 0;
				in[1].imm = 0;
				out->r_info = ELF64_R_INFO(rel->kind == KL_RELOC_MAP ? w->map_sym[rel->target]
						: rel->kind == KL_RELOC_KSYM ? w->ksym_sym0 + rel->target
						: w->global_sym[rel->target], R_BPF_64_64);
			} else if (rel->kind == KL_RELOC_FUNC) {
				/* as clang writes a static function's address: against .text's
				 * section symbol, the function's byte offset in the immediate */
				in[0].src_reg = BPF_PSEUDO_FUNC;
				in[0].imm = (int32_t)obj->funcs[rel->target].text_off;
				in[1].imm = 0;
				out->r_info = ELF64_R_INFO(sec_for(w, &obj->funcs[rel->target])->sym, R_BPF_64_64);
			} else {
				in->src_reg = BPF_PSEUDO_CALL;
				in->imm = -1;
				out->r_info = ELF64_R_INFO(w->func_sym[rel->target], R_BPF_64_32);
			}
		}
	}
	/* a struct_ops member: the program's address, as clang writes a function pointer in data */
	size_t k = 0;
	for (uint32_t i = 0; i < obj->nsops; i++)
		for (uint32_t m = 0; m < obj->sops[i].nmembers; m++) {
			const struct kl_sops_member *sm = &obj->sops[i].members[m];
			if (sm->kind != KL_SOPS_PROG)
				continue;
			w->sops_rels[k].r_offset = obj->sops[i].off + sm->off;
			w->sops_rels[k++].r_info = ELF64_R_INFO(w->func_sym[sm->func], R_BPF_64_ABS64);
		}
}

static int add_section(struct writer *w, Elf *elf, const char *name, uint32_t type,
		       uint64_t flags, const void *buf, size_t size, size_t align,
		       Elf_Type dtype, size_t entsize, uint32_t link, uint32_t info,
		       uint32_t expect_idx)
{
	int name_off = str_add(w, name);
	if (name_off < 0)
		return name_off;
	Elf_Scn *scn = elf_newscn(elf);
	Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;
	Elf_Data *d = sh ? elf_newdata(scn) : NULL;
	if (!d)
		return fail(w, EIO, "ELF: cannot add section %s: %s", name, elf_errmsg(-1));
	if (elf_ndxscn(scn) != expect_idx)
		return fail(w, EINVAL, "ELF: section %s numbered %zu, expected %u", name,
			    elf_ndxscn(scn), expect_idx);
	sh->sh_name = (uint32_t)name_off;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addralign = align;
	sh->sh_entsize = entsize;
	sh->sh_link = link;
	sh->sh_info = info;
	d->d_buf = (void *)buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_align = align;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	return 0;
}

static int write_elf(struct writer *w, int fd)
{
	const struct kl_obj *obj = w->obj;
	uint8_t *maps = NULL;
	int err = 0;
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf)
		return fail(w, EIO, "ELF: %s", elf_errmsg(-1));
	Elf64_Ehdr *eh = elf64_newehdr(elf);
	if (!eh) {
		err = fail(w, EIO, "ELF: %s", elf_errmsg(-1));
		goto out;
	}
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_REL;
	eh->e_machine = EM_BPF;
	eh->e_version = EV_CURRENT;
	eh->e_shstrndx = 1;

	/* The string table is the first section but filled last: its data is set below,
	 * once every name is in it. */
	err = add_section(w, elf, ".strtab", SHT_STRTAB, 0, NULL, 0, 1, ELF_T_BYTE, 0, 0, 0, 1);
	for (uint32_t s = 0; s < w->nsecs && !err; s++) {
		struct code_sec *cs = &w->secs[s];
		err = add_section(w, elf, cs->name, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
				  cs->code, cs->size, 8, ELF_T_BYTE, 0, 0, 0, cs->shndx);
		if (!err && cs->nrels)
			err = add_section(w, elf, cs->rel_name, SHT_REL, SHF_INFO_LINK, cs->rels,
					  cs->nrels * sizeof(Elf64_Rel), 8, ELF_T_REL,
					  sizeof(Elf64_Rel), w->symtab_shndx, cs->shndx,
					  cs->rel_shndx);
	}
	if (!err && obj->nmaps) {
		/* libbpf reads map definitions from BTF; the bytes are only placeholders */
		maps = calloc(1, w->maps_size ? w->maps_size : 1);
		err = maps ? add_section(w, elf, ".maps", SHT_PROGBITS, SHF_WRITE | SHF_ALLOC,
					 maps, w->maps_size, 8, ELF_T_BYTE, 0, 0, 0, w->maps_shndx)
			   : fail(w, ENOMEM, "out of memory");
	}
	static const char *const data_names[KL_NDATA] = { ".rodata", ".data", ".bss" };
	for (int s = 0; s < KL_NDATA && !err; s++)
		if (obj->data_size[s])
			err = add_section(w, elf, data_names[s], s == KL_DATA_BSS ? SHT_NOBITS : SHT_PROGBITS,
					  SHF_ALLOC | (s == KL_DATA_RODATA ? 0 : SHF_WRITE), w->data[s],
					  obj->data_size[s], 8, ELF_T_BYTE, 0, 0, 0, w->data_shndx[s]);
	if (!err && obj->nsops)
		err = add_section(w, elf, ".struct_ops", SHT_PROGBITS, SHF_WRITE | SHF_ALLOC, w->sops_data,
				  obj->sops_size, 8, ELF_T_BYTE, 0, 0, 0, w->sops_shndx);
	if (!err && w->nsops_rels)
		err = add_section(w, elf, ".rel.struct_ops", SHT_REL, SHF_INFO_LINK, w->sops_rels,
				  w->nsops_rels * sizeof(Elf64_Rel), 8, ELF_T_REL, sizeof(Elf64_Rel),
				  w->symtab_shndx, w->sops_shndx, w->sops_rel_shndx);
	if (!err)
		err = add_section(w, elf, "license", SHT_PROGBITS, SHF_WRITE | SHF_ALLOC,
				  obj->license, strlen(obj->license) + 1, 1, ELF_T_BYTE, 0, 0, 0,
				  w->license_shndx);
	if (!err)
		err = add_section(w, elf, ".BTF", SHT_PROGBITS, 0, w->btf, w->btf_len, 4,
				  ELF_T_BYTE, 0, 0, 0, w->btf_shndx);
	if (!err && w->ext_len)
		err = add_section(w, elf, ".BTF.ext", SHT_PROGBITS, 0, w->ext, w->ext_len, 4,
				  ELF_T_BYTE, 0, 0, 0, w->ext_shndx);
	if (!err)
		err = add_section(w, elf, ".symtab", SHT_SYMTAB, 0, w->syms,
				  w->nsyms * sizeof(Elf64_Sym), 8, ELF_T_SYM, sizeof(Elf64_Sym),
				  1, w->nlocal, w->symtab_shndx);
	if (err)
		goto out;

	Elf_Data *strd = elf_getdata(elf_getscn(elf, 1), NULL);
	if (!strd) {
		err = fail(w, EIO, "ELF: %s", elf_errmsg(-1));
		goto out;
	}
	strd->d_buf = w->str.buf;
	strd->d_size = w->str.len;
	if (elf_update(elf, ELF_C_WRITE) < 0)
		err = fail(w, EIO, "ELF: cannot write: %s", elf_errmsg(-1));
out:
	elf_end(elf);
	free(maps);
	return err;
}

static int build(struct writer *w)
{
	const struct kl_obj *obj = w->obj;
	int err = kl_btf_build(obj, &w->btf, &w->btf_len, &w->ext, &w->ext_len, w->err,
			       w->errlen);
	if (err)
		return err;
	w->func_sym = calloc(obj->nfuncs + 1, sizeof(*w->func_sym));
	w->map_sym = calloc(obj->nmaps + 1, sizeof(*w->map_sym));
	w->map_off = calloc(obj->nmaps + 1, sizeof(*w->map_off));
	w->map_size = calloc(obj->nmaps + 1, sizeof(*w->map_size));
	w->global_sym = calloc(obj->nglobals + 1, sizeof(*w->global_sym));
	if (!w->func_sym || !w->map_sym || !w->map_off || !w->map_size || !w->global_sym)
		return fail(w, ENOMEM, "out of memory");
	err = place_data(w);
	err = err ? err : place_struct_ops(w);
	if (err)
		return err;
	if (str_add(w, "") < 0)
		return -ENOMEM;
	err = place_code(w);
	err = err ? err : place_maps(w);
	err = err ? err : check_relocs(w);
	if (err)
		return err;
	number_sections(w);
	if (w->symtab_shndx >= SHN_LORESERVE)
		return fail(w, E2BIG, "%u sections is more than ELF can number simply",
			    w->symtab_shndx);
	err = make_symbols(w);
	if (err)
		return err;
	make_relocs(w);
	return 0;
}

static void writer_free(struct writer *w)
{
	for (uint32_t s = 0; w->secs && s < w->nsecs; s++) {
		free(w->secs[s].code);
		free(w->secs[s].rels);
		free(w->secs[s].rel_name);
	}
	free(w->secs);
	free(w->syms);
	free(w->str.buf);
	free(w->str.slot);
	free(w->func_sym);
	free(w->map_sym);
	free(w->map_off);
	free(w->map_size);
	free(w->global_sym);
	free(w->sops_data);
	free(w->sops_rels);
	free(w->sops_sym);
	for (int s = 0; s < KL_NDATA; s++)
		free(w->data[s]);
	free(w->btf);
	free(w->ext);
	memset(w, 0, sizeof(*w));
}

int kl_elf_write(const struct kl_obj *obj, const char *path, char *err, size_t errlen)
{
	struct writer w = { .obj = obj, .err = err, .errlen = errlen };
	char *tmp = NULL;
	int fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(&w, EIO, "libelf: %s", elf_errmsg(-1));

	int rc = build(&w);
	if (!rc) {
		/* Written aside and renamed, so a failure never leaves half an object at path;
		 * created 0666 for the kernel to apply the umask, as any new file is (mkstemp's
		 * 0600 widened by hand would ignore it) */
		size_t sz = strlen(path) + 48;
		tmp = malloc(sz);
		if (!tmp)
			rc = fail(&w, ENOMEM, "out of memory");
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (unsigned i = 0; tmp && fd < 0 && i < 100; i++) {
			snprintf(tmp, sz, "%s.tmp-%d-%lx", path, (int)getpid(),
				 (unsigned long)ts.tv_nsec + i * 7919UL);
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd < 0 && errno != EEXIST)
				break;
		}
		if (tmp && fd < 0)
			rc = fail(&w, errno, "%s: %s", path, strerror(errno));
	}
	if (!rc)
		rc = write_elf(&w, fd);
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = fail(&w, errno, "%s: %s", path, strerror(errno));
	if (!rc && rename(tmp, path) < 0)
		rc = fail(&w, errno, "%s: %s", path, strerror(errno));
	if (rc && fd >= 0)
		unlink(tmp);

	writer_free(&w);
	free(tmp);
	return rc;
}

int kl_elf_write_fd(const struct kl_obj *obj, int fd, char *err, size_t errlen)
{
	struct writer w = { .obj = obj, .err = err, .errlen = errlen };
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(&w, EIO, "libelf: %s", elf_errmsg(-1));
	int rc = build(&w);
	if (!rc)
		rc = write_elf(&w, fd);
	writer_free(&w);
	return rc;
}
