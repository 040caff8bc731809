/* cdefine.h — the integer constants a bpftrace script names from C (AF_INET, O_CREAT, its own
 * `#define X 3`), read without clang: the script's `#define NAME VALUE` lines and, for each
 * `#include <H>`, the simple `#define`s of /usr/include's H and of what H includes (bounded).
 * Only object-like macros whose value is an integer or another such name count; header
 * conditionals are not evaluated (the first definition seen wins). The script's own
 * `#if[n]def BPFTRACE_HAVE_BTF ... #else ... #endif` is: kiln has BTF, so tools take the
 * branch bpftrace takes with BTF (<sys/socket.h>, not the kernel's <net/sock.h>). One table
 * per process, since one script is compiled per run. */
#ifndef KT_CDEFINE_H
#define KT_CDEFINE_H
#include <stddef.h>
#include <stdint.h>

/* One `#...` line of the script (LEN bytes, no newline). 0, or -1 with a message in ERR
 * (an #include whose header is not found). */
int kt_cdef_line(const char *line, size_t len, char *err, size_t errlen);
/* NAME's value: 0, or -1 when no definition gives it an integer. */
int kt_cdef_value(const char *name, int64_t *v);
/* Forgets every definition (tests; a second script in the same process). */
void kt_cdef_reset(void);

#endif
