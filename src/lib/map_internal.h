/* map_internal.h — how the rest of libkiln (object.c) hands libbpf's maps out as struct
 * kiln_map without giving up ownership of their fds, and what map.c lends the modules built
 * on it (map_util.c, map_fmt.c). */
#ifndef KL_LIB_MAP_INTERNAL_H
#define KL_LIB_MAP_INTERNAL_H
#include "kiln/map.h"
#include <stdbool.h>

/* A kiln_map around fd, named name (kept in full; may be NULL: then the kernel's name).
 * owned: kiln_map_close closes fd; otherwise it only frees the struct (libbpf's maps).
 * fd < 0 is fine before the object is loaded: the info is then read on first use, after
 * kl_map_set_fd. A failed info read is not fatal either (retried on use). NULL only when
 * out of memory, with kiln_errmsg() set; fd is then left to the caller. */
struct kiln_map *kl_map_wrap(int fd, const char *name, bool owned);
/* Give the map its fd once the object is loaded, and re-read the info from the kernel. */
void kl_map_set_fd(struct kiln_map *m, int fd);


/* State other modules keep on a map, freed with it (kl_map_extra_free). */
struct btf;
struct kiln_events;
struct kl_map_extra {
	char *parallel_path;        /* parallel mode: where kiln_map_end_parallel moves the map */
	char *pending_path;         /* ...from where it is pinned meanwhile */
	struct btf *btf;            /* kiln_map_format_kv: the map's BTF, from the kernel */
	struct kiln_events *layouts;  /* ...and the layouts read from it (kiln_map_format_kv,
				       * kiln_map_parse_key/_value) */
	void (*free_layouts)(struct kiln_events *); /* ...freed by whoever set them (events sit
						     * above maps) */
	bool btf_tried;             /* looked for it once (a map without BTF stays without) */
};
/* The map's extra state, made on first use; NULL when out of memory (message set). */
struct kl_map_extra *kl_map_extra(struct kiln_map *m);
void kl_map_extra_free(struct kl_map_extra *x);
/* The map's BTF and its layouts into x, loaded once (map_fmt.c); none (x->layouts NULL) for
 * a map created without BTF. 0 or a negative errno. */
int kl_map_load_btf(struct kiln_map *m, struct kl_map_extra *x);
/* Today's untyped spelling of a key or value (map_parse.c): an integer (decimal, 0x hex,
 * negative) into the first min(size, 8) bytes, range-checked for size; or, when size > 8,
 * 0x and two hex digits per byte. 0, -EINVAL or -ERANGE (no message recorded). */
int kl_map_parse_raw(const char *s, void *out, size_t size);
/* One field of a layout (a global variable of a data section, a struct member) written from
 * text at base + its offset, as keys and values are parsed (an integer, an address, a string,
 * JSON); what names it in messages ("setting 'pid'"). 0 or a negative errno, message set. */
struct kiln_event_field;
int kl_parse_field(const struct kiln_event_field *f, const char *what, const char *text, uint8_t *base);
/* Read the map's info from the kernel if not yet read: 0 or a negative errno. */
int kl_map_need_info(struct kiln_map *m);
/* Whether bpf() said the map type lacks the operation (rather than refusing the call). */
bool kl_map_op_missing(int err);
/* "map 'NAME'" for messages. */
const char *kl_map_label(const struct kiln_map *m);

#endif
