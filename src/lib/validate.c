/* validate.c — the ELF layer of an untrusted BPF object, checked before libelf and libbpf
 * read it (see validate.h): the ELF header, the section header table, every section's bytes
 * inside the file, the string tables, the symbols, the relocations and the ldimm64 pairs
 * libbpf rewrites; then validate_btf.c for .BTF, .BTF.ext and .maps. Headers and symbols are
 * copied out of the image with memcpy, so the image may sit at any alignment. */
#include "validate.h"
#include "validate_btf.h"
#include "validate_image.h"
#include "fail.h"
#include "text.h"
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif
#define BPF_LD_IMM64 0x18       /* BPF_LD | BPF_IMM | BPF_DW: two instruction slots */

static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* ---- the header and the section headers ------------------------------------------------ */

static int check_header(struct kv *v, Elf64_Ehdr *eh)
{
	if (v->size < sizeof(*eh))
		return kv_fail(v, "ELF header", "the file is %zu bytes, shorter than an ELF header (%zu)", v->size,
			       sizeof(*eh));
	if (v->size > UINT32_MAX)       /* libbpf keeps sections' sizes in 32 bits in places */
		return kv_fail(v, "ELF header", "the file is %zu bytes, more than 4 GB", v->size);
	memcpy(eh, v->img, sizeof(*eh));
	const unsigned char *id = eh->e_ident;
	if (memcmp(id, ELFMAG, SELFMAG))
		return kv_fail(v, "ELF header", "no ELF magic at offset 0x0");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char native = ELFDATA2LSB;
#else
	const unsigned char native = ELFDATA2MSB;
#endif
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != native || id[EI_VERSION] != EV_CURRENT)
		return kv_fail(v, "ELF header", "class %u, data %u, version %u at offset 0x4: not a 64-bit ELF of this "
			       "machine's byte order", id[EI_CLASS], id[EI_DATA], id[EI_VERSION]);
	if (eh->e_type != ET_REL || (eh->e_machine != EM_BPF && eh->e_machine != EM_NONE))
		return kv_fail(v, "ELF header", "type %u, machine %u at offset 0x10: not a relocatable BPF object",
			       eh->e_type, eh->e_machine);
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return kv_fail(v, "ELF header", "section header size %u at offset 0x3a is not %zu", eh->e_shentsize,
			       sizeof(Elf64_Shdr));
	if (!eh->e_shnum || eh->e_shstrndx == SHN_XINDEX)
		return kv_fail(v, "ELF header", "%s at offset 0x3c (extended section numbering is not supported)",
			       eh->e_shnum ? "no section count" : "section names' index SHN_XINDEX");
	if (eh->e_shoff % 8)
		return kv_fail(v, "ELF header", "section header table at 0x%llx is not 8-byte aligned",
			       (unsigned long long)eh->e_shoff);
	if (!inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), v->size))
		return kv_fail(v, "ELF header", "section header table (offset 0x%llx, %u entries of %zu bytes) runs past "
			       "the end of the file (%zu bytes)", (unsigned long long)eh->e_shoff, eh->e_shnum,
			       sizeof(Elf64_Shdr), v->size);
	if (eh->e_phnum && !inside(eh->e_phoff, (uint64_t)eh->e_phnum * eh->e_phentsize, v->size))
		return kv_fail(v, "ELF header", "program header table (offset 0x%llx, %u entries) runs past the end of "
			       "the file", (unsigned long long)eh->e_phoff, eh->e_phnum);
	if (!eh->e_shstrndx || eh->e_shstrndx >= eh->e_shnum)
		return kv_fail(v, "ELF header", "section names' index %u at offset 0x3e is not one of the %u sections",
			       eh->e_shstrndx, eh->e_shnum);
	return 0;
}

/* A NUL-terminated string at off inside a string-table section, or NULL. */
static const char *str_in(const struct kv *v, const Elf64_Shdr *sh, uint64_t off)
{
	if (off >= sh->sh_size)
		return NULL;
	const char *s = (const char *)v->img + sh->sh_offset + off;
	return memchr(s, 0, sh->sh_size - off) ? s : NULL;
}

