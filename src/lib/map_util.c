/* map_util.c — pkg/bpf's DeleteAll and pre-allocation switches on top of map.c (kiln/map.h). */
#include "kiln/map.h"
#include "fail.h"
#include "map_internal.h"
#include "kfacts/map_types.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- pre-allocation --------------------------------------------------------------------- */

/* What the kernel takes is a column of the map-type list (kfacts/map_types.def); whether to
 * pre-allocate where the kernel lets the program choose is the caller's setting. */
uint32_t kiln_map_prealloc_flags(enum bpf_map_type type, bool prealloc)
{
	enum kf_prealloc p = kl_map_type_facts(type)->prealloc;
	if (p == KF_PREALLOC_REFUSED || (p == KF_PREALLOC_OPTIONAL && !prealloc))
		return BPF_F_NO_PREALLOC;
	return 0;
}

/* ---- delete all ------------------------------------------------------------------------- */

#define CHUNK 4096u

/* Delete n keys (packed), skipping those someone else deleted first. */
static int delete_keys(struct kiln_map *m, const unsigned char *keys, uint32_t n, uint64_t *deleted)
{
	size_t ks = kiln_map_info(m)->key_size;
	for (uint32_t i = 0; i < n;) {
		uint32_t c = n - i;
		int err = kiln_map_delete_batch(m, keys + (size_t)i * ks, &c);
		*deleted += c;
		i += c;
		if (!err)
			break;
		if (err != -ENOENT)
			return err;
		i++;        /* gone already: the key at i */
	}
	return 0;
}

/* Arrays: every value zeroed, CHUNK indices at a time. */
static int zero_all(struct kiln_map *m, uint64_t *done)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	void *zeros = calloc(CHUNK, kiln_map_value_buf_size(m));
	int err = keys && zeros ? 0 : kl_fail(-ENOMEM, "zeroing %s", kl_map_label(m));
	for (uint32_t at = 0; !err && at < info->max_entries;) {
		uint32_t n = info->max_entries - at < CHUNK ? info->max_entries - at : CHUNK;
		for (uint32_t i = 0; i < n; i++)
			keys[i] = at + i;
		uint32_t c = n;
		err = kiln_map_update_batch(m, keys, zeros, &c, BPF_ANY);
		*done += c;
		at += n;
	}
	free(keys);
	free(zeros);
	return err;
}

/* fd arrays and the like: a slot per index, present or not. */
static int clear_slots(struct kiln_map *m, uint64_t *done)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	int err = keys ? 0 : kl_fail(-ENOMEM, "clearing %s", kl_map_label(m));
	for (uint32_t at = 0; !err && at < info->max_entries;) {
		uint32_t n = info->max_entries - at < CHUNK ? info->max_entries - at : CHUNK;
		for (uint32_t i = 0; i < n; i++)
			keys[i] = at + i;
		err = delete_keys(m, (const unsigned char *)keys, n, done);
		at += n;
	}
	free(keys);
	return err;
}

static int pop_all(struct kiln_map *m, uint64_t *done)
{
	void *v = malloc(kiln_map_value_buf_size(m) + 1);
	if (!v)
		return kl_fail(-ENOMEM, "emptying %s", kl_map_label(m));
	int err = 0;
	for (uint32_t i = 0; i < kiln_map_info(m)->max_entries; i++) {
		if ((err = kiln_map_pop(m, v))) {
			if (err == -ENOENT)
				err = 0;
			break;
		}
		(*done)++;
	}
	free(v);
	return err;
}

/* Hash maps: one pass over the buckets, each emptied by the kernel as it goes, so nothing that
 * was there when the pass started escapes it. 1 when the kernel has no such batch for the
 * map (nothing done), else 0 or a negative errno. */
