/* test_hostile.c — untrusted objects never crash libkiln. Real objects (kiln-compiled and
 * clang-built) are corrupted systematically — every byte of .BTF and .BTF.ext flipped and
 * incremented, every byte of the ELF and section headers flipped, truncations at every
 * section boundary, section headers pointing outside the file, huge counts, symbols and
 * relocations pointing nowhere, a program cut inside a 64-bit load, loops of type ids — and
 * each variant must be refused by kiln_object_open_mem with a message, or opened (and, for a
 * sample, loaded) and closed. The variants run in a child process, one family at a time; a
 * crash or a hang fails the family, keeps the input under $BUILD/hostile-fail/ and goes on
 * with the next variant. The inputs under tests/fuzz/regress/object/ (crashes the fuzzer
 * found once) run the same way. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *src_root = ".", *kiln_bin = "./kiln", *build_dir = "build";
static char tmp[128];
static char pin_root[128];       /* where a corrupted `pinning` would pin: removed at the end */

/* ---- a pristine object and where its parts are (our own objects: trusted) ------------- */

struct img {
	char label[48];
	uint8_t *data;
	size_t size;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	size_t btf, ext, symtab;        /* section indices, 0 if absent */
	struct btf *parsed;             /* libbpf's view of .BTF, for type offsets */
	const uint8_t *parsed_raw;
};

static size_t sec_named(const struct img *im, const char *name)
{
	const Elf64_Shdr *names = &im->sh[im->eh.e_shstrndx];
	for (size_t i = 1; i < im->eh.e_shnum; i++)
		if (!strcmp((const char *)im->data + names->sh_offset + im->sh[i].sh_name, name))
			return i;
	return 0;
}

static bool img_load(struct img *im, const char *path, const char *label)
{
	memset(im, 0, sizeof(*im));
	snprintf(im->label, sizeof(im->label), "%s", label);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	struct stat st;
	fstat(fileno(f), &st);
	im->size = (size_t)st.st_size;
	im->data = malloc(im->size);
	bool ok = im->data && fread(im->data, 1, im->size, f) == im->size;
	fclose(f);
	if (!ok)
		return false;
	memcpy(&im->eh, im->data, sizeof(im->eh));
	im->sh = (Elf64_Shdr *)(im->data + im->eh.e_shoff);
	im->btf = sec_named(im, ".BTF");
	im->ext = sec_named(im, ".BTF.ext");
	for (size_t i = 1; i < im->eh.e_shnum; i++)
		if (im->sh[i].sh_type == SHT_SYMTAB)
			im->symtab = i;
	if (im->btf) {
		im->parsed = btf__new(im->data + im->sh[im->btf].sh_offset, (uint32_t)im->sh[im->btf].sh_size);
		if (!im->parsed)
			return false;
		uint32_t n;
		im->parsed_raw = btf__raw_data(im->parsed, &n);
	}
	return im->btf && im->ext && im->symtab;
}