static int read_sections(struct kv *v, const Elf64_Ehdr *eh)
{
	size_t n = eh->e_shnum;
	Elf64_Shdr *sh = malloc(n * sizeof(*sh));
	v->secs = calloc(n, sizeof(*v->secs));
	if (!sh || !v->secs) {
		free(sh);
		return kv_fail(v, "section headers", "no memory for %zu sections", n);
	}
	v->nsecs = n;
	memcpy(sh, v->img + eh->e_shoff, n * sizeof(*sh));
	int err = 0;
	char where[64];
	for (size_t i = 1; i < n && !err; i++) {
		snprintf(where, sizeof(where), "section header %zu (offset 0x%llx)", i,
			 (unsigned long long)(eh->e_shoff + i * sizeof(*sh)));
		if (sh[i].sh_type != SHT_NOBITS && !inside(sh[i].sh_offset, sh[i].sh_size, v->size))
			err = kv_fail(v, where, "data at 0x%llx, %llu bytes, runs past the end of the file (%zu bytes)",
				      (unsigned long long)sh[i].sh_offset, (unsigned long long)sh[i].sh_size, v->size);
		else if (sh[i].sh_type == SHT_NOBITS && sh[i].sh_size > UINT32_MAX)
			err = kv_fail(v, where, "a NOBITS section of %llu bytes", (unsigned long long)sh[i].sh_size);
		else if (sh[i].sh_link >= n)
			err = kv_fail(v, where, "link %u is not one of the %zu sections", sh[i].sh_link, n);
	}
	const Elf64_Shdr *names = &sh[eh->e_shstrndx];
	if (!err && (names->sh_type != SHT_STRTAB || !names->sh_size ||
		     v->img[names->sh_offset + names->sh_size - 1]))
		err = kv_fail(v, "section names", "section %u is not a string table ending in a NUL", eh->e_shstrndx);
	for (size_t i = 0; i < n && !err; i++) {
		struct kv_sec *s = &v->secs[i];
		if (i && !(s->name = str_in(v, names, sh[i].sh_name)))
			err = kv_fail(v, "section names", "section %zu's name at offset %u is past the end of the names "
				      "(%llu bytes)", i, sh[i].sh_name, (unsigned long long)names->sh_size);
		if (!i)
			s->name = "";
		if (!err && !kl_text_plain(s->name))
			err = kv_fail(v, "section names", "section %zu's name '%s' holds a control byte or invalid UTF-8",
				      i, s->name);
		s->type = sh[i].sh_type, s->link = sh[i].sh_link, s->info = sh[i].sh_info;
		s->flags = sh[i].sh_flags, s->off = sh[i].sh_offset, s->size = sh[i].sh_size;
		s->entsize = sh[i].sh_entsize;
	}
	free(sh);
	return err;
}

/* One section for each of the names and types libbpf keeps one of. */
static int find_special(struct kv *v, size_t *symtab)
{
	static const struct { const char *name; size_t off; } one[] = {
		{ ".BTF", offsetof(struct kv, btf_sec) },
		{ ".BTF.ext", offsetof(struct kv, ext_sec) },
		{ ".maps", offsetof(struct kv, maps_sec) },
	};
	for (size_t i = 1; i < v->nsecs; i++) {
		const struct kv_sec *s = &v->secs[i];
		if (s->type == SHT_SYMTAB) {
			if (*symtab)
				return kv_fail(v, s->name, "a second symbol table (section %zu)", i);
			*symtab = i;
		}
		for (size_t k = 0; k < sizeof(one) / sizeof(one[0]); k++) {
			size_t *at = (size_t *)((char *)v + one[k].off);
			if (strcmp(s->name, one[k].name))
				continue;
			if (*at)
				return kv_fail(v, s->name, "a second section of this name (section %zu)", i);
			if (s->type != SHT_PROGBITS)
				return kv_fail(v, s->name, "section %zu has type %u, not PROGBITS", i, s->type);
			*at = i;
		}
	}
	if (!*symtab)
		return kv_fail(v, "symbols", "the object has no symbol table (stripped?)");
	return 0;
}

/* ---- symbols ------------------------------------------------------------------------------- */

struct syms {
	Elf64_Sym *sym;
	size_t n;
	const Elf64_Shdr *strtab;
	Elf64_Shdr strtab_copy;
};

static bool is_code(const struct kv_sec *s)
{
	return s->type == SHT_PROGBITS && s->flags & SHF_EXECINSTR;
}

