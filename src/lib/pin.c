/* pin.c — bpffs (kiln/pin.h): mount it where missing, pin with parent directories, unpin trees,
 * and pkg/bpf's OpenOrCreateMap: reuse a compatible pinned map, else create and pin one. */
#define _GNU_SOURCE
#include "kiln/pin.h"
#include "fail.h"
#include "map_internal.h"
#include "pin_name.h"
#include "compiler/mounts.h"
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

bool kiln_bpffs_is(const char *path)
{
	struct statfs sf;
	return path && !statfs(path, &sf) && (unsigned long)sf.f_type == BPF_FS_MAGIC;
}

/* mkdir -p of path's first len characters. */
static int mkdirs(const char *path, size_t len)
{
	char buf[PATH_MAX];
	if (len >= sizeof(buf))
		return kl_fail(-ENAMETOOLONG, "mkdir %.*s", (int)len, path);
	memcpy(buf, path, len);
	buf[len] = 0;
	for (char *p = buf + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return kl_fail(errno, "mkdir %s", buf);
		if (!c)
			break;
		*p = c;
	}
	struct stat st;
	if (stat(buf, &st))
		return kl_fail(errno, "stat %s", buf);
	if (!S_ISDIR(st.st_mode))
		return kl_fail(-ENOTDIR, "mkdir %s", buf);
	return 0;
}

int kiln_bpffs_check_or_mount(const char *root)
{
	struct stat st;
	if (!root)
		root = KILN_BPFFS_ROOT;
	if (stat(root, &st)) {
		if (errno != ENOENT)
			return kl_fail(errno, "stat %s", root);
		int err = mkdirs(root, strlen(root));
		if (err)
			return err;
	} else if (!S_ISDIR(st.st_mode)) {
		return kl_fail(-ENOTDIR, "bpffs at %s", root);
	}
	if (kiln_bpffs_is(root))
		return 0;
	if (kl_is_mount_root(root)) {
		struct statfs sf;
		unsigned long magic = statfs(root, &sf) ? 0 : (unsigned long)sf.f_type;
		return kl_fail_msg(-EBUSY, "bpffs at %s: another filesystem (magic %#lx) is mounted "
				   "there; not mounting over it", root, magic);
	}
	int err = kl_mount_missing("bpffs", "bpf", root, "mode=0700");
	if (err == -EBUSY)
		return kl_fail_msg(-EBUSY, "bpffs at %s: the directory is not empty; not mounting over it", root);
	if (err)
		return kl_fail(err, "mount(bpf) at %s", root);
	if (!kiln_bpffs_is(root))
		return kl_fail_msg(-ENODEV, "mount(bpf) at %s succeeded but no bpffs is there", root);
	return 0;
}

/* The deepest existing ancestor of path must be on bpffs before directories are made for a
 * pin: bpf(BPF_OBJ_PIN) would refuse anyway, after mkdir -p had littered another fs. */
static int check_parent_on_bpffs(const char *path, size_t dirlen)
{
	char buf[PATH_MAX];
	if (dirlen >= sizeof(buf))
		return kl_fail(-ENAMETOOLONG, "pin %s", path);
	memcpy(buf, path, dirlen);
	buf[dirlen] = 0;
	for (;;) {
		struct stat st;
		if (!buf[0] || !stat(buf, &st))
			break;
		char *slash = strrchr(buf, '/');
		if (!slash)
			buf[0] = 0;
		else if (slash == buf)
			slash[1] = 0;
		else
			*slash = 0;
	}
	const char *dir = buf[0] ? buf : ".";
	if (!kiln_bpffs_is(dir))
		return kl_fail_msg(-EINVAL, "pin %s: %s is not on a bpffs (mount one with "
				   "kiln_bpffs_check_or_mount)", path, dir);
	return 0;
}

static int pin_fd(int fd, const char *path, const char *what)
{
	const char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		size_t dirlen = (size_t)(slash - path);
		int err = check_parent_on_bpffs(path, dirlen);
		if (!err)
			err = mkdirs(path, dirlen);
		if (err)
			return err;
	} else if (!kiln_bpffs_is(slash ? "/" : ".")) {
		return kl_fail_msg(-EINVAL, "pin %s: not on a bpffs", path);
	}
	int err = bpf_obj_pin(fd, path);
	if (err)
		return kl_fail(err, "bpf(BPF_OBJ_PIN) of %s at %s", what, path);
	return 0;
}

