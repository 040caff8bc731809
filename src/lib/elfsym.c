/* elfsym.c — a function's file offset in an ELF file (elfsym.h). */
#include "elfsym.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

int kl_elf_func_offset(const char *path, const char *sym, uint64_t *off)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = e && elf_kind(e) == ELF_K_ELF ? -ENOENT : -ENOEXEC;
	for (Elf_Scn *scn = NULL; err == -ENOENT && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr ss;
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || strcmp(name, sym) || !gelf_getshdr(elf_getscn(e, s.st_shndx), &ss))
				continue;
			*off = s.st_value - ss.sh_addr + ss.sh_offset;
			err = 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
