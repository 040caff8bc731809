/* test_map.c — libkiln's maps against the kernel: every map type of the language, batches and
 * their per-key fallback, per-CPU layout, the iterator, the dump under concurrent deletes. */
#define _GNU_SOURCE
#include "check.h"
#include "cgroup.h"
#include "kiln/error.h"
#include "kiln/map.h"
#include "lib/map_internal.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

static char namebuf[256];
static const char *nm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *nm(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(namebuf, sizeof(namebuf), fmt, ap);
	va_end(ap);
	return namebuf;
}

static bool has(const char *s, const char *sub)
{
	return s && strstr(s, sub);
}

/* ---- what the map values point at: a program, inner maps, a perf event, a cgroup -------- */

struct fds {
	int prog;
	uint32_t prog_id;
	int inner[2];
	uint32_t inner_id[2];
	int perf;
	int cgroup;
};

static uint32_t fd_id(int fd)
{
	struct bpf_map_info mi;
	uint32_t len = sizeof(mi);
	memset(&mi, 0, sizeof(mi));
	return bpf_obj_get_info_by_fd(fd, &mi, &len) ? 0 : mi.id;
}

static int load_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "kl_test_prog", "GPL", insns, 2, NULL);
}

static void fds_open(struct fds *f)
{
	f->prog = load_prog();
	struct bpf_prog_info pi;
	uint32_t len = sizeof(pi);
	memset(&pi, 0, sizeof(pi));
	f->prog_id = f->prog >= 0 && !bpf_obj_get_info_by_fd(f->prog, &pi, &len) ? pi.id : 0;
	for (int i = 0; i < 2; i++) {
		f->inner[i] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kl_inner", 4, 4, 1, NULL);
		f->inner_id[i] = fd_id(f->inner[i]);
	}
	struct perf_event_attr pa = {
		.size = sizeof(pa),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	f->perf = (int)syscall(__NR_perf_event_open, &pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	struct cg2 cg;   /* the cgroup v2 root, wherever it is mounted (or mounted for the test) */
	f->cgroup = cg2_find(&cg) ? open(cg.mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	cg2_release(&cg);   /* a mount made here goes; the fd keeps the cgroup open */
	CHECK("setup: a program, inner maps, a perf event, a cgroup",
	      f->prog >= 0 && f->prog_id && f->inner[0] >= 0 && f->inner[1] >= 0 && f->perf >= 0 &&
	      f->cgroup >= 0, "prog %d inner %d %d perf %d cgroup %d", f->prog, f->inner[0],
	      f->inner[1], f->perf, f->cgroup);
}

static void fds_close(struct fds *f)
{
	close(f->prog);
	close(f->inner[0]);
	close(f->inner[1]);
	close(f->perf);
	close(f->cgroup);
}

/* ---- one map of every type the language has --------------------------------------------- */

enum kind { K_HASH, K_ARRAY, K_FD_ARRAY, K_STACK, K_NONE };
enum vfd { V_BYTES, V_PROG, V_MAP, V_PERF, V_CGROUP };

struct tcase {
	const char *kw;              /* kiln's keyword */
	enum bpf_map_type type;
	uint32_t key, value, max, flags;
	enum kind kind;
	enum vfd vfd;                /* what an update writes */
	bool lookup_id;              /* lookups read an id (of the program or the inner map) */
	bool inner;                  /* map-in-map: needs an inner template */
};

static const struct tcase cases[] = {
	{ "hash",             BPF_MAP_TYPE_HASH,             4, 8,  1024, 0, K_HASH, V_BYTES, false, false },
	{ "array",            BPF_MAP_TYPE_ARRAY,            4, 8,  8,    0, K_ARRAY, V_BYTES, false, false },
	{ "percpu-hash",      BPF_MAP_TYPE_PERCPU_HASH,      4, 12, 1024, 0, K_HASH, V_BYTES, false, false },
	{ "percpu-array",     BPF_MAP_TYPE_PERCPU_ARRAY,     4, 4,  8,    0, K_ARRAY, V_BYTES, false, false },
	{ "ringbuf",          BPF_MAP_TYPE_RINGBUF,          0, 0,  4096, 0, K_NONE, V_BYTES, false, false },
	{ "prog-array",       BPF_MAP_TYPE_PROG_ARRAY,       4, 4,  8,    0, K_FD_ARRAY, V_PROG, true, false },
	{ "lpm-trie",         BPF_MAP_TYPE_LPM_TRIE,         8, 8,  1024, BPF_F_NO_PREALLOC, K_HASH, V_BYTES, false, false },
	{ "lru-hash",         BPF_MAP_TYPE_LRU_HASH,         4, 8,  1024, 0, K_HASH, V_BYTES, false, false },
	{ "lru-percpu-hash",  BPF_MAP_TYPE_LRU_PERCPU_HASH,  4, 8,  1024, 0, K_HASH, V_BYTES, false, false },
	{ "stack-trace",      BPF_MAP_TYPE_STACK_TRACE,      4, 64, 128,  0, K_STACK, V_BYTES, false, false },
	{ "perf-event-array", BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4,  8,    0, K_FD_ARRAY, V_PERF, false, false },
	{ "array-of-maps",    BPF_MAP_TYPE_ARRAY_OF_MAPS,    4, 4,  8,    0, K_FD_ARRAY, V_MAP, true, true },
	{ "hash-of-maps",     BPF_MAP_TYPE_HASH_OF_MAPS,     4, 4,  1024, 0, K_HASH, V_MAP, true, true },
	{ "cgroup-array",     BPF_MAP_TYPE_CGROUP_ARRAY,     4, 4,  8,    0, K_FD_ARRAY, V_CGROUP, false, false },
};

static void key_of(const struct tcase *tc, uint32_t i, void *key)
{
	memset(key, 0, tc->key);
	if (tc->type == BPF_MAP_TYPE_LPM_TRIE) {
		uint32_t prefix = 32, addr = htobe32(0x0a000000u + i * 7);
		memcpy(key, &prefix, 4);
		memcpy((char *)key + 4, &addr, 4);
	} else {
		memcpy(key, &i, 4);
	}
}

static uint32_t key_index(const struct tcase *tc, const void *key)
{
	uint32_t v;
	if (tc->type == BPF_MAP_TYPE_LPM_TRIE) {
		memcpy(&v, (const char *)key + 4, 4);
		return (be32toh(v) - 0x0a000000u) / 7;
	}
	memcpy(&v, key, 4);
	return v;
}

/* The update value for variant i (into a buf_size buffer) and what a lookup then reads. */
static void value_of(const struct tcase *tc, const struct fds *f, struct kiln_map *m, uint32_t i,
		     void *in, void *out)
{
	size_t buf = kiln_map_value_buf_size(m), stride = kiln_map_value_stride(m);
	memset(in, 0, buf);
	memset(out, 0, buf);
	uint32_t fd = 0, id = 0;
	switch (tc->vfd) {
	case V_BYTES:
		for (size_t c = 0; c < buf / stride; c++)
			for (size_t j = 0; j < tc->value; j++)
				((unsigned char *)in)[c * stride + j] = (unsigned char)(i * 31 + c * 7 + j + 1);
		memcpy(out, in, buf);
		return;
	case V_PROG: fd = (uint32_t)f->prog; id = f->prog_id; break;
	case V_MAP: fd = (uint32_t)f->inner[i % 2]; id = f->inner_id[i % 2]; break;
	case V_PERF: fd = (uint32_t)f->perf; break;
	case V_CGROUP: fd = (uint32_t)f->cgroup; break;
	}
	memcpy(in, &fd, 4);
	memcpy(out, &id, 4);
}

/* Compare the value_size bytes of every CPU's slot. */
static bool value_eq(const struct tcase *tc, struct kiln_map *m, const void *a, const void *b)
{
	size_t buf = kiln_map_value_buf_size(m), stride = kiln_map_value_stride(m);
	size_t vs = tc->lookup_id ? 4 : tc->value;
	for (size_t off = 0; off < buf; off += stride)
		if (memcmp((const char *)a + off, (const char *)b + off, vs))
			return false;
	return true;
}

/* next_key from NULL to -ENOENT: how many keys, each index seen at most once (into seen). */
static int walk_keys(const struct tcase *tc, struct kiln_map *m, unsigned char *seen, uint32_t nseen,
		     bool *dup)
{
	unsigned char key[16], next[16];
	int n = 0, err;
	const void *prev = NULL;
	*dup = false;
	while (!(err = kiln_map_next_key(m, prev, next))) {
		uint32_t k = key_index(tc, next);
		if (k >= nseen || seen[k]++)
			*dup = true;
		memcpy(key, next, sizeof(key));
		prev = key;
		if (++n > 100000)
			break;
	}
	return err == -ENOENT ? n : err;
}

static void test_type(const struct tcase *tc, const struct fds *f)
{
	const char *kw = tc->kw;
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = "kl_t_map", .type = tc->type, .key_size = tc->key,
		.value_size = tc->value, .max_entries = tc->max, .flags = tc->flags,
		.inner_map_fd = tc->inner ? f->inner[0] : 0,
	};
	struct kiln_map *m = NULL;
	int err = kiln_map_create(&spec, &m);
	CHECK(nm("%s: create", kw), !err && m, "%d %s", err, kiln_errmsg());
	if (err)
		return;
	const struct kiln_map_info *i = kiln_map_info(m);
	CHECK(nm("%s: info type", kw), i->type == tc->type, "type %d, want %d", i->type, tc->type);
	CHECK(nm("%s: info sizes", kw), i->key_size == tc->key && i->value_size == tc->value &&
	      i->max_entries == tc->max, "key %u value %u max %u", i->key_size, i->value_size, i->max_entries);
	CHECK(nm("%s: info flags", kw), i->flags == tc->flags, "flags %#x, want %#x", i->flags, tc->flags);
	CHECK(nm("%s: info name and id", kw), !strcmp(i->name, "kl_t_map") && i->id > 0 &&
	      !strcmp(kiln_map_name(m), "kl_t_map"), "name '%s' id %u", i->name, i->id);
	CHECK(nm("%s: fd is the map", kw), kiln_map_fd(m) >= 0 && fd_id(kiln_map_fd(m)) == i->id,
	      "fd %d", kiln_map_fd(m));
	CHECK(nm("%s: type name round trip", kw), kiln_map_type_from_name(kw) == (int)tc->type &&
	      kiln_map_type_from_name(kiln_map_type_name(i->type)) == (int)tc->type,
	      "%d, name '%s'", kiln_map_type_from_name(kw), kiln_map_type_name(i->type));
	bool percpu = tc->type == BPF_MAP_TYPE_PERCPU_HASH || tc->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
		      tc->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	CHECK(nm("%s: per-CPU or not", kw), kiln_map_is_percpu(m) == percpu &&
	      kiln_map_value_buf_size(m) == (percpu ? ((tc->value + 7u) & ~7u) * (size_t)kiln_num_possible_cpus()
					     : tc->value), "percpu %d buf %zu", kiln_map_is_percpu(m),
	      kiln_map_value_buf_size(m));

	size_t buf = kiln_map_value_buf_size(m) + 8;
	unsigned char key[16], *in = malloc(buf), *want = malloc(buf), *got = malloc(buf);
	unsigned char seen[1024];
	bool dup;
	int n;

	switch (tc->kind) {
	case K_HASH:
		key_of(tc, 0, key);
		value_of(tc, f, m, 0, in, want);
		CHECK(nm("%s: update NOEXIST of a new key", kw), !(err = kiln_map_update(m, key, in, BPF_NOEXIST)),
		      "%d %s", err, kiln_errmsg());
		err = kiln_map_update(m, key, in, BPF_NOEXIST);
		CHECK(nm("%s: update NOEXIST of a present key is -EEXIST", kw), err == -EEXIST &&
		      has(kiln_errmsg(), "BPF_MAP_UPDATE_ELEM") && has(kiln_errmsg(), "kl_t_map"),
		      "%d %s", err, kiln_errmsg());
		key_of(tc, 1, key);
		err = kiln_map_update(m, key, in, BPF_EXIST);
		CHECK(nm("%s: update EXIST of an absent key is -ENOENT", kw), err == -ENOENT, "%d %s", err,
		      kiln_errmsg());
		key_of(tc, 0, key);
		value_of(tc, f, m, 1, in, want);
		CHECK(nm("%s: update EXIST of a present key", kw), !(err = kiln_map_update(m, key, in, BPF_EXIST)),
		      "%d %s", err, kiln_errmsg());
		memset(got, 0xee, buf);
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: lookup reads the new value", kw), !err && value_eq(tc, m, got, want), "%d %s", err,
		      kiln_errmsg());
		key_of(tc, 1, key);
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: lookup of an absent key is -ENOENT with a message", kw), err == -ENOENT &&
		      has(kiln_errmsg(), "bpf(BPF_MAP_LOOKUP_ELEM) on map 'kl_t_map'") &&
		      has(kiln_errmsg(), strerror(ENOENT)), "%d %s", err, kiln_errmsg());
		err = 0;
		for (uint32_t k = 1; k < 8 && !err; k++) {
			key_of(tc, k, key);
			value_of(tc, f, m, k, in, want);
			err = kiln_map_update(m, key, in, BPF_ANY);
		}
		CHECK(nm("%s: update ANY of 7 more keys", kw), !err, "%d %s", err, kiln_errmsg());
		memset(seen, 0, sizeof(seen));
		n = walk_keys(tc, m, seen, sizeof(seen), &dup);
		CHECK(nm("%s: next-key visits every key once", kw), n == 8 && !dup && seen[0] == 1 && seen[7] == 1,
		      "%d keys, dup %d", n, dup);
		key_of(tc, 0, key);
		CHECK(nm("%s: delete", kw), !(err = kiln_map_delete(m, key)), "%d %s", err, kiln_errmsg());
		err = kiln_map_delete(m, key);
		CHECK(nm("%s: delete again is -ENOENT", kw), err == -ENOENT &&
		      has(kiln_errmsg(), "BPF_MAP_DELETE_ELEM"), "%d %s", err, kiln_errmsg());
		CHECK(nm("%s: gone after delete", kw), kiln_map_lookup(m, key, got) == -ENOENT, "still there");
		if (tc->type != BPF_MAP_TYPE_LPM_TRIE && tc->type != BPF_MAP_TYPE_HASH_OF_MAPS) {
			key_of(tc, 3, key);
			value_of(tc, f, m, 3, in, want);
			err = kiln_map_lookup_and_delete(m, key, got);
			CHECK(nm("%s: lookup-and-delete", kw), !err && value_eq(tc, m, got, want) &&
			      kiln_map_lookup(m, key, got) == -ENOENT, "%d %s", err, kiln_errmsg());
		}
		break;
	case K_ARRAY:
		key_of(tc, 1, key);
		value_of(tc, f, m, 1, in, want);
		err = kiln_map_update(m, key, in, BPF_NOEXIST);
		CHECK(nm("%s: update NOEXIST is -EEXIST (every index exists)", kw), err == -EEXIST, "%d %s",
		      err, kiln_errmsg());
		CHECK(nm("%s: update EXIST", kw), !(err = kiln_map_update(m, key, in, BPF_EXIST)), "%d %s",
		      err, kiln_errmsg());
		memset(got, 0xee, buf);
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: lookup", kw), !err && value_eq(tc, m, got, want), "%d %s", err, kiln_errmsg());
		key_of(tc, tc->max, key);
		err = kiln_map_update(m, key, in, BPF_ANY);
		CHECK(nm("%s: update past the end is -E2BIG", kw), err == -E2BIG, "%d %s", err, kiln_errmsg());
		CHECK(nm("%s: lookup past the end is -ENOENT", kw), kiln_map_lookup(m, key, got) == -ENOENT,
		      "%s", kiln_errmsg());
		key_of(tc, 1, key);
		err = kiln_map_delete(m, key);
		CHECK(nm("%s: delete is -EINVAL", kw), err == -EINVAL && has(kiln_errmsg(), "BPF_MAP_DELETE_ELEM"),
		      "%d %s", err, kiln_errmsg());
		memset(seen, 0, sizeof(seen));
		n = walk_keys(tc, m, seen, sizeof(seen), &dup);
		CHECK(nm("%s: next-key visits every index once", kw), n == (int)tc->max && !dup, "%d keys, dup %d",
		      n, dup);
		break;
	case K_FD_ARRAY:
		key_of(tc, 1, key);
		value_of(tc, f, m, 1, in, want);
		err = kiln_map_update(m, key, in, BPF_NOEXIST);
		CHECK(nm("%s: update NOEXIST is -EINVAL (fd arrays take BPF_ANY only)", kw), err == -EINVAL,
		      "%d %s", err, kiln_errmsg());
		err = kiln_map_update(m, key, in, BPF_EXIST);
		CHECK(nm("%s: update EXIST is -EINVAL", kw), err == -EINVAL, "%d %s", err, kiln_errmsg());
		CHECK(nm("%s: update ANY with an fd", kw), !(err = kiln_map_update(m, key, in, BPF_ANY)), "%d %s",
		      err, kiln_errmsg());
		memset(got, 0, buf);
		err = kiln_map_lookup(m, key, got);
		if (tc->lookup_id)
			CHECK(nm("%s: lookup reads the id", kw), !err && value_eq(tc, m, got, want), "%d %s %u", err,
			      kiln_errmsg(), *(uint32_t *)got);
		else
			CHECK(nm("%s: lookup from user space is refused", kw), err == -ENOTSUPP || err == -EOPNOTSUPP,
			      "%d %s", err, kiln_errmsg());
		key_of(tc, 2, key);
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: lookup of an empty slot fails", kw), err < 0, "%d", err);
		memset(seen, 0, sizeof(seen));
		n = walk_keys(tc, m, seen, sizeof(seen), &dup);
		CHECK(nm("%s: next-key visits every index once", kw), n == (int)tc->max && !dup, "%d keys, dup %d",
		      n, dup);
		key_of(tc, tc->max, key);
		err = kiln_map_update(m, key, in, BPF_ANY);
		CHECK(nm("%s: update past the end is -E2BIG", kw), err == -E2BIG, "%d %s", err, kiln_errmsg());
		key_of(tc, 1, key);
		CHECK(nm("%s: delete", kw), !(err = kiln_map_delete(m, key)), "%d %s", err, kiln_errmsg());
		err = kiln_map_delete(m, key);
		CHECK(nm("%s: delete of an empty slot is -ENOENT", kw), err == -ENOENT, "%d %s", err, kiln_errmsg());
		break;
	case K_STACK:
		key_of(tc, 0, key);
		memset(in, 0, buf);
		err = kiln_map_update(m, key, in, BPF_ANY);
		CHECK(nm("%s: user space cannot update", kw), err < 0 && has(kiln_errmsg(), "BPF_MAP_UPDATE_ELEM"),
		      "%d %s", err, kiln_errmsg());
		err = kiln_map_next_key(m, NULL, key);
		CHECK(nm("%s: an empty map has no first key", kw), err == -ENOENT, "%d %s", err, kiln_errmsg());
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: lookup of an absent id is -ENOENT", kw), err == -ENOENT, "%d %s", err, kiln_errmsg());
		err = kiln_map_delete(m, key);
		CHECK(nm("%s: delete of an absent id is -ENOENT", kw), err == -ENOENT, "%d %s", err, kiln_errmsg());
		break;
	case K_NONE:
		memset(key, 0, sizeof(key));
		err = kiln_map_lookup(m, key, got);
		CHECK(nm("%s: no lookup from user space", kw), err < 0 && has(kiln_errmsg(), "BPF_MAP_LOOKUP_ELEM"),
		      "%d %s", err, kiln_errmsg());
		err = kiln_map_next_key(m, NULL, key);
		CHECK(nm("%s: no keys", kw), err < 0 && has(kiln_errmsg(), "BPF_MAP_GET_NEXT_KEY"), "%d %s", err,
		      kiln_errmsg());
		break;
	}
	free(in);
	free(want);
	free(got);
	kiln_map_close(m);
}

