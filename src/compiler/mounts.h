/* mounts.h — the kernel filesystems kiln reads from: where tracefs is, and mounting it (or
 * bpffs) where it is missing, as bpftool does with bpffs. Below the compiler and libkiln alike
 * (the compiler reads tracepoint formats, libkiln attaches tracepoints and pins). */
#ifndef KL_MOUNTS_H
#define KL_MOUNTS_H
#include <stdbool.h>

/* Told each time kiln mounts a filesystem, with a one-line message saying what and where
 * ("mounted tracefs at /sys/kernel/tracing: nothing was mounted there"). The library never
 * prints: the kiln command prints it on stderr. NULL (the default): nobody is told. */
typedef void (*kl_mount_notice_fn)(const char *msg, void *ctx);   /* (must not mount itself) */
void kl_mount_set_notice(kl_mount_notice_fn fn, void *ctx);

/* Whether dir is the root of a mount: another device than its parent's, or the kernel says so
 * (a bind mount of the same filesystem). */
bool kl_is_mount_root(const char *dir);

/* Mount a filesystem of type (its source named the same) at dir with opts (NULL: none), only
 * when dir is an existing, empty directory on which nothing is mounted; then tell the notice
 * function, naming it what ("bpffs"). 0 when mounted, else a negative errno (-EPERM for a
 * process that may not mount, -EBUSY when dir holds something or is a mount point already). */
int kl_mount_missing(const char *what, const char *type, const char *dir, const char *opts);

/* The tracefs root kiln reads: "/sys/kernel/tracing", else debugfs's "/sys/kernel/debug/tracing",
 * whichever has an events/ directory. When neither has and /sys/kernel/tracing is an empty
 * directory with nothing mounted on it, tracefs is mounted there first (it takes root; once in
 * the process, two threads never both mount). NULL when there is still none. */
const char *kl_tracefs_root(void);
/* The tracefs root kl_tracefs_root() would use, without mounting anything: NULL when none
 * is there now (kiln doctor reports what it finds and changes nothing). */
const char *kl_tracefs_found(void);
/* The same root's events/ directory ("/sys/kernel/tracing/events"), or NULL. */
const char *kl_tracefs_events(void);
/* kl_tracefs_root(), else where tracefs belongs ("/sys/kernel/tracing"): a path to try and
 * name in a message when none is mounted. */
const char *kl_tracefs_root_or_default(void);

#endif
