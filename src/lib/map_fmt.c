/* map_fmt.c — a map entry decoded by the map's own BTF (kiln_map_format_kv, pkg/bpf's
 * ConvertKeyValue to text): the BTF is loaded from the kernel by the map's btf_id, and key
 * and value go through the event decoder (event.c), so map entries and events read alike. */
#include "kiln/map.h"
#include "kiln/event.h"
#include "event_internal.h"
#include "fail.h"
#include "map_internal.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Output with snprintf's convention: pos counts everything, buf holds what fits. */
struct out {
	char *buf;
	size_t len, pos;
};

static char *room(struct out *o, size_t *left)
{
	*left = o->pos < o->len ? o->len - o->pos : 0;
	return *left ? o->buf + o->pos : NULL;
}

static void put(struct out *o, const char *s)
{
	size_t left, n = strlen(s);
	char *p = room(o, &left);
	if (p)
		memcpy(p, s, n < left ? n : left);
	o->pos += n;
}

static void put_hex(struct out *o, const unsigned char *p, size_t n, bool json)
{
	char two[3];
	put(o, json ? "\"0x" : "0x");
	for (size_t i = 0; i < n; i++) {
		snprintf(two, sizeof(two), "%02x", p[i]);
		put(o, two);
	}
	if (json)
		put(o, "\"");
}

static int put_part(struct out *o, struct kiln_events *evs, uint32_t type_id, const void *data,
		    size_t size, bool json)
{
	if (!evs || !type_id) {
		put_hex(o, data, size, json);
		return 0;
	}
	size_t left;
	char *p = room(o, &left);
	int n = kl_event_format_type(evs, type_id, data, size, json, p, left);
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
	struct out o = { buf, len, 0 };
	if (info->key_size) {
		put(&o, json ? "{\"key\":" : "key=");
		err = put_part(&o, x->layouts, info->btf_key_type_id, key, info->key_size, json);
		put(&o, json ? ",\"value\":" : " value=");
	} else {
		put(&o, json ? "{\"value\":" : "value=");
	}
	if (!err && kiln_map_is_percpu(m)) {
		size_t stride = kiln_map_value_stride(m);
		size_t ncpu = kiln_map_value_buf_size(m) / stride;
		put(&o, "[");
		for (size_t c = 0; !err && c < ncpu; c++) {
			if (c)
				put(&o, json ? "," : " ");
			err = put_part(&o, x->layouts, info->btf_value_type_id,
				       (const char *)value + c * stride, info->value_size, json);
		}
		put(&o, "]");
	} else if (!err) {
		err = put_part(&o, x->layouts, info->btf_value_type_id, value, info->value_size, json);
	}
	if (err)
		return err;
	if (json)
		put(&o, "}");
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = 0;
	return o.pos > INT32_MAX ? -EOVERFLOW : (int)o.pos;
}