/* Every ldimm64 of a function has its second slot inside the function: libbpf writes it. */
static int check_ldimm64(const struct kv *v, size_t shndx, const Elf64_Sym *sym, const char *name)
{
	const struct kv_sec *s = &v->secs[shndx];
	for (uint64_t at = sym->st_value; at + 8 <= sym->st_value + sym->st_size; at += 8) {
		if (v->img[s->off + at] != BPF_LD_IMM64)
			continue;
		if (at + 16 > sym->st_value + sym->st_size)
			return kv_fail(v, s->name, "offset 0x%llx: the last instruction of '%s' is the first half of a "
				       "64-bit load", (unsigned long long)at, name);
		at += 8;
	}
	return 0;
}

static int check_symbols(struct kv *v, size_t symtab, struct syms *ss)
{
	const struct kv_sec *s = &v->secs[symtab];
	const struct kv_sec *st = &v->secs[s->link];
	if (s->entsize != sizeof(Elf64_Sym) || s->size % sizeof(Elf64_Sym) || s->off % 8)
		return kv_fail(v, s->name, "entry size %llu, size %llu and offset 0x%llx are not those of an aligned "
			       "table of %zu-byte symbols", (unsigned long long)s->entsize, (unsigned long long)s->size,
			       (unsigned long long)s->off, sizeof(Elf64_Sym));
	if (!s->link || st->type != SHT_STRTAB || !st->size || v->img[st->off + st->size - 1])
		return kv_fail(v, s->name, "its names' section %u is not a string table ending in a NUL", s->link);
	ss->strtab_copy = (Elf64_Shdr){ .sh_offset = st->off, .sh_size = st->size };
	ss->strtab = &ss->strtab_copy;
	ss->n = s->size / sizeof(Elf64_Sym);
	if (ss->n && !(ss->sym = malloc(ss->n * sizeof(Elf64_Sym))))
		return kv_fail(v, s->name, "no memory for %zu symbols", ss->n);
	if (ss->n)
		memcpy(ss->sym, v->img + s->off, ss->n * sizeof(Elf64_Sym));
	for (size_t i = 0; i < ss->n; i++) {
		const Elf64_Sym *sym = &ss->sym[i];
		char where[96];
		snprintf(where, sizeof(where), "%s: symbol %zu at offset 0x%llx", s->name, i,
			 (unsigned long long)(s->off + i * sizeof(Elf64_Sym)));
		const char *name = str_in(v, ss->strtab, sym->st_name);
		if (!name)
			return kv_fail(v, where, "name at offset %u is past the end of %s (%llu bytes)", sym->st_name,
				       st->name, (unsigned long long)st->size);
		if (!kl_text_plain(name))
			return kv_fail(v, where, "the name '%s' holds a control byte or invalid UTF-8", name);
		uint16_t shndx = sym->st_shndx;
		if (shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON)
			continue;
		if (shndx >= v->nsecs)
			return kv_fail(v, where, "'%s' is in section %u, which does not exist (%zu sections)", name, shndx,
				       v->nsecs);
		const struct kv_sec *in = &v->secs[shndx];
		int type = ELF64_ST_TYPE(sym->st_info);
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_SECTION)
			continue;
		if (!inside(sym->st_value, type == STT_SECTION ? 0 : sym->st_size, in->size))
			return kv_fail(v, where, "'%s' (value 0x%llx, size %llu) is not inside section %s (%llu bytes)", name,
				       (unsigned long long)sym->st_value, (unsigned long long)sym->st_size, in->name,
				       (unsigned long long)in->size);
		if (type == STT_FUNC && is_code(in)) {
			if (sym->st_value % 8 || sym->st_size % 8)
				return kv_fail(v, where, "function '%s' (offset 0x%llx, size %llu) is not whole instructions",
					       name, (unsigned long long)sym->st_value, (unsigned long long)sym->st_size);
			if (check_ldimm64(v, shndx, sym, name))
				return -EINVAL;
		}
	}
	return 0;
}

/* ---- relocations ----------------------------------------------------------------------------- */