static int drain_buckets(struct kiln_map *m, uint64_t *done)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	size_t ks = info->key_size, vs = kiln_map_value_buf_size(m);
	size_t tok = ks > 8 ? ks : 8;
	uint32_t cap = CHUNK < info->max_entries ? CHUNK : info->max_entries ? info->max_entries : 1;
	unsigned char *in = calloc(2, tok), *keys = malloc(ks * cap + 1), *vals = malloc(vs * cap + 1);
	int err = in && keys && vals ? 0 : kl_fail(-ENOMEM, "deleting all of %s", kl_map_label(m));
	bool started = false;
	while (!err) {
		uint32_t c = cap;
		err = bpf_map_lookup_and_delete_batch(kiln_map_fd(m), started ? in : NULL, in + tok, keys,
						      vals, &c, NULL);
		if (err == -ENOSPC && cap < info->max_entries) {
			/* a bucket holds more than fits: more room, same bucket */
			cap = cap * 2 < info->max_entries ? cap * 2 : info->max_entries;
			unsigned char *k = realloc(keys, ks * cap), *v = k ? realloc(vals, vs * cap) : NULL;
			keys = k ? k : keys;
			vals = v ? v : vals;
			err = k && v ? 0 : kl_fail(-ENOMEM, "deleting all of %s", kl_map_label(m));
			continue;
		}
		if (!started && kl_map_op_missing(err)) {
			err = 1;
			break;
		}
		if (err && err != -ENOENT) {
			err = kl_fail(err, "bpf(BPF_MAP_LOOKUP_AND_DELETE_BATCH) on %s", kl_map_label(m));
			break;
		}
		*done += c;
		started = true;
		memcpy(in, in + tok, tok);
		if (err == -ENOENT) {
			err = 0;   /* the last bucket */
			break;
		}
	}
	free(in);
	free(keys);
	free(vals);
	return err;
}

/* Other keyed maps: collect up to CHUNK keys from the first one on (a key someone deletes
 * under the walk sends it back to the first key: duplicates, which delete_keys skips), delete
 * them, and again until the map is empty. Bounded, for a map refilled as fast as it drains. */
static int walk_delete(struct kiln_map *m, uint64_t *done)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	size_t ks = info->key_size;
	unsigned char *keys = malloc((ks ? ks : 1) * CHUNK);
	if (!keys)
		return kl_fail(-ENOMEM, "deleting all of %s", kl_map_label(m));
	uint64_t rounds = 16 + 4 * ((uint64_t)info->max_entries / CHUNK + 1);
	int err = 0;
	for (uint64_t r = 0; !err; r++) {
		if (r == rounds) {
			err = kl_fail_msg(-EBUSY, "deleting all of %s: entries keep coming back", kl_map_label(m));
			break;
		}
		uint32_t n = 0;
		while (n < CHUNK) {
			err = bpf_map_get_next_key(kiln_map_fd(m), n ? keys + (n - 1) * ks : NULL, keys + n * ks);
			if (err)
				break;
			n++;
		}
		if (err && err != -ENOENT) {
			err = kl_fail(err, "bpf(BPF_MAP_GET_NEXT_KEY) on %s", kl_map_label(m));
			break;
		}
		if (!n) {
			err = 0;
			break;
		}
		err = delete_keys(m, keys, n, done);
	}
	free(keys);
	return err;
}

int kiln_map_delete_all(struct kiln_map *m, uint64_t *count)
{
	uint64_t done = 0;
	int err = kl_map_need_info(m);
	enum kf_clear how = kl_map_type_facts(kiln_map_info(m)->type)->clear;
	if (err)
		;
	else if (how == KF_CLEAR_ZERO)
		err = zero_all(m, &done);
	else if (how == KF_CLEAR_POP)
		err = pop_all(m, &done);
	else if (how == KF_CLEAR_SLOTS)
		err = clear_slots(m, &done);
	else if ((err = drain_buckets(m, &done)) == 1)
		err = walk_delete(m, &done);
	if (count)
		*count = done;
	return err;
}
