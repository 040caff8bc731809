/* map.c — BPF maps from C (kiln/map.h): create and open, element calls, batches with a per-key
 * fallback, per-CPU value layout, a batched iterator and pkg/bpf's dump that survives deletes. */
#include "kiln/map.h"
#include "fail.h"
#include "map_internal.h"
#include "kfacts/map_types.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "no such operation", which bpf() leaks */
#endif

enum {
	NO_LOOKUP_BATCH = 1 << 0,
	NO_UPDATE_BATCH = 1 << 1,
	NO_DELETE_BATCH = 1 << 2,
};

struct kiln_map {
	int fd;
	bool owned;
	bool have_info;
	unsigned no_batch;          /* NO_*_BATCH: the kernel said so once, do not ask again */
	char *name;                 /* as given (may be longer than the kernel's 15); NULL: info's */
	struct kiln_map_info info;
	size_t stride, buf_size;
	char label[96];             /* "map 'counts'", for messages */
	struct kl_map_extra *extra; /* map_util.c's and map_fmt.c's state, made on first use */
};

static void set_label(struct kiln_map *m)
{
	const char *n = m->name ? m->name : m->info.name;
	if (n[0])
		snprintf(m->label, sizeof(m->label), "map '%s'", n);
	else if (m->info.id)
		snprintf(m->label, sizeof(m->label), "map id %u", m->info.id);
	else
		snprintf(m->label, sizeof(m->label), "map fd %d", m->fd);
}

int kiln_num_possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();
	if (n < 0)
		return kl_fail(n, "possible CPUs (/sys/devices/system/cpu/possible)");
	return n;
}

static int read_info(struct kiln_map *m)
{
	struct bpf_map_info bi;
	uint32_t len = sizeof(bi);
	memset(&bi, 0, sizeof(bi));
	int err = bpf_obj_get_info_by_fd(m->fd, &bi, &len);
	if (err) {
		set_label(m);
		return kl_fail(err, "bpf(BPF_OBJ_GET_INFO_BY_FD) on %s", m->label);
	}
	struct kiln_map_info *i = &m->info;
	memset(i, 0, sizeof(*i));
	i->type = (enum bpf_map_type)bi.type;
	i->id = bi.id;
	i->key_size = bi.key_size;
	i->value_size = bi.value_size;
	i->max_entries = bi.max_entries;
	i->flags = bi.map_flags;
	memcpy(i->name, bi.name, sizeof(i->name));
	i->name[sizeof(i->name) - 1] = 0;
	i->btf_id = bi.btf_id;
	i->btf_key_type_id = bi.btf_key_type_id;
	i->btf_value_type_id = bi.btf_value_type_id;
	i->map_extra = bi.map_extra;
	m->stride = m->buf_size = i->value_size;
	if (kl_map_type_facts(i->type)->percpu) {
		int ncpu = kiln_num_possible_cpus();
		if (ncpu < 0)
			return ncpu;
		m->stride = ((size_t)i->value_size + 7) & ~(size_t)7;
		m->buf_size = m->stride * (size_t)ncpu;
	}
	m->have_info = true;
	set_label(m);
	return 0;
}

/* The info is read lazily for maps wrapped before their object was loaded; the const getters
 * fill it too (the struct itself is never const: it is always malloc'd here). */
static int need_info(struct kiln_map *m)
{
	if (m->have_info)
		return 0;
	if (m->fd < 0)
		return kl_fail_msg(-EBADF, "%s has no fd yet (its object is not loaded)", m->label);
	return read_info(m);
}

static struct kiln_map *map_new(int fd, const char *name, bool owned)
{
	struct kiln_map *m = calloc(1, sizeof(*m));
	if (!m)
		goto oom;
	m->fd = fd;
	m->owned = owned;
	if (name && name[0] && !(m->name = strdup(name))) {
		free(m);
		goto oom;
	}
	set_label(m);
	return m;
oom:
	kl_fail(-ENOMEM, "map '%s'", name ? name : "");
	return NULL;
}

