/* test_pin.c — libkiln's bpffs calls against the kernel, on a bpffs of the test's own under
 * /tmp: mounting, pinning with directories, unpinning trees, open-or-create of maps, and the
 * record of a load's pins that unload goes by. */
#define _GNU_SOURCE
#include "check.h"
#include "kiln/error.h"
#include "kiln/map.h"
#include "kiln/pin.h"
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static char top[64];             /* mkdtemp'd directory holding everything below */
static char root[128];           /* a bpffs mounted by kiln_bpffs_check_or_mount */
static char tmpfs[128];          /* a tmpfs, which must be refused */
static char pathbuf[4][256];

static const char *P(int slot, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *P(int slot, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pathbuf[slot], sizeof(pathbuf[slot]), fmt, ap);
	va_end(ap);
	return pathbuf[slot];
}

static bool has(const char *s, const char *sub)
{
	return s && strstr(s, sub);
}

static bool exists(const char *path)
{
	struct stat st;
	return !lstat(path, &st);
}

static uint32_t fd_id(int fd)
{
	struct bpf_map_info mi;
	uint32_t len = sizeof(mi);
	memset(&mi, 0, sizeof(mi));
	return bpf_obj_get_info_by_fd(fd, &mi, &len) ? 0 : mi.id;
}

static uint32_t pinned_id(const char *path)
{
	int fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	uint32_t id = fd_id(fd);
	close(fd);
	return id;
}

/* Everything the test may have left, whatever failed: pins, mounts, directories. */
static void cleanup(void)
{
	if (!top[0])
		return;
	if (root[0]) {
		if (kiln_bpffs_is(root))
			kiln_unpin_tree(root);
		umount2(root, MNT_DETACH);
		rmdir(root);
		rmdir(P(3, "%s/fs", top));
	}
	if (tmpfs[0]) {
		unlink(P(3, "%s/file", tmpfs));
		umount2(tmpfs, MNT_DETACH);
		rmdir(tmpfs);
	}
	unlink(P(3, "%s/plain", top));
	rmdir(P(3, "%s/notbpf", top));
	rmdir(top);
	top[0] = 0;
}

