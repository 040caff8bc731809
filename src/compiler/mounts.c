/* mounts.c — where tracefs is, and mounting tracefs or bpffs where nothing is mounted
 * (mounts.h). */
#define _GNU_SOURCE
#include "mounts.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

static struct {
	kl_mount_notice_fn fn;
	void *ctx;
} notice;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void kl_mount_set_notice(kl_mount_notice_fn fn, void *ctx)
{
	pthread_mutex_lock(&lock);
	notice.fn = fn;
	notice.ctx = ctx;
	pthread_mutex_unlock(&lock);
}

bool kl_is_mount_root(const char *dir)
{
	char parent[PATH_MAX];
	struct stat a, b;
	if (snprintf(parent, sizeof(parent), "%s/..", dir) >= (int)sizeof(parent))
		return false;
	if (stat(dir, &a) || stat(parent, &b))
		return false;
	if (a.st_dev != b.st_dev || a.st_ino == b.st_ino)
		return true;
#ifdef STATX_ATTR_MOUNT_ROOT
	struct statx sx;
	if (!statx(AT_FDCWD, dir, 0, 0, &sx) && (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return sx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
#endif
	return false;
}

/* Whether dir is a directory with nothing in it but "." and "..". */
static bool dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool empty = true;
	for (struct dirent *e; empty && (e = readdir(d));)
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* With lock held: mount and tell. */
static int mount_locked(const char *what, const char *type, const char *dir, const char *opts)
{
	if (!dir_empty(dir) || kl_is_mount_root(dir))
		return -EBUSY;
	if (mount(type, dir, type, 0, opts))
		return -errno;
	if (notice.fn) {
		char msg[PATH_MAX + 128];
		snprintf(msg, sizeof(msg), "mounted %s at %s: nothing was mounted there", what, dir);
		notice.fn(msg, notice.ctx);
	}
	return 0;
}

int kl_mount_missing(const char *what, const char *type, const char *dir, const char *opts)
{
	pthread_mutex_lock(&lock);
	int err = mount_locked(what, type, dir, opts);
	pthread_mutex_unlock(&lock);
	return err;
}

static const struct {
	const char *root, *events;
} tracefs[] = {
	{ "/sys/kernel/tracing", "/sys/kernel/tracing/events" },
	{ "/sys/kernel/debug/tracing", "/sys/kernel/debug/tracing/events" },
};
#define N_TRACEFS (sizeof(tracefs) / sizeof(tracefs[0]))

/* The index of the first tracefs root with an events/ directory, or -1. */
static int tracefs_found(void)
{
	struct stat st;
	for (size_t i = 0; i < N_TRACEFS; i++)
		if (!stat(tracefs[i].events, &st) && S_ISDIR(st.st_mode))
			return (int)i;
	return -1;
}

static int tracefs_index(void)
{
	int i = tracefs_found();
	if (i >= 0)
		return i;
	pthread_mutex_lock(&lock);
	if ((i = tracefs_found()) < 0 && !mount_locked("tracefs", "tracefs", tracefs[0].root, NULL))
		i = tracefs_found();
	pthread_mutex_unlock(&lock);
	return i;
}

const char *kl_tracefs_root(void)
{
	int i = tracefs_index();
	return i < 0 ? NULL : tracefs[i].root;
}

const char *kl_tracefs_found(void)
{
	int i = tracefs_found();
	return i < 0 ? NULL : tracefs[i].root;
}

const char *kl_tracefs_root_or_default(void)
{
	const char *root = kl_tracefs_root();
	return root ? root : tracefs[0].root;
}

const char *kl_tracefs_events(void)
{
	int i = tracefs_index();
	return i < 0 ? NULL : tracefs[i].events;
}
