/* kiln/pin.h — bpffs: check-or-mount, pin, get, unpin, and a map opened if pinned and
 * compatible, else created and pinned (pkg/bpf's OpenOrCreateMap). */
#ifndef KILN_PIN_H
#define KILN_PIN_H
#include <stdbool.h>
#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_BPFFS_ROOT "/sys/fs/bpf"

/* 0 if root (NULL: /sys/fs/bpf) is a bpffs, after mounting one there if it was not (creating
 * the directory; the mount notice, kiln/paths.h, is told); -ENOTDIR/-EPERM/... otherwise.
 * Never mounts over another filesystem that is already mounted at root, nor over a directory
 * that holds anything: -EBUSY. */
int kiln_bpffs_check_or_mount(const char *root);
/* Whether path lies on a bpffs. */
bool kiln_bpffs_is(const char *path);

/* Pin fd at path, creating missing parent directories (on bpffs: a path elsewhere is -EINVAL
 * before any directory is made). bpffs refuses names with a '.' (-EPERM). */
int kiln_pin(int fd, const char *path);
/* The object pinned at path: an fd (>= 0, the caller closes it) or a negative errno. */
int kiln_pin_get(const char *path);
/* Remove the pin (the object lives on while something else holds it). Only on bpffs, and not
 * a directory (-EINVAL, -EISDIR). */
int kiln_unpin(const char *path);
/* Remove a directory tree of pins, whoever made them, depth-first; only on bpffs. A
 * bpffs root is emptied but stays, as do the kernel's own maps.debug and progs.debug there. */
int kiln_unpin_tree(const char *dir);

int kiln_map_pin(struct kiln_map *m, const char *path);

/* The name under which `kiln load --pin` pins an object (map, program, link) named name, in
 * out: name with each '.' made '_', as bpffs refuses dots (a clang object's glob.rodata pins
 * as glob_rodata, the name bpftool gives it). A name that could leave the directory or that
 * no file can have is -EINVAL with a message: empty, or holding '/', "..", or a control
 * byte, or longer than NAME_MAX; -ENAMETOOLONG when out is too small. */
int kiln_pin_name(const char *name, char *out, size_t outsz);

/* What `kiln load --pin DIR` made, recorded so that `kiln unload` removes that and nothing
 * else: a pin at DIR/kiln (a frozen array map named kiln_pins) listing each pin's path under
 * DIR with the kind and id of the object it holds. Made before the pins themselves, and only
 * when every entry stays in DIR: each path KIND/NAME (maps, progs, links; NAME as
 * kiln_pin_name gives it), no two alike (-EEXIST), and each DIR/KIND that exists resolving
 * to DIR's own directory of that name, not a symlink (-EXDEV). A refused entry is -EINVAL,
 * with nothing made. */
struct kiln_pin_entry {
	const char *path;      /* under dir: maps/NAME, progs/NAME, links/NAME */
	int fd;                /* the map, program or link to be pinned there */
};
int kiln_pin_record(const char *dir, const struct kiln_pin_entry *e, size_t n);

enum {
	KILN_UNLOAD_FORCE = 1 << 0,   /* remove pins the record does not list, or with no record */
};
/* Remove what kiln load pinned under dir, and dir: links are detached first (so an XDP or tc
 * hook is free when this returns), then unpinned, then programs and maps are unpinned (they
 * live on while held elsewhere); a record entry that is no KIND/NAME is never followed. A
 * pin whose object is not the one recorded, anything else
 * under dir, or a dir without a record is -EPERM and nothing is removed, unless
 * KILN_UNLOAD_FORCE (then the rest is unpinned too, without detaching links kiln did not
 * make). A bpffs mount point is always -EPERM; off bpffs -EINVAL. */
int kiln_unload(const char *dir, unsigned flags);

enum {
	KILN_MAP_RECREATE = 1 << 0,   /* an incompatible pinned map is replaced, not an error */
};

/* Open the map pinned at path if its type, key/value sizes, max entries and flags match
 * spec; if nothing is pinned there, create it and pin it. An incompatible pin is -EEXIST
 * with a message naming both shapes, unless KILN_MAP_RECREATE: then it is unpinned and a
 * new map created and pinned. *created (optional) tells which happened. */
int kiln_map_open_or_create(const char *path, const struct kiln_map_spec *spec, unsigned flags,
			    struct kiln_map **out, bool *created);

/* ---- pkg/bpf's DumpIfExists and parallel mode (map_util.c) ------------------------------ */

/* kiln_map_dump of the map pinned at path, if one is: 0 and no callbacks (stats zeroed,
 * completed false) when nothing is pinned there or a directory on the way is missing. A pin
 * that is not a map is -EINVAL. */
int kiln_map_dump_pinned_if_exists(const char *path, kiln_map_dump_fn fn, void *ctx,
				   const struct kiln_map_dump_opts *opts,
				   struct kiln_map_dump_stats *stats);

/* Parallel mode (pkg/bpf's OpenParallel / EndParallelMode): a new, empty map for new users
 * while the old users of the map pinned at path keep the old one until they move. Nothing
 * pinned at path: the map is created and pinned there (*parallel false). Otherwise the map
 * pinned there is left alone, whatever its shape, and the new one is pinned beside it at
 * path KILN_PARALLEL_SUFFIX (a stale pending pin from an earlier run is replaced), so that
 * opening path still gives the old map. kiln_map_end_parallel then renames the pending pin
 * over path, in one step (rename(2) on bpffs): openers see the old map or the new one, never
 * none. The old map lives on while a program or fd holds it. end_parallel is 0 with nothing
 * to do (a map not in parallel mode, or ended already); closing the map without ending
 * leaves the pending pin. A pin at path that is not a map is -EINVAL. Two processes in
 * parallel mode on one path at once is theirs to avoid. */
#define KILN_PARALLEL_SUFFIX ":pending"    /* bpffs refuses '.' in names */
int kiln_map_open_parallel(const char *path, const struct kiln_map_spec *spec,
			   struct kiln_map **out, bool *parallel);
int kiln_map_end_parallel(struct kiln_map *m);

#ifdef __cplusplus
}
#endif
#endif