int kiln_pin(int fd, const char *path)
{
	char what[32];
	snprintf(what, sizeof(what), "fd %d", fd);
	return pin_fd(fd, path, what);
}

int kiln_map_pin(struct kiln_map *m, const char *path)
{
	char what[64];
	snprintf(what, sizeof(what), "map '%s'", kiln_map_name(m));
	return pin_fd(kiln_map_fd(m), path, what);
}

int kiln_pin_get(const char *path)
{
	int fd = bpf_obj_get(path);
	if (fd < 0)
		return kl_fail(fd, "bpf(BPF_OBJ_GET) of %s", path);
	return fd;
}

int kiln_unpin(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return kl_fail(errno, "unpin %s", path);
	if (!kiln_bpffs_is(path))
		return kl_fail_msg(-EINVAL, "unpin %s: not on a bpffs, not removing it", path);
	if (S_ISDIR(st.st_mode))
		return kl_fail_msg(-EISDIR, "unpin %s: a directory (kiln_unpin_tree removes those)", path);
	if (unlink(path))
		return kl_fail(errno, "unpin %s", path);
	return 0;
}

/* Empty the directory open as dfd (path for messages), depth-first, staying on its device. */
static int unpin_dir(int dfd, const char *path, dev_t dev)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		int err = kl_fail(errno, "open directory %s", path);
		close(dfd);
		return err;
	}
	int err = 0;
	struct dirent *e;
	while (!err && (errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = kl_fail(errno, "unpin %s", sub);
			break;
		}
		if (st.st_dev != dev) {
			err = kl_fail_msg(-EXDEV, "unpin %s: another filesystem is mounted there", sub);
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			int sfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd < 0)
				err = kl_fail(errno, "open directory %s", sub);
			else if (!(err = unpin_dir(sfd, sub, dev)) &&
				 unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
				err = kl_fail(errno, "rmdir %s", sub);
		} else if (unlinkat(dirfd(d), e->d_name, 0)) {
			/* a bpffs root holds the kernel's preloaded iterators (maps.debug,
			 * progs.debug), which cannot go: dotted names are the kernel's own */
			if (errno == EPERM && strchr(e->d_name, '.'))
				continue;
			err = kl_fail(errno, "unpin %s", sub);
		}
	}
	if (!err && errno)
		err = kl_fail(errno, "read directory %s", path);
	closedir(d);
	return err;
}

int kiln_unpin_tree(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st))
		return kl_fail(errno, "unpin %s", dir);
	if (!kiln_bpffs_is(dir))
		return kl_fail_msg(-EINVAL, "unpin %s: not on a bpffs, not removing it", dir);
	if (!S_ISDIR(st.st_mode))
		return kiln_unpin(dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return kl_fail(errno, "open directory %s", dir);
	int err = unpin_dir(dfd, dir, st.st_dev);
	/* a bpffs root is emptied, not removed: it is a mount point */
	if (!err && !kl_is_mount_root(dir) && rmdir(dir))
		err = kl_fail(errno, "rmdir %s", dir);
	return err;
}

/* ---- open or create ---------------------------------------------------------------------- */

static void shape(char *buf, size_t size, enum bpf_map_type type, uint32_t key, uint32_t value,
		  uint32_t max, uint32_t flags)
{
	snprintf(buf, size, "%s key %u value %u max %u flags %#x", kiln_map_type_name(type), key,
		 value, max, flags);
}

static int create_and_pin(const char *path, const struct kiln_map_spec *spec, struct kiln_map **out)
{
	struct kiln_map *m;
	int err = kiln_map_create(spec, &m);
	if (err)
		return err;
	if ((err = kiln_map_pin(m, path))) {
		kiln_map_close(m);
		return err;
	}
	*out = m;
	return 0;
}

/* Swap in a new map for an incompatible pin: pinned beside it first and renamed over it, so
 * the path never names nothing, and the old map stays if the new one cannot be made. */