/* ---- batches ----------------------------------------------------------------------------- */

static struct kiln_map *mk(const char *name, enum bpf_map_type type, uint32_t key, uint32_t value,
			   uint32_t max, uint32_t flags)
{
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = name, .type = type, .key_size = key, .value_size = value,
		.max_entries = max, .flags = flags,
	};
	struct kiln_map *m = NULL;
	int err = kiln_map_create(&spec, &m);
	if (err)
		printf("FAIL create %s: %s\n", name, kiln_errmsg());
	return m;
}

static bool kernel_batch_refused(int err)
{
	return err == -ENOTSUPP || err == -EOPNOTSUPP || err == -ENOTSUP;
}

static void test_batches(const struct fds *f)
{
	enum { N = 1000 };
	uint32_t keys[N], c;
	uint64_t vals[N], v;
	int err;
	for (uint32_t i = 0; i < N; i++) {
		keys[i] = i * 13 + 5;
		vals[i] = (uint64_t)i * 0x100000001ull + 7;
	}

	/* hash: kernel batches both ways */
	struct kiln_map *h = mk("kl_batch_hash", BPF_MAP_TYPE_HASH, 4, 8, 4096, 0);
	if (h) {
		c = N;
		err = kiln_map_update_batch(h, keys, vals, &c, BPF_ANY);
		CHECK("batch: hash update_batch of 1000", !err && c == N, "%d count %u %s", err, c, kiln_errmsg());
		bool ok = true;
		for (uint32_t i = 0; i < N && ok; i++)
			ok = !kiln_map_lookup(h, &keys[i], &v) && v == vals[i];
		CHECK("batch: hash entries all there", ok, "%s", kiln_errmsg());
		c = N / 2;
		err = kiln_map_delete_batch(h, keys, &c);
		CHECK("batch: hash delete_batch of 500", !err && c == N / 2, "%d count %u %s", err, c, kiln_errmsg());
		int gone = 0, left = 0;
		for (uint32_t i = 0; i < N; i++) {
			bool there = !bpf_map_lookup_elem(kiln_map_fd(h), &keys[i], &v);
			gone += i < N / 2 && !there;
			left += i >= N / 2 && there;
		}
		CHECK("batch: hash delete_batch deleted exactly those", gone == N / 2 && left == N / 2,
		      "gone %d left %d", gone, left);
		/* keys[0..499] are gone: a batch with an absent key stops there */
		uint32_t mixed[6] = { keys[600], keys[601], keys[602], keys[3], keys[603], keys[604] };
		c = 6;
		err = kiln_map_delete_batch(h, mixed, &c);
		CHECK("batch: delete_batch stops at an absent key, count says where", err == -ENOENT && c == 3 &&
		      has(kiln_errmsg(), "BPF_MAP_DELETE_BATCH") && has(kiln_errmsg(), "kl_batch_hash"),
		      "%d count %u %s", err, c, kiln_errmsg());
		CHECK("batch: ...and the keys after it stay", !bpf_map_lookup_elem(kiln_map_fd(h), &keys[603], &v),
		      "key gone");
		/* BPF_NOEXIST: the kernel's batch update takes no such flag, so it goes per key */
		uint32_t nk[6] = { 100000, 100001, 100002, keys[700], 100003, 100004 };
		uint64_t nv[6] = { 1, 2, 3, 4, 5, 6 };
		c = 6;
		err = kiln_map_update_batch(h, nk, nv, &c, BPF_NOEXIST);
		CHECK("batch: update_batch NOEXIST stops at a present key", err == -EEXIST && c == 3 &&
		      has(kiln_errmsg(), "BPF_NOEXIST"), "%d count %u %s", err, c, kiln_errmsg());
		CHECK("batch: ...having added the keys before it",
		      !bpf_map_lookup_elem(kiln_map_fd(h), &nk[2], &v) && v == 3 &&
		      bpf_map_lookup_elem(kiln_map_fd(h), &nk[4], &v) == -ENOENT, "v %llu", (unsigned long long)v);
		c = 0;
		CHECK("batch: an empty batch is fine", !kiln_map_update_batch(h, nk, nv, &c, 0) && c == 0, "%s",
		      kiln_errmsg());
		kiln_map_close(h);
	}

	/* array: update batches; delete has no batch and arrays cannot delete at all */
	struct kiln_map *a = mk("kl_batch_array", BPF_MAP_TYPE_ARRAY, 4, 8, N, 0);
	if (a) {
		uint32_t idx[N];
		for (uint32_t i = 0; i < N; i++)
			idx[i] = N - 1 - i;
		c = N;
		err = kiln_map_update_batch(a, idx, vals, &c, BPF_ANY);
		CHECK("batch: array update_batch", !err && c == N, "%d count %u %s", err, c, kiln_errmsg());
		bool ok = true;
		for (uint32_t i = 0; i < N && ok; i++)
			ok = !kiln_map_lookup(a, &idx[i], &v) && v == vals[i];
		CHECK("batch: array values all there", ok, "%s", kiln_errmsg());
		uint32_t draw = 4;
		int raw = bpf_map_delete_batch(kiln_map_fd(a), idx, &draw, NULL);
		c = 4;
		err = kiln_map_delete_batch(a, idx, &c);
		CHECK("batch: array delete_batch falls back per key, where the kernel says -EINVAL",
		      kernel_batch_refused(raw) && err == -EINVAL && c == 0 &&
		      has(kiln_errmsg(), "bpf(BPF_MAP_DELETE_ELEM) on map 'kl_batch_array'"),
		      "raw %d, %d count %u %s", raw, err, c, kiln_errmsg());
		kiln_map_close(a);
	}

	/* A map type without batch operations: which one the kernel refuses is asked, not assumed */
	static const struct { const char *kw; enum bpf_map_type t; uint32_t v; enum vfd vfd; } nb[] = {
		{ "lpm-trie", BPF_MAP_TYPE_LPM_TRIE, 8, V_BYTES },
		{ "hash-of-maps", BPF_MAP_TYPE_HASH_OF_MAPS, 4, V_MAP },
		{ "prog-array", BPF_MAP_TYPE_PROG_ARRAY, 4, V_PROG },
		{ "cgroup-array", BPF_MAP_TYPE_CGROUP_ARRAY, 4, V_CGROUP },
	};
	int tested = 0;
	for (size_t t = 0; t < sizeof(nb) / sizeof(nb[0]); t++) {
		bool lpm = nb[t].t == BPF_MAP_TYPE_LPM_TRIE;
		struct kiln_map_spec spec = {
			.sz = sizeof(spec), .name = "kl_batch_nb", .type = nb[t].t, .key_size = lpm ? 8 : 4,
			.value_size = nb[t].v, .max_entries = 16, .flags = lpm ? BPF_F_NO_PREALLOC : 0,
			.inner_map_fd = nb[t].t == BPF_MAP_TYPE_HASH_OF_MAPS ? f->inner[0] : 0,
		};
		struct kiln_map *m;
		if ((err = kiln_map_create(&spec, &m))) {
			CHECK(nm("batch: create %s", nb[t].kw), 0, "%s", kiln_errmsg());
			continue;
		}
		struct tcase tc = { nb[t].kw, nb[t].t, spec.key_size, nb[t].v, 16, spec.flags, K_HASH,
				    nb[t].vfd, false, false };
		/* keys packed at the key size, values at the value buffer size */
		size_t ks = spec.key_size, vs = kiln_map_value_buf_size(m);
		unsigned char k4[4 * 8], v4[4 * 8], want[8], got[8];
		for (uint32_t i = 0; i < 4; i++) {
			key_of(&tc, i + 1, k4 + i * ks);
			value_of(&tc, f, m, i, v4 + i * vs, want);
		}
		uint32_t rc = 4;
		int raw = bpf_map_update_batch(kiln_map_fd(m), k4, v4, &rc, NULL);
		bool refused = kernel_batch_refused(raw);
		printf("# batch: the kernel's BPF_MAP_UPDATE_BATCH on %s: %d (%s)\n", nb[t].kw, raw,
		       refused ? "refused" : raw ? strerror(-raw) : "supported");
		if (!refused) {
			kiln_map_close(m);
			continue;
		}
		tested++;
		c = 4;
		err = kiln_map_update_batch(m, k4, v4, &c, BPF_ANY);
		int present = 0;
		for (uint32_t i = 0; i < 4; i++)
			present += !bpf_map_lookup_elem(kiln_map_fd(m), k4 + i * ks, got) ||
				   nb[t].vfd == V_CGROUP; /* cgroup arrays cannot be read back */
		CHECK(nm("batch: %s update_batch falls back per key", nb[t].kw), !err && c == 4 && present == 4,
		      "%d count %u present %d %s", err, c, present, kiln_errmsg());
		rc = 4;
		raw = bpf_map_delete_batch(kiln_map_fd(m), k4, &rc, NULL);
		c = 4;
		err = kiln_map_delete_batch(m, k4, &c);
		int gone = 0;
		for (uint32_t i = 0; i < 4; i++)
			gone += bpf_map_delete_elem(kiln_map_fd(m), k4 + i * ks) == -ENOENT;
		CHECK(nm("batch: %s delete_batch falls back per key", nb[t].kw), kernel_batch_refused(raw) &&
		      !err && c == 4 && gone == 4, "raw %d, %d count %u gone %d %s", raw, err, c, gone,
		      kiln_errmsg());
		kiln_map_close(m);
	}
	CHECK("batch: some map type without kernel batches was tried", tested > 0, "none refused batches");
}