static int check_relocs(const struct kv *v, size_t i, size_t symtab, const struct syms *ss)
{
	const struct kv_sec *s = &v->secs[i];
	size_t ent = s->type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
	if (s->entsize != ent || s->size % ent || s->off % 8)
		return kv_fail(v, s->name, "entry size %llu, size %llu and offset 0x%llx are not those of an aligned "
			       "table of %zu-byte relocations", (unsigned long long)s->entsize,
			       (unsigned long long)s->size, (unsigned long long)s->off, ent);
	if (s->link != symtab)
		return kv_fail(v, s->name, "its symbols are section %u, not the symbol table (%zu)", s->link, symtab);
	if (!s->info || s->info >= v->nsecs)
		return kv_fail(v, s->name, "it applies to section %u, which does not exist (%zu sections)", s->info,
			       v->nsecs);
	const struct kv_sec *to = &v->secs[s->info];
	bool code = is_code(to);
	for (uint64_t at = 0; at < s->size; at += ent) {
		Elf64_Rel r;
		memcpy(&r, v->img + s->off + at, sizeof(r));
		uint64_t sym = ELF64_R_SYM(r.r_info), off = r.r_offset;
		if (sym >= ss->n)
			return kv_fail(v, s->name, "relocation at offset 0x%llx: symbol %llu does not exist (%zu symbols)",
				       (unsigned long long)at, (unsigned long long)sym, ss->n);
		bool ok = to->type != SHT_NOBITS && off < to->size && (!code || off % 8 == 0);
		if (ok && code)   /* an ldimm64's second slot is written too */
			ok = inside(off, v->img[to->off + off] == BPF_LD_IMM64 ? 16 : 8, to->size);
		if (!ok)
			return kv_fail(v, s->name, "relocation at offset 0x%llx: offset 0x%llx is not %s inside %s (%llu bytes)",
				       (unsigned long long)at, (unsigned long long)off, code ? "an instruction" : "a byte",
				       to->name, (unsigned long long)to->size);
	}
	return 0;
}

/* Outside .text, every call to a function (of .text) has a relocation. libbpf looks a call
 * without one up in .text at its offset in its own section, and then, for a program with no
 * relocations at all calling two functions, reallocates its relocation table to 0 bytes:
 * freed, taken for a failure, and freed again when the object closes. */
static int check_calls(const struct kv *v, size_t c)
{
	const struct kv_sec *s = &v->secs[c];
	size_t n = s->size / 8;
	uint8_t *relocated = calloc(n + 1, 1);
	if (!relocated)
		return kv_fail(v, s->name, "no memory for %zu instructions", n);
	for (size_t r = 1; r < v->nsecs; r++) {
		const struct kv_sec *rs = &v->secs[r];
		if (rs->type != SHT_REL || rs->info != c)
			continue;
		for (uint64_t at = 0; at < rs->size; at += sizeof(Elf64_Rel)) {
			Elf64_Rel rel;
			memcpy(&rel, v->img + rs->off + at, sizeof(rel));
			relocated[rel.r_offset / 8] = 1;        /* inside the section: checked */
		}
	}
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		const uint8_t *insn = v->img + s->off + 8 * i;
		if (insn[0] == BPF_LD_IMM64) {
			i++;
			continue;
		}
		/* BPF_JMP | BPF_CALL, src_reg BPF_PSEUDO_CALL, dst_reg 0, off 0 */
		if (insn[0] == 0x85 && insn[1] == 0x10 && !insn[2] && !insn[3] && !relocated[i])
			err = kv_fail(v, s->name, "offset 0x%zx: a call to a function without a relocation naming it", 8 * i);
	}
	free(relocated);
	return err;
}

int kl_object_validate(const void *image, size_t size, const char *name)
{
	struct kv v = { .img = image, .size = size, .obj = name ? name : "object" };
	struct syms ss = { 0 };
	Elf64_Ehdr eh;
	size_t symtab = 0;
	int err = check_header(&v, &eh);
	if (!err)
		err = read_sections(&v, &eh);
	if (!err)
		err = find_special(&v, &symtab);
	if (!err)
		err = check_symbols(&v, symtab, &ss);
	for (size_t i = 1; !err && i < v.nsecs; i++)
		if (v.secs[i].type == SHT_REL || v.secs[i].type == SHT_RELA)
			err = check_relocs(&v, i, symtab, &ss);
	for (size_t i = 1; !err && i < v.nsecs; i++)
		if (is_code(&v.secs[i]) && strcmp(v.secs[i].name, ".text"))
			err = check_calls(&v, i);
	if (!err && v.btf_sec)
		err = kv_btf_check(&v);
	if (!err && v.ext_sec)
		err = kv_btf_ext_check(&v);
	if (!err)
		err = kv_maps_check(&v);
	free(ss.sym);
	free(v.secs);
	free(v.btf.off);
	return err;
}
