/* kiln/map.h — BPF maps from C: create, open (pinned path, id, name), lookup, update,
 * delete, key iteration, batches, per-CPU values, a dump that survives concurrent deletes,
 * and map info. The C counterpart of Cilium's pkg/bpf map API, on libbpf 1.1. */
#ifndef KILN_MAP_H
#define KILN_MAP_H
#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kiln_map;

/* Map types newer than the uapi header of Debian 12 (linux 6.1), by their kernel numbers */
#define KILN_MAP_TYPE_CGRP_STORAGE 32   /* BPF_MAP_TYPE_CGRP_STORAGE, linux 6.2 */

/* What to create. sz is sizeof(struct kiln_map_spec) (extensible, as libbpf's opts). */
struct kiln_map_spec {
	size_t sz;
	const char *name;             /* optional; the kernel keeps the first 15 characters */
	enum bpf_map_type type;
	uint32_t key_size, value_size, max_entries;
	uint32_t flags;               /* BPF_F_NO_PREALLOC, BPF_F_RDONLY_PROG, ... */
	int inner_map_fd;             /* array-of-maps / hash-of-maps: a template map; else 0 */
	uint32_t numa_node;           /* with BPF_F_NUMA_NODE */
	uint64_t map_extra;           /* bloom filter hashes, ... */
	int btf_fd;                   /* optional BTF for key and value */
	uint32_t btf_key_type_id, btf_value_type_id;
};

struct kiln_map_info {
	enum bpf_map_type type;
	uint32_t id;
	uint32_t key_size, value_size, max_entries, flags;
	char name[16];
	uint32_t btf_id, btf_key_type_id, btf_value_type_id;
	uint64_t map_extra;
};

/* Create a map. On success *out owns a new fd. */
int kiln_map_create(const struct kiln_map_spec *spec, struct kiln_map **out);
/* Open an existing map: pinned on bpffs, by kernel id, by name (the 15 characters the kernel
 * keeps; -ENOENT if none, -ENOTUNIQ if several maps have the name), or from an fd (dup'd). */
int kiln_map_open_pinned(const char *path, struct kiln_map **out);
int kiln_map_open_id(uint32_t id, struct kiln_map **out);
int kiln_map_open_name(const char *name, struct kiln_map **out);
int kiln_map_open_fd(int fd, struct kiln_map **out);
/* Close the map (its fd, unless the map belongs to a kiln_object). NULL is fine. */
void kiln_map_close(struct kiln_map *m);

int kiln_map_fd(const struct kiln_map *m);
const char *kiln_map_name(const struct kiln_map *m);
/* Type, sizes, flags, id, name and BTF ids, as the kernel reports them. */
const struct kiln_map_info *kiln_map_info(const struct kiln_map *m);
/* Re-read the info from the kernel (e.g. after the fd was given to another object). */
int kiln_map_info_refresh(struct kiln_map *m);

/* Per-CPU maps hold one value per possible CPU, each rounded up to 8 bytes: the buffer
 * lookup fills and update reads is kiln_map_value_buf_size() bytes, value i at
 * i * kiln_map_value_stride(). For other maps both are the value size. */
bool kiln_map_is_percpu(const struct kiln_map *m);
size_t kiln_map_value_stride(const struct kiln_map *m);
size_t kiln_map_value_buf_size(const struct kiln_map *m);
int kiln_num_possible_cpus(void);

/* -ENOENT when the key is absent (not an error to report: kiln_errmsg() still says so). */
int kiln_map_lookup(struct kiln_map *m, const void *key, void *value);
/* flags: BPF_ANY, BPF_NOEXIST (-EEXIST if present), BPF_EXIST (-ENOENT if absent),
 * optionally | BPF_F_LOCK. */
int kiln_map_update(struct kiln_map *m, const void *key, const void *value, uint64_t flags);
int kiln_map_delete(struct kiln_map *m, const void *key);
/* The key after key (NULL: the first key) into next; -ENOENT after the last. */
int kiln_map_next_key(struct kiln_map *m, const void *key, void *next);
int kiln_map_lookup_and_delete(struct kiln_map *m, const void *key, void *value);
/* Maps with values and no keys (queue, stack, bloom filter). push: flags BPF_ANY (-E2BIG when
 * a queue or stack is full) or BPF_EXIST (the oldest element makes room). pop and peek: the
 * next element into value, -ENOENT when empty. On a bloom filter, push adds value and
 * kiln_map_peek(m, value) asks: 0 when it may be there, -ENOENT when it certainly is not. */
int kiln_map_push(struct kiln_map *m, const void *value, uint64_t flags);
int kiln_map_pop(struct kiln_map *m, void *value);
int kiln_map_peek(struct kiln_map *m, void *value);