struct kiln_map *kl_map_wrap(int fd, const char *name, bool owned)
{
	struct kiln_map *m = map_new(fd, name, owned);
	if (m && fd >= 0)
		read_info(m);
	return m;
}

void kl_map_set_fd(struct kiln_map *m, int fd)
{
	m->fd = fd;
	m->have_info = false;
	m->no_batch = 0;
	if (fd >= 0)
		read_info(m);
	else
		set_label(m);
}

/* Take fd (closed on failure) as a new owned map with its kernel info. */
static int adopt(int fd, const char *name, struct kiln_map **out)
{
	struct kiln_map *m = map_new(fd, name, true);
	if (!m) {
		close(fd);
		return -ENOMEM;
	}
	int err = read_info(m);
	if (err) {
		kiln_map_close(m);
		return err;
	}
	*out = m;
	return 0;
}

/* bpf_obj_get_info_by_fd fills whatever the fd is (a program's info for a program), so what
 * the fd is comes from its anon inode's name: "anon_inode:bpf-map". 0 if a map, else -EINVAL
 * with a message; /proc not mounted gives the benefit of the doubt. */
static int check_is_map(int fd, const char *what)
{
	char link[64], target[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = 0;
	if (!strcmp(target, "anon_inode:bpf-map"))
		return 0;
	const char *kind = strncmp(target, "anon_inode:", 11) ? target : target + 11;
	return kl_fail_msg(-EINVAL, "%s is not a BPF map (it is %s)", what, kind);
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

int kiln_map_create(const struct kiln_map_spec *spec, struct kiln_map **out)
{
	struct kiln_map_spec s;
	*out = NULL;
	if (!spec || spec->sz < offsetof(struct kiln_map_spec, flags))
		return kl_fail_msg(-EINVAL, "kiln_map_create: spec->sz is not set (sizeof(struct kiln_map_spec))");
	memset(&s, 0, sizeof(s));
	memcpy(&s, spec, spec->sz < sizeof(s) ? spec->sz : sizeof(s));
	for (size_t i = sizeof(s); i < spec->sz; i++)
		if (((const char *)spec)[i])
			return kl_fail_msg(-E2BIG, "kiln_map_create: spec has fields this libkiln does not know");

	LIBBPF_OPTS(bpf_map_create_opts, o,
		    .btf_fd = s.btf_fd > 0 ? (uint32_t)s.btf_fd : 0,
		    .btf_key_type_id = s.btf_key_type_id,
		    .btf_value_type_id = s.btf_value_type_id,
		    .inner_map_fd = s.inner_map_fd > 0 ? (uint32_t)s.inner_map_fd : 0,
		    .map_flags = s.flags,
		    .map_extra = s.map_extra,
		    .numa_node = s.numa_node);
	const char *name = s.name ? s.name : "";
	int fd = bpf_map_create(s.type, s.name, s.key_size, s.value_size, s.max_entries, &o);
	if (fd < 0) {
		const char *tn = kiln_map_type_name(s.type);
		bool bad_name = false;
		for (size_t i = 0; i < 15 && name[i]; i++)
			bad_name |= !name_char_ok(name[i]);
		if (fd == -EINVAL && bad_name)
			return kl_fail_msg(fd, "bpf(BPF_MAP_CREATE) for map '%s': %s (a map name may only "
					   "hold letters, digits, '_' and '.')", name, strerror(EINVAL));
		return kl_fail(fd, "bpf(BPF_MAP_CREATE) for map '%s' (%s key %u value %u max %u flags %#x)",
			       name, tn, s.key_size, s.value_size, s.max_entries, s.flags);
	}
	return adopt(fd, s.name, out);
}

int kiln_map_open_pinned(const char *path, struct kiln_map **out)
{
	*out = NULL;
	int fd = bpf_obj_get(path);
	if (fd < 0)
		return kl_fail(fd, "bpf(BPF_OBJ_GET) of pinned map %s", path);
	int err = check_is_map(fd, path);
	if (err) {
		close(fd);
		return err;
	}
	return adopt(fd, NULL, out);
}

int kiln_map_open_id(uint32_t id, struct kiln_map **out)
{
	*out = NULL;
	int fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return kl_fail(fd, "bpf(BPF_MAP_GET_FD_BY_ID) for map id %u", id);
	return adopt(fd, NULL, out);
}

int kiln_map_open_fd(int fd, struct kiln_map **out)
{
	*out = NULL;
	char what[32];
	snprintf(what, sizeof(what), "fd %d", fd);
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0)
		return kl_fail(errno, "dup of map fd %d", fd);
	int err = check_is_map(dfd, what);
	if (err) {
		close(dfd);
		return err;
	}
	return adopt(dfd, NULL, out);
}

int kiln_map_open_name(const char *name, struct kiln_map **out)
{
	*out = NULL;
	if (!name || !name[0])
		return kl_fail_msg(-EINVAL, "open map by name: no name given");
	int found = -1, err;
	uint32_t id = 0, ids[8], nids = 0;
	while (!(err = bpf_map_get_next_id(id, &id))) {
		int fd = bpf_map_get_fd_by_id(id);
		if (fd < 0) {
			if (fd == -ENOENT)
				continue; /* freed since get_next_id */
			err = fd;
			kl_fail(err, "bpf(BPF_MAP_GET_FD_BY_ID) for map id %u", id);
			goto fail;
		}
		struct bpf_map_info bi;
		uint32_t len = sizeof(bi);
		memset(&bi, 0, sizeof(bi));
		err = bpf_obj_get_info_by_fd(fd, &bi, &len);
		if (err || strncmp(bi.name, name, BPF_OBJ_NAME_LEN - 1)) {
			close(fd);
			continue;
		}
		if (nids < sizeof(ids) / sizeof(ids[0]))
			ids[nids] = id;
		nids++;
		if (found < 0)
			found = fd;
		else
			close(fd);
	}
	if (err != -ENOENT) {
		kl_fail(err, "bpf(BPF_MAP_GET_NEXT_ID) looking for map '%s'", name);
		goto fail;
	}
	if (found < 0)
		return kl_fail_msg(-ENOENT, "no map named '%.15s' in the kernel", name);
	if (nids > 1) {
		char list[128];
		size_t at = 0;
		for (uint32_t i = 0; i < nids && i < sizeof(ids) / sizeof(ids[0]); i++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u", i ? ", " : "", ids[i]);
		close(found);
		return kl_fail_msg(-ENOTUNIQ, "%u maps are named '%.15s' (ids %s%s): open one by id",
				   nids, name, list, nids > sizeof(ids) / sizeof(ids[0]) ? ", ..." : "");
	}
	return adopt(found, NULL, out);
fail:
	if (found >= 0)
		close(found);
	return err;
}

void kiln_map_close(struct kiln_map *m)
{
	if (!m)
		return;
	if (m->owned && m->fd >= 0)
		close(m->fd);
	kl_map_extra_free(m->extra);
	free(m->name);
	free(m);
}

int kiln_map_fd(const struct kiln_map *m)
{
	return m->fd;
}

const char *kiln_map_name(const struct kiln_map *m)
{
	if (m->name)
		return m->name;
	need_info((struct kiln_map *)m);
	return m->info.name;
}

const struct kiln_map_info *kiln_map_info(const struct kiln_map *m)
{
	need_info((struct kiln_map *)m);
	return &m->info;
}

int kiln_map_info_refresh(struct kiln_map *m)
{
	if (m->fd < 0)
		return kl_fail_msg(-EBADF, "%s has no fd yet (its object is not loaded)", m->label);
	return read_info(m);
}

bool kiln_map_is_percpu(const struct kiln_map *m)
{
	return kl_map_type_facts(kiln_map_info(m)->type)->percpu;
}

size_t kiln_map_value_stride(const struct kiln_map *m)
{
	need_info((struct kiln_map *)m);
	return m->stride;
}

size_t kiln_map_value_buf_size(const struct kiln_map *m)
{
	need_info((struct kiln_map *)m);
	return m->buf_size;
}

/* ---- elements ---------------------------------------------------------------------------- */

int kiln_map_lookup(struct kiln_map *m, const void *key, void *value)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_lookup_elem(m->fd, key, value)))
		return kl_fail(err, "bpf(BPF_MAP_LOOKUP_ELEM) on %s", m->label);
	return err;
}

