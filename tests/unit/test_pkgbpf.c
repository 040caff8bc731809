/* test_pkgbpf.c — the rest of Cilium's pkg/bpf in libkiln, on the running kernel (as root):
 * map root and prefix and the paths built from them (with threads setting and reading them),
 * the tc environment (through a real exec), pre-allocation flags checked against the kernel
 * for every map type (the flags given must be taken and the opposite refused where the kernel
 * has no choice), delete-all on hash, LRU, per-CPU, lpm-trie, arrays, fd arrays and queues,
 * and with another thread changing the map under it; dump-if-exists; an entry of a kiln
 * object's map with defstruct key and value decoded by the map's BTF from the kernel; a
 * program's bpf_ktime_get_ns()/bpf_ktime_get_boot_ns() turned into wall time; parallel mode
 * (the old map stays where it was and with its holders until the new one is renamed over
 * it). Pins live under /sys/fs/bpf/kiln_test_pkgbpf_PID and are removed. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char pin_dir[128];
static char tmp[128];

static struct kiln_map *mk(enum bpf_map_type t, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags,
			   int inner)
{
	struct kiln_map_spec s = { .sz = sizeof(s), .name = "kt_pkgbpf", .type = t, .key_size = ks,
				   .value_size = vs, .max_entries = max, .flags = flags, .inner_map_fd = inner };
	struct kiln_map *m = NULL;
	kiln_map_create(&s, &m);
	return m;
}

static uint32_t count_entries(struct kiln_map *m)
{
	unsigned char key[64], next[64];
	uint32_t n = 0;
	const void *prev = NULL;
	while (!bpf_map_get_next_key(kiln_map_fd(m), prev, next) && n < 1000000) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return n;
}

/* ---- 1. root, prefix, paths --------------------------------------------------------------- */

struct flip {
	int rounds;
	bool bad;
};

static void *flip_root(void *arg)
{
	struct flip *f = arg;
	for (int i = 0; i < f->rounds; i++)
		kiln_map_set_root(i % 2 ? "/sys/fs/bpf" : "/run/kiln-test-root");
	return NULL;
}

static void *read_paths(void *arg)
{
	struct flip *f = arg;
	char buf[PATH_MAX];
	for (int i = 0; i < f->rounds; i++) {
		const char *r = kiln_map_root();
		if (strcmp(r, "/sys/fs/bpf") && strcmp(r, "/run/kiln-test-root"))
			f->bad = true;
		if (kiln_map_path("m", buf, sizeof(buf)) ||
		    (strcmp(buf, "/sys/fs/bpf/tc/globals/m") && strcmp(buf, "/run/kiln-test-root/tc/globals/m")))
			f->bad = true;
	}
	return NULL;
}

