/* elfsyms.h — the functions of an ELF file, for uprobes: names with their virtual address
 * and size from .symtab and .dynsym (each name once), to expand `uprobe:FILE:getaddr*`, to
 * turn `uprobe:FILE:0x1234` into a function and an offset in it, to check `FUNC+OFFSET`
 * against the function's size, and to list `-l 'uprobe:FILE:*'`. */
#ifndef KT_ELFSYMS_H
#define KT_ELFSYMS_H
#include <stddef.h>
#include <stdint.h>
#include "compiler/arena.h"

struct Elf;   /* libelf's */
/* path opened for reading if it is a regular file (never blocking on a FIFO, never a
 * device): its descriptor, or -1 with errno (EINVAL: not a regular file). */
int kt_open_regular(const char *path);
/* The 64-bit ELF file at path (a regular file), opened for reading (*fd its descriptor), or
 * NULL with the reason in msg; kt_elf_close ends both. */
struct Elf *kt_elf_open(const char *path, int *fd, char *msg, size_t len);
void kt_elf_close(struct Elf *e, int fd);

struct kt_esym {
	const char *name;
	uint64_t addr, size;        /* st_value, st_size */
};

/* The defined functions (FUNC and GNU_IFUNC with an address) of the ELF file at path, sorted
 * by name, each name once (the first seen, .symtab before .dynsym). 0, or -1 with the reason
 * in msg. */
int kt_elf_funcs(struct kl_arena *a, const char *path, struct kt_esym **out, uint32_t *n, char *msg, size_t len);
/* The function called name in syms (sorted by name), or NULL. */
const struct kt_esym *kt_elf_find(const struct kt_esym *syms, uint32_t n, const char *name);
/* The function whose [addr, addr + size) holds addr (one starting there first), or NULL. */
const struct kt_esym *kt_elf_at(const struct kt_esym *syms, uint32_t n, uint64_t addr);

#endif
