/* elfsyms.c — an ELF file's functions for uprobes (elfsyms.h), read with libelf. */
#include "trace/elfsyms.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *x, const void *y)
{
	const struct kt_esym *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a < b ? -1 : a > b);   /* stable: the first seen stays first */
}

int kt_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

struct Elf *kt_elf_open(const char *path, int *fd, char *msg, size_t len)
{
	errno = 0;
	*fd = elf_version(EV_CURRENT) == EV_NONE ? -1 : kt_open_regular(path);
	if (*fd < 0) {
		snprintf(msg, len, "%s: %s", path, errno == EINVAL ? "not a regular file" : errno ? strerror(errno) :
			 "libelf is too old");
		return NULL;
	}
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64) {
		snprintf(msg, len, "%s is not a 64-bit ELF file", path);
		kt_elf_close(e, *fd);
		return NULL;
	}
	return e;
}

void kt_elf_close(struct Elf *e, int fd)
{
	if (e)
		elf_end(e);
	close(fd);
}

int kt_elf_funcs(struct kl_arena *a, const char *path, struct kt_esym **out, uint32_t *n, char *msg, size_t len)
{
	*out = NULL;
	*n = 0;
	int fd;
	Elf *e = kt_elf_open(path, &fd, msg, len);
	if (!e)
		return -1;
	KL_VEC(struct kt_esym) v = { 0 };
	for (int pass = 0; pass < 2; pass++)   /* .symtab first: it has the local functions too */
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF ||
				    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
					continue;
				const char *name = elf_strptr(e, sh.sh_link, s.st_name);
				if (!name || !*name)
					continue;
				struct kt_esym es = { kl_arena_strdup(a, name), s.st_value, s.st_size };
				kl_vec_push(a, &v, es);
			}
		}
	kt_elf_close(e, fd);
	if (v.len > 1)   /* (qsort of NULL, 0 is undefined) */
		qsort(v.items, v.len, sizeof(*v.items), by_name);
	uint32_t k = 0;
	for (size_t i = 0; i < v.len; i++)
		if (!k || strcmp(v.items[k - 1].name, v.items[i].name))
			v.items[k++] = v.items[i];
	*out = v.items;
	*n = k;
	return 0;
}

const struct kt_esym *kt_elf_find(const struct kt_esym *syms, uint32_t n, const char *name)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(syms[mid].name, name);
		if (!c)
			return &syms[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct kt_esym *kt_elf_at(const struct kt_esym *syms, uint32_t n, uint64_t addr)
{
	const struct kt_esym *best = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (syms[i].addr == addr)
			return &syms[i];
		if (!best && addr > syms[i].addr && addr < syms[i].addr + syms[i].size)
			best = &syms[i];
	}
	return best;
}