static void test_paths(void)
{
	char buf[PATH_MAX];
	CHECK("paths: default root", !strcmp(kiln_map_root(), "/sys/fs/bpf"), "%s", kiln_map_root());
	CHECK("paths: default prefix", !strcmp(kiln_map_prefix(), "tc/globals"), "%s", kiln_map_prefix());
	int err = kiln_map_prefix_path(buf, sizeof(buf));
	CHECK("paths: prefix path", !err && !strcmp(buf, "/sys/fs/bpf/tc/globals"), "%d %s", err, buf);
	err = kiln_map_path("cilium_lxc", buf, sizeof(buf));
	CHECK("paths: map path", !err && !strcmp(buf, "/sys/fs/bpf/tc/globals/cilium_lxc"), "%d %s", err, buf);
	err = kiln_local_map_name("cilium_policy_", 42, buf, sizeof(buf));
	CHECK("paths: local map name", !err && !strcmp(buf, "cilium_policy_00042"), "%d %s", err, buf);
	err = kiln_local_map_name("x", 65535, buf, sizeof(buf));
	CHECK("paths: local map name, largest id", !err && !strcmp(buf, "x65535"), "%d %s", err, buf);
	err = kiln_local_map_path("cilium_ct4_", 7, buf, sizeof(buf));
	CHECK("paths: local map path", !err && !strcmp(buf, "/sys/fs/bpf/tc/globals/cilium_ct4_00007"), "%d %s",
	      err, buf);

	err = kiln_map_set_root("/sys/fs/bpf//");
	CHECK("paths: root's trailing slashes dropped", !err && !strcmp(kiln_map_root(), "/sys/fs/bpf"), "%d %s",
	      err, kiln_map_root());
	err = kiln_map_set_prefix("/mine/");
	CHECK("paths: prefix's slashes dropped", !err && !strcmp(kiln_map_prefix(), "mine"), "%d %s", err,
	      kiln_map_prefix());
	err = kiln_map_set_prefix("");
	kiln_map_path("m", buf, sizeof(buf));
	CHECK("paths: empty prefix", !err && !strcmp(buf, "/sys/fs/bpf/m"), "%d %s", err, buf);
	kiln_map_set_root("/");
	kiln_map_path("m", buf, sizeof(buf));
	CHECK("paths: root /", !strcmp(buf, "/m"), "%s", buf);
	kiln_map_set_prefix("p");
	kiln_map_path("m", buf, sizeof(buf));
	CHECK("paths: root / with a prefix", !strcmp(buf, "/p/m"), "%s", buf);
	const char *old = kiln_map_root();
	kiln_map_set_root(NULL);
	kiln_map_set_prefix(NULL);
	CHECK("paths: defaults again", !strcmp(kiln_map_root(), "/sys/fs/bpf") && !strcmp(kiln_map_prefix(), "tc/globals"),
	      "%s %s", kiln_map_root(), kiln_map_prefix());
	CHECK("paths: an old root pointer stays valid", !strcmp(old, "/"), "%s", old);

	CHECK("paths: relative root refused", kiln_map_set_root("sys/fs/bpf") == -EINVAL, "%s", kiln_errmsg());
	CHECK("paths: dotted prefix refused", kiln_map_set_prefix("tc/globals.v2") == -EINVAL, "%s", kiln_errmsg());
	char *big = malloc(PATH_MAX + 10);
	memset(big, 'a', PATH_MAX + 9);
	big[0] = '/';
	big[PATH_MAX + 9] = 0;
	CHECK("paths: root too long", kiln_map_set_root(big) == -ENAMETOOLONG, "%s", kiln_errmsg());
	big[PATH_MAX - 40] = 0;
	err = kiln_map_set_root(big);
	int e2 = kiln_map_path("a_rather_long_map_name_that_goes_past_the_end", buf, sizeof(buf));
	CHECK("paths: map path past PATH_MAX", !err && e2 == -ENAMETOOLONG, "%d %d", err, e2);
	kiln_map_set_root(NULL);
	free(big);
	CHECK("paths: map path past the buffer", kiln_map_path("cilium_lxc", buf, 20) == -ENAMETOOLONG && !buf[0],
	      "%s", buf);
	CHECK("paths: local name past the buffer", kiln_local_map_name("abc", 1, buf, 8) == -ENAMETOOLONG, "%s", buf);
	CHECK("paths: a name with '/' refused", kiln_map_path("a/b", buf, sizeof(buf)) == -EINVAL, "%s", kiln_errmsg());

	/* threads: one flips the root, others read it and build paths; every value read whole */
	struct flip f = { .rounds = 20000 };
	pthread_t w, r1, r2;
	pthread_create(&w, NULL, flip_root, &f);
	pthread_create(&r1, NULL, read_paths, &f);
	pthread_create(&r2, NULL, read_paths, &f);
	pthread_join(w, NULL);
	pthread_join(r1, NULL);
	pthread_join(r2, NULL);
	kiln_map_set_root(NULL);
	CHECK("paths: set and read from threads", !f.bad, "a torn or unknown root was seen");

	/* and used for real: a map pinned at kiln_map_path under a prefix of this test's own */
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "kiln_test_pkgbpf_%d/globals", (int)getpid());
	kiln_map_set_prefix(prefix);
	kiln_map_path("shared", buf, sizeof(buf));
	struct kiln_map_spec s = { .sz = sizeof(s), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				   .max_entries = 1 };
	struct kiln_map *m = NULL;
	bool created = false;
	err = kiln_map_open_or_create(buf, &s, 0, &m, &created);
	int fd = kiln_pin_get(buf);
	CHECK("paths: a map pinned at kiln_map_path", !err && created && fd >= 0, "%d %s", err, kiln_errmsg());
	if (fd >= 0)
		close(fd);
	kiln_map_close(m);
	kiln_map_set_prefix(NULL);
}

/* ---- 7. environment -------------------------------------------------------------------- */

/* What `sh -c 'echo "$TC_BPF_MNT|$KILN_PKGBPF_TEST"'` prints with env. */
static void run_env(char **env, char *out, size_t len)
{
	int p[2];
	out[0] = 0;
	if (pipe(p))
		return;
	pid_t pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		char *argv[] = { "sh", "-c", "echo \"$TC_BPF_MNT|$KILN_PKGBPF_TEST\"", NULL };
		execve("/bin/sh", argv, env);
		_exit(127);
	}
	close(p[1]);
	ssize_t n = read(p[0], out, len - 1);
	out[n > 0 ? n : 0] = 0;
	close(p[0]);
	waitpid(pid, NULL, 0);
}

static void test_environment(void)
{
	char **env = NULL, out[256];
	int n = kiln_environment(0, &env);
	CHECK("env: TC_BPF_MNT alone", n == 1 && env && !strcmp(env[0], "TC_BPF_MNT=/sys/fs/bpf") && !env[1], "%d %s",
	      n, env && env[0] ? env[0] : "");
	kiln_environment_free(env);

	kiln_map_set_root("/run/kiln-test-root");
	setenv("TC_BPF_MNT", "/somewhere/else", 1);
	setenv("KILN_PKGBPF_TEST", "kept", 1);
	n = kiln_environment(KILN_ENV_INHERIT, &env);
	int tc = 0;
	for (int i = 0; env && env[i]; i++)
		tc += !strncmp(env[i], "TC_BPF_MNT=", 11);
	CHECK("env: inherited, one TC_BPF_MNT", n > 2 && tc == 1, "%d %d", n, tc);
	run_env(env, out, sizeof(out));
	CHECK("env: a child sees kiln's root and the process's own", !strcmp(out, "/run/kiln-test-root|kept\n"),
	      "%s", out);
	kiln_environment_free(env);
	unsetenv("TC_BPF_MNT");
	unsetenv("KILN_PKGBPF_TEST");
	kiln_map_set_root(NULL);
}

