/* kbtf.c — the kernel's BTF, read with libbpf's parser once per process and path, and a hash
 * index of its named types (structs, unions, enums, typedefs, functions, integers). */
#include "kbtf.h"
#include "nearest.h"
#include <bpf/btf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

struct kl_kbtf {
	char *path;
	struct btf *btf;
	uint32_t *slots;       /* type ids; 0 empty */
	uint32_t mask;         /* slots - 1, a power of two minus one */
};

int kl_kbtf_family(unsigned kind)
{
	switch (kind) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return KL_KB_STRUCT;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return KL_KB_ENUM;
	case BTF_KIND_TYPEDEF: return KL_KB_TYPEDEF;
	case BTF_KIND_FUNC: return KL_KB_FUNC;
	case BTF_KIND_INT: return KL_KB_INT;
	case BTF_KIND_FWD: return KL_KB_FWD;
	case BTF_KIND_VAR: return KL_KB_VAR;
	default: return 0;
	}
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int build_index(struct kl_kbtf *k)
{
	uint32_t n = btf__type_cnt(k->btf), cap = 1024;
	while (cap < 2 * n)
		cap *= 2;
	k->slots = calloc(cap, sizeof(*k->slots));
	if (!k->slots)
		return -ENOMEM;
	k->mask = cap - 1;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		if (!t->name_off || !kl_kbtf_family(btf_kind(t)))
			continue;
		uint32_t h = hash(btf__name_by_offset(k->btf, t->name_off)) & k->mask;
		while (k->slots[h])
			h = (h + 1) & k->mask;
		k->slots[h] = id;
	}
	return 0;
}

static uint32_t find_exact(const struct kl_kbtf *k, const char *name, int kinds)
{
	for (uint32_t h = hash(name) & k->mask; k->slots[h]; h = (h + 1) & k->mask) {
		const struct btf_type *t = btf__type_by_id(k->btf, k->slots[h]);
		if ((kl_kbtf_family(btf_kind(t)) & kinds) && !strcmp(btf__name_by_offset(k->btf, t->name_off), name))
			return k->slots[h];
	}
	return 0;
}

uint32_t kl_kbtf_find(const struct kl_kbtf *k, const char *name, int kinds)
{
	uint32_t id = find_exact(k, name, kinds);
	bool upper = false;
	for (const char *p = name; *p && !upper; p++)
		upper = isupper((unsigned char)*p);
	if (id || (!strchr(name, '-') && !upper))
		return id;
	/* the Lisp spelling: task-struct is task_struct */
	char buf[256];
	size_t n = strlen(name);
	if (n >= sizeof(buf))
		return 0;
	for (size_t i = 0; i <= n; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	if ((strchr(name, '-') && (id = find_exact(k, buf, kinds))) || !upper)
		return id;
	/* written in another case (TASK-STRUCT, as Common Lisp would read it) than the kernel's
	 * lower-case one: the name as written won first, so a kernel type spelled with capitals
	 * (IO_APIC_route_entry) is found when written so */
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	return find_exact(k, buf, kinds);
}

void kl_kbtf_nearest(const struct kl_kbtf *k, struct kl_nearest *nb, int kinds)
{
	size_t want = strlen(nb->want);
	uint32_t n = btf__type_cnt(k->btf);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		if (!t->name_off || !(kl_kbtf_family(btf_kind(t)) & kinds))
			continue;
		const char *s = btf__name_by_offset(k->btf, t->name_off);
		size_t len = strlen(s);
		/* only names of about the same length can be within reach */
		if (len + 4 < want || len > want + 4)
			continue;
		kl_nearest_add(nb, s);
	}
}

const struct btf *kl_kbtf_btf(const struct kl_kbtf *k) { return k->btf; }
const char *kl_kbtf_path(const struct kl_kbtf *k) { return k->path; }

/* Kept for the process: a handful of paths at most (the running kernel's and --btf ones). */
static struct kl_kbtf *cache[8];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

const struct kl_kbtf *kl_kbtf_open(const char *path, char *err, size_t errlen)
{
	if (!path || !*path)
		path = KL_KBTF_DEFAULT;
	struct kl_kbtf *k = NULL;
	pthread_mutex_lock(&cache_lock);
	size_t i = 0;
	for (; i < sizeof(cache) / sizeof(cache[0]) && cache[i]; i++)
		if (!strcmp(cache[i]->path, path)) {
			k = cache[i];
			goto out;
		}
	if (i == sizeof(cache) / sizeof(cache[0])) {
		snprintf(err, errlen, "too many kernel BTF files in one process (at most %zu)", i);
		goto out;
	}
	struct btf *b = btf__parse(path, NULL);
	if (!b) {
		int e = errno;
		if (e == ENOENT && !strcmp(path, KL_KBTF_DEFAULT))
			snprintf(err, errlen, "cannot read the kernel's types: %s does not exist (a kernel "
				 "built without CONFIG_DEBUG_INFO_BTF); name a BTF file with --btf FILE or "
				 "(kernel-btf \"FILE\")", path);
		else
			snprintf(err, errlen, "cannot read kernel BTF from %s: %s", path, strerror(e));
		goto out;
	}
	k = calloc(1, sizeof(*k));
	if (k)
		k->btf = b;
	if (!k || !(k->path = strdup(path)) || build_index(k)) {
		snprintf(err, errlen, "out of memory reading %s", path);
		if (k) {
			free(k->path);
			free(k->slots);
		}
		free(k);
		k = NULL;
		btf__free(b);
		goto out;
	}
	cache[i] = k;
out:
	pthread_mutex_unlock(&cache_lock);
	return k;
}