static int replace_pin(const char *path, const struct kiln_map_spec *spec, struct kiln_map **out)
{
	char tmp[PATH_MAX];
	/* no '.': bpffs keeps dotted names for itself (EPERM) */
	if (snprintf(tmp, sizeof(tmp), "%s~kiln-new-%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return kl_fail(-ENAMETOOLONG, "replace pinned map %s", path);
	struct kiln_map *m;
	int err = create_and_pin(tmp, spec, &m);
	if (err)
		return err;
	if (rename(tmp, path)) {
		err = kl_fail(errno, "replace pinned map %s (rename from %s)", path, tmp);
		unlink(tmp);
		kiln_map_close(m);
		return err;
	}
	*out = m;
	return 0;
}

int kiln_map_open_or_create(const char *path, const struct kiln_map_spec *spec, unsigned flags,
			    struct kiln_map **out, bool *created)
{
	*out = NULL;
	if (created)
		*created = false;
	if (!spec || spec->sz < offsetof(struct kiln_map_spec, flags))
		return kl_fail_msg(-EINVAL, "open or create %s: spec->sz is not set", path);
	uint32_t want_flags = spec->sz > offsetof(struct kiln_map_spec, flags) ? spec->flags : 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct kiln_map *m;
		int err = kiln_map_open_pinned(path, &m);
		if (err == -ENOENT) {
			err = create_and_pin(path, spec, out);
			if (err == -EEXIST)
				continue; /* someone else pinned one meanwhile: open theirs */
			if (!err && created)
				*created = true;
			return err;
		}
		if (err)
			return err;
		const struct kiln_map_info *i = kiln_map_info(m);
		if (i->type == spec->type && i->key_size == spec->key_size &&
		    i->value_size == spec->value_size && i->max_entries == spec->max_entries &&
		    i->flags == want_flags) {
			*out = m;
			return 0;
		}
		char have[96], want[96];
		shape(have, sizeof(have), i->type, i->key_size, i->value_size, i->max_entries, i->flags);
		shape(want, sizeof(want), spec->type, spec->key_size, spec->value_size,
		      spec->max_entries, want_flags);
		kiln_map_close(m);
		if (!(flags & KILN_MAP_RECREATE))
			return kl_fail_msg(-EEXIST, "pinned map %s is %s, want %s", path, have, want);
		err = replace_pin(path, spec, out);
		if (!err && created)
			*created = true;
		return err;
	}
	return kl_fail_msg(-EEXIST, "open or create %s: the pin keeps changing under us", path);
}

/* ---- pkg/bpf's DumpIfExists and parallel mode -------------------------------------------- */

int kiln_map_dump_pinned_if_exists(const char *path, kiln_map_dump_fn fn, void *ctx,
				   const struct kiln_map_dump_opts *opts,
				   struct kiln_map_dump_stats *stats)
{
	struct kiln_map *m;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	int err = kiln_map_open_pinned(path, &m);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	err = kiln_map_dump(m, fn, ctx, opts, stats);
	kiln_map_close(m);
	return err;
}

int kiln_map_open_parallel(const char *path, const struct kiln_map_spec *spec,
			   struct kiln_map **out, bool *parallel)
{
	char pending[PATH_MAX];
	*out = NULL;
	if (parallel)
		*parallel = false;
	if (snprintf(pending, sizeof(pending), "%s%s", path, KILN_PARALLEL_SUFFIX) >= (int)sizeof(pending))
		return kl_fail(-ENAMETOOLONG, "parallel mode for %s", path);
	struct kiln_map *m;
	int err = kiln_map_open_pinned(path, &m);    /* (a pin that is no map is -EINVAL) */
	if (err == -ENOENT) {
		err = create_and_pin(path, spec, out);
		if (err != -EEXIST)
			return err;     /* else pinned by someone else meanwhile: go parallel to it */
	} else if (err) {
		return err;
	} else {
		kiln_map_close(m);
	}
	err = kiln_map_create(spec, &m);
	if (err)
		return err;
	struct kl_map_extra *x = kl_map_extra(m);
	if (!x || !(x->parallel_path = strdup(path)) || !(x->pending_path = strdup(pending))) {
		kiln_map_close(m);
		return kl_fail(-ENOMEM, "parallel mode for %s", path);
	}
	err = kiln_unpin(pending);      /* a stale one, left by a run that never ended it */
	if (err && err != -ENOENT)
		goto fail;
	if ((err = kiln_map_pin(m, pending)))
		goto fail;
	*out = m;
	if (parallel)
		*parallel = true;
	return 0;
fail:
	kiln_map_close(m);
	return err;
}

int kiln_map_end_parallel(struct kiln_map *m)
{
	struct kl_map_extra *x = m ? kl_map_extra(m) : NULL;
	if (!x || !x->pending_path)
		return 0;
	if (rename(x->pending_path, x->parallel_path))
		return kl_fail(errno, "end of parallel mode: rename %s to %s", x->pending_path, x->parallel_path);
	free(x->pending_path);
	free(x->parallel_path);
	x->pending_path = x->parallel_path = NULL;
	return 0;
}

/* ---- the names of pins ------------------------------------------------------------------ */

/* Whether rel is KIND/NAME as a load's record lists them: maps, progs or links, and a name
 * kiln_pin_name made (no '.'). */
static bool rec_path_ok(const char *rel)
{
	const char *name = strchr(rel, '/');
	return name && (!strncmp(rel, "maps/", 5) || !strncmp(rel, "progs/", 6) || !strncmp(rel, "links/", 6)) &&
	       !strchr(name + 1, '.') && !kl_pin_name_why(name + 1);
}

/* Each KIND directory that exists under dir must be dir's own: realpath(dir/KIND) is
 * realpath(dir)/KIND (no symlink or mount leading elsewhere), so that a pin made in it stays
 * in dir. dir not existing yet is fine: everything is then made under it. */
static int check_inside(const char *dir, const struct kiln_pin_entry *e, size_t n)
{
	char root[PATH_MAX], sub[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 8];
	if (!realpath(dir, root))
		return errno == ENOENT ? 0 : kl_fail(errno, "pin under %s", dir);
	for (size_t i = 0; i < n; i++) {
		int kl = (int)strcspn(e[i].path, "/");
		snprintf(sub, sizeof(sub), "%s/%.*s", dir, kl, e[i].path);
		snprintf(want, sizeof(want), "%s/%.*s", root, kl, e[i].path);
		struct stat st;
		if (lstat(sub, &st) && errno == ENOENT)
			continue;
		if (!S_ISDIR(st.st_mode) || !realpath(sub, real) || strcmp(real, want))
			return kl_fail_msg(-EXDEV, "pin under %s: %s is not a directory of %s's own (a symlink, "
					   "or no directory)", dir, sub, dir);
	}
	return 0;
}

/* ---- what kiln load made: the record at DIR/kiln, and unload ----------------------------- */

/* bpffs holds nothing but pins and directories, so the record of what a load pinned is itself
 * a pin: a frozen array map at DIR/kiln named kiln_pins whose entries give each pin's path
 * under DIR, its kind and its object's id. unload removes a pin only when the object pinned
 * there is still that object. */
#define REC_PIN "kiln"
#define REC_MAP_NAME "kiln_pins"

enum rec_kind { REC_NONE, REC_MAP, REC_PROG, REC_LINK };

struct rec_entry {
	uint32_t id;
	uint32_t kind;
	char path[248];
};

/* A bpf fd's kind (by the name of its anonymous inode: a new link's is bpf_link, one got from
 * a pin bpf-link) and its object's id. */
static int fd_kind_id(int fd, uint32_t *kind, uint32_t *id)
{
	char link[64], target[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	*kind = strstr(target, "bpf-map") ? REC_MAP : strstr(target, "bpf-prog") ? REC_PROG :
		strstr(target, "bpf_link") || strstr(target, "bpf-link") ? REC_LINK : REC_NONE;
	struct { uint32_t type, id; } head = { 0 };    /* every bpf_*_info starts so */
	uint32_t len = sizeof(head);
	if (*kind == REC_NONE || bpf_obj_get_info_by_fd(fd, &head, &len))
		return -EINVAL;
	*id = head.id;
	return 0;
}

/* Before anything is made: every entry a KIND/NAME that stays under dir, fits the record,
 * and is the only one of its path (glob.rodata and a map glob_rodata would share one). */
static int check_entries(const char *dir, const struct kiln_pin_entry *e, size_t n)
{
	char buf[512];
	for (size_t i = 0; i < n; i++) {
		if (!e[i].path || !rec_path_ok(e[i].path))
			return kl_fail_msg(-EINVAL, "pin under %s: '%s' is not maps/NAME, progs/NAME or links/NAME "
					   "with a NAME kiln_pin_name gives; nothing pinned", dir,
					   e[i].path ? kl_pin_shown(e[i].path, buf, sizeof(buf)) : "");
		if (strlen(e[i].path) >= sizeof(((struct rec_entry *)0)->path) ||
		    strlen(dir) + strlen(e[i].path) + 2 > PATH_MAX)
			return kl_fail(-ENAMETOOLONG, "pin %s/%s", dir, e[i].path);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(e[i].path, e[j].path))
				return kl_fail_msg(-EEXIST, "pin under %s: two objects would pin at %s (names that "
						   "differ only in '.' and '_', which bpffs spells alike); nothing "
						   "pinned", dir, e[i].path);
	}
	return check_inside(dir, e, n);
}

int kiln_pin_record(const char *dir, const struct kiln_pin_entry *e, size_t n)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, REC_PIN) >= (int)sizeof(path))
		return kl_fail(-ENAMETOOLONG, "record the pins under %s", dir);
	int err = check_entries(dir, e, n);
	if (err)
		return err;
	LIBBPF_OPTS(bpf_map_create_opts, mo);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, REC_MAP_NAME, sizeof(uint32_t),
				sizeof(struct rec_entry), n ? (uint32_t)n : 1, &mo);
	if (fd < 0)
		return kl_fail(fd, "record the pins under %s: bpf(BPF_MAP_CREATE)", dir);
	for (uint32_t i = 0; !err && i < n; i++) {
		struct rec_entry r = { 0 };
		if (strlen(e[i].path) >= sizeof(r.path))
			err = kl_fail(-ENAMETOOLONG, "record the pin %s/%s", dir, e[i].path);
		else if (fd_kind_id(e[i].fd, &r.kind, &r.id))
			err = kl_fail_msg(-EINVAL, "record the pin %s/%s: fd %d is no bpf object", dir,
					  e[i].path, e[i].fd);
		else if (strcpy(r.path, e[i].path), bpf_map_update_elem(fd, &i, &r, 0))
			err = kl_fail(errno, "record the pin %s/%s", dir, e[i].path);
	}
	if (!err && bpf_map_freeze(fd))
		err = kl_fail(errno, "record the pins under %s: bpf(BPF_MAP_FREEZE)", dir);
	struct stat st;
	bool made_dir = lstat(dir, &st) != 0;
	if (!err && (err = pin_fd(fd, path, "kiln's record of its pins")) && made_dir)
		rmdir(dir);     /* nothing left behind */
	close(fd);
	return err;
}