/* ---- 5. pre-allocation ---------------------------------------------------------------- */

/* BTF with one int, for the local storages (the kernel wants typed keys and values). */
static int int_btf(void)
{
	struct btf *b = btf__new_empty();
	if (!b)
		return -ENOMEM;
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int err = btf__load_into_kernel(b);
	int fd = err ? err : dup(btf__fd(b));
	btf__free(b);
	return fd;
}

static int create_raw(enum bpf_map_type t, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, int inner,
		      int btf)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags, .inner_map_fd = inner > 0 ? inner : 0);
	if (btf > 0) {
		o.btf_fd = btf;
		o.btf_key_type_id = 1;
		o.btf_value_type_id = 1;
	}
	return bpf_map_create(t, "kt_prealloc", ks, vs, max, &o);
}

static void test_prealloc(void)
{
	int inner = create_raw(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, 0, 0);
	int btf = int_btf();
	struct { enum bpf_map_type t; uint32_t ks, vs, max; int choice; bool btf; } ts[] = {
		/* choice: 1 either way, 0 never NO_PREALLOC, 2 always */
		{ BPF_MAP_TYPE_HASH, 4, 8, 16, 1, false },
		{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 16, 1, false },
		{ BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 16, 1, false },
		{ BPF_MAP_TYPE_LRU_HASH, 4, 8, 16, 0, false },
		{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 4, 8, 16, 0, false },
		{ BPF_MAP_TYPE_ARRAY, 4, 8, 16, 0, false },
		{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 16, 0, false },
		{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 16, 0, false },
		{ BPF_MAP_TYPE_QUEUE, 0, 8, 16, 0, false },
		{ BPF_MAP_TYPE_STACK_TRACE, 4, 64, 16, 0, false },
		{ BPF_MAP_TYPE_DEVMAP_HASH, 4, 4, 16, 0, false },
		{ BPF_MAP_TYPE_SOCKHASH, 4, 4, 16, 0, false },
		{ BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 16, 0, false },
		{ BPF_MAP_TYPE_LPM_TRIE, 8, 8, 16, 2, false },
		{ BPF_MAP_TYPE_SK_STORAGE, 4, 4, 0, 2, true },
		{ BPF_MAP_TYPE_TASK_STORAGE, 4, 4, 0, 2, true },
	};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
			char name[96];
			const char *tn = kiln_map_type_name(ts[i].t);
			uint32_t fl = kiln_map_prealloc_flags(ts[i].t, !pass);
			uint32_t want = ts[i].choice == 2 || (ts[i].choice == 1 && pass) ? BPF_F_NO_PREALLOC : 0;
			snprintf(name, sizeof(name), "prealloc %s: %s flags", pass ? "off" : "on", tn);
			CHECK(name, fl == want, "%#x, want %#x", fl, want);
			int fd = create_raw(ts[i].t, ts[i].ks, ts[i].vs, ts[i].max, fl, inner, ts[i].btf ? btf : 0);
			struct bpf_map_info mi = { 0 };
			uint32_t len = sizeof(mi);
			if (fd >= 0)
				bpf_obj_get_info_by_fd(fd, &mi, &len);
			snprintf(name, sizeof(name), "prealloc %s: the kernel takes %s's", pass ? "off" : "on", tn);
			CHECK(name, fd >= 0 && (mi.map_flags & BPF_F_NO_PREALLOC) == fl, "%s (flags %#x)",
			      fd < 0 ? strerror(-fd) : "", mi.map_flags);
			if (fd >= 0)
				close(fd);
			/* the other way is refused where the kernel allows one way only */
			fd = create_raw(ts[i].t, ts[i].ks, ts[i].vs, ts[i].max, fl ^ BPF_F_NO_PREALLOC, inner,
				       ts[i].btf ? btf : 0);
			snprintf(name, sizeof(name), "prealloc %s: %s the other way %s", pass ? "off" : "on", tn,
				 ts[i].choice == 1 ? "taken" : "refused");
			CHECK(name, (fd >= 0) == (ts[i].choice == 1), "fd %d", fd);
			if (fd >= 0)
				close(fd);
		}
	}
	CHECK("prealloc: one caller's switch is not another's",
	      kiln_map_prealloc_flags(BPF_MAP_TYPE_HASH, true) == 0 &&
	      kiln_map_prealloc_flags(BPF_MAP_TYPE_HASH, false) == BPF_F_NO_PREALLOC, "not per call");
	if (inner >= 0)
		close(inner);
	if (btf >= 0)
		close(btf);
}

/* ---- 2. delete all -------------------------------------------------------------------- */