/* The file offset of type id's first byte. */
static size_t type_off(const struct img *im, uint32_t id)
{
	const uint8_t *t = (const uint8_t *)btf__type_by_id(im->parsed, id);
	return im->sh[im->btf].sh_offset + (size_t)(t - im->parsed_raw);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* ---- the families of variants: each makes variant i of n into buf (a copy of the image) --- */

struct family {
	const char *name;
	bool must_refuse;               /* every variant is certainly invalid */
	const char *must_say;           /* ...and the refusal says this */
	size_t (*count)(const struct img *);
	/* false when variant i is no variant (skipped) */
	bool (*make)(const struct img *, size_t i, uint8_t *buf, size_t *size);
	bool load_all;                  /* load every variant that opens, not a sample */
};

static size_t n_btf(const struct img *im) { return im->sh[im->btf].sh_size; }
static size_t n_ext(const struct img *im) { return im->sh[im->ext].sh_size; }
static bool btf_flip(const struct img *im, size_t i, uint8_t *b, size_t *sz) { b[im->sh[im->btf].sh_offset + i] ^= 0xff; return true; }
static bool btf_inc(const struct img *im, size_t i, uint8_t *b, size_t *sz) { b[im->sh[im->btf].sh_offset + i]++; return true; }
static bool ext_flip(const struct img *im, size_t i, uint8_t *b, size_t *sz) { b[im->sh[im->ext].sh_offset + i] ^= 0xff; return true; }
static bool ext_inc(const struct img *im, size_t i, uint8_t *b, size_t *sz) { b[im->sh[im->ext].sh_offset + i]++; return true; }

static size_t n_hdrs(const struct img *im) { return sizeof(Elf64_Ehdr) + im->eh.e_shnum * sizeof(Elf64_Shdr); }
static bool hdr_flip(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	b[i < sizeof(Elf64_Ehdr) ? i : im->eh.e_shoff + i - sizeof(Elf64_Ehdr)] ^= 0xff;
	return true;
}

/* truncations: at every section's start and end, at every section header, one byte short */
static size_t n_trunc(const struct img *im) { return 3 * (size_t)im->eh.e_shnum + 2; }
static bool truncate_at(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	size_t n = im->eh.e_shnum, cut;
	if (i < n)
		cut = im->sh[i].sh_offset;
	else if (i < 2 * n)
		cut = im->sh[i - n].sh_offset + im->sh[i - n].sh_size;
	else if (i < 3 * n)
		cut = im->eh.e_shoff + (i - 2 * n) * sizeof(Elf64_Shdr);
	else
		cut = i == 3 * n ? im->size - 1 : sizeof(Elf64_Ehdr) - 1;
	if (!cut || cut >= im->size)
		return false;
	*sz = cut;
	return true;
}

/* section headers pointing outside the file, or at names, links and counts that are not there */
enum { OUT_OFF, OUT_OFF_WRAP, OUT_SIZE, OUT_SIZE_HUGE, OUT_NAME, OUT_LINK, OUT_KINDS };
static size_t n_outside(const struct img *im) { return (im->eh.e_shnum - 1) * (size_t)OUT_KINDS; }
static bool outside(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	size_t s = 1 + i / OUT_KINDS;
	Elf64_Shdr *h = (Elf64_Shdr *)(b + im->eh.e_shoff) + s;
	if (h->sh_type == SHT_NOBITS || h->sh_type == SHT_NULL || !h->sh_size)
		return false;
	switch (i % OUT_KINDS) {
	case OUT_OFF: put64((uint8_t *)&h->sh_offset, im->size); break;
	case OUT_OFF_WRAP: put64((uint8_t *)&h->sh_offset, UINT64_MAX - 7); break;
	case OUT_SIZE: put64((uint8_t *)&h->sh_size, im->size - h->sh_offset + 1); break;
	case OUT_SIZE_HUGE: put64((uint8_t *)&h->sh_size, UINT64_MAX); break;
	case OUT_NAME: put32((uint8_t *)&h->sh_name, UINT32_MAX); break;
	case OUT_LINK: put32((uint8_t *)&h->sh_link, 0xffff); break;
	}
	return true;
}

/* huge counts: BTF header lengths, every type's vlen, .BTF.ext lengths and record counts, the
 * ELF header's section count and table offset */
static size_t n_huge(const struct img *im) { return 16 + btf__type_cnt(im->parsed); }
static bool huge(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	uint8_t *btf = b + im->sh[im->btf].sh_offset, *ext = b + im->sh[im->ext].sh_offset;
	uint32_t ext_hdr;
	memcpy(&ext_hdr, ext + 4, 4);
	switch (i) {
	case 0: put32(btf + 4, UINT32_MAX); return true;                /* hdr_len */
	case 1: put32(btf + 12, 0xfffffffc); return true;               /* type_len */
	case 2: put32(btf + 20, UINT32_MAX); return true;               /* str_len */
	case 3: put32(btf + 16, UINT32_MAX); return true;               /* str_off */
	case 4: put32(btf + 8, 0xfffffffc); return true;                /* type_off */
	case 5: put32(ext + 4, UINT32_MAX); return true;                /* .BTF.ext hdr_len */
	case 6: put32(ext + 12, 0xfffffffc); return true;               /* func_info_len */
	case 7: put32(ext + 20, 0xfffffffc); return true;               /* line_info_len */
	case 8: put32(ext + 8, 0xfffffffc); return true;                /* func_info_off */
	case 9: {                                                       /* func_info: record size */
		uint32_t off;
		memcpy(&off, ext + 8, 4);
		put32(ext + ext_hdr + off, UINT32_MAX - 3);
		return true;
	}
	case 10: case 11: {                                             /* first func/line section's count */
		uint32_t off;
		memcpy(&off, ext + (i == 10 ? 8 : 16), 4);
		put32(ext + ext_hdr + off + 8, UINT32_MAX);
		return true;
	}
	case 12: put16(b + offsetof(Elf64_Ehdr, e_shnum), 0xffff); return true;
	case 13: put64(b + offsetof(Elf64_Ehdr, e_shoff), UINT64_MAX - 63); return true;
	case 14: put16(b + offsetof(Elf64_Ehdr, e_shstrndx), 0xffff); return true;
	case 15: put64((uint8_t *)((Elf64_Shdr *)(b + im->eh.e_shoff) + im->symtab) + offsetof(Elf64_Shdr, sh_size),
		       im->size * 16); return true;
	}
	uint32_t id = (uint32_t)(i - 16);
	if (!id)
		return false;
	size_t at = type_off(im, id);
	put16(b + at + 4, 0xffff);                                      /* vlen */
	return true;
}

/* loops of type ids: a PTR, a modifier, a typedef or an array made to refer to itself, a
 * struct made to hold itself, two types made to refer to each other */
static size_t n_loops(const struct img *im) { return 2 * btf__type_cnt(im->parsed); }
static bool loop(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	uint32_t id = (uint32_t)(i / 2), n = btf__type_cnt(im->parsed);
	if (!id)
		return false;
	const struct btf_type *t = btf__type_by_id(im->parsed, id);
	size_t at = type_off(im, id);
	bool pair = i % 2;
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE: case BTF_KIND_TYPEDEF:
	case BTF_KIND_RESTRICT:
		if (!pair) {
			put32(b + at + 8, id);
			return true;
		}
		/* with the next chain type: each refers to the other */
		for (uint32_t j = id + 1; j < n; j++) {
			const struct btf_type *u = btf__type_by_id(im->parsed, j);
			if (btf_is_ptr(u) || btf_is_mod(u) || btf_is_typedef(u)) {
				put32(b + at + 8, j);
				put32(b + type_off(im, j) + 8, id);
				return true;
			}
		}
		return false;
	case BTF_KIND_ARRAY:
		if (pair)
			return false;
		put32(b + at + 12, id);                                 /* an array of itself */
		return true;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (!btf_vlen(t) || pair)
			return false;
		put32(b + at + 12 + 4, id);                             /* member 0 holds the struct */
		return true;
	}
	return false;
}