/* ---- per-CPU values ---------------------------------------------------------------------- */

static void test_percpu(void)
{
	int ncpu = kiln_num_possible_cpus();
	CHECK("percpu: possible CPUs", ncpu > 0 && ncpu == libbpf_num_possible_cpus(), "%d", ncpu);
	if (ncpu <= 0)
		return;
	/* value size 4: a stride of 8 */
	struct kiln_map *a = mk("kl_pcpu_arr", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 4, 4, 0);
	if (a) {
		size_t stride = kiln_map_value_stride(a), bufsz = kiln_map_value_buf_size(a);
		CHECK("percpu: value 4 has stride 8", stride == 8 && bufsz == 8 * (size_t)ncpu, "stride %zu buf %zu",
		      stride, bufsz);
		unsigned char *in = calloc(1, bufsz), *out = calloc(1, bufsz);
		for (int c = 0; c < ncpu; c++) {
			uint32_t v = 1000u * (uint32_t)c + 42;
			memcpy(in + (size_t)c * stride, &v, 4);
		}
		uint32_t k = 2;
		int err = kiln_map_update(a, &k, in, BPF_ANY);
		if (!err)
			err = kiln_map_lookup(a, &k, out);
		bool ok = !err;
		for (int c = 0; c < ncpu && ok; c++) {
			uint32_t v;
			memcpy(&v, out + (size_t)c * stride, 4);
			ok = v == 1000u * (uint32_t)c + 42;
		}
		CHECK("percpu: array of 4-byte values, one per CPU, read back at stride 8", ok, "%d %s", err,
		      kiln_errmsg());
		free(in);
		free(out);
		kiln_map_close(a);
	}
	/* value size 12: a stride of 16, and batches with values packed at the buffer size */
	struct kiln_map *h = mk("kl_pcpu_hash", BPF_MAP_TYPE_PERCPU_HASH, 4, 12, 64, 0);
	if (h) {
		size_t stride = kiln_map_value_stride(h), bufsz = kiln_map_value_buf_size(h);
		CHECK("percpu: value 12 has stride 16", stride == 16 && bufsz == 16 * (size_t)ncpu,
		      "stride %zu buf %zu", stride, bufsz);
		enum { NK = 5 };
		uint32_t keys[NK];
		unsigned char *in = calloc(NK, bufsz), *out = calloc(1, bufsz);
		for (uint32_t i = 0; i < NK; i++) {
			keys[i] = i + 100;
			for (int c = 0; c < ncpu; c++)
				for (uint32_t w = 0; w < 3; w++) {
					uint32_t v = i * 10000 + (uint32_t)c * 100 + w;
					memcpy(in + i * bufsz + (size_t)c * stride + w * 4, &v, 4);
				}
		}
		uint32_t cnt = NK;
		int err = kiln_map_update_batch(h, keys, in, &cnt, BPF_ANY);
		CHECK("percpu: hash update_batch", !err && cnt == NK, "%d %u %s", err, cnt, kiln_errmsg());
		bool ok = true;
		for (uint32_t i = 0; i < NK && ok; i++) {
			ok = !kiln_map_lookup(h, &keys[i], out);
			for (int c = 0; c < ncpu && ok; c++)
				ok = !memcmp(out + (size_t)c * stride, in + i * bufsz + (size_t)c * stride, 12);
		}
		CHECK("percpu: 12-byte values, one per CPU, read back at stride 16", ok, "%s", kiln_errmsg());
		/* and the iterator hands values out at the buffer size */
		struct kiln_map_iter *it;
		int seen = 0;
		ok = true;
		if (!(err = kiln_map_iter_new(h, 2, &it))) {
			const void *ks, *vs;
			int n;
			while ((n = kiln_map_iter_next(it, &ks, &vs)) > 0)
				for (int j = 0; j < n; j++, seen++) {
					uint32_t k;
					memcpy(&k, (const char *)ks + 4 * j, 4);
					const unsigned char *v = (const unsigned char *)vs + (size_t)j * bufsz;
					for (int c = 0; c < ncpu && k >= 100 && k < 100 + NK; c++)
						ok &= !memcmp(v + (size_t)c * stride, in + (k - 100) * bufsz + (size_t)c * stride, 12);
				}
			err = n;
			kiln_map_iter_free(it);
		}
		CHECK("percpu: iterator values at the per-CPU buffer size", !err && ok && seen == NK,
		      "%d seen %d ok %d %s", err, seen, ok, kiln_errmsg());
		free(in);
		free(out);
		kiln_map_close(h);
	}
}