struct churn {
	struct kiln_map *m;
	bool stop;                /* both read and written with __atomic builtins */
	uint32_t base, n;        /* inserts and deletes keys base.. base+n, and deletes 0..n/2 */
	bool lpm;
	uint64_t ops;
};

static void make_key(bool lpm, uint32_t i, void *key)
{
	if (lpm) {
		uint32_t k[2] = { 32, i };   /* prefix length, then the address */
		memcpy(key, k, 8);
	} else {
		memcpy(key, &i, 4);
	}
}

static void *churn_fn(void *arg)
{
	struct churn *c = arg;
	uint64_t v = 7;
	unsigned char key[8];
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		for (uint32_t i = 0; i < c->n && !__atomic_load_n(&c->stop, __ATOMIC_RELAXED); i++) {
			make_key(c->lpm, c->base + i, key);
			bpf_map_update_elem(kiln_map_fd(c->m), key, &v, BPF_ANY);
			make_key(c->lpm, i / 2, key);
			bpf_map_delete_elem(kiln_map_fd(c->m), key);   /* some of those delete_all wants */
			make_key(c->lpm, c->base + i, key);
			bpf_map_delete_elem(kiln_map_fd(c->m), key);
			__atomic_fetch_add(&c->ops, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* n entries in a keyed map (keys 0..n-1), delete_all with another thread churning, then
 * none of those keys is left. */
static void delete_all_under_churn(const char *what, enum bpf_map_type t, bool lpm, uint32_t n)
{
	char name[96];
	struct kiln_map *m = mk(t, lpm ? 8 : 4, 8, 2 * n + 64, lpm ? BPF_F_NO_PREALLOC : 0, 0);
	if (!m) {
		snprintf(name, sizeof(name), "delete_all %s: create", what);
		CHECK(name, false, "%s", kiln_errmsg());
		return;
	}
	unsigned char key[8];
	uint64_t v = 1;
	for (uint32_t i = 0; i < n; i++) {
		make_key(lpm, i, key);
		kiln_map_update(m, key, &v, BPF_ANY);
	}
	uint64_t count = 0;
	int err = kiln_map_delete_all(m, &count);
	uint32_t left = count_entries(m);
	snprintf(name, sizeof(name), "delete_all %s: all %u gone", what, n);
	CHECK(name, !err && count == n && left == 0, "%d %s, %llu deleted, %u left", err, kiln_errmsg(),
	      (unsigned long long)count, left);

	for (uint32_t i = 0; i < n; i++) {
		make_key(lpm, i, key);
		kiln_map_update(m, key, &v, BPF_ANY);
	}
	struct churn c = { .m = m, .base = 1u << 20, .n = 64, .lpm = lpm };
	pthread_t th;
	pthread_create(&th, NULL, churn_fn, &c);
	while (!__atomic_load_n(&c.ops, __ATOMIC_RELAXED))
		sched_yield();
	err = kiln_map_delete_all(m, &count);
	__atomic_store_n(&c.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	uint32_t survivors = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t got;
		make_key(lpm, i, key);
		survivors += !bpf_map_lookup_elem(kiln_map_fd(m), key, &got);
	}
	snprintf(name, sizeof(name), "delete_all %s: with another thread changing it", what);
	CHECK(name, !err && survivors == 0 && c.ops > 0, "%d %s, %u of the first %u left (%llu churn ops)", err,
	      kiln_errmsg(), survivors, n, (unsigned long long)c.ops);
	kiln_map_close(m);
}

static bool all_zero(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i])
			return false;
	return true;
}

static void test_delete_all(void)
{
	delete_all_under_churn("hash", BPF_MAP_TYPE_HASH, false, 5000);
	delete_all_under_churn("lru hash", BPF_MAP_TYPE_LRU_HASH, false, 1000);
	delete_all_under_churn("lpm trie", BPF_MAP_TYPE_LPM_TRIE, true, 5000);

	/* per-CPU hash: values of every CPU */
	struct kiln_map *m = mk(BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 64, 0, 0);
	void *vals = calloc(1, m ? kiln_map_value_buf_size(m) : 8);
	for (uint32_t i = 0; m && i < 40; i++)
		kiln_map_update(m, &i, vals, BPF_ANY);
	uint64_t count = 0;
	int err = m ? kiln_map_delete_all(m, &count) : -1;
	CHECK("delete_all percpu hash", !err && count == 40 && count_entries(m) == 0, "%d %llu %s", err,
	      (unsigned long long)count, kiln_errmsg());
	kiln_map_close(m);
	free(vals);

	/* arrays: every value zeroed, every CPU's too */
	m = mk(BPF_MAP_TYPE_ARRAY, 4, 12, 5000, 0, 0);
	uint32_t v3[3] = { 1, 2, 3 };
	for (uint32_t i = 0; m && i < 5000; i += 7)
		kiln_map_update(m, &i, v3, BPF_ANY);
	err = m ? kiln_map_delete_all(m, &count) : -1;
	bool zero = true;
	for (uint32_t i = 0; m && i < 5000; i++) {
		uint32_t got[3];
		zero &= !kiln_map_lookup(m, &i, got) && all_zero(got, sizeof(got));
	}
	CHECK("delete_all array: every value zeroed", !err && zero && count == 5000, "%d %llu %s", err,
	      (unsigned long long)count, kiln_errmsg());
	kiln_map_close(m);

	m = mk(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, 0);
	size_t bs = m ? kiln_map_value_buf_size(m) : 8;
	unsigned char *pv = malloc(bs), *got = malloc(bs);
	memset(pv, 0x5a, bs);
	for (uint32_t i = 0; m && i < 4; i++)
		kiln_map_update(m, &i, pv, BPF_ANY);
	err = m ? kiln_map_delete_all(m, NULL) : -1;
	zero = true;
	for (uint32_t i = 0; m && i < 4; i++)
		zero &= !kiln_map_lookup(m, &i, got) && all_zero(got, bs);
	CHECK("delete_all percpu array: every CPU's value zeroed", !err && zero, "%d %s", err, kiln_errmsg());
	kiln_map_close(m);
	free(pv);
	free(got);

	/* an fd array: slots cleared */
	struct kiln_map *in = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, 0);
	m = in ? mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 8, 0, kiln_map_fd(in)) : NULL;
	int ifd = in ? kiln_map_fd(in) : -1;
	for (uint32_t i = 1; m && i < 8; i += 2)
		kiln_map_update(m, &i, &ifd, BPF_ANY);
	err = m ? kiln_map_delete_all(m, &count) : -1;
	uint32_t held = 0;
	for (uint32_t i = 0; m && i < 8; i++) {
		uint32_t id;
		held += !bpf_map_lookup_elem(kiln_map_fd(m), &i, &id);
	}
	CHECK("delete_all array of maps: slots cleared", !err && count == 4 && held == 0, "%d %llu %u %s", err,
	      (unsigned long long)count, held, kiln_errmsg());
	kiln_map_close(m);
	kiln_map_close(in);

	/* a queue: popped empty */
	m = mk(BPF_MAP_TYPE_QUEUE, 0, 8, 16, 0, 0);
	for (uint64_t i = 0; m && i < 10; i++)
		kiln_map_push(m, &i, BPF_ANY);
	err = m ? kiln_map_delete_all(m, &count) : -1;
	uint64_t e;
	CHECK("delete_all queue: popped empty", !err && count == 10 && m && kiln_map_peek(m, &e) == -ENOENT, "%d %llu",
	      err, (unsigned long long)count);
	kiln_map_close(m);

	/* a bloom filter cannot forget: the kernel's error */
	m = mk(BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 16, 0, 0);
	err = m ? kiln_map_delete_all(m, NULL) : 0;
	CHECK("delete_all bloom filter: refused", err < 0, "%d", err);
	kiln_map_close(m);
}