static const char *update_flags_str(uint64_t flags)
{
	switch (flags & ~(uint64_t)BPF_F_LOCK) {
	case BPF_ANY: return "";
	case BPF_NOEXIST: return " (BPF_NOEXIST)";
	case BPF_EXIST: return " (BPF_EXIST)";
	default: return " (flags)";
	}
}

int kiln_map_update(struct kiln_map *m, const void *key, const void *value, uint64_t flags)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_update_elem(m->fd, key, value, flags)))
		return kl_fail(err, "bpf(BPF_MAP_UPDATE_ELEM%s) on %s", update_flags_str(flags), m->label);
	return err;
}

int kiln_map_delete(struct kiln_map *m, const void *key)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_delete_elem(m->fd, key)))
		return kl_fail(err, "bpf(BPF_MAP_DELETE_ELEM) on %s", m->label);
	return err;
}

int kiln_map_next_key(struct kiln_map *m, const void *key, void *next)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_get_next_key(m->fd, key, next)))
		return kl_fail(err, "bpf(BPF_MAP_GET_NEXT_KEY) on %s", m->label);
	return err;
}

int kiln_map_lookup_and_delete(struct kiln_map *m, const void *key, void *value)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_lookup_and_delete_elem(m->fd, key, value)))
		return kl_fail(err, "bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM) on %s", m->label);
	return err;
}

