/* map_fmt.c — a map entry decoded by the map's own BTF (kiln_map_format_kv, pkg/bpf's
 * ConvertKeyValue to text): the BTF is loaded from the kernel by the map's btf_id, and key
 * and value go through the one printer (value.c) in the event decoder's spelling, so map
 * entries and events read alike. */
#include "kiln/map.h"
#include "kiln/event.h"
#include "kiln/value.h"
#include "fail.h"
#include "map_internal.h"
#include "value_internal.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A key or value by the one printer (value.c), in the event decoder's spelling. */
static int put_part(struct kl_out *o, struct kiln_events *evs, uint32_t type_id, const void *data,
		    size_t size, bool json)
{
	const struct kiln_value_fmt fmt = { .sz = sizeof(fmt), .json = json, .style = KILN_VALUE_FIELDS,
					    .layouts = evs };
	size_t left = o->pos < o->len ? o->len - o->pos : 0;
	int n = kiln_value_format(NULL, type_id, data, size, &fmt, left ? o->buf + o->pos : NULL, left);
	if (n < 0)
		return n;
	o->pos += (size_t)n;
	return 0;
}

int kl_map_load_btf(struct kiln_map *m, struct kl_map_extra *x)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	if (x->btf_tried || !info->btf_id)
		return 0;
	struct btf *btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf)
		return kl_fail(errno ? errno : EINVAL, "loading BTF id %u of %s", info->btf_id, kl_map_label(m));
	int err = kiln_events_from_btf(btf, &x->layouts);
	if (err) {
		btf__free(btf);
		return err;
	}
	x->free_layouts = kiln_events_free;
	x->btf = btf;
	x->btf_tried = true;
	return 0;
}

int kiln_map_format_kv(struct kiln_map *m, const void *key, const void *value, unsigned flags,
		       char *buf, size_t len)
{
	int err = kl_map_need_info(m);
	struct kl_map_extra *x = err ? NULL : kl_map_extra(m);
	if (err || !x || (err = kl_map_load_btf(m, x)))
		return err ? err : -ENOMEM;
	const struct kiln_map_info *info = kiln_map_info(m);
	bool json = flags & KILN_MAP_FMT_JSON;
	struct kl_out o = { buf, len, 0 };
	if (info->key_size) {
		kl_out_puts(&o, json ? "{\"key\":" : "key=");
		err = put_part(&o, x->layouts, info->btf_key_type_id, key, info->key_size, json);
		kl_out_puts(&o, json ? ",\"value\":" : " value=");
	} else {
		kl_out_puts(&o, json ? "{\"value\":" : "value=");
	}
	if (!err && kiln_map_is_percpu(m)) {
		size_t stride = kiln_map_value_stride(m);
		size_t ncpu = kiln_map_value_buf_size(m) / stride;
		kl_out_puts(&o, "[");
		for (size_t c = 0; !err && c < ncpu; c++) {
			if (c)
				kl_out_puts(&o, json ? "," : " ");
			err = put_part(&o, x->layouts, info->btf_value_type_id,
				       (const char *)value + c * stride, info->value_size, json);
		}
		kl_out_puts(&o, "]");
	} else if (!err) {
		err = put_part(&o, x->layouts, info->btf_value_type_id, value, info->value_size, json);
	}
	if (err)
		return err;
	if (json)
		kl_out_puts(&o, "}");
	return kl_out_end(&o);
}