/* symbols pointing at sections, names and places that are not there */
enum { SYM_SHNDX_RES, SYM_SHNDX_PAST, SYM_VALUE, SYM_SIZE, SYM_NAME, SYM_KINDS };
static size_t n_syms(const struct img *im) { return im->sh[im->symtab].sh_size / sizeof(Elf64_Sym) * SYM_KINDS; }
static bool sym_bad(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	uint8_t *s = b + im->sh[im->symtab].sh_offset + (i / SYM_KINDS) * sizeof(Elf64_Sym);
	switch (i % SYM_KINDS) {
	case SYM_SHNDX_RES: put16(s + offsetof(Elf64_Sym, st_shndx), 0xfff0); break;
	case SYM_SHNDX_PAST: put16(s + offsetof(Elf64_Sym, st_shndx), im->eh.e_shnum); break;
	case SYM_VALUE: put64(s + offsetof(Elf64_Sym, st_value), UINT64_MAX - 4); break;
	case SYM_SIZE: put64(s + offsetof(Elf64_Sym, st_size), UINT64_MAX - 4); break;
	case SYM_NAME: put32(s + offsetof(Elf64_Sym, st_name), UINT32_MAX); break;
	}
	return true;
}

/* relocations: every one's symbol and offset made wrong, in every relocation section */
enum { REL_SYM, REL_OFF_HUGE, REL_OFF_END, REL_OFF_ODD, REL_KINDS };
static size_t n_rels(const struct img *im)
{
	size_t n = 0;
	for (size_t s = 1; s < im->eh.e_shnum; s++)
		if (im->sh[s].sh_type == SHT_REL)
			n += im->sh[s].sh_size / sizeof(Elf64_Rel);
	return n * REL_KINDS;
}
static bool rel_bad(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	size_t k = i / REL_KINDS;
	for (size_t s = 1; s < im->eh.e_shnum; s++) {
		if (im->sh[s].sh_type != SHT_REL)
			continue;
		size_t n = im->sh[s].sh_size / sizeof(Elf64_Rel);
		if (k >= n) {
			k -= n;
			continue;
		}
		const Elf64_Shdr *to = &im->sh[im->sh[s].sh_info];
		if (i % REL_KINDS == REL_OFF_ODD && !(to->sh_flags & SHF_EXECINSTR))
			return false;   /* a misaligned offset is only wrong in code */
		Elf64_Rel *r = (Elf64_Rel *)(b + im->sh[s].sh_offset) + k;
		Elf64_Rel v;
		memcpy(&v, r, sizeof(v));
		switch (i % REL_KINDS) {
		case REL_SYM: v.r_info = ELF64_R_INFO(0xffffffffu, ELF64_R_TYPE(v.r_info)); break;
		case REL_OFF_HUGE: v.r_offset = UINT64_MAX - 7; break;
		case REL_OFF_END: v.r_offset = im->sh[im->sh[s].sh_info].sh_size; break;
		case REL_OFF_ODD: v.r_offset += 3; break;
		}
		memcpy(r, &v, sizeof(v));
		return true;
	}
	return false;
}