/* Batches: *count entries in, *count done out. Where the kernel has no batch operation for
 * the map type (or none at all) these fall back to one syscall per key, transparently; a
 * failure part-way leaves *count at the number done. */
int kiln_map_update_batch(struct kiln_map *m, const void *keys, const void *values,
			  uint32_t *count, uint64_t flags);
int kiln_map_delete_batch(struct kiln_map *m, const void *keys, uint32_t *count);

/* Reading a whole map in batches: kiln_map_iter_next hands out up to `batch` entries at a
 * time (0: 4096; keys packed at key_size, values at kiln_map_value_buf_size()), valid until
 * the next call; it returns the number of entries (> 0), 0 at the end, or a negative errno.
 * Uses BPF_MAP_LOOKUP_BATCH, or where the kernel lacks it (prog, perf-event, cgroup arrays,
 * stack traces) the key walk of kiln_map_dump. */
struct kiln_map_iter;
int kiln_map_iter_new(struct kiln_map *m, uint32_t batch, struct kiln_map_iter **out);
int kiln_map_iter_next(struct kiln_map_iter *it, const void **keys, const void **values);
bool kiln_map_iter_batched(const struct kiln_map_iter *it);  /* kernel batches in use */
void kiln_map_iter_free(struct kiln_map_iter *it);

/* A dump that survives entries being deleted while it runs (pkg/bpf's DumpReliably): when
 * the current key vanishes it resumes from the previous one, and when both are gone it starts
 * again from the first key, counting each case. Entries may then be seen twice, never lost
 * unless deleted. The callback returns 0 to go on, anything else to stop (returned). */
typedef int (*kiln_map_dump_fn)(const void *key, const void *value, void *ctx);

struct kiln_map_dump_stats {
	uint64_t started_ns, finished_ns;  /* CLOCK_MONOTONIC */
	uint32_t entries;                  /* callbacks made */
	uint32_t lookups;                  /* next-key + lookup rounds (batched: batch calls) */
	uint32_t lookup_failed;            /* a key vanished between next-key and lookup */
	uint32_t prev_key_unavailable;     /* ...and the key before it too */
	uint32_t key_fallback;             /* resumed from the previous key */
	uint32_t interrupted;              /* started again from the first key */
	uint32_t max_entries;
	bool completed;
};

struct kiln_map_dump_opts {
	size_t sz;
	bool batch;                        /* use kernel batches (no restart bookkeeping needed);
					    * per key where the map type has none */
	uint32_t batch_size;               /* default 4096 */
	uint32_t max_restarts;             /* default 16; then -EBUSY */
};

int kiln_map_dump(struct kiln_map *m, kiln_map_dump_fn fn, void *ctx,
		  const struct kiln_map_dump_opts *opts, struct kiln_map_dump_stats *stats);

/* ---- pkg/bpf's DeleteAll, pre-allocation switches, ConvertKeyValue (map_util.c, map_fmt.c) */

/* Empty the map (pkg/bpf's DeleteAll), robust against others changing it meanwhile: an entry
 * deleted by someone else first is not an error, and every entry present when the call
 * starts and not re-added during it is gone when it returns 0 (one added during it may
 * survive). Hash maps (hash, percpu, LRU, of-maps) go bucket by bucket through
 * BPF_MAP_LOOKUP_AND_DELETE_BATCH; other keyed maps (lpm-trie, devmap-hash, sockhash, stack
 * traces) delete the keys a walk collects, in batches, until the map is empty (-EBUSY if
 * entries keep coming faster than they go); fd arrays (prog, perf-event, cgroup, of-maps,
 * devmap, cpumap, xskmap, sockmap) clear every slot. Array and percpu-array entries cannot
 * be deleted, and where pkg/bpf fails on them this zeroes every value (every CPU's), which
 * is what a program sees of an entry never written. Queues and stacks are popped until empty
 * (at most max_entries elements). A bloom filter, ring buffer or storage map is what the
 * kernel says (-EOPNOTSUPP or -EINVAL). *count (optional): entries deleted (arrays: zeroed). */
int kiln_map_delete_all(struct kiln_map *m, uint64_t *count);

/* Pre-allocation (pkg/bpf's GetPreAllocateMapFlags): the map flags to create a map of `type`
 * with, pre-allocated (the kernel's default) or not. The switch is the caller's (pkg/bpf's
 * process-wide Enable/DisableMapPreAllocation is a variable of the caller's here). Hash,
 * percpu-hash and hash-of-maps may go either way: 0 with prealloc, BPF_F_NO_PREALLOC without.
 * lpm-trie and the local storages (sk, inode, task, cgroup) are refused by the kernel without
 * BPF_F_NO_PREALLOC, so they always get it; every other type (arrays, LRU hashes, queues...)
 * is refused with it, so never. */