/* ---- 3. dump if exists ---------------------------------------------------------------- */

static int count_cb(const void *key, const void *value, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_dump_if_exists(void)
{
	char path[256];
	int calls = 0;
	struct kiln_map_dump_stats st;
	snprintf(path, sizeof(path), "%s/absent", pin_dir);
	int err = kiln_map_dump_pinned_if_exists(path, count_cb, &calls, NULL, &st);
	CHECK("dump if exists: nothing pinned", !err && !calls && !st.completed, "%d %d", err, calls);
	snprintf(path, sizeof(path), "%s/no/such/dir/m", pin_dir);
	err = kiln_map_dump_pinned_if_exists(path, count_cb, &calls, NULL, NULL);
	CHECK("dump if exists: no directory", !err && !calls, "%d %d", err, calls);

	snprintf(path, sizeof(path), "%s/present", pin_dir);
	struct kiln_map *m = mk(BPF_MAP_TYPE_HASH, 4, 8, 16, 0, 0);
	uint64_t v = 3;
	for (uint32_t i = 0; m && i < 5; i++)
		kiln_map_update(m, &i, &v, BPF_ANY);
	err = m ? kiln_map_pin(m, path) : -1;
	kiln_map_close(m);
	err = err ? err : kiln_map_dump_pinned_if_exists(path, count_cb, &calls, NULL, &st);
	CHECK("dump if exists: pinned", !err && calls == 5 && st.completed && st.entries == 5, "%d %d %s", err, calls,
	      kiln_errmsg());
	kiln_unpin(path);
}

/* ---- 4. key and value decoded by BTF, 6. ktime ---------------------------------------- */

static const char kv_src[] =
	"(defstruct flow-key (saddr :ipv4) (dport u16) (proto u8) (pad u8))\n"
	"(defstruct flow-stats (packets u64) (bytes u64) (comm (array char 16)) (delta i32))\n"
	"(defmap flows :type :hash :key flow-key :value flow-stats :max-entries 16)\n"
	"(defmap pcpu :type :percpu-array :key u32 :value flow-stats :max-entries 2)\n"
	"(defmap stamps :type :array :key u32 :value u64 :max-entries 2)\n"
	"(defprog stamp (:type :xdp)\n"
	"  (setf (getmap stamps 0) (ktime-get-ns))\n"
	"  (setf (getmap stamps 1) (ktime-get-boot-ns))\n"
	"  (when-let ((f (getmap pcpu 0))) (incf (flow-stats-packets f)))\n"
	"  XDP_PASS)\n";

struct flow_key {
	uint8_t saddr[4];
	uint16_t dport;
	uint8_t proto, pad;
};
struct flow_stats {
	uint64_t packets, bytes;
	char comm[16];
	int32_t delta;
	uint32_t tail_pad;
};

/* src written to tmp/file, compiled, opened (with pin_root, if given) and loaded. */
static struct kiln_object *load_src(const char *file, const char *src, const char *pin_root)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmp, file);
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(src, f);
	fclose(f);
	struct kiln_object_opts o = { .sz = sizeof(o), .pin_root = pin_root };
	struct kiln_object *obj = NULL;
	if (kiln_object_open(path, &o, &obj) || kiln_object_load(obj)) {
		kiln_object_close(obj);
		return NULL;
	}
	return obj;
}

