/* struct_ops.c — registering an object's struct_ops maps (a TCP congestion control written
 * with defstruct-ops, or any object's SEC(".struct_ops") variable): before load each such map
 * asks for a link (BPF_F_LINK, Linux 6.4), so that after load its registration is a link,
 * ended by closing it, or by the process ending however it ends; on an older kernel the map
 * is registered by updating it and unregistered by deleting its element, as libbpf 1.1 does. */
#include "object_internal.h"
#include "fail.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Numbers newer than the uapi libbpf 1.1 builds with (linux 6.1). */
#define KL_BPF_F_LINK (1U << 13)
#define KL_ATTACH_STRUCT_OPS 44

/* Does the running kernel make struct_ops links (struct bpf_struct_ops_link in its BTF)? */
static bool kernel_has_links(void)
{
	struct btf *vb = btf__load_vmlinux_btf();
	if (!vb)
		return false;
	bool yes = btf__find_by_name_kind(vb, "bpf_struct_ops_link", BTF_KIND_STRUCT) > 0;
	btf__free(vb);
	return yes;
}

void kl_struct_ops_prepare(struct bpf_object *bo)
{
	struct bpf_map *bm;
	int links = -1;
	bpf_object__for_each_map(bm, bo) {
		if (bpf_map__type(bm) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (links < 0)
			links = kernel_has_links();
		if (links)
			bpf_map__set_map_flags(bm, bpf_map__map_flags(bm) | KL_BPF_F_LINK);
	}
}

static struct bpf_map *nth_map(struct kiln_object *obj, size_t i)
{
	struct bpf_map *bm;
	size_t k = 0;
	bpf_object__for_each_map(bm, obj->bo)
		if (k++ == i)
			return bm;
	return NULL;
}

int kiln_object_attach_struct_ops(struct kiln_object *obj, size_t i, struct kiln_link **out)
{
	if (!obj || !out)
		return kl_fail_msg(EINVAL, "kiln_object_attach_struct_ops: no object or no place for the link");
	*out = NULL;
	struct bpf_map *bm = nth_map(obj, i);
	if (!bm || bpf_map__type(bm) != BPF_MAP_TYPE_STRUCT_OPS)
		return kl_fail_msg(EINVAL, "register map #%zu of %s: not a struct_ops map", i, obj->name);
	if (bpf_map__fd(bm) < 0)
		return kl_fail_msg(EINVAL, "register %s of %s: not loaded (kiln_object_load first)", bpf_map__name(bm),
				   obj->name);
	struct kiln_link *l = calloc(1, sizeof(*l));
	if (!l)
		return kl_fail(ENOMEM, "register %s of %s", bpf_map__name(bm), obj->name);
	l->kind = KILN_ATTACH_STRUCT_OPS;
	l->fd = -1;
	snprintf(l->desc, sizeof(l->desc), "struct_ops %s", bpf_map__name(bm));
	/* fills the kernel's struct with the programs; registers it unless the map is a link's */
	struct bpf_link *bl = KL_LIBBPF(bpf_map__attach_struct_ops(bm));
	if (!bl) {
		int err = kl_fail_libbpf(errno ? -errno : -EINVAL, l->desc);
		free(l);
		return err;
	}
	if (!(bpf_map__map_flags(bm) & KL_BPF_F_LINK)) {
		l->bl = bl;   /* destroyed: the map's element deleted, which unregisters it */
		l->fd = bpf_link__fd(bl);
		*out = l;
		return 0;
	}
	bpf_link__disconnect(bl);   /* its fd is the map's; nothing to delete */
	bpf_link__destroy(bl);
	l->fd = bpf_link_create(bpf_map__fd(bm), 0, KL_ATTACH_STRUCT_OPS, NULL);
	if (l->fd < 0) {
		int err = kl_fail(errno, "%s: bpf(BPF_LINK_CREATE)", l->desc);
		free(l);
		return err;
	}
	*out = l;
	return 0;
}