/* ---- the iterator ------------------------------------------------------------------------ */

static void iterate(struct kiln_map *m, uint32_t batch, uint32_t nkeys, bool prog_ids, uint32_t want_id,
		    const char *what, bool want_batched)
{
	struct kiln_map_iter *it;
	int err = kiln_map_iter_new(m, batch, &it);
	if (err) {
		CHECK(nm("iter: %s: new", what), 0, "%s", kiln_errmsg());
		return;
	}
	uint32_t eff = batch ? batch : 4096;
	unsigned char *seen = calloc(nkeys, 1);
	uint32_t total = 0, bad = 0, dups = 0, toobig = 0, calls = 0;
	const void *ks, *vs;
	int n;
	while ((n = kiln_map_iter_next(it, &ks, &vs)) > 0) {
		calls++;
		toobig += (uint32_t)n > eff;
		for (int j = 0; j < n; j++) {
			uint32_t k;
			uint64_t v = 0;
			memcpy(&k, (const char *)ks + 4 * j, 4);
			memcpy(&v, (const char *)vs + (size_t)j * kiln_map_value_buf_size(m), prog_ids ? 4 : 8);
			if (k >= nkeys || v != (prog_ids ? want_id : (uint64_t)k * 3 + 1)) {
				bad++;
				continue;
			}
			dups += seen[k]++ > 0;
			total++;
		}
	}
	CHECK(nm("iter: %s: every entry exactly once", what), n == 0 && total == nkeys && !bad && !dups,
	      "end %d total %u bad %u dups %u %s", n, total, bad, dups, n ? kiln_errmsg() : "");
	CHECK(nm("iter: %s: at most the batch size per call", what), !toobig && calls >= (nkeys + eff - 1) / eff,
	      "%u calls over the batch, %u calls", toobig, calls);
	CHECK(nm("iter: %s: kernel batches %s", what, want_batched ? "in use" : "not in use"),
	      kiln_map_iter_batched(it) == want_batched, "batched %d", kiln_map_iter_batched(it));
	CHECK(nm("iter: %s: stays at the end", what), kiln_map_iter_next(it, &ks, &vs) == 0, "more after the end");
	kiln_map_iter_free(it);
	free(seen);
}