static void test_format_kv(struct kiln_object *obj)
{
	char buf[1024];
	struct kiln_map *flows = kiln_object_find_map(obj, "flows");
	struct flow_key k = { { 10, 1, 2, 3 }, 443, 6, 0 };
	struct flow_stats v = { 12, 3456, "curl", -5, 0 };
	int err = flows ? kiln_map_update(flows, &k, &v, BPF_ANY) : -ENOENT;
	CHECK("format_kv: an entry written", !err, "%s", kiln_errmsg());
	/* read back from the kernel through a fresh handle: the BTF is the kernel's */
	struct kiln_map *m = NULL;
	err = flows ? kiln_map_open_id(kiln_map_info(flows)->id, &m) : -ENOENT;
	struct flow_stats got = { 0 };
	if (!err)
		err = kiln_map_lookup(m, &k, &got);
	CHECK("format_kv: the map has BTF key and value types", !err && kiln_map_info(m)->btf_key_type_id &&
	      kiln_map_info(m)->btf_value_type_id, "%d %s", err, kiln_errmsg());
	if (err)
		return;
	int n = kiln_map_format_kv(m, &k, &got, KILN_MAP_FMT_JSON, buf, sizeof(buf));
	const char *want = "{\"key\":{\"saddr\":\"10.1.2.3\",\"dport\":443,\"proto\":6},"
			   "\"value\":{\"packets\":12,\"bytes\":3456,\"comm\":\"curl\",\"delta\":-5}}";
	CHECK("format_kv: JSON", n == (int)strlen(want) && !strcmp(buf, want), "%d %s", n, buf);
	n = kiln_map_format_kv(m, &k, &got, 0, buf, sizeof(buf));
	const char *text = "key={saddr=10.1.2.3 dport=443 proto=6} value={packets=12 bytes=3456 comm=curl delta=-5}";
	CHECK("format_kv: text", n == (int)strlen(text) && !strcmp(buf, text), "%d %s", n, buf);
	char small[16];
	int n2 = kiln_map_format_kv(m, &k, &got, 0, small, sizeof(small));
	CHECK("format_kv: cut at the buffer, whole length returned", n2 == n && strlen(small) == 15 &&
	      !strncmp(small, text, 15), "%d %s", n2, small);
	kiln_map_close(m);

	/* per-CPU: a list, one per CPU, after a program run bumped this CPU's */
	struct kiln_map *pc = kiln_object_find_map(obj, "pcpu");
	size_t bs = pc ? kiln_map_value_buf_size(pc) : 0;
	unsigned char *pv = bs ? calloc(1, bs) : NULL;
	uint32_t zero = 0;
	if (pv && !kiln_map_lookup(pc, &zero, pv)) {
		n = kiln_map_format_kv(pc, &zero, pv, KILN_MAP_FMT_JSON, buf, sizeof(buf));
		int ncpu = kiln_num_possible_cpus(), items = 0;
		for (const char *p = buf; (p = strstr(p, "\"packets\":")); p++)
			items++;
		CHECK("format_kv: per-CPU value as a list", n > 0 && items == ncpu && !strncmp(buf, "{\"key\":0,\"value\":[{", 19),
		      "%d cpus, %s", ncpu, buf);
	} else {
		CHECK("format_kv: per-CPU lookup", false, "%s", kiln_errmsg());
	}
	free(pv);

	/* a map without BTF: hex */
	struct kiln_map *raw = mk(BPF_MAP_TYPE_HASH, 4, 2, 4, 0, 0);
	uint32_t rk = 0x01020304;
	uint16_t rv = 0xabcd;
	n = raw ? kiln_map_format_kv(raw, &rk, &rv, KILN_MAP_FMT_JSON, buf, sizeof(buf)) : -1;
	CHECK("format_kv: no BTF, hex", n > 0 && !strcmp(buf, "{\"key\":\"0x04030201\",\"value\":\"0xcdab\"}"), "%s", buf);
	n = raw ? kiln_map_format_kv(raw, &rk, &rv, 0, buf, sizeof(buf)) : -1;
	CHECK("format_kv: no BTF, text", n > 0 && !strcmp(buf, "key=0x04030201 value=0xcdab"), "%s", buf);
	kiln_map_close(raw);

	/* keyless: the value alone */
	struct kiln_map *q = mk(BPF_MAP_TYPE_QUEUE, 0, 4, 4, 0, 0);
	uint32_t qv = 0x11223344;
	n = q ? kiln_map_format_kv(q, NULL, &qv, KILN_MAP_FMT_JSON, buf, sizeof(buf)) : -1;
	CHECK("format_kv: a queue's value alone", n > 0 && !strcmp(buf, "{\"value\":\"0x44332211\"}"), "%s", buf);
	kiln_map_close(q);

	/* parallel mode over a pin that is a program, not a map: refused, nothing pinned beside */
	char path[256], pending[300];
	snprintf(path, sizeof(path), "%s/a_prog", pin_dir);
	snprintf(pending, sizeof(pending), "%s" KILN_PARALLEL_SUFFIX, path);
	struct kiln_prog *p = kiln_object_find_prog(obj, "stamp");
	struct kiln_map_spec s = { .sz = sizeof(s), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				   .max_entries = 1 };
	struct kiln_map *pm = NULL;
	err = p ? kiln_pin(kiln_prog_fd(p), path) : -ENOENT;
	int perr = err ? err : kiln_map_open_parallel(path, &s, &pm, NULL);
	struct stat st;
	CHECK("parallel: a program's pin is refused", !err && perr == -EINVAL && !pm && stat(pending, &st),
	      "%d %d %s", err, perr, kiln_errmsg());
	kiln_map_close(pm);
	kiln_unpin(path);
}

