/* cdefine.h — the integer constants a bpftrace script names from C (AF_INET, O_CREAT, its own
 * `#define X 3`), read without clang: the script's `#define NAME VALUE` lines and, for each
 * `#include <H>`, the simple `#define`s of /usr/include's H and of what H includes (bounded).
 * Only object-like macros whose value is an integer or another such name count; header
 * conditionals are not evaluated (the first definition seen wins). The script's own
 * `#if[n]def BPFTRACE_HAVE_BTF ... #else ... #endif` is: kiln has BTF, so tools take the
 * branch bpftrace takes with BTF (<sys/socket.h>, not the kernel's <net/sock.h>). The table
 * is the script's (struct kt_cdefs, which its kt_program points to): `kiln trace --include`
 * and the lexer fill it, sema reads it. */
#ifndef KT_CDEFINE_H
#define KT_CDEFINE_H
#include <stddef.h>
#include <stdint.h>

/* headers scanned at most (each once) */
#define KT_CDEF_MAX_FILES 256

/* A script's definitions: zero to start with, kt_cdef_free at the end. */
struct kt_cdefs {
	struct kt_cdef *defs;               /* name and value, first definition wins */
	size_t ndefs, capdefs;
	char *seen[KT_CDEF_MAX_FILES];      /* headers already scanned, by path */
	size_t nseen;
	const char *const *dirs;            /* searched before the system's (-I DIR), NULL-ended; may be NULL */
	unsigned skip_mask, depth;          /* #if[n]def nesting: bit i set when level i's branch
					     * is not taken */
	struct kt_cstructs *structs;        /* the script's struct definitions (cstruct.h) */
};

/* One `#...` line of the script (LEN bytes, no newline) into c. 0, or -1 with a message in
 * ERR (an #include whose header is not found). */
int kt_cdef_line(struct kt_cdefs *c, const char *line, size_t len, char *err, size_t errlen);
/* NAME's value: 0, or -1 when no definition gives it an integer (c may be NULL: none). */
int kt_cdef_value(const struct kt_cdefs *c, const char *name, int64_t *v);
/* Frees every definition; c is empty again. */
void kt_cdef_free(struct kt_cdefs *c);

#endif
