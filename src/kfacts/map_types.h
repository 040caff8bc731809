/* map_types.h — the facts about each map type, as one row per type (map_types.def), read
 * alike by the compiler (defmap), libkiln (walks, delete-all, pre-allocation) and the CLI
 * (`kiln map`). Below all three: it includes only the uapi and kiln's public map header. */
#ifndef KL_KFACTS_MAP_TYPES_H
#define KL_KFACTS_MAP_TYPES_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/bpf.h>
#include "kiln/map.h"

/* Whether a map may be made without pre-allocation (kiln_map_prealloc_flags). */
enum kf_prealloc {
	KF_PREALLOC_FIXED = 0,      /* its flags mask has no BPF_F_NO_PREALLOC: made as it is */
	KF_PREALLOC_OPTIONAL,       /* either way: the pre-allocation switch decides */
	KF_PREALLOC_REFUSED,        /* only without (BPF_F_NO_PREALLOC always) */
};

/* How kiln_map_delete_all empties it. */
enum kf_clear {
	KF_CLEAR_WALK = 0,          /* delete key by key (bucket by bucket where it can) */
	KF_CLEAR_ZERO,              /* entries cannot be deleted: write zeroes over every one */
	KF_CLEAR_POP,               /* pop until empty */
	KF_CLEAR_SLOTS,             /* delete every index from 0 to max_entries */
};

/* How `kiln map` shows it. */
enum kf_dump {
	KF_DUMP_ENTRIES = 0,        /* every key and value (no key: see kl_map_type_unlisted) */
	KF_DUMP_NEXT,               /* only the next element, which can be read without taking it */
	KF_DUMP_HELD,               /* its values as what the kernel gives back for an fd (held) */
	KF_DUMP_COOKIES,            /* as HELD with an 8-byte value (socket cookies), else NONE */
	KF_DUMP_NONE,               /* not listed; hint says what to do instead */
};

/* What a key or a value written on `kiln map`'s command line names (an fd is opened from it). */
enum kf_names {
	KF_NAMES_DATA = 0,          /* itself: parsed as the key's or value's type */
	KF_NAMES_PROG,              /* a program: pinned path, id:N or name:NAME */
	KF_NAMES_MAP,               /* a map: pinned path, id:N or name:NAME */
	KF_NAMES_SOCKET,            /* a socket another process holds: PID:FD */
	KF_NAMES_CGROUP,            /* a cgroup v2 directory */
	KF_NAMES_TASK,              /* a task: PID */
	KF_NAMES_FILE,              /* a file: its path */
};

struct kl_map_type {
	const char *keyword;         /* "hash" for :hash */
	uint32_t map_type;           /* enum bpf_map_type */
	/* compiler */
	bool sizes_only;             /* BTF key_size/value_size instead of key/value types */
	bool no_key_value;           /* ringbuf: neither key nor value */
	uint8_t key_size;            /* required key size, 0 = any */
	uint8_t value_size;          /* required value size, 0 = any */
	uint32_t required_flags;     /* e.g. BPF_F_NO_PREALLOC for lpm-trie */
	bool percpu;                 /* a value per possible cpu (libkiln too) */
	bool no_key;                 /* queue, stack, bloom-filter: a value and no key */
	bool slots_per_cpu;          /* no :max-entries: the loader makes one slot per possible cpu */
	bool needs_inner;            /* a map of maps: needs :inner-map, a template */
	bool events;                 /* a buffer of records: described by :event, streamed by
				      * `kiln run` (ringbuf, perf-event-array) */
	const char *storage_per;     /* local storage: what it holds a value per ("task"); no
				      * :max-entries. NULL for other maps */
	/* libkiln */
	bool array;                  /* every index holds an entry (zeroes until written) */
	bool index_keyed;            /* keys are indexes: get_next_key of a missing one is the next */
	enum kf_prealloc prealloc;
	enum kf_clear clear;
	/* CLI */
	enum kf_dump dump;
	const char *held;            /* HELD, COOKIES: what the first value is ("prog_id") */
	uint8_t held_width;          /* its bytes: 8 for a socket cookie */
	bool held_prog;              /* an 8-byte value adds the id of the program run on it */
	const char *hint;            /* NONE, COOKIES: "" or "; what to do instead" */
	enum kf_names key_names, value_names;
};

/* The row of a keyword (":hash" without its colon) or of a kernel constant; NULL if kiln has
 * none. */
const struct kl_map_type *kl_map_type_find(const char *keyword);
const struct kl_map_type *kl_map_type_by_id(uint32_t map_type);
/* The row of a kernel constant, or a row of zeroes (keyword NULL) for a type kiln has none
 * for: what libkiln and the CLI assume of a map type they only meet at run time. */
const struct kl_map_type *kl_map_type_facts(uint32_t map_type);
/* Every row, in the list's order: n of them. */
const struct kl_map_type *kl_map_types(size_t *n);

#endif