/* The record pinned at dir/kiln (malloc'd, *n entries), or NULL if there is none or what is
 * pinned there is not one. */
static struct rec_entry *record_read(const char *dir, uint32_t *n)
{
	char path[PATH_MAX];
	*n = 0;
	if (snprintf(path, sizeof(path), "%s/%s", dir, REC_PIN) >= (int)sizeof(path))
		return NULL;
	int fd = bpf_obj_get(path);
	if (fd < 0)
		return NULL;
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info), kind, id;
	struct rec_entry *r = NULL;
	if (!fd_kind_id(fd, &kind, &id) && kind == REC_MAP && !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.type == BPF_MAP_TYPE_ARRAY && info.key_size == sizeof(uint32_t) &&
	    info.value_size == sizeof(struct rec_entry) && !strcmp(info.name, REC_MAP_NAME) &&
	    (r = calloc(info.max_entries, sizeof(*r)))) {
		for (uint32_t i = 0; i < info.max_entries; i++)
			if (bpf_map_lookup_elem(fd, &i, &r[i]))
				memset(&r[i], 0, sizeof(r[i]));
			else
				r[i].path[sizeof(r[i].path) - 1] = 0;    /* whoever wrote it */
		*n = info.max_entries;
	}
	close(fd);
	return r;
}