/* a relocation section made into one libbpf skips: calls to functions lose their relocations
 * (libbpf 1.1 then freed a program's relocation table twice) */
static size_t n_drop(const struct img *im) { return im->eh.e_shnum; }
static bool drop_rels(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	if (im->sh[i].sh_type != SHT_REL)
		return false;
	put32((uint8_t *)((Elf64_Shdr *)(b + im->eh.e_shoff) + i) + offsetof(Elf64_Shdr, sh_type), SHT_LOUSER + 1);
	return true;
}

/* a program (a function symbol) cut right after the first half of a 64-bit load */
static size_t n_cut(const struct img *im) { return im->sh[im->symtab].sh_size / sizeof(Elf64_Sym); }
static bool cut_ldimm64(const struct img *im, size_t i, uint8_t *b, size_t *sz)
{
	Elf64_Sym s;
	uint8_t *at = b + im->sh[im->symtab].sh_offset + i * sizeof(Elf64_Sym);
	memcpy(&s, at, sizeof(s));
	if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_shndx || s.st_shndx >= im->eh.e_shnum)
		return false;
	const uint8_t *code = b + im->sh[s.st_shndx].sh_offset + s.st_value;
	for (uint64_t o = 0; o + 16 <= s.st_size; o += 8) {
		if (code[o] == 0x18) {
			s.st_size = o + 8;
			memcpy(at, &s, sizeof(s));
			return true;
		}
	}
	return false;
}

static const struct family families[] = {
	{ "btf-bytes-flipped", false, NULL, n_btf, btf_flip, false },
	{ "btf-bytes-incremented", false, NULL, n_btf, btf_inc, false },
	{ "btf-ext-bytes-flipped", false, NULL, n_ext, ext_flip, false },
	{ "btf-ext-bytes-incremented", false, NULL, n_ext, ext_inc, false },
	{ "elf-headers-flipped", false, NULL, n_hdrs, hdr_flip, false },
	{ "truncated", true, NULL, n_trunc, truncate_at, false },
	{ "sections-outside", true, NULL, n_outside, outside, false },
	{ "huge-counts", true, NULL, n_huge, huge, false },
	{ "type-loops", true, "loop", n_loops, loop, false },
	{ "symbols-astray", false, NULL, n_syms, sym_bad, false },
	{ "relocations-astray", true, NULL, n_rels, rel_bad, false },
	{ "ldimm64-cut", true, "64-bit load", n_cut, cut_ldimm64, false },
	{ "relocations-dropped", false, NULL, n_drop, drop_rels, true },
};

/* ---- running a family in a child --------------------------------------------------------- */

struct tally {                  /* shared with the child */
	volatile long cur;
	long made, refused, opened, loaded, silent, wrong, first_bad;
	char first_msg[256];
};

static struct tally *tally;

static void one_case(const uint8_t *buf, size_t size, bool must_refuse, const char *must_say, bool try_load, long i)
{
	struct kiln_object *obj = NULL;
	struct kiln_object_opts o = { .sz = sizeof(o), .name = "hostile.o", .pin_root = pin_root };
	int err = kiln_object_open_mem(buf, size, &o, &obj);
	if (err) {
		tally->refused++;
		const char *m = kiln_errmsg();
		if (!*m || obj)
			tally->silent++;
		if (must_say && !strstr(m, must_say) && tally->first_bad < 0) {
			tally->wrong++;
			tally->first_bad = i;
			snprintf(tally->first_msg, sizeof(tally->first_msg), "%s", m);
		}
		return;
	}
	tally->opened++;
	if (must_refuse) {
		tally->wrong++;
		if (tally->first_bad < 0)
			tally->first_bad = i;
	}
	if (try_load) {
		tally->loaded++;
		if (kiln_object_load(obj) && !*kiln_errmsg())
			tally->silent++;
	}
	kiln_object_close(obj);
}