static void test_mount(void)
{
	int err = kiln_bpffs_check_or_mount(root);
	CHECK("mount: a bpffs on a fresh directory (created)", !err && kiln_bpffs_is(root), "%d %s", err,
	      kiln_errmsg());
	struct statfs sf;
	CHECK("mount: statfs says bpffs", !statfs(root, &sf) && (unsigned long)sf.f_type == 0xcafe4a11,
	      "magic %#lx", (unsigned long)sf.f_type);
	struct stat st;
	CHECK("mount: mode 0700", !stat(root, &st) && (st.st_mode & 0777) == 0700, "mode %o", st.st_mode & 07777);
	err = kiln_bpffs_check_or_mount(root);
	CHECK("mount: a second time finds it mounted", !err, "%d %s", err, kiln_errmsg());
	CHECK("mount: /sys/fs/bpf (the default) is fine", !kiln_bpffs_check_or_mount(NULL), "%s", kiln_errmsg());
	CHECK("mount: /tmp is no bpffs", !kiln_bpffs_is(top) && !kiln_bpffs_is("/no/such/dir"), "it is");

	if (mkdir(tmpfs, 0700) || mount("tmpfs", tmpfs, "tmpfs", 0, "size=1m")) {
		CHECK("mount: a tmpfs to refuse", 0, "%s", strerror(errno));
		tmpfs[0] = 0;
	} else {
		close(open(P(3, "%s/file", tmpfs), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
		err = kiln_bpffs_check_or_mount(tmpfs);
		CHECK("mount: refuses to mount over another filesystem", err == -EBUSY && !kiln_bpffs_is(tmpfs) &&
		      has(kiln_errmsg(), tmpfs) && has(kiln_errmsg(), "another filesystem") &&
		      exists(P(3, "%s/file", tmpfs)), "%d %s", err, kiln_errmsg());
	}
	close(open(P(0, "%s/plain", top), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	err = kiln_bpffs_check_or_mount(P(0, "%s/plain", top));
	CHECK("mount: a file is -ENOTDIR", err == -ENOTDIR, "%d %s", err, kiln_errmsg());
}

static struct kiln_map *mkmap(const char *name, uint32_t value_size)
{
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = name, .type = BPF_MAP_TYPE_HASH, .key_size = 4,
		.value_size = value_size, .max_entries = 64,
	};
	struct kiln_map *m = NULL;
	if (kiln_map_create(&spec, &m))
		printf("FAIL create %s: %s\n", name, kiln_errmsg());
	return m;
}

static void test_pin(void)
{
	struct kiln_map *m = mkmap("kl_pin_test", 8);
	if (!m)
		return;
	uint32_t id = kiln_map_info(m)->id;
	const char *path = P(0, "%s/a/b/c/kl_pin_test", root);
	int err = kiln_map_pin(m, path);
	CHECK("pin: with missing parent directories", !err && exists(P(1, "%s/a/b/c", root)), "%d %s", err,
	      kiln_errmsg());
	int fd = kiln_pin_get(path);
	CHECK("pin: get gives the same map", fd >= 0 && fd_id(fd) == id, "%d %s", fd, kiln_errmsg());
	if (fd >= 0)
		close(fd);
	struct kiln_map *o = NULL;
	err = kiln_map_open_pinned(path, &o);
	CHECK("pin: open pinned", !err && kiln_map_info(o)->id == id && !strcmp(kiln_map_name(o), "kl_pin_test"),
	      "%d %s", err, kiln_errmsg());
	kiln_map_close(o);
	err = kiln_pin(kiln_map_fd(m), path);
	CHECK("pin: again at the same path is -EEXIST naming the syscall and path", err == -EEXIST &&
	      has(kiln_errmsg(), "BPF_OBJ_PIN") && has(kiln_errmsg(), path), "%d %s", err, kiln_errmsg());
	err = kiln_pin(kiln_map_fd(m), P(1, "%s/kl_top", root));
	CHECK("pin: directly under the root", !err && pinned_id(pathbuf[1]) == id, "%d %s", err, kiln_errmsg());

	err = kiln_pin(kiln_map_fd(m), P(1, "%s/kl.dotted", root));
	CHECK("pin: bpffs keeps dotted names for itself", err == -EPERM && has(kiln_errmsg(), "kl.dotted"),
	      "%d %s", err, kiln_errmsg());

	/* somewhere that is no bpffs: refused before any directory is made */
	err = kiln_pin(kiln_map_fd(m), P(1, "%s/notbpf/x/pin", top));
	CHECK("pin: off bpffs is refused, no directories made", err == -EINVAL && !exists(P(2, "%s/notbpf", top)) &&
	      has(kiln_errmsg(), "not on a bpffs"), "%d %s", err, kiln_errmsg());
	err = kiln_unpin(P(1, "%s/plain", top));
	CHECK("unpin: a file off bpffs is left alone", err == -EINVAL && exists(pathbuf[1]), "%d %s", err,
	      kiln_errmsg());

	/* a pinned program is not a map */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "kl_pin_prog", "GPL", insns, 2, NULL);
	err = prog >= 0 ? kiln_pin(prog, P(1, "%s/progs/kl_pin_prog", root)) : prog;
	CHECK("pin: a program", !err, "%d %s", err, kiln_errmsg());
	if (prog >= 0)
		close(prog);
	o = NULL;
	err = kiln_map_open_pinned(pathbuf[1], &o);
	CHECK("pin: open pinned of a program is not a map", err == -EINVAL && !o &&
	      has(kiln_errmsg(), "not a BPF map"), "%d %s", err, kiln_errmsg());

	err = kiln_unpin(path);
	CHECK("unpin", !err && !exists(path) && exists(P(1, "%s/a/b/c", root)), "%d %s", err, kiln_errmsg());
	fd = kiln_pin_get(path);
	CHECK("unpin: get is -ENOENT after", fd == -ENOENT && has(kiln_errmsg(), "BPF_OBJ_GET"), "%d %s", fd,
	      kiln_errmsg());
	CHECK("unpin: the map lives on while held", fd_id(kiln_map_fd(m)) == id, "gone");
	err = kiln_unpin(P(1, "%s/a/b", root));
	CHECK("unpin: a directory is refused", err == -EISDIR && exists(pathbuf[1]), "%d %s", err, kiln_errmsg());
	kiln_map_close(m);
}

static void test_open_or_create(void)
{
	const char *path = P(0, "%s/ooc/maps/kl_ooc", root);
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = "kl_ooc", .type = BPF_MAP_TYPE_HASH, .key_size = 4,
		.value_size = 8, .max_entries = 1024,
	};
	struct kiln_map *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;
	bool created = false;
	int err = kiln_map_open_or_create(path, &spec, 0, &m1, &created);
	CHECK("open-or-create: creates and pins the first time", !err && m1 && created &&
	      pinned_id(path) == kiln_map_info(m1)->id, "%d %s", err, kiln_errmsg());
	if (err)
		return;
	uint32_t id1 = kiln_map_info(m1)->id, k = 7;
	uint64_t v = 99;
	kiln_map_update(m1, &k, &v, BPF_ANY);
	created = true;
	err = kiln_map_open_or_create(path, &spec, 0, &m2, &created);
	CHECK("open-or-create: opens the second time", !err && !created && kiln_map_info(m2)->id == id1 &&
	      !kiln_map_lookup(m2, &k, &v) && v == 99, "%d created %d %s", err, created, kiln_errmsg());
	kiln_map_close(m2);

	spec.value_size = 16;
	created = true;
	err = kiln_map_open_or_create(path, &spec, 0, &m3, &created);
	CHECK("open-or-create: a different value size is -EEXIST naming both shapes", err == -EEXIST && !m3 &&
	      !created && has(kiln_errmsg(), path) && has(kiln_errmsg(), "hash key 4 value 8 max 1024 flags 0") &&
	      has(kiln_errmsg(), "want hash key 4 value 16 max 1024 flags 0") && pinned_id(path) == id1,
	      "%d '%s'", err, kiln_errmsg());
	spec.value_size = 8;
	spec.flags = BPF_F_NO_PREALLOC;
	err = kiln_map_open_or_create(path, &spec, 0, &m3, &created);
	CHECK("open-or-create: different flags are -EEXIST too", err == -EEXIST && has(kiln_errmsg(), "flags 0x1"),
	      "%d '%s'", err, kiln_errmsg());
	spec.flags = 0;
	spec.value_size = 16;
	created = false;
	err = kiln_map_open_or_create(path, &spec, KILN_MAP_RECREATE, &m3, &created);
	uint32_t id3 = m3 ? kiln_map_info(m3)->id : 0;
	CHECK("open-or-create: RECREATE replaces it", !err && created && id3 && id3 != id1 &&
	      kiln_map_info(m3)->value_size == 16 && pinned_id(path) == id3, "%d created %d %s", err, created,
	      kiln_errmsg());
	DIR *d = opendir(P(1, "%s/ooc/maps", root));
	int entries = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		entries += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK("open-or-create: the old pin is gone, nothing left beside it", entries == 1, "%d entries", entries);
	CHECK("open-or-create: the old map lives on in whoever holds it", fd_id(kiln_map_fd(m1)) == id1 &&
	      !kiln_map_lookup(m1, &k, &v) && v == 99, "%s", kiln_errmsg());
	created = true;
	err = kiln_map_open_or_create(path, &spec, KILN_MAP_RECREATE, &m4, &created);
	CHECK("open-or-create: RECREATE of a compatible map just opens it", !err && !created &&
	      kiln_map_info(m4)->id == id3, "%d created %d %s", err, created, kiln_errmsg());
	kiln_map_close(m1);
	kiln_map_close(m3);
	kiln_map_close(m4);

	spec.type = BPF_MAP_TYPE_RINGBUF;
	spec.key_size = spec.value_size = 0;
	spec.max_entries = 4097;
	err = kiln_map_open_or_create(P(1, "%s/ooc/bad", root), &spec, 0, &m1, NULL);
	CHECK("open-or-create: a create error is passed on, nothing pinned", err == -EINVAL &&
	      has(kiln_errmsg(), "BPF_MAP_CREATE") && !exists(pathbuf[1]), "%d %s", err, kiln_errmsg());
}

static void test_unpin_tree(void)
{
	struct kiln_map *m = mkmap("kl_tree", 8);
	if (!m)
		return;
	int err = 0;
	const char *leaves[] = { "t/maps/a", "t/maps/b", "t/progs/deep/er/c", "t/d" };
	for (size_t i = 0; i < 4 && !err; i++)
		err = kiln_map_pin(m, P(0, "%s/%s", root, leaves[i]));
	mkdir(P(0, "%s/t/empty", root), 0700);
	CHECK("unpin tree: pins in nested directories", !err && exists(P(0, "%s/t/progs/deep/er/c", root)), "%s",
	      kiln_errmsg());
	err = kiln_unpin_tree(P(0, "%s/t", root));
	CHECK("unpin tree: all gone, directory and all", !err && !exists(pathbuf[0]) &&
	      exists(root), "%d %s", err, kiln_errmsg());
	err = kiln_unpin_tree(P(0, "%s/t", root));
	CHECK("unpin tree: a missing directory is -ENOENT", err == -ENOENT && has(kiln_errmsg(), pathbuf[0]),
	      "%d %s", err, kiln_errmsg());
	if (tmpfs[0]) {
		err = kiln_unpin_tree(tmpfs);
		CHECK("unpin tree: refuses a directory off bpffs", err == -EINVAL && exists(P(0, "%s/file", tmpfs)),
		      "%d %s", err, kiln_errmsg());
	}
	/* the bpffs root itself: emptied, and still mounted; what the kernel put there itself
	 * (maps.debug, progs.debug: the preloaded iterators, dotted names) stays */
	kiln_map_pin(m, P(0, "%s/r/x", root));
	err = kiln_unpin_tree(root);
	DIR *d = opendir(root);
	int entries = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		entries += !strchr(e->d_name, '.');
	if (d)
		closedir(d);
	CHECK("unpin tree: of the bpffs root empties it and leaves it mounted", !err && !entries &&
	      kiln_bpffs_is(root), "%d entries %d %s", err, entries, kiln_errmsg());
	CHECK("unpin tree: the map lives on while held", fd_id(kiln_map_fd(m)) > 0, "gone");
	kiln_map_close(m);
}

/* kiln_pin_record + kiln_unload: only what the record lists, and only if nothing else is there */
static void test_unload(void)
{
	struct kiln_map *a = mkmap("kl_rec_a", 8), *b = mkmap("kl_rec_b", 8), *other = mkmap("kl_other", 8);
	const char *dir = P(0, "%s/ld", root);
	struct kiln_pin_entry e[] = { { "maps/a", kiln_map_fd(a) }, { "maps/b", kiln_map_fd(b) } };
	int err = kiln_pin_record(dir, e, 2);
	err = err ? err : kiln_map_pin(a, P(1, "%s/maps/a", dir));
	err = err ? err : kiln_map_pin(b, P(1, "%s/maps/b", dir));
	CHECK("unload: record and pins made", !err && exists(P(1, "%s/kiln", dir)), "%d %s", err, kiln_errmsg());
	/* a pin nobody recorded: nothing is removed */
	kiln_map_pin(other, P(1, "%s/maps/c", dir));
	err = kiln_unload(dir, 0);
	CHECK("unload: an unrecorded pin refuses, naming it", err == -EPERM && has(kiln_errmsg(), "maps/c") &&
	      exists(P(1, "%s/maps/a", dir)) && exists(P(2, "%s/maps/c", dir)), "%d %s", err, kiln_errmsg());
	unlink(P(1, "%s/maps/c", dir));
	/* the same name holding another map than the recorded one */
	unlink(P(1, "%s/maps/b", dir));
	kiln_map_pin(other, P(1, "%s/maps/b", dir));
	err = kiln_unload(dir, 0);
	CHECK("unload: a replaced pin refuses", err == -EPERM && has(kiln_errmsg(), "maps/b") &&
	      exists(P(1, "%s/maps/a", dir)), "%d %s", err, kiln_errmsg());
	unlink(P(1, "%s/maps/b", dir));
	kiln_map_pin(b, P(1, "%s/maps/b", dir));
	err = kiln_unload(dir, 0);
	CHECK("unload: what the record lists goes, directory and all", !err && !exists(dir), "%d %s", err,
	      kiln_errmsg());
	CHECK("unload: the maps live on while held", fd_id(kiln_map_fd(a)) > 0 && fd_id(kiln_map_fd(b)) > 0, "gone");
	/* no record: refused unless forced; the bpffs root: always refused */
	kiln_map_pin(other, P(1, "%s/nr/x", root));
	err = kiln_unload(P(0, "%s/nr", root), 0);
	CHECK("unload: no record refuses", err == -EPERM && exists(pathbuf[1]), "%d %s", err, kiln_errmsg());
	err = kiln_unload(pathbuf[0], KILN_UNLOAD_FORCE);
	CHECK("unload: --force removes it", !err && !exists(pathbuf[0]), "%d %s", err, kiln_errmsg());
	kiln_map_pin(other, P(1, "%s/keep", root));
	err = kiln_unload(root, KILN_UNLOAD_FORCE);
	CHECK("unload: the bpffs root is refused even forced", err == -EPERM && exists(pathbuf[1]) &&
	      has(kiln_errmsg(), "mount point"), "%d %s", err, kiln_errmsg());
	unlink(pathbuf[1]);
	kiln_map_close(a);
	kiln_map_close(b);
	kiln_map_close(other);
}

/* The names pins get, and a record refused before anything is made: names with '/', "..",
 * control bytes or none, two names bpffs spells alike, and a DIR/maps that is a symlink
 * out of DIR. */
static void test_pin_names(void)
{
	char out[NAME_MAX + 1];
	static const struct { const char *name, *want; } ok[] = {
		{ "counts", "counts" }, { "glob.rodata", "glob_rodata" }, { ".bss", "_bss" },
		{ "a.b.c", "a_b_c" }, { "caf\xc3\xa9", "caf\xc3\xa9" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int err = kiln_pin_name(ok[i].name, out, sizeof(out));
		CHECK("pin names: a '.' is pinned as '_'", !err && !strcmp(out, ok[i].want), "%s: %d '%s' %s",
		      ok[i].name, err, out, kiln_errmsg());
	}
	char longname[NAME_MAX + 2];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	static const char *const bad[] = { "", "a/b", "/abs", "abcdefghijklmno/../../../x", "..", "a..b",
					   "x\n", "\x1b[2Jx", "del\x7f", NULL };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = kiln_pin_name(bad[i], out, sizeof(out));
		CHECK("pin names: refused", err == -EINVAL && has(kiln_errmsg(), "cannot name a pin") &&
		      !strchr(kiln_errmsg(), '\x1b') && !strchr(kiln_errmsg(), '\n'), "'%s': %d %s",
		      bad[i] ? bad[i] : "(null)", err, kiln_errmsg());
	}
	CHECK("pin names: longer than a file name refused", kiln_pin_name(longname, out, sizeof(out)) == -EINVAL,
	      "%s", kiln_errmsg());
	CHECK("pin names: too small a buffer", kiln_pin_name("glob.rodata", out, 5) == -ENAMETOOLONG, "%s",
	      kiln_errmsg());

	struct kiln_map *a = mkmap("kl_nm_a", 8), *b = mkmap("kl_nm_b", 8);
	const char *dir = P(0, "%s/names", root);
	static const char *const paths[] = { "maps/../../x", "maps/a.b", "maps/a/b", "maps/", "other/a", "progs/..",
					     "maps/x\x1b", "../maps/a" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct kiln_pin_entry e[] = { { "maps/ok", kiln_map_fd(a) }, { paths[i], kiln_map_fd(b) } };
		int err = kiln_pin_record(dir, e, 2);
		CHECK("pin record: an entry leaving DIR is refused, nothing made", err == -EINVAL && !exists(dir) &&
		      !exists(P(1, "%s/x", root)), "'%s': %d %s", paths[i], err, kiln_errmsg());
	}
	struct kiln_pin_entry dup[] = { { "maps/glob_rodata", kiln_map_fd(a) }, { "maps/glob_rodata", kiln_map_fd(b) } };
	int err = kiln_pin_record(dir, dup, 2);
	CHECK("pin record: two pins at one path refused, nothing made", err == -EEXIST && !exists(dir), "%d %s", err,
	      kiln_errmsg());
	/* DIR/maps a symlink to a directory outside DIR: refused, nothing made in either */
	mkdir(P(1, "%s/elsewhere", root), 0700);
	mkdir(dir, 0700);
	symlink(P(1, "%s/elsewhere", root), P(2, "%s/maps", dir));
	struct kiln_pin_entry e[] = { { "maps/a", kiln_map_fd(a) } };
	err = kiln_pin_record(dir, e, 1);
	CHECK("pin record: a DIR/maps symlink out of DIR refused", err == -EXDEV && !exists(P(1, "%s/kiln", dir)) &&
	      !exists(P(2, "%s/elsewhere/a", root)), "%d %s", err, kiln_errmsg());
	unlink(P(2, "%s/maps", dir));
	rmdir(dir);
	rmdir(P(1, "%s/elsewhere", root));

	/* a record made by hand, as kiln's own, whose entry leads out of DIR to a pin of the
	 * same map: unload does not follow it */
	struct { uint32_t id, kind; char path[248]; } forged = { fd_id(kiln_map_fd(a)), 1, "maps/../../victim" };
	uint32_t k = 0;
	int rfd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kiln_pins", 4, sizeof(forged), 1, NULL);
	err = rfd < 0 ? rfd : bpf_map_update_elem(rfd, &k, &forged, 0);
	err = err ? err : kiln_map_pin(a, P(1, "%s/victim", root));
	err = err ? err : kiln_pin(rfd, P(2, "%s/kiln", dir));
	err = err ? err : mkdir(P(2, "%s/maps", dir), 0700) ? -errno : 0;   /* so that maps/.. resolves */
	CHECK("unload: a forged record made", !err, "%d %s", err, kiln_errmsg());
	err = kiln_unload(dir, 0);
	CHECK("unload: a record entry out of DIR is not followed", !err && exists(P(1, "%s/victim", root)) &&
	      !exists(dir), "%d %s; victim %s", err, kiln_errmsg(), exists(pathbuf[1]) ? "kept" : "unpinned");
	unlink(P(1, "%s/victim", root));
	if (rfd >= 0)
		close(rfd);
	kiln_map_close(a);
	kiln_map_close(b);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP test_pin: needs root to mount bpffs\n");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fds_before = check_open_fds();
	snprintf(top, sizeof(top), "/tmp/kl_pin.XXXXXX");
	if (!mkdtemp(top)) {
		CHECK("mkdtemp", 0, "%s", strerror(errno));
		return CHECK_DONE();
	}
	atexit(cleanup);
	snprintf(root, sizeof(root), "%s/fs/bpf", top);
	snprintf(tmpfs, sizeof(tmpfs), "%s/tmpfs", top);
	test_mount();
	if (kiln_bpffs_is(root)) {
		test_pin();
		test_open_or_create();
		test_unpin_tree();
		test_unload();
		test_pin_names();
	}
	char was[sizeof(top)];
	memcpy(was, top, sizeof(top));
	cleanup();
	CHECK("cleanup: nothing left in /tmp", !exists(was), "left %s", was);
	int fds_after = check_open_fds();
	CHECK("no fd leaks", fds_before == fds_after, "%d fds before, %d after", fds_before, fds_after);
	return CHECK_DONE();
}
