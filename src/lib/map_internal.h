/* map_internal.h — how the rest of libkiln (object.c) hands libbpf's maps out as struct
 * kiln_map without giving up ownership of their fds. */
#ifndef KL_LIB_MAP_INTERNAL_H
#define KL_LIB_MAP_INTERNAL_H
#include "kiln/map.h"
#include <stdbool.h>

/* A kiln_map around fd, named name (kept in full; may be NULL: then the kernel's name).
 * owned: kiln_map_close closes fd; otherwise it only frees the struct (libbpf's maps).
 * fd < 0 is fine before the object is loaded: the info is then read on first use, after
 * kl_map_set_fd. A failed info read is not fatal either (retried on use). NULL only when
 * out of memory, with kiln_errmsg() set; fd is then left to the caller. */
struct kiln_map *kl_map_wrap(int fd, const char *name, bool owned);
/* Give the map its fd once the object is loaded, and re-read the info from the kernel. */
void kl_map_set_fd(struct kiln_map *m, int fd);

#endif