int kiln_map_push(struct kiln_map *m, const void *value, uint64_t flags)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_update_elem(m->fd, NULL, value, flags)))
		return kl_fail(err, "bpf(BPF_MAP_UPDATE_ELEM%s) pushing onto %s", update_flags_str(flags), m->label);
	return err;
}

int kiln_map_pop(struct kiln_map *m, void *value)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_lookup_and_delete_elem(m->fd, NULL, value)))
		return kl_fail(err, "bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM) popping from %s", m->label);
	return err;
}

int kiln_map_peek(struct kiln_map *m, void *value)
{
	int err = need_info(m);
	if (!err && (err = bpf_map_lookup_elem(m->fd, NULL, value)))
		return kl_fail(err, "bpf(BPF_MAP_LOOKUP_ELEM) peeking at %s", m->label);
	return err;
}

/* ---- batches ----------------------------------------------------------------------------- */

/* What bpf() says when the map type has no batch operation (ENOTSUPP, from the missing op) or
 * when the kernel predates batches or refuses the flags (EINVAL). */
static bool no_batch_err(int err)
{
	return err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOTSUPP;
}

static bool op_missing_err(int err)
{
	return err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOTSUPP;
}

/* After a batch call failed with err, how many entries it did: the kernel only writes the
 * count back once it has started, so an unchanged count means none. */
static uint32_t batch_done(uint32_t asked, uint32_t got)
{
	return got < asked ? got : 0;
}

int kiln_map_update_batch(struct kiln_map *m, const void *keys, const void *values,
			  uint32_t *count, uint64_t flags)
{
	uint32_t n = *count, done = 0;
	int err = need_info(m);
	*count = 0;
	if (err || !n)
		return err;
	/* The kernel's batch update takes no BPF_NOEXIST/BPF_EXIST: go per key at once. */
	if (!(m->no_batch & NO_UPDATE_BATCH) && !(flags & ~(uint64_t)BPF_F_LOCK)) {
		LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = flags);
		uint32_t c = n;
		err = bpf_map_update_batch(m->fd, keys, values, &c, &o);
		if (!err) {
			*count = c;
			return 0;
		}
		if (!no_batch_err(err)) {
			*count = batch_done(n, c);
			return kl_fail(err, "bpf(BPF_MAP_UPDATE_BATCH) on %s (entry %u of %u)",
				       m->label, *count, n);
		}
		if (op_missing_err(err))
			m->no_batch |= NO_UPDATE_BATCH;
		done = batch_done(n, c);
	}
	const char *k = keys, *v = values;
	for (; done < n; done++) {
		err = bpf_map_update_elem(m->fd, k + (size_t)done * m->info.key_size,
					  v + (size_t)done * m->buf_size, flags);
		if (err) {
			*count = done;
			return kl_fail(err, "bpf(BPF_MAP_UPDATE_ELEM%s) on %s (entry %u of %u)",
				       update_flags_str(flags), m->label, done, n);
		}
	}
	*count = n;
	return 0;
}

