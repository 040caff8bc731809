/* elfsym.h — a function's place in an ELF file, for uprobes: libkiln's attach (the offset it
 * gives the kernel) and kiln trace (whether an attach point's function exists at all). */
#ifndef KL_LIB_ELFSYM_H
#define KL_LIB_ELFSYM_H
#include <stdint.h>

/* The file offset of function sym (STT_FUNC or an IFUNC, defined) in the ELF file at path,
 * from its .symtab or .dynsym. 0; -ENOENT when no such function; -ENOEXEC when the file is
 * not ELF; another -errno when it cannot be read. */
int kl_elf_func_offset(const char *path, const char *sym, uint64_t *off);

#endif
