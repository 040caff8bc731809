/* host.h — kiln's host side: the plain Lisp of a Whistler session file (defun, let, loop,
 * format, handler-case ...) interpreted by kiln, with with-bpf-session compiling its
 * bpf:map/bpf:prog forms (and the file's top-level kiln forms) through kiln's own compiler
 * and running the body against the loaded object through libkiln. */
#ifndef KL_HOST_H
#define KL_HOST_H
#include <stdbool.h>
#include <stddef.h>

/* Does the kiln source at path hold host forms (with-bpf-session, eval-when, require,
 * defparameter, ...)? False for a file of kiln forms only, and for one that does not read:
 * those take `kiln run`'s ordinary path, which reports their errors. */
bool host_is_host_file(const char *path);

/* Run path's forms in order. argv (argc of them) follow the file on the command line; the
 * file sees them as sb-ext:*posix-argv* (the file first). Returns the exit status. When the
 * file ran no session but left kiln programs (a file of kiln forms with eval-when around
 * some), *elf and *size are those forms compiled (malloc'd) for `kiln run` to run as it runs any
 * kiln source; else *elf is NULL. */
int host_run(const char *path, int argc, char **argv, void **elf, size_t *size);
/* `kiln repl` (src/host/repl.c) */
int cmd_repl(int argc, char **argv);
#endif