int kiln_map_delete_batch(struct kiln_map *m, const void *keys, uint32_t *count)
{
	uint32_t n = *count, done = 0;
	int err = need_info(m);
	*count = 0;
	if (err || !n)
		return err;
	if (!(m->no_batch & NO_DELETE_BATCH)) {
		uint32_t c = n;
		err = bpf_map_delete_batch(m->fd, keys, &c, NULL);
		if (!err) {
			*count = c;
			return 0;
		}
		if (!no_batch_err(err)) {
			*count = batch_done(n, c);
			return kl_fail(err, "bpf(BPF_MAP_DELETE_BATCH) on %s (entry %u of %u)",
				       m->label, *count, n);
		}
		if (op_missing_err(err))
			m->no_batch |= NO_DELETE_BATCH;
		done = batch_done(n, c);
	}
	const char *k = keys;
	for (; done < n; done++) {
		err = bpf_map_delete_elem(m->fd, k + (size_t)done * m->info.key_size);
		if (err) {
			*count = done;
			return kl_fail(err, "bpf(BPF_MAP_DELETE_ELEM) on %s (entry %u of %u)",
				       m->label, done, n);
		}
	}
	*count = n;
	return 0;
}

/* ---- the reliable key walk (pkg/bpf's DumpReliablyWithCallback) ----------------------------
 * get_next_key of a key that is no longer in a hash map returns the map's FIRST key, which
 * silently starts a naive walk over. So each round asks for the key after cur and then looks
 * cur up: if cur is still there, the next key really follows it (and cur's value is read);
 * if cur is gone, the next key is untrustworthy and the walk resumes from the key before cur,
 * or, that one gone too, from the first key. For arrays (and other maps whose next key is an
 * index) a missing entry is only a hole and says nothing about the next key. */

struct walk {
	struct kiln_map *m;
	unsigned char *keys;        /* the three key buffers below, which trade places */
	unsigned char *cur, *nxt, *prev;
	bool started, at_end, have_prev, cur_reported, cur_is_prev;
	bool index_like;
	uint32_t max_restarts;
	struct kiln_map_dump_stats *st;
};

static int walk_init(struct walk *w, struct kiln_map *m, uint32_t max_restarts,
		     struct kiln_map_dump_stats *st)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->st = st;
	w->max_restarts = max_restarts;
	w->index_like = kl_map_type_facts(m->info.type)->index_keyed;
	size_t ks = m->info.key_size ? m->info.key_size : 1;
	w->keys = w->cur = malloc(3 * ks);
	if (!w->keys)
		return kl_fail(-ENOMEM, "dump of %s", m->label);
	w->nxt = w->cur + ks;
	w->prev = w->nxt + ks;
	return 0;
}

static void walk_free(struct walk *w)
{
	free(w->keys);
}

static void swap_keys(unsigned char **a, unsigned char **b)
{
	unsigned char *t = *a;
	*a = *b;
	*b = t;
}

/* 1 with the next entry (*key, valid until the next call; its value in value), 0 at the end,
 * or a negative errno. */