static void test_iter(const struct fds *f)
{
	enum { N = 10000 };
	struct kiln_map *h = mk("kl_iter_hash", BPF_MAP_TYPE_HASH, 4, 8, N, 0);
	if (h) {
		uint32_t *keys = malloc(N * 4);
		uint64_t *vals = malloc(N * 8);
		for (uint32_t i = 0; i < N; i++) {
			keys[i] = i;
			vals[i] = (uint64_t)i * 3 + 1;
		}
		uint32_t c = N;
		int err = kiln_map_update_batch(h, keys, vals, &c, BPF_ANY);
		CHECK("iter: fill 10000", !err && c == N, "%d %s", err, kiln_errmsg());
		iterate(h, 256, N, false, 0, "hash of 10000, batches of 256", true);
		iterate(h, 1, N, false, 0, "hash of 10000, batches of 1 (buckets hold more)", true);
		iterate(h, 0, N, false, 0, "hash of 10000, default batch", true);
		free(keys);
		free(vals);
		kiln_map_close(h);
	}
	/* no kernel batches: next-key + lookup, over a prog array with 10000 slots */
	struct kiln_map *p = mk("kl_iter_progs", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, N, 0);
	if (p) {
		uint32_t *keys = malloc(N * 4), *vals = malloc(N * 4);
		for (uint32_t i = 0; i < N; i++) {
			keys[i] = i;
			vals[i] = (uint32_t)f->prog;
		}
		uint32_t c = N;
		int err = kiln_map_update_batch(p, keys, vals, &c, BPF_ANY);
		CHECK("iter: fill a prog array of 10000", !err && c == N, "%d %s", err, kiln_errmsg());
		iterate(p, 300, N, true, f->prog_id, "prog array of 10000, per key", false);
		/* holes: every other slot emptied is skipped, not an error */
		for (uint32_t i = 0; i < N; i += 2)
			bpf_map_delete_elem(kiln_map_fd(p), &i);
		struct kiln_map_iter *it;
		uint32_t total = 0, odd = 0;
		if (!kiln_map_iter_new(p, 128, &it)) {
			const void *ks, *vs;
			int n;
			while ((n = kiln_map_iter_next(it, &ks, &vs)) > 0)
				for (int j = 0; j < n; j++, total++)
					odd += ((const uint32_t *)ks)[j] % 2;
			kiln_map_iter_free(it);
		}
		CHECK("iter: a prog array with holes gives the filled slots", total == N / 2 && odd == N / 2,
		      "total %u odd %u", total, odd);
		free(keys);
		free(vals);
		kiln_map_close(p);
	}
}

/* ---- the reliable dump ------------------------------------------------------------------- */

enum { DN = 50000 };

struct dump_ctx {
	struct kiln_map *m;
	uint32_t *seen;              /* times reported, by key */
	uint32_t unknown, badval;
	atomic_uint reported;
	int mode;                    /* what the callback deletes: 0 nothing, 1 current, 2 next, 3 current+next */
	uint32_t deletes_left;
	unsigned char *deleted;
};

