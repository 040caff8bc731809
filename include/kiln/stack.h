/* kiln/stack.h — stack traces: read a :stack-trace map entry and symbolize its addresses,
 * kernel ones through /proc/kallsyms, user ones through the process's /proc/PID/maps and the
 * ELF symbol tables of what it maps (libelf), with file:line from DWARF where present (libdw). */
#ifndef KILN_STACK_H
#define KILN_STACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_STACK_MAX_DEPTH 127     /* PERF_MAX_STACK_DEPTH */

/* The addresses of stack `id` in a :stack-trace map, innermost first, into ips (capacity max);
 * returns how many (>= 0) or a negative errno (-ENOENT: no such stack id; -EINVAL: not a
 * stack-trace map; -EOPNOTSUPP: a BPF_F_STACK_BUILD_ID map, which holds no addresses). */
int kiln_stack_read(struct kiln_map *stacks, uint32_t id, uint64_t *ips, size_t max);

/* One symbolized frame. Strings live as long as the symbolizer (or until it is freed). */
struct kiln_frame {
	uint64_t addr;
	const char *symbol;       /* function name, or NULL when unknown */
	uint64_t offset;          /* addr - the symbol's start */
	const char *module;       /* "kernel", a kernel module's name, the mapped file's path, or
				   * "[vdso]", "[stack]", ... */
	const char *file;         /* source file from DWARF, or NULL */
	int line;                 /* its line, or 0 */
};

/* A symbolizer caches kallsyms and the ELF files it has read; one per thread of use. */
struct kiln_syms;
int kiln_syms_new(struct kiln_syms **out);
void kiln_syms_free(struct kiln_syms *s);
/* A kernel address: the nearest function at or below it in /proc/kallsyms (read at the first
 * kernel lookup: programs JIT'd later are not in it); module "kernel", a module's name, or
 * "bpf". -ENOENT when kallsyms has nothing for it (below every symbol, or 1 MiB past the
 * nearest), or shows only zeros (kptr_restrict hides them). */
int kiln_syms_kernel(struct kiln_syms *s, uint64_t addr, struct kiln_frame *f);
/* A user address of process pid (its maps are read at the first use of each pid, and again
 * when an address is in none of them; a process that is gone before its first use gives
 * -ESRCH). -ENOENT for an address no file maps (anonymous memory, unmapped). An address of a
 * mapped file whose symbols do not cover it, or of [vdso], [stack], ..., gives 0 with
 * module set and symbol NULL. */
int kiln_syms_user(struct kiln_syms *s, int pid, uint64_t addr, struct kiln_frame *f);
/* "func+0x1a [module]", or with a source file "func+0x1a (file.c:12)" (the file's last path
 * component); "0xADDR" in place of "func+0x1a" when the symbol is unknown. Into buf (cut at
 * len); returns buf. */
const char *kiln_frame_format(const struct kiln_frame *f, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