static int walk_next(struct walk *w, const void **key, void *value)
{
	struct kiln_map *m = w->m;
	size_t ks = m->info.key_size;
	int err;
	for (;;) {
		if (w->at_end)
			return 0;
		if (!w->started) {
			err = bpf_map_get_next_key(m->fd, NULL, w->cur);
			if (err == -ENOENT) {
				w->at_end = true;
				return 0;
			}
			if (err)
				return kl_fail(err, "bpf(BPF_MAP_GET_NEXT_KEY) on %s", m->label);
			w->started = true;
			w->have_prev = w->cur_reported = w->cur_is_prev = false;
		}
		w->st->lookups++;
		int nerr = bpf_map_get_next_key(m->fd, w->cur, w->nxt);
		if (nerr && nerr != -ENOENT)
			return kl_fail(nerr, "bpf(BPF_MAP_GET_NEXT_KEY) on %s", m->label);
		err = bpf_map_lookup_elem(m->fd, w->cur, value);
		if (err && err != -ENOENT)
			return kl_fail(err, "bpf(BPF_MAP_LOOKUP_ELEM) on %s", m->label);
		if (err && w->index_like) {
			w->st->lookup_failed++;
			if (nerr)
				w->at_end = true;
			else
				swap_keys(&w->cur, &w->nxt);
			w->cur_reported = false;
			continue;
		}
		if (err) {
			if (w->cur_is_prev) {
				w->st->prev_key_unavailable++;
			} else {
				w->st->lookup_failed++;
				if (w->have_prev) {
					memcpy(w->cur, w->prev, ks);
					w->have_prev = false;
					w->cur_reported = w->cur_is_prev = true;
					w->st->key_fallback++;
					continue;
				}
			}
			if (w->st->interrupted >= w->max_restarts)
				return kl_fail_msg(-EBUSY, "dump of %s: entries kept vanishing under it, "
						   "gave up after %u restarts", m->label, w->st->interrupted);
			w->st->interrupted++;
			w->started = false;
			continue;
		}
		bool report = !w->cur_reported;
		if (nerr) {
			w->at_end = true;
			*key = w->cur;
		} else {
			swap_keys(&w->prev, &w->cur);
			swap_keys(&w->cur, &w->nxt);
			w->have_prev = true;
			w->cur_reported = w->cur_is_prev = false;
			*key = w->prev;
		}
		if (report)
			return 1;
	}
}

/* ---- the iterator ------------------------------------------------------------------------ */

struct kiln_map_iter {
	struct kiln_map *m;
	uint32_t batch;             /* handed out per call */
	uint32_t cap;               /* entries the buffers hold (grows past batch on -ENOSPC) */
	unsigned char *keys, *values;
	uint32_t have, pos;         /* entries fetched, entries handed out */
	bool batched, started, done;
	void *in_tok, *out_tok;     /* the kernel's opaque position: a bucket, an index, a key */
	struct walk walk;           /* without kernel batches */
	struct kiln_map_dump_stats walk_stats;
	uint32_t calls;             /* kernel batch calls, for the dump's stats */
};

static int iter_grow(struct kiln_map_iter *it, uint32_t cap)
{
	struct kiln_map *m = it->m;
	size_t ks = m->info.key_size ? m->info.key_size : 1;
	size_t vs = m->buf_size ? m->buf_size : 1;
	unsigned char *k = realloc(it->keys, ks * cap);
	if (k)
		it->keys = k;
	unsigned char *v = k ? realloc(it->values, vs * cap) : NULL;
	if (v)
		it->values = v;
	if (!k || !v)
		return kl_fail(-ENOMEM, "batch of %u entries of %s", cap, m->label);
	it->cap = cap;
	return 0;
}

int kiln_map_iter_new(struct kiln_map *m, uint32_t batch, struct kiln_map_iter **out)
{
	*out = NULL;
	int err = need_info(m);
	if (err)
		return err;
	struct kiln_map_iter *it = calloc(1, sizeof(*it));
	if (!it)
		return kl_fail(-ENOMEM, "iterator over %s", m->label);
	it->m = m;
	it->batch = batch ? batch : 4096;
	size_t tok = m->info.key_size > 8 ? m->info.key_size : 8;
	it->in_tok = calloc(2, tok);
	if (!it->in_tok) {
		err = kl_fail(-ENOMEM, "iterator over %s", m->label);
		goto fail;
	}
	it->out_tok = (char *)it->in_tok + tok;
	if ((err = iter_grow(it, it->batch)))
		goto fail;
	/* Whether the kernel batches this map: a lookup of 0 entries returns at once where it
	 * does, and -ENOTSUPP from the missing operation where it does not. */
	if (!(m->no_batch & NO_LOOKUP_BATCH)) {
		uint32_t c = 0;
		err = bpf_map_lookup_batch(m->fd, NULL, it->out_tok, it->keys, it->values, &c, NULL);
		if (op_missing_err(err))
			m->no_batch |= NO_LOOKUP_BATCH;
		else if (err && !no_batch_err(err)) {
			err = kl_fail(err, "bpf(BPF_MAP_LOOKUP_BATCH) on %s", m->label);
			goto fail;
		}
		it->batched = !err;
	}
	if (!it->batched && (err = walk_init(&it->walk, m, 16, &it->walk_stats)))
		goto fail;
	*out = it;
	return 0;
fail:
	kiln_map_iter_free(it);
	return err;
}