/* Whether the pin at dir/rel holds the object the record gives for rel. */
static bool record_has(const struct rec_entry *r, uint32_t n, const char *dir, const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (!strcmp(rel, REC_PIN))
		return true;
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].kind || strncmp(r[i].path, rel, sizeof(r[i].path)))
			continue;
		int fd = bpf_obj_get(path);
		uint32_t kind, id;
		bool same = fd >= 0 && !fd_kind_id(fd, &kind, &id) && kind == r[i].kind && id == r[i].id;
		if (fd >= 0)
			close(fd);
		return same;
	}
	return false;
}

struct walk {
	const char *dir;
	const struct rec_entry *rec;
	uint32_t nrec;
	dev_t dev;
	char first[PATH_MAX];   /* the first pin or directory kiln did not make, under dir */
	unsigned foreign;
};

/* Count what under dir/rel (a directory) the record does not account for. */
static int find_foreign(struct walk *w, const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s%s%s", w->dir, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return kl_fail(errno, "open directory %s", path);
	int err = 0;
	for (struct dirent *e; !err && (errno = 0, e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		struct stat st;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = kl_fail(errno, "unload %s/%s", w->dir, sub);
			break;
		}
		bool ours;
		if (S_ISDIR(st.st_mode)) {
			ours = w->rec && !*rel && st.st_dev == w->dev && (!strcmp(sub, "maps") ||
				!strcmp(sub, "progs") || !strcmp(sub, "links"));
			if (ours)
				err = find_foreign(w, sub);
		} else {
			ours = w->rec && record_has(w->rec, w->nrec, w->dir, sub);
		}
		if (!ours && !w->foreign++)
			snprintf(w->first, sizeof(w->first), "%s", sub);
	}
	if (!err && errno)
		err = kl_fail(errno, "read directory %s", path);
	closedir(d);
	return err;
}

