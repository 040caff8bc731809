/* binpath.h — the file a uprobe names, as bpftrace finds it: a path as written; a library by
 * name ("libc", "libpthread") through the dynamic loader's directories (/etc/ld.so.conf and
 * what it includes, then the default ones); another bare name through $PATH. */
#ifndef KT_BINPATH_H
#define KT_BINPATH_H
#include <stddef.h>
#include "compiler/arena.h"

/* 0 with the file's path in *out (arena memory), or -1 with the reason in msg. */
int kt_find_binary(struct kl_arena *a, const char *name, const char **out, char *msg, size_t len);
#endif