uint32_t kiln_map_prealloc_flags(enum bpf_map_type type, bool prealloc);

enum {
	KILN_MAP_FMT_JSON = 1 << 0,   /* {"key":K,"value":V}; otherwise key=K value=V */
};
/* One entry decoded by the map's BTF (pkg/bpf's ConvertKeyValue, to text): key and value
 * (kiln_map_value_buf_size() bytes) as the event decoder writes fields (kiln/event.h):
 * structs as {a=1 b=x} / {"a":1,"b":"x"} with nested structs, char arrays as strings,
 * addresses for ipv4_addr/ipv6_addr fields, integers in decimal; per-CPU values as a list of
 * one per CPU. A key or value without BTF type (a map created without BTF) is hex bytes.
 * The BTF is loaded from the kernel (by the map's btf_id) on first use and kept with the
 * map, so calls on one map are made from one thread at a time. snprintf's convention:
 * returns the whole length, buf holds what fits; or a negative errno. */
int kiln_map_format_kv(struct kiln_map *m, const void *key, const void *value, unsigned flags,
		       char *buf, size_t len);

/* A key or value typed as text, read by the map's BTF (the inverse of kiln_map_format_kv,
 * loading the BTF the same way): an integer type takes an integer (decimal, 0x hex,
 * negative; range-checked for its width and sign; hex fills a signed type's bits; true and
 * false are 1 and 0); a struct a JSON object of its fields by name ('-' for '_' is fine;
 * nested structs as objects, bitfields too; a field left out is zero; an unknown name is an
 * error naming the nearest); an integer array a JSON array (missing elements zero); a char
 * array a string of at most its length; an ipv4_addr (kiln's :ipv4) a dotted address, an
 * ipv6_addr one in IPv6 text; a JSON number for an ipv4_addr, or an array of 16 bytes for
 * an ipv6_addr, is taken as the bytes a reader without BTF shows. The whole text is JSON when
 * it starts with '{', '[' or '"', else one bare word: `80`, `10.0.0.1`, `bash`. A struct key
 * may still be written as an integer or 0x and every byte in hex, and without BTF that is
 * the only spelling (kiln map's before). An lpm-trie key may be ADDRESS/PREFIXLEN
 * (10.0.0.0/8, fd00::/16): the prefix length as a u32, then the address. A per-CPU value is
 * one value for every CPU or a JSON list of one per possible CPU. key: len >= key_size;
 * value: len >= kiln_map_value_buf_size(). 0, or a negative errno with kiln_errmsg() saying
 * what the type wanted ("key field 'dport' is a u16: 70000 is out of range (0..65535)"). */
int kiln_map_parse_key(struct kiln_map *m, const char *text, void *buf, size_t len);
int kiln_map_parse_value(struct kiln_map *m, const char *text, void *buf, size_t len);

/* A key or value without a type, as `kiln map` reads one for a map without BTF: an integer
 * (decimal, 0x hex, negative; range-checked for size) into the first min(size, 8) bytes,
 * little-endian; or, when size > 8, 0x and two hex digits per byte, in order. 0, -EINVAL or
 * -ERANGE (no message recorded). */
int kiln_map_parse_raw(const char *s, void *out, size_t size);

/* Kernel-wide iteration over loaded maps by id: *next after id (0 = first); -ENOENT at end. */
int kiln_map_next_id(uint32_t id, uint32_t *next);

/* Map types by name: "hash", "percpu_array", "lru_hash" ... (libbpf's names, also accepting
 * kiln's "percpu-array" spelling); -1 for an unknown name. And back ("unknown" for a type
 * this libbpf has no name for). */
int kiln_map_type_from_name(const char *name);
const char *kiln_map_type_name(enum bpf_map_type type);

/* Global variables of a loaded or pinned object, in its data section's map (.rodata, .data,
 * .bss: an array of one value that is the section, with BTF): one variable by name (dashes and
 * underscores alike) read and printed as kiln map prints values (snprintf's convention for buf),
 * or written from text as values are parsed. -ENOENT (message set) when the map is not such a
 * section or has no such variable; .rodata refuses writes once loaded (-EPERM). */
bool kiln_map_is_data_section(struct kiln_map *m);
int kiln_map_get_var(struct kiln_map *m, const char *name, bool json, char *buf, size_t len);
int kiln_map_set_var(struct kiln_map *m, const char *name, const char *text);

#ifdef __cplusplus
}
#endif
#endif