static void keep_input(const struct img *im, const struct family *f, long i, const uint8_t *buf, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX + 1024];
	snprintf(dir, sizeof(dir), "%s/hostile-fail", build_dir);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s-%s-%ld.o", dir, im->label, f->name, i);
	FILE *out = fopen(path, "wb");
	if (out) {
		fwrite(buf, 1, size, out);
		fclose(out);
	}
	printf("FAIL hostile/%s/%s: variant %ld crashed or hung; kept as %s\n", im->label, f->name, i, path);
}

static void run_family(const struct img *im, const struct family *f)
{
	size_t n = f->count(im);
	uint8_t *buf = malloc(im->size);
	long crashed = 0;
	memset(tally, 0, sizeof(*tally));
	tally->first_bad = -1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t start = 0; start < n;) {
		tally->cur = -1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			long loads = 0;
			for (size_t i = start; i < n; i++) {
				size_t size = im->size;
				memcpy(buf, im->data, im->size);
				if (!f->make(im, i, buf, &size))
					continue;
				tally->cur = (long)i;
				tally->made++;
				alarm(10);      /* a hang is a failure too */
				/* a sample of what opens is loaded as well: every 16th, up to 4 */
				bool load = f->load_all || ((tally->opened % 16) == 0 && loads < 4);
				long before = tally->loaded;
				one_case(buf, size, f->must_refuse, f->must_say, load, (long)i);
				loads += tally->loaded - before;
			}
			_exit(0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			break;
		long at = tally->cur;
		if (at < 0)
			break;
		crashed++;
		size_t size = im->size;
		memcpy(buf, im->data, im->size);
		f->make(im, (size_t)at, buf, &size);
		keep_input(im, f, at, buf, size);
		start = (size_t)at + 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	char name[1024];
	snprintf(name, sizeof(name), "hostile/%s/%s", im->label, f->name);
	CHECK(name, tally->made > 0 && !crashed && !tally->silent && !tally->wrong,
	      "%ld variants: %ld refused, %ld opened, %ld loaded; %ld crashed, %ld refused without a message, "
	      "%ld not as expected (first: variant %ld, \"%s\")", tally->made, tally->refused, tally->opened,
	      tally->loaded, crashed, tally->silent, tally->wrong, tally->first_bad, tally->first_msg);
	printf("    %s: %ld variants, %ld refused, %ld opened, %ld loaded, %.0f ms\n", name, tally->made,
	       tally->refused, tally->opened, tally->loaded, ms);
	free(buf);
}

/* ---- the reported case and the regression inputs -------------------------------------- */

/* Two bytes of .BTF changed: the type id of the first member of the first struct (a map
 * definition's `type`) made 4095. libbpf 1.1 read through NULL here. */
static void test_reported(const struct img *im)
{
	uint8_t *buf = malloc(im->size);
	memcpy(buf, im->data, im->size);
	uint32_t id = 1, n = btf__type_cnt(im->parsed);
	while (id < n && !(btf_is_struct(btf__type_by_id(im->parsed, id)) && btf_vlen(btf__type_by_id(im->parsed, id))))
		id++;
	size_t at = type_off(im, id) + 12 + 4;
	buf[at] = 0xff, buf[at + 1] = 0x0f, buf[at + 2] = 0, buf[at + 3] = 0;
	/* in a child: what crashed libbpf must not take the test down with it */
	memset(tally, 0, sizeof(*tally));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct kiln_object *obj = NULL;
		struct kiln_object_opts o = { .sz = sizeof(o), .name = "x.o" };
		alarm(10);
		tally->cur = kiln_object_open_mem(buf, im->size, &o, &obj);
		tally->opened = obj != NULL;
		snprintf(tally->first_msg, sizeof(tally->first_msg), "%s", kiln_errmsg());
		kiln_object_close(obj);
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	char want[64];
	snprintf(want, sizeof(want), "at 0x%zx) refers to type 4095", at - 4 - im->sh[im->btf].sh_offset);
	CHECK("hostile/reported-case: two bytes of .BTF", WIFEXITED(st) && tally->cur == -EINVAL && !tally->opened &&
	      strstr(tally->first_msg, "object 'x.o': .BTF: type") && strstr(tally->first_msg, want) &&
	      strstr(tally->first_msg, "which does not exist"),
	      "%s %d, %ld \"%s\" (want \"%s\")", WIFEXITED(st) ? "exit" : "signal",
	      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), tally->cur, tally->first_msg, want);
	free(buf);
}