static int iter_fetch_batch(struct kiln_map_iter *it)
{
	struct kiln_map *m = it->m;
	size_t tok = m->info.key_size > 8 ? m->info.key_size : 8;
	for (;;) {
		uint32_t c = it->cap;
		it->calls++;
		int err = bpf_map_lookup_batch(m->fd, it->started ? it->in_tok : NULL, it->out_tok,
					       it->keys, it->values, &c, NULL);
		if (err == -ENOSPC && it->cap < m->info.max_entries) {
			/* a hash bucket holds more entries than fit: make room, same position */
			uint32_t cap = it->cap * 2 < m->info.max_entries ? it->cap * 2 : m->info.max_entries;
			if ((err = iter_grow(it, cap)))
				return err;
			continue;
		}
		if (err == -ENOENT) {
			it->done = true; /* the last batch, which may still hold entries */
		} else if (err) {
			return kl_fail(err, "bpf(BPF_MAP_LOOKUP_BATCH) on %s", m->label);
		}
		it->started = true;
		memcpy(it->in_tok, it->out_tok, tok);
		it->have = c;
		it->pos = 0;
		if (c || it->done)
			return 0;
	}
}

static int iter_fetch_walk(struct kiln_map_iter *it)
{
	struct kiln_map *m = it->m;
	size_t ks = m->info.key_size;
	it->have = it->pos = 0;
	while (it->have < it->batch) {
		const void *key;
		int r = walk_next(&it->walk, &key, it->values + (size_t)it->have * m->buf_size);
		if (r < 0)
			return r;
		if (!r) {
			it->done = true;
			break;
		}
		memcpy(it->keys + (size_t)it->have * ks, key, ks);
		it->have++;
	}
	return 0;
}

int kiln_map_iter_next(struct kiln_map_iter *it, const void **keys, const void **values)
{
	struct kiln_map *m = it->m;
	if (it->pos >= it->have) {
		if (it->done)
			return 0;
		int err = it->batched ? iter_fetch_batch(it) : iter_fetch_walk(it);
		if (err)
			return err;
		if (!it->have)
			return 0;
	}
	uint32_t n = it->have - it->pos;
	if (n > it->batch)
		n = it->batch;
	*keys = it->keys + (size_t)it->pos * m->info.key_size;
	*values = it->values + (size_t)it->pos * m->buf_size;
	it->pos += n;
	return (int)n;
}

bool kiln_map_iter_batched(const struct kiln_map_iter *it)
{
	return it->batched;
}

void kiln_map_iter_free(struct kiln_map_iter *it)
{
	if (!it)
		return;
	walk_free(&it->walk);
	free(it->in_tok);
	free(it->keys);
	free(it->values);
	free(it);
}