static int dump_cb(const void *key, const void *value, void *vctx)
{
	struct dump_ctx *c = vctx;
	uint32_t k;
	uint64_t v;
	memcpy(&k, key, 4);
	memcpy(&v, value, 8);
	if (k >= DN) {
		c->unknown++;
		return 0;
	}
	if (v != (uint64_t)k * 3 + 1)
		c->badval++;
	c->seen[k]++;
	atomic_fetch_add(&c->reported, 1);
	if (c->mode && c->deletes_left) {
		uint32_t next;
		c->deletes_left--;
		if ((c->mode == 2 || c->mode == 3) && !kiln_map_next_key(c->m, &k, &next) &&
		    !kiln_map_delete(c->m, &next))
			c->deleted[next] = 1;
		if ((c->mode == 1 || c->mode == 3) && !kiln_map_delete(c->m, &k))
			c->deleted[k] = 1;
	}
	return 0;
}

static int fill_dump_map(struct kiln_map *m)
{
	uint32_t *keys = malloc(DN * 4);
	uint64_t *vals = malloc(DN * 8);
	for (uint32_t i = 0; i < DN; i++) {
		keys[i] = i;
		vals[i] = (uint64_t)i * 3 + 1;
	}
	uint32_t c = DN;
	int err = kiln_map_update_batch(m, keys, vals, &c, BPF_ANY);
	free(keys);
	free(vals);
	return err;
}

struct deleter {
	struct kiln_map *m;
	struct dump_ctx *ctx;
	unsigned char *doomed;       /* keys to delete */
	uint32_t deleted, started_at;
	atomic_bool go;
};

static void *deleter_main(void *arg)
{
	struct deleter *d = arg;
	/* start once the dump is under way, so the deletes land in the middle of it */
	while (!atomic_load(&d->go) && atomic_load(&d->ctx->reported) < 2000)
		;
	d->started_at = atomic_load(&d->ctx->reported);
	/* a scattered order: the hash order of the dump and this one are unrelated */
	for (uint32_t i = 0; i < DN; i++) {
		uint32_t k = (uint32_t)(((uint64_t)i * 7919) % DN);
		if (d->doomed[k] && !bpf_map_delete_elem(kiln_map_fd(d->m), &k))
			d->deleted++;
	}
	return NULL;
}

static void concurrent_dump(bool batch)
{
	const char *how = batch ? "batched" : "per key";
	struct kiln_map *m = mk("kl_dump_conc", BPF_MAP_TYPE_HASH, 4, 8, DN, 0);
	if (!m)
		return;
	int err = fill_dump_map(m);
	CHECK(nm("dump %s: fill 50000", how), !err, "%s", kiln_errmsg());
	struct dump_ctx ctx = { .m = m, .seen = calloc(DN, 4) };
	struct deleter d = { .m = m, .ctx = &ctx, .doomed = calloc(DN, 1) };
	for (uint32_t k = 0; k < DN; k++)
		d.doomed[k] = k % 5 < 2; /* 40% */
	pthread_t th;
	pthread_create(&th, NULL, deleter_main, &d);
	struct kiln_map_dump_stats st;
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = batch, .batch_size = 512, .max_restarts = 1000 };
	err = kiln_map_dump(m, dump_cb, &ctx, &o, &st);
	atomic_store(&d.go, true);
	pthread_join(th, NULL);
	uint32_t missing = 0, undeleted = 0, sum = 0, dup = 0;
	for (uint32_t k = 0; k < DN; k++) {
		sum += ctx.seen[k];
		dup += ctx.seen[k] > 1;
		if (!d.doomed[k]) {
			undeleted++;
			missing += !ctx.seen[k];
		}
	}
	printf("# dump %s with concurrent deletes: %u entries, %u lookups, %u lookup_failed, %u "
	       "prev_key_unavailable, %u key_fallback, %u interrupted, %u seen twice; the deleter "
	       "started at entry %u and deleted %u, in %.1f ms\n", how, st.entries, st.lookups,
	       st.lookup_failed, st.prev_key_unavailable, st.key_fallback, st.interrupted, dup,
	       d.started_at, d.deleted, (double)(st.finished_ns - st.started_ns) / 1e6);
	CHECK(nm("dump %s: completes under concurrent deletes", how), !err && st.completed, "%d %s", err,
	      kiln_errmsg());
	CHECK(nm("dump %s: no key that was never inserted", how), !ctx.unknown && !ctx.badval,
	      "%u unknown, %u bad values", ctx.unknown, ctx.badval);
	CHECK(nm("dump %s: every key never deleted is reported", how), !missing, "%u of %u missing", missing,
	      undeleted);
	CHECK(nm("dump %s: stats consistent", how), st.entries == sum && st.entries >= undeleted &&
	      st.max_entries == DN && st.finished_ns >= st.started_ns && st.started_ns > 0 &&
	      (batch || st.lookups >= st.entries), "entries %u sum %u undeleted %u lookups %u max %u",
	      st.entries, sum, undeleted, st.lookups, st.max_entries);
	if (!batch)
		CHECK("dump per key: restarts and fallbacks add up", st.lookup_failed >= st.key_fallback &&
		      st.interrupted <= st.lookup_failed + st.prev_key_unavailable &&
		      (st.interrupted || !dup), "failed %u fallback %u interrupted %u dup %u", st.lookup_failed,
		      st.key_fallback, st.interrupted, dup);
	free(ctx.seen);
	free(d.doomed);
	kiln_map_close(m);
}

static int stop_at_10(const void *key, const void *value, void *c)
{
	(void)key;
	(void)value;
	return ++*(int *)c == 10 ? 77 : 0;
}

/* Deletes from inside the callback make each recovery path happen on purpose. */
static void callback_dump(int mode, uint32_t deletes, uint32_t max_restarts, const char *what,
			  struct kiln_map_dump_stats *st, int *err, uint32_t *reported_once, uint32_t *twice,
			  uint32_t *lost, uint32_t *ndeleted)
{
	struct kiln_map *m = mk("kl_dump_cb", BPF_MAP_TYPE_HASH, 4, 8, DN, 0);
	*err = -1;
	if (!m)
		return;
	if (fill_dump_map(m)) {
		CHECK(nm("dump %s: fill", what), 0, "%s", kiln_errmsg());
		kiln_map_close(m);
		return;
	}
	struct dump_ctx ctx = { .m = m, .seen = calloc(DN, 4), .mode = mode, .deletes_left = deletes,
				.deleted = calloc(DN, 1) };
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .max_restarts = max_restarts };
	*err = kiln_map_dump(m, dump_cb, &ctx, &o, st);
	*reported_once = *twice = *lost = *ndeleted = 0;
	for (uint32_t k = 0; k < DN; k++) {
		*ndeleted += ctx.deleted[k];
		*reported_once += ctx.seen[k] == 1;
		*twice += ctx.seen[k] > 1;
		*lost += !ctx.deleted[k] && !ctx.seen[k];
	}
	CHECK(nm("dump %s: nothing unknown", what), !ctx.unknown && !ctx.badval, "%u %u", ctx.unknown, ctx.badval);
	free(ctx.seen);
	free(ctx.deleted);
	kiln_map_close(m);
}