static void test_ktime(struct kiln_object *obj)
{
	struct kiln_prog *p = kiln_object_find_prog(obj, "stamp");
	struct kiln_map *stamps = kiln_object_find_map(obj, "stamps");
	unsigned char pkt[64] = { 0 };
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt) };
	uint64_t before = kiln_clock_monotonic_ns(), bbefore = kiln_clock_boottime_ns();
	int err = p ? kiln_prog_test_run(kiln_prog_fd(p), &r) : -ENOENT;
	uint64_t after = kiln_clock_monotonic_ns(), bafter = kiln_clock_boottime_ns();
	uint32_t k0 = 0, k1 = 1;
	uint64_t mono = 0, boot = 0;
	if (!err && stamps)
		err = kiln_map_lookup(stamps, &k0, &mono) ? -1 : kiln_map_lookup(stamps, &k1, &boot);
	CHECK("ktime: program ran", !err && mono && boot, "%d %s", err, kiln_errmsg());
	CHECK("ktime: bpf_ktime_get_ns is kiln_clock_monotonic_ns's clock", mono >= before && mono <= after,
	      "%llu not in %llu..%llu", (unsigned long long)mono, (unsigned long long)before, (unsigned long long)after);
	CHECK("ktime: bpf_ktime_get_boot_ns is kiln_clock_boottime_ns's clock", boot >= bbefore && boot <= bafter,
	      "%llu not in %llu..%llu", (unsigned long long)boot, (unsigned long long)bbefore, (unsigned long long)bafter);
	int64_t now = (int64_t)time(NULL) * 1000000000;
	int64_t w1 = kiln_ktime_to_realtime(mono), w2 = kiln_boottime_to_realtime(boot);
	CHECK("ktime: monotonic stamp as wall time, within a second of time()", llabs(w1 - now) < 1000000000,
	      "%lld vs %lld", (long long)w1, (long long)now);
	CHECK("ktime: boottime stamp as wall time, within a second of time()", llabs(w2 - now) < 1000000000,
	      "%lld vs %lld", (long long)w2, (long long)now);
	CHECK("ktime: both agree to a millisecond", llabs(w1 - w2) < 1000000, "%lld", (long long)(w1 - w2));
}

/* ---- 8. parallel mode ------------------------------------------------------------------ */

static uint64_t value_at(const char *path)
{
	struct kiln_map *m;
	uint32_t k = 0;
	uint64_t v = 0;
	if (kiln_map_open_pinned(path, &m))
		return UINT64_MAX;
	if (kiln_map_lookup(m, &k, &v))
		v = UINT64_MAX - 1;
	kiln_map_close(m);
	return v;
}

/* A program holding the map pinned at pin_dir/par (by-name pinning) that copies its entry 0
 * into its own map `seen` on each run. */
static struct kiln_object *par_holder(void)
{
	return load_src("holder.lisp",
			"(defmap par :type :array :key u32 :value u64 :max-entries 1 :pinning :by-name)\n"
			"(defmap seen :type :array :key u32 :value u64 :max-entries 1)\n"
			"(defprog copy (:type :xdp)\n"
			"  (setf (getmap seen 0) (getmap par 0))\n"
			"  XDP_PASS)\n", pin_dir);
}