/* ---- dump -------------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int dump_batched(struct kiln_map_iter *it, kiln_map_dump_fn fn, void *ctx,
			struct kiln_map_dump_stats *st)
{
	struct kiln_map *m = it->m;
	const void *keys, *values;
	int n;
	while ((n = kiln_map_iter_next(it, &keys, &values)) > 0) {
		for (int i = 0; i < n; i++) {
			st->entries++;
			int r = fn((const char *)keys + (size_t)i * m->info.key_size,
				   (const char *)values + (size_t)i * m->buf_size, ctx);
			if (r)
				return r;
		}
	}
	st->lookups = it->calls;
	if (n == 0)
		st->completed = true;
	return n;
}

static int dump_walk(struct kiln_map *m, kiln_map_dump_fn fn, void *ctx, uint32_t max_restarts,
		     struct kiln_map_dump_stats *st)
{
	struct walk w;
	int err = walk_init(&w, m, max_restarts, st);
	if (err)
		return err;
	void *value = malloc(m->buf_size ? m->buf_size : 1);
	if (!value) {
		walk_free(&w);
		return kl_fail(-ENOMEM, "dump of %s", m->label);
	}
	const void *key;
	while ((err = walk_next(&w, &key, value)) > 0) {
		st->entries++;
		if ((err = fn(key, value, ctx)))
			break;
	}
	if (!err)
		st->completed = true;
	free(value);
	walk_free(&w);
	return err;
}

int kiln_map_dump(struct kiln_map *m, kiln_map_dump_fn fn, void *ctx,
		  const struct kiln_map_dump_opts *opts, struct kiln_map_dump_stats *stats)
{
	struct kiln_map_dump_stats local;
	struct kiln_map_dump_opts o = { .sz = sizeof(o) };
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	stats->started_ns = now_ns();
	if (!fn) {
		stats->finished_ns = stats->started_ns;
		return kl_fail_msg(-EINVAL, "dump of %s: no callback", m->label);
	}
	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.batch_size)
		o.batch_size = 4096;
	if (!o.max_restarts)
		o.max_restarts = 16;
	int err = need_info(m);
	if (!err) {
		stats->max_entries = m->info.max_entries;
		struct kiln_map_iter *it = NULL;
		if (o.batch && !(m->no_batch & NO_LOOKUP_BATCH))
			err = kiln_map_iter_new(m, o.batch_size, &it);
		if (!err && it && kiln_map_iter_batched(it))
			err = dump_batched(it, fn, ctx, stats);
		else if (!err)
			err = dump_walk(m, fn, ctx, o.max_restarts, stats);
		kiln_map_iter_free(it);
	}
	stats->finished_ns = now_ns();
	return err;
}

/* ---- for map_util.c and map_fmt.c (map_internal.h) ---------------------------------------- */

int kl_map_need_info(struct kiln_map *m)
{
	return need_info(m);
}

bool kl_map_op_missing(int err)
{
	return op_missing_err(err);
}

void kl_map_extra_free(struct kl_map_extra *x)
{
	if (!x)
		return;
	free(x->parallel_path);
	free(x->pending_path);
	if (x->free_layouts)
		x->free_layouts(x->layouts);
	btf__free(x->btf);
	free(x);
}

struct kl_map_extra *kl_map_extra(struct kiln_map *m)
{
	if (!m->extra && !(m->extra = calloc(1, sizeof(*m->extra))))
		kl_fail(-ENOMEM, "%s", m->label);
	return m->extra;
}

const char *kl_map_label(const struct kiln_map *m)
{
	return m->label;
}

int kiln_map_next_id(uint32_t id, uint32_t *next)
{
	int err = bpf_map_get_next_id(id, next);
	if (err)
		return kl_fail(err, "bpf(BPF_MAP_GET_NEXT_ID) after map id %u", id);
	return 0;
}

/* ---- type names -------------------------------------------------------------------------- */

int kiln_map_type_from_name(const char *name)
{
	char want[32];
	size_t n = 0;
	if (!name)
		return -1;
	for (; name[n] && n < sizeof(want) - 1; n++)
		want[n] = name[n] == '-' ? '_' : name[n];
	if (name[n])
		return -1;
	want[n] = 0;
	for (int t = 1; t < 64; t++) {
		const char *s = libbpf_bpf_map_type_str((enum bpf_map_type)t);
		if (s && !strcmp(s, want))
			return t;
	}
	return -1;
}

const char *kiln_map_type_name(enum bpf_map_type type)
{
	const char *s = libbpf_bpf_map_type_str(type);
	return s ? s : "unknown";
}