/* Detach a link pinned at path (synchronously: the kernel's last put of an unpinned link can
 * come later, from a deferred work item, and an XDP or tcx hook stays busy until then), then
 * remove the pin. Not a link, or a link that cannot detach (tracing): just unpinned. */
static int unpin_detached(const char *path)
{
	int fd = bpf_obj_get(path);
	uint32_t kind, id;
	if (fd >= 0 && !fd_kind_id(fd, &kind, &id) && kind == REC_LINK && bpf_link_detach(fd) &&
	    errno != EOPNOTSUPP && errno != EINVAL) {
		int err = kl_fail(errno, "unload %s: bpf(BPF_LINK_DETACH)", path);
		close(fd);
		return err;
	}
	if (fd >= 0)
		close(fd);
	if (unlink(path) && errno != ENOENT)
		return kl_fail(errno, "unpin %s", path);
	return 0;
}

int kiln_unload(const char *dir, unsigned flags)
{
	struct stat st;
	if (lstat(dir, &st))
		return kl_fail(errno, "unload %s", dir);
	if (!kiln_bpffs_is(dir))
		return kl_fail_msg(-EINVAL, "unload %s: not on a bpffs, not removing it", dir);
	if (S_ISDIR(st.st_mode) && kl_is_mount_root(dir))
		return kl_fail_msg(-EPERM, "unload %s: a bpffs mount point; kiln unload removes only a "
				   "directory `kiln load --pin` made under one", dir);
	bool force = flags & KILN_UNLOAD_FORCE;
	if (!S_ISDIR(st.st_mode)) {
		if (!force)
			return kl_fail_msg(-EPERM, "unload %s: a single pin, not a directory kiln load made "
					   "(--force removes it)", dir);
		return unpin_detached(dir);
	}
	struct walk w = { .dir = dir, .dev = st.st_dev };
	w.rec = record_read(dir, &w.nrec);
	int err = find_foreign(&w, "");
	if (!err && !force && (!w.rec || w.foreign)) {
		if (!w.rec)
			err = kl_fail_msg(-EPERM, "unload %s: kiln load did not make it (no record at %s/%s); "
					  "not removing pins kiln did not make (--force removes them)", dir,
					  dir, REC_PIN);
		else
			err = kl_fail_msg(-EPERM, "unload %s: %s/%s%s was not pinned by kiln load; removing "
					  "nothing (--force removes it too)", dir, dir, w.first,
					  w.foreign > 1 ? " and more" : "");
	}
	/* links first, so that nothing runs while its maps go */
	for (uint32_t kind = REC_LINK; !err && kind > REC_NONE; kind--)
		for (uint32_t i = 0; !err && i < w.nrec; i++)
			if (w.rec[i].kind == kind && rec_path_ok(w.rec[i].path) &&
			    record_has(w.rec, w.nrec, dir, w.rec[i].path)) {
				char path[PATH_MAX];
				snprintf(path, sizeof(path), "%s/%s", dir, w.rec[i].path);
				err = unpin_detached(path);
			}
	free((void *)w.rec);
	if (err)
		return err;
	if (force) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			return kl_fail(errno, "open directory %s", dir);
		if ((err = unpin_dir(dfd, dir, st.st_dev)))
			return err;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, REC_PIN);
	if (unlink(path) && errno != ENOENT)
		return kl_fail(errno, "unpin %s", path);
	for (const char *s = "maps\0progs\0links\0"; *s; s += strlen(s) + 1) {
		snprintf(path, sizeof(path), "%s/%s", dir, s);
		if (rmdir(path) && errno != ENOENT)
			return kl_fail(errno, "rmdir %s", path);
	}
	if (rmdir(dir))
		return kl_fail(errno, "rmdir %s", dir);
	return 0;
}