static void test_regressions(void)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/regress/object", src_root);
	DIR *d = opendir(dir);
	long n = 0, crashed = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX + 256];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static uint8_t buf[1 << 20];
		size_t size = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		n++;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			memset(tally, 0, sizeof(*tally));
			alarm(10);
			one_case(buf, size, false, NULL, true, 0);
			_exit(tally->silent ? 3 : 0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			crashed++;
			printf("FAIL hostile/regress/%s: %s %d\n", e->d_name, WIFEXITED(st) ? "exit" : "signal",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
	}
	if (d)
		closedir(d);
	CHECK("hostile/regress: fuzzer-found inputs are handled", d && n > 0 && !crashed,
	      "%ld inputs, %ld failed (%s)", n, crashed, d ? "" : "no tests/fuzz/regress/object");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ROOT"))
		src_root = getenv("ROOT");
	if (getenv("KILN"))
		kiln_bin = getenv("KILN");
	if (getenv("BUILD"))
		build_dir = getenv("BUILD");
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(tmp, sizeof(tmp), "/tmp/kiln-test-hostile-%d-XXXXXX", getpid());
	snprintf(pin_root, sizeof(pin_root), "/sys/fs/bpf/kiln-test-hostile-%d", getpid());
	if (tally == MAP_FAILED || !mkdtemp(tmp)) {
		printf("FAIL test_hostile: setup: %s\n", strerror(errno));
		return 1;
	}
	struct { const char *label, *cmd; } builds[] = {
		{ "kiln-counters", "'%2$s' compile '%1$s/tests/lib/obj-counters.lisp' -o '%3$s/kiln-counters.o'" },
		{ "kiln-events", "'%2$s' compile '%1$s/tests/lib/ev-calls.lisp' -o '%3$s/kiln-events.o'" },
		{ "kiln-subprogs", "'%2$s' compile '%1$s/tests/corpus/ptr-args.lisp' -o '%3$s/kiln-subprogs.o'" },
		{ "clang-maps", "clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) -c "
				"'%1$s/tests/lib/obj-clang.bpf.c' -o '%3$s/clang-maps.o'" },
		{ "clang-core", "clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) -c "
				"'%1$s/tests/lib/hostile-core.bpf.c' -o '%3$s/clang-core.o'" },
	};
	struct img imgs[sizeof(builds) / sizeof(builds[0])];
	size_t nimgs = 0;
	for (size_t b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
		char path[PATH_MAX], what[96];
		snprintf(path, sizeof(path), "%s/%s.o", tmp, builds[b].label);
		int rc = check_sh(builds[b].cmd, src_root, kiln_bin, tmp);
		snprintf(what, sizeof(what), "hostile/build-%s", builds[b].label);
		bool ok = rc == 0 && img_load(&imgs[nimgs], path, builds[b].label);
		CHECK(what, ok, "exit %d, or no .BTF, .BTF.ext and symbols in %s", rc, path);
		if (!ok)
			continue;
		/* the pristine object opens: the checks refuse nothing real */
		struct kiln_object *obj = NULL;
		int err = kiln_object_open_mem(imgs[nimgs].data, imgs[nimgs].size, NULL, &obj);
		snprintf(what, sizeof(what), "hostile/%s/pristine-opens", builds[b].label);
		CHECK(what, !err, "%s", kiln_errmsg());
		kiln_object_close(obj);
		/* ...at any alignment in memory (libbpf reads ELF headers in place) */
		uint8_t *odd = malloc(imgs[nimgs].size + 1);
		memcpy(odd + 1, imgs[nimgs].data, imgs[nimgs].size);
		obj = NULL;
		err = kiln_object_open_mem(odd + 1, imgs[nimgs].size, NULL, &obj);
		snprintf(what, sizeof(what), "hostile/%s/unaligned-image-opens", builds[b].label);
		CHECK(what, !err && obj && kiln_object_prog_count(obj) > 0, "%s", kiln_errmsg());
		kiln_object_close(obj);
		free(odd);
		nimgs++;
	}
	if (nimgs)
		test_reported(&imgs[0]);
	for (size_t i = 0; i < nimgs; i++)
		for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
			run_family(&imgs[i], &families[f]);
	test_regressions();
	for (size_t i = 0; i < nimgs; i++) {
		btf__free(imgs[i].parsed);
		free(imgs[i].data);
	}
	check_sh("rm -rf '%s' '%s'", tmp, pin_root);
	return CHECK_DONE();
}
