/* kiln/paths.h — where pinned maps live by convention: a bpffs root (default /sys/fs/bpf) and
 * a prefix under it (default "tc/globals", where iproute2's tc pins an object's global maps,
 * as Cilium does), the paths built from them (pkg/bpf's MapPath, LocalMapPath...), the
 * environment a tc run needs to find the same root, and the kernel filesystems kiln mounts
 * where they are missing (tracefs, bpffs). */
#ifndef KILN_PATHS_H
#define KILN_PATHS_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_MAP_PREFIX_DEFAULT "tc/globals"

/* The root and prefix are process-wide. Setting and reading them is safe from any thread:
 * a value once set is kept for the life of the process (each distinct value is stored once),
 * so a pointer the getters returned stays valid after a later set; it is simply no longer
 * the current value. Set them before use if several threads must agree on the paths.
 *
 * set_root: an absolute path; trailing '/' are dropped ("/" stays "/"). NULL restores the
 * default. -EINVAL for "" or a relative path, -ENAMETOOLONG at PATH_MAX or beyond. It is
 * not checked to be a bpffs (kiln_bpffs_check_or_mount does that).
 * set_prefix: a relative path under the root; leading and trailing '/' are dropped, "" means
 * maps straight under the root, NULL restores "tc/globals". -EINVAL when it holds a '.' (bpffs
 * refuses names with one), -ENAMETOOLONG at PATH_MAX. */
const char *kiln_map_root(void);
int kiln_map_set_root(const char *path);
const char *kiln_map_prefix(void);
int kiln_map_set_prefix(const char *prefix);

/* Paths into buf (len bytes); 0, or -ENAMETOOLONG when the path (with its NUL) does not fit
 * in len or in PATH_MAX. A name is one path component: -EINVAL if empty or holding a '/'.
 *   prefix_path:     ROOT/PREFIX            (pkg/bpf's MapPrefixPath)
 *   map_path:        ROOT/PREFIX/NAME       (MapPath)
 *   local_map_name:  NAME followed by id in 5 digits, zero-padded: ("cilium_policy", 42) ->
 *                    "cilium_policy00042"   (LocalMapName: a map per endpoint id)
 *   local_map_path:  ROOT/PREFIX/NAMEnnnnn (LocalMapPath) */
int kiln_map_prefix_path(char *buf, size_t len);
int kiln_map_path(const char *name, char *buf, size_t len);
int kiln_local_map_name(const char *name, uint16_t id, char *buf, size_t len);
int kiln_local_map_path(const char *name, uint16_t id, char *buf, size_t len);

/* tracefs and bpffs: libkiln (the compiler included) reads tracepoint formats and ids from
 * tracefs and pins on bpffs. When it needs one and the process may mount (root), and nothing
 * is mounted on its empty directory (/sys/kernel/tracing; /sys/fs/bpf, or the root given to
 * kiln_bpffs_check_or_mount), libkiln mounts it there, as bpftool does with bpffs, and calls
 * the notice function with a one-line message ("mounted tracefs at /sys/kernel/tracing:
 * nothing was mounted there"); the library itself never prints. The kiln command prints it on
 * stderr. fn NULL (the default): nobody is told. fn must not call back into libkiln.
 * kiln_tracefs_root: the tracefs root in use ("/sys/kernel/tracing", or debugfs's
 * "/sys/kernel/debug/tracing"), mounting it as above when missing; NULL if there is none. */
typedef void (*kiln_mount_notice_fn)(const char *msg, void *ctx);
void kiln_set_mount_notice(kiln_mount_notice_fn fn, void *ctx);
const char *kiln_tracefs_root(void);

enum {
	KILN_ENV_INHERIT = 1 << 0,   /* start from this process's environ (minus what kiln sets) */
};

/* The environment for running iproute2's tc (or anything built on its BPF loader) on kiln's
 * pins (pkg/bpf's Environment): "TC_BPF_MNT=ROOT", the bpffs mount tc pins and finds maps
 * under (its global maps at ROOT/tc/globals), from kiln_map_root(). With KILN_ENV_INHERIT the
 * process's own variables come first, any TC_BPF_MNT of theirs left out, so the array can go
 * straight to execve(). *out: a NULL-terminated malloc'd array for kiln_environment_free.
 * Returns the number of variables, or -ENOMEM. */
int kiln_environment(unsigned flags, char ***out);
void kiln_environment_free(char **env);

#ifdef __cplusplus
}
#endif
#endif