static void test_dump(void)
{
	concurrent_dump(false);
	concurrent_dump(true);

	struct kiln_map_dump_stats st;
	int err;
	uint32_t once, twice, lost, ndel;

	/* deleting the current key: its successor is already known, nothing to recover */
	callback_dump(1, DN, 16, "deleting the current key", &st, &err, &once, &twice, &lost, &ndel);
	CHECK("dump deleting the current key: every key exactly once, no fallback needed",
	      !err && st.completed && once == DN && ndel == DN && !st.key_fallback && !st.interrupted,
	      "%d once %u deleted %u fallback %u interrupted %u", err, once, ndel, st.key_fallback, st.interrupted);

	/* deleting the next key: it vanishes between next-key and its lookup, the walk resumes
	 * from the current (previous) key, which is not reported again */
	callback_dump(2, DN, 16, "deleting the next key", &st, &err, &once, &twice, &lost, &ndel);
	CHECK("dump deleting the next key: key_fallback > 0",
	      !err && st.completed && st.key_fallback > 0 && st.lookup_failed == st.key_fallback &&
	      !st.interrupted && !st.prev_key_unavailable,
	      "%d fallback %u failed %u interrupted %u", err, st.key_fallback, st.lookup_failed, st.interrupted);
	CHECK("dump deleting the next key: the rest exactly once", !lost && !twice && once + ndel == DN &&
	      st.entries == once, "lost %u twice %u once %u deleted %u entries %u", lost, twice, once, ndel,
	      st.entries);

	/* deleting the current and the next key, once: no key to resume from, start over */
	callback_dump(3, 1, 16, "deleting the current and next key", &st, &err, &once, &twice, &lost, &ndel);
	CHECK("dump deleting the current and next key: interrupted > 0",
	      !err && st.completed && st.interrupted == 1 && st.prev_key_unavailable == 1 &&
	      st.key_fallback == 1 && st.lookup_failed == 1,
	      "%d interrupted %u prev_unavailable %u fallback %u failed %u", err, st.interrupted,
	      st.prev_key_unavailable, st.key_fallback, st.lookup_failed);
	CHECK("dump deleting the current and next key: nothing lost", !lost && ndel == 2 && once == DN - 1 && !twice,
	      "lost %u deleted %u once %u", lost, ndel, once);

	/* ... every time: the restarts run out */
	callback_dump(3, DN, 3, "deleting the current and next key always", &st, &err, &once, &twice, &lost, &ndel);
	CHECK("dump with too many restarts is -EBUSY", err == -EBUSY && !st.completed && st.interrupted == 3 &&
	      has(kiln_errmsg(), "kl_dump_cb") && has(kiln_errmsg(), "restarts"), "%d interrupted %u %s", err,
	      st.interrupted, kiln_errmsg());

	/* an empty map: nothing, completed, both ways */
	struct kiln_map *e = mk("kl_dump_empty", BPF_MAP_TYPE_HASH, 4, 8, 16, 0);
	if (e) {
		int calls = 0;
		struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
		err = kiln_map_dump(e, stop_at_10, &calls, NULL, &st);
		CHECK("dump: an empty map, per key", !err && !calls && st.completed && !st.entries, "%d %s", err,
		      kiln_errmsg());
		err = kiln_map_dump(e, stop_at_10, &calls, &o, &st);
		CHECK("dump: an empty map, batched", !err && !calls && st.completed && !st.entries, "%d %s", err,
		      kiln_errmsg());
		struct kiln_map_iter *it;
		const void *ks, *vs;
		err = kiln_map_iter_new(e, 8, &it);
		CHECK("iter: an empty map ends at once", !err && kiln_map_iter_next(it, &ks, &vs) == 0, "%d %s", err,
		      kiln_errmsg());
		kiln_map_iter_free(it);
		err = kiln_map_dump(e, NULL, NULL, NULL, NULL);
		CHECK("dump: no callback is -EINVAL", err == -EINVAL, "%d", err);
		kiln_map_close(e);
	}

	/* the callback stops the dump */
	struct kiln_map *m = mk("kl_dump_stop", BPF_MAP_TYPE_ARRAY, 4, 8, 100, 0);
	if (m) {
		int calls = 0;
		err = kiln_map_dump(m, stop_at_10, &calls, NULL, &st);
		CHECK("dump: the callback's non-zero return stops it and is returned",
		      err == 77 && calls == 10 && st.entries == 10 && !st.completed, "%d calls %d", err, calls);
		calls = 0;
		struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true, .batch_size = 7 };
		err = kiln_map_dump(m, stop_at_10, &calls, &o, NULL);
		CHECK("dump batched: the callback stops it too", err == 77 && calls == 10, "%d calls %d", err, calls);
		kiln_map_close(m);
	}
}

/* ---- opening ----------------------------------------------------------------------------- */

static void test_open(void)
{
	/* a name longer than the 15 characters the kernel keeps */
	char name[40], kname[16];
	snprintf(name, sizeof(name), "kl_o%08x_long_name", (unsigned)getpid() ^ (unsigned)rand());
	memcpy(kname, name, 15);
	kname[15] = 0;
	struct kiln_map *m = mk(name, BPF_MAP_TYPE_HASH, 4, 4, 8, 0), *o = NULL;
	if (!m)
		return;
	CHECK("open: the kernel keeps 15 characters of the name, kiln the whole name",
	      !strcmp(kiln_map_info(m)->name, kname) && !strcmp(kiln_map_name(m), name), "'%s' '%s'",
	      kiln_map_info(m)->name, kiln_map_name(m));
	uint32_t id = kiln_map_info(m)->id;
	int err = kiln_map_open_id(id, &o);
	CHECK("open: by id", !err && kiln_map_info(o)->id == id && !strcmp(kiln_map_name(o), kname) &&
	      kiln_map_fd(o) != kiln_map_fd(m), "%d %s", err, kiln_errmsg());
	kiln_map_close(o);
	err = kiln_map_open_name(kname, &o);
	CHECK("open: by a unique name", !err && kiln_map_info(o)->id == id, "%d %s", err, kiln_errmsg());
	kiln_map_close(o);
	err = kiln_map_open_name(name, &o);
	CHECK("open: by a name longer than the kernel's 15 characters", !err && kiln_map_info(o)->id == id,
	      "%d %s", err, kiln_errmsg());
	kiln_map_close(o);
	err = kiln_map_open_fd(kiln_map_fd(m), &o);
	CHECK("open: by fd (a dup)", !err && kiln_map_info(o)->id == id && kiln_map_fd(o) != kiln_map_fd(m),
	      "%d %s", err, kiln_errmsg());
	kiln_map_close(o);
	CHECK("open: by fd leaves the original open", fcntl(kiln_map_fd(m), F_GETFD) >= 0, "closed");

	struct kiln_map *m2 = mk(kname, BPF_MAP_TYPE_ARRAY, 4, 4, 8, 0);
	o = NULL;
	err = kiln_map_open_name(name, &o);
	char id1[16], id2[16];
	snprintf(id1, sizeof(id1), "%u", id);
	snprintf(id2, sizeof(id2), "%u", m2 ? kiln_map_info(m2)->id : 0);
	CHECK("open: by a name two maps have is -ENOTUNIQ, listing both ids", err == -ENOTUNIQ && !o &&
	      has(kiln_errmsg(), id1) && has(kiln_errmsg(), id2) && has(kiln_errmsg(), kname), "%d %s", err,
	      kiln_errmsg());
	kiln_map_close(m2);

	err = kiln_map_open_name("kl_no_such_map", &o);
	CHECK("open: by a name nobody has is -ENOENT", err == -ENOENT && has(kiln_errmsg(), "kl_no_such_map"),
	      "%d %s", err, kiln_errmsg());
	err = kiln_map_open_id(0xfffffff0u, &o);
	CHECK("open: a bad id is -ENOENT naming the syscall", err == -ENOENT &&
	      has(kiln_errmsg(), "BPF_MAP_GET_FD_BY_ID") && has(kiln_errmsg(), strerror(ENOENT)), "%d %s", err,
	      kiln_errmsg());
	int prog = load_prog();
	err = kiln_map_open_fd(prog, &o);
	CHECK("open: a program's fd is not a map", err == -EINVAL && has(kiln_errmsg(), "not a BPF map"),
	      "%d %s", err, kiln_errmsg());
	close(prog);
	uint32_t next = 0;
	bool found = false;
	for (uint32_t at = 0; !kiln_map_next_id(at, &next); at = next)
		found |= next == id;
	CHECK("open: next_id walks the kernel's maps, ours among them", found, "id %u not seen", id);

	/* a map wrapped before its object is loaded, the way object.c does */
	struct kiln_map *w = kl_map_wrap(-1, "kl_wrapped_map_long_name", false);
	CHECK("wrap: before load, the name and no info", w && !strcmp(kiln_map_name(w), "kl_wrapped_map_long_name") &&
	      kiln_map_info(w)->type == BPF_MAP_TYPE_UNSPEC && kiln_map_lookup(w, &id, &next) == -EBADF,
	      "%s", kiln_errmsg());
	if (w) {
		kl_map_set_fd(w, kiln_map_fd(m));
		CHECK("wrap: after set_fd, the kernel's info", kiln_map_info(w)->type == BPF_MAP_TYPE_HASH &&
		      kiln_map_info(w)->id == id && !strcmp(kiln_map_name(w), "kl_wrapped_map_long_name"),
		      "type %d", kiln_map_info(w)->type);
		kiln_map_close(w);
		CHECK("wrap: closing a map it does not own leaves the fd", fcntl(kiln_map_fd(m), F_GETFD) >= 0,
		      "closed");
	}
	kiln_map_close(m);
}