/* What the holder's program reads from its map now. */
static uint64_t holder_sees(struct kiln_object *obj)
{
	unsigned char pkt[64] = { 0 };
	struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = sizeof(pkt) };
	uint32_t k = 0;
	uint64_t v = UINT64_MAX;
	struct kiln_prog *p = kiln_object_find_prog(obj, "copy");
	struct kiln_map *seen = kiln_object_find_map(obj, "seen");
	if (!p || !seen || kiln_prog_test_run(kiln_prog_fd(p), &r) || kiln_map_lookup(seen, &k, &v))
		return UINT64_MAX;
	return v;
}

static void test_parallel(void)
{
	char path[256], pending[300];
	snprintf(path, sizeof(path), "%s/par", pin_dir);
	snprintf(pending, sizeof(pending), "%s" KILN_PARALLEL_SUFFIX, path);
	struct kiln_map_spec s = { .sz = sizeof(s), .name = "kt_par", .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				   .value_size = 8, .max_entries = 1 };
	struct kiln_map *old = NULL, *neu = NULL;
	bool parallel = true;
	int err = kiln_map_open_parallel(path, &s, &old, &parallel);
	CHECK("parallel: nothing pinned, pinned directly", !err && !parallel && value_at(path) == 0, "%d %s", err,
	      kiln_errmsg());
	CHECK("parallel: ending a map not in parallel mode", old && !kiln_map_end_parallel(old), "%s", kiln_errmsg());
	uint32_t k = 0;
	uint64_t a = 0xA, b = 0xB, v = 0;
	if (old)
		kiln_map_update(old, &k, &a, BPF_ANY);
	uint32_t old_id = old ? kiln_map_info(old)->id : 0;
	struct kiln_object *holder = par_holder();
	CHECK("parallel: a program holding the old map", holder && holder_sees(holder) == 0xA, "%s", kiln_errmsg());

	s.max_entries = 2;    /* a new shape, as a changed program would want */
	err = kiln_map_open_parallel(path, &s, &neu, &parallel);
	CHECK("parallel: a new map beside the old", !err && parallel && neu && kiln_map_info(neu)->id != old_id,
	      "%d %s", err, kiln_errmsg());
	if (err)
		goto out;
	kiln_map_update(neu, &k, &b, BPF_ANY);
	CHECK("parallel: the path still gives the old map", value_at(path) == 0xA, "%#llx",
	      (unsigned long long)value_at(path));
	CHECK("parallel: the new one pinned at the pending path", value_at(pending) == 0xB, "%#llx",
	      (unsigned long long)value_at(pending));
	err = kiln_map_end_parallel(neu);
	CHECK("parallel: end", !err, "%s", kiln_errmsg());
	CHECK("parallel: the path gives the new map", value_at(path) == 0xB, "%#llx",
	      (unsigned long long)value_at(path));
	struct stat st;
	CHECK("parallel: no pending pin left", stat(pending, &st) && errno == ENOENT, "still there");
	CHECK("parallel: a holder of the old map still sees it", !kiln_map_lookup(old, &k, &v) && v == 0xA, "%#llx",
	      (unsigned long long)v);
	CHECK("parallel: ending twice is nothing", !kiln_map_end_parallel(neu), "%s", kiln_errmsg());
	if (holder)
		CHECK("parallel: a program holding the old map still reads it", holder_sees(holder) == 0xA, "%#llx",
		      (unsigned long long)holder_sees(holder));

	/* a stale pending pin (a run that never ended) is replaced */
	struct kiln_map *stale = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, 0), *third = NULL;
	if (stale)
		kiln_map_pin(stale, pending);
	err = kiln_map_open_parallel(path, &s, &third, &parallel);
	CHECK("parallel: a stale pending pin replaced", !err && parallel && third && stale &&
	      kiln_map_info(third)->id != kiln_map_info(stale)->id && value_at(pending) == 0, "%d %s", err, kiln_errmsg());
	kiln_map_close(third);
	kiln_map_close(stale);
	kiln_unpin(pending);
out:
	kiln_object_close(holder);
	kiln_map_close(neu);
	kiln_map_close(old);
	kiln_unpin(path);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP test_pkgbpf: needs root for bpf()\n");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(pin_dir, sizeof(pin_dir), "/sys/fs/bpf/kiln_test_pkgbpf_%d", (int)getpid());
	snprintf(tmp, sizeof(tmp), "/tmp/kiln-test-pkgbpf-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(tmp) || mkdir(pin_dir, 0700)) {
		printf("FAIL test_pkgbpf: scratch directories: %s\n", strerror(errno));
		return 1;
	}
	int fds_before = check_open_fds();
	test_paths();
	test_environment();
	test_prealloc();
	test_delete_all();
	test_dump_if_exists();
	struct kiln_object *obj = load_src("kv.lisp", kv_src, NULL);
	CHECK("kv object: compiled and loaded", obj != NULL, "%s", kiln_errmsg());
	if (obj) {
		test_format_kv(obj);
		test_ktime(obj);
		kiln_object_close(obj);
	}
	test_parallel();
	int fds_after = check_open_fds();
	CHECK("no fd leaks", fds_before == fds_after, "%d fds before, %d after", fds_before, fds_after);
	kiln_unpin_tree(pin_dir);
	rmdir(pin_dir);
	check_sh("rm -rf '%s'", tmp);
	return CHECK_DONE();
}