/* ---- errors and names -------------------------------------------------------------------- */

static void test_errors(void)
{
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = "kl_bad_ring", .type = BPF_MAP_TYPE_RINGBUF,
		.max_entries = 4097,
	};
	struct kiln_map *m = NULL;
	int err = kiln_map_create(&spec, &m);
	CHECK("errors: a ring buffer of 4097 bytes is refused, the message names syscall and errno",
	      err == -EINVAL && !m && has(kiln_errmsg(), "bpf(BPF_MAP_CREATE) for map 'kl_bad_ring'") &&
	      has(kiln_errmsg(), strerror(EINVAL)), "%d '%s'", err, kiln_errmsg());
	spec.name = "kl-dashed";
	spec.type = BPF_MAP_TYPE_HASH;
	spec.key_size = spec.value_size = 4;
	spec.max_entries = 4;
	err = kiln_map_create(&spec, &m);
	CHECK("errors: a map name the kernel refuses says why", err == -EINVAL && has(kiln_errmsg(), "kl-dashed") &&
	      has(kiln_errmsg(), "letters, digits"), "%d '%s'", err, kiln_errmsg());
	spec.sz = 0;
	err = kiln_map_create(&spec, &m);
	CHECK("errors: a spec without sz", err == -EINVAL && has(kiln_errmsg(), "sz"), "%d %s", err, kiln_errmsg());

	int bad = 0;
	for (int t = BPF_MAP_TYPE_HASH; t <= BPF_MAP_TYPE_USER_RINGBUF; t++) {
		const char *s = kiln_map_type_name((enum bpf_map_type)t);
		char dashed[64];
		snprintf(dashed, sizeof(dashed), "%s", s);
		for (char *p = dashed; *p; p++)
			if (*p == '_')
				*p = '-';
		if (kiln_map_type_from_name(s) != t || kiln_map_type_from_name(dashed) != t) {
			printf("# %d: %s %s\n", t, s, dashed);
			bad++;
		}
	}
	CHECK("names: every type round trips, both spellings", !bad, "%d bad", bad);
	CHECK("names: libbpf's and kiln's spellings", kiln_map_type_from_name("percpu_array") == BPF_MAP_TYPE_PERCPU_ARRAY &&
	      kiln_map_type_from_name("percpu-array") == BPF_MAP_TYPE_PERCPU_ARRAY &&
	      kiln_map_type_from_name("lru_hash") == BPF_MAP_TYPE_LRU_HASH &&
	      !strcmp(kiln_map_type_name(BPF_MAP_TYPE_ARRAY_OF_MAPS), "array_of_maps"), "mismatch");
	CHECK("names: unknown names are -1", kiln_map_type_from_name("hashy") == -1 &&
	      kiln_map_type_from_name("") == -1 && kiln_map_type_from_name("unspec") == -1 &&
	      kiln_map_type_from_name(NULL) == -1, "accepted");
}

/* Queues, stacks and bloom filters: values without keys, through kiln_map_push/pop/peek. */
static void test_keyless(void)
{
	static const struct { enum bpf_map_type type; const char *name; uint32_t want[3]; } kinds[] = {
		{ BPF_MAP_TYPE_QUEUE, "queue", { 11, 22, 33 } },
		{ BPF_MAP_TYPE_STACK, "stack", { 33, 22, 11 } },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct kiln_map_spec spec = { .sz = sizeof(spec), .type = kinds[k].type, .value_size = 4,
					      .max_entries = 3 };
		struct kiln_map *m;
		char name[96];
		snprintf(name, sizeof name, "%s: create", kinds[k].name);
		int cerr = kiln_map_create(&spec, &m);
		CHECK(name, cerr == 0, "%s", kiln_errmsg());
		if (cerr)
			continue;
		uint32_t v = 11, got = 0;
		bool ok = true;
		for (v = 11; v <= 33; v += 11)
			ok = ok && kiln_map_push(m, &v, BPF_ANY) == 0;
		snprintf(name, sizeof name, "%s: push 3", kinds[k].name);
		CHECK(name, ok, "%s", kiln_errmsg());
		v = 44;
		int err = kiln_map_push(m, &v, BPF_ANY);
		snprintf(name, sizeof name, "%s: push onto a full one is -E2BIG", kinds[k].name);
		CHECK(name, err == -E2BIG, "got %d", err);
		snprintf(name, sizeof name, "%s: peek shows the next", kinds[k].name);
		CHECK(name, kiln_map_peek(m, &got) == 0 && got == kinds[k].want[0], "got %u", got);
		for (int i = 0; i < 3; i++) {
			got = 0;
			err = kiln_map_pop(m, &got);
			snprintf(name, sizeof name, "%s: pop %d", kinds[k].name, i);
			CHECK(name, err == 0 && got == kinds[k].want[i], "err %d, got %u, want %u", err, got,
			      kinds[k].want[i]);
		}
		snprintf(name, sizeof name, "%s: pop when empty is -ENOENT", kinds[k].name);
		CHECK(name, kiln_map_pop(m, &got) == -ENOENT, "%s", kiln_errmsg());
		kiln_map_close(m);
	}
	struct kiln_map_spec spec = { .sz = sizeof(spec), .type = BPF_MAP_TYPE_BLOOM_FILTER, .value_size = 4,
				      .max_entries = 100, .map_extra = 3 };
	struct kiln_map *m;
	int cerr = kiln_map_create(&spec, &m);
	CHECK("bloom: create", cerr == 0, "%s", kiln_errmsg());
	if (!cerr) {
		uint32_t v = 7;
		CHECK("bloom: push", kiln_map_push(m, &v, BPF_ANY) == 0, "%s", kiln_errmsg());
		CHECK("bloom: a pushed value may be in", kiln_map_peek(m, &v) == 0, "%s", kiln_errmsg());
		int absent = 0;
		for (v = 1000; v < 1100; v++)
			absent += kiln_map_peek(m, &v) == -ENOENT;
		/* 3 hashes, 100 entries, one value in: all but a rare false positive are absent */
		CHECK("bloom: values never pushed are absent", absent >= 95, "%d of 100 absent", absent);
		kiln_map_close(m);
	}
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP test_map: needs root for bpf()\n");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fds_before = check_open_fds();
	struct fds f;
	fds_open(&f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_type(&cases[i], &f);
	test_batches(&f);
	test_percpu();
	test_iter(&f);
	test_dump();
	test_open();
	test_errors();
	test_keyless();
	fds_close(&f);
	int fds_after = check_open_fds();
	CHECK("no fd leaks", fds_before == fds_after, "%d fds before, %d after", fds_before, fds_after);
	return CHECK_DONE();
}
