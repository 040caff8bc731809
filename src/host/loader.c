/* loader.c — Whistler's loader API on libkiln, beyond what session.c has: the typed map calls
 * (map-lookup-int, map-update-struct-int ...), program and map handles (bpf-object-prog,
 * prog-info-fd ...), the object lifecycle (open-bpf-object, load-bpf-object,
 * close-bpf-object), every attach-* and detach. An attachment is a value of its own, kept on
 * the object that owns the program: closing the object (the end of with-bpf-session or
 * with-bpf-object) destroys what detach did not. */
#include "loader.h"
#include <kiln/error.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

struct host_prog { struct host_obj *o; struct kiln_prog *p; };
/* links o->links[from .. from+n): one, or one a name for attach-kprobe-multi; or (tp) the
 * tracepoint link o->tp_links[from] */
struct host_att { struct host_obj *o; size_t from, n; const char *desc; bool tp; };

static void print_prog(struct lv_printer *p, const struct lv *v)
{
	const struct host_prog *r = v->u.foreign.data;
	lv_printer_put(p, "#<BPF-PROG ");
	lv_printer_put(p, kiln_prog_name(r->p));
	lv_printer_put(p, ">");
}

static void print_att(struct lv_printer *p, const struct lv *v)
{
	const struct host_att *r = v->u.foreign.data;
	lv_printer_put(p, "#<ATTACHMENT ");
	lv_printer_put(p, r->desc);
	lv_printer_put(p, ">");
}

static const struct lv_foreign_type prog_type = { "BPF-PROG", print_prog };
static const struct lv_foreign_type att_type = { "ATTACHMENT", print_att };

struct lv *host_bpf_err(struct lisp *h, const struct kl_node *at, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s: %s", what, kiln_errmsg());
	return lv_raise(h, at, "bpf-error", msg);
}

struct lv *host_kwarg(struct lv **a, int n, int from, const char *key)
{
	for (int i = from; i + 1 < n; i += 2)
		if (a[i]->k == LV_KEY && !strcmp(a[i]->u.name, key))
			return a[i + 1];
	return NULL;
}

struct lv *host_prog_value(struct lisp *h, struct host_obj *o, struct kiln_prog *p)
{
	struct host_prog *r = kl_arena_new(&h->a, struct host_prog);
	*r = (struct host_prog){ o, p };
	return lv_foreign(h, &prog_type, r);
}

struct lv *host_attach_prog(struct lisp *h, const struct kl_node *at, struct host_obj *o, struct kiln_prog *p,
			    const struct kiln_attach_opts *opts)
{
	struct kiln_link *l;
	if (kiln_prog_attach(p, opts, &l)) {
		char what[300];
		snprintf(what, sizeof(what), "attach %s", kiln_prog_name(p));
		return host_bpf_err(h, at, what);
	}
	struct host_att *r = kl_arena_new(&h->a, struct host_att);
	*r = (struct host_att){ o, o->links.len, 1, kl_arena_strdup(&h->a, kiln_link_describe(l)), false };
	kl_vec_push(&h->a, &o->links, l);
	return lv_foreign(h, &att_type, r);
}

/* A program: a prog-info value, or its fd (Whistler's attach-* take the fd) of an open object */
static struct kiln_prog *prog_arg(struct lisp *h, const struct kl_node *c, struct lv *v, struct host_obj **o)
{
	const struct host_prog *r = lv_foreign_data(v, &prog_type);
	if (r && r->o->obj) {
		*o = r->o;
		return r->p;
	}
	for (struct host_obj *x = H(h)->objs; v->k == LV_INT && x; x = x->next)
		for (size_t i = 0; x->obj && i < kiln_object_prog_count(x->obj); i++)
			if (kiln_prog_fd(kiln_object_prog(x->obj, i)) == v->u.i) {
				*o = x;
				return kiln_object_prog(x->obj, i);
			}
	lv_err(h, c, "%s is not a loaded program (a prog-info or its fd)", lv_brief(h, v));
	return NULL;
}

static const char *str_arg(struct lisp *h, const struct kl_node *c, struct lv *v, const char *what)
{
	if (v && v->k == LV_STR)
		return v->u.str.s;
	lv_err(h, c, "%s: %s is not a string", what, v ? lv_brief(h, v) : "nothing");
	return NULL;
}

/* ---- attach-* ------------------------------------------------------------------------- */

/* What an attach function reads after the program: its options from the arguments. */
typedef int (*attach_args_fn)(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
			      struct kiln_attach_opts *o);

/* :retprobe must say what the section says (kiln's kprobe/uprobe is entry or return by it) */
static int retprobe_ok(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n, int from)
{
	struct lv *r = host_kwarg(a, n, from, "retprobe");
	const char *s = kiln_prog_section(p);
	bool ret = strstr(s, "retprobe") == s + 1 || !strncmp(s, "uretprobe", 9);
	if (r && lv_true(r) != ret)
		return lv_err(h, c, "%s's section %s makes it a%s probe: kiln takes entry or return from the section",
			      kiln_prog_name(p), s, ret ? " return" : "n entry"), -1;
	return 0;
}

static int args_kprobe(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		       struct kiln_attach_opts *o)
{
	return (o->symbol = str_arg(h, c, a[0], "attach-kprobe")) ? retprobe_ok(h, c, p, a, n, 1) : -1;
}

static int args_uprobe(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		       struct kiln_attach_opts *o)
{
	if (!(o->binary = str_arg(h, c, a[0], "attach-uprobe")) || !(o->symbol = str_arg(h, c, a[1], "attach-uprobe")))
		return -1;
	return retprobe_ok(h, c, p, a, n, 2);
}

static const struct { const char *mode; uint32_t flags; } xdp_modes[] = {
	{ "xdp", 0 }, { "xdpgeneric", XDP_FLAGS_SKB_MODE }, { "xdpdrv", XDP_FLAGS_DRV_MODE },
	{ "xdpoffload", XDP_FLAGS_HW_MODE },
};

static int args_xdp(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		    struct kiln_attach_opts *o)
{
	(void)p;
	if (!(o->iface = str_arg(h, c, a[0], "attach-xdp")))
		return -1;
	struct lv *m = host_kwarg(a, n, 1, "mode");
	const char *mode = m ? str_arg(h, c, m, "attach-xdp :mode") : "xdp";
	for (size_t i = 0; mode && i < sizeof(xdp_modes) / sizeof(xdp_modes[0]); i++)
		if (!strcmp(mode, xdp_modes[i].mode)) {
			o->xdp_flags = xdp_modes[i].flags;
			return 0;
		}
	return mode ? (lv_err(h, c, "attach-xdp: :mode is xdp, xdpgeneric, xdpdrv or xdpoffload, not %s", mode), -1) : -1;
}

static int args_tc(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		   struct kiln_attach_opts *o)
{
	(void)p;
	if (!(o->iface = str_arg(h, c, a[0], "attach-tc")))
		return -1;
	struct lv *d = host_kwarg(a, n, 1, "direction");
	const char *dir = d ? str_arg(h, c, d, "attach-tc :direction") : "ingress";
	if (!dir)
		return -1;
	if (strcmp(dir, "ingress") && strcmp(dir, "egress"))
		return lv_err(h, c, "attach-tc: :direction is \"ingress\" or \"egress\", not %s", dir), -1;
	o->tc_dir = strcmp(dir, "ingress") ? KILN_TC_EGRESS : KILN_TC_INGRESS;
	return 0;
}

static int args_cgroup(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		       struct kiln_attach_opts *o)
{
	(void)n;
	if (!(o->cgroup = str_arg(h, c, a[0], "attach-cgroup")))
		return -1;
	if (a[1]->k != LV_INT)
		return lv_err(h, c, "attach-cgroup: the attach type %s is not an integer", lv_brief(h, a[1])), -1;
	if ((int64_t)kiln_prog_expected_attach_type(p) != a[1]->u.i)
		return lv_err(h, c, "attach-cgroup: %s's section %s is attach type %d, not %lld", kiln_prog_name(p),
			      kiln_prog_section(p), (int)kiln_prog_expected_attach_type(p), (long long)a[1]->u.i), -1;
	return 0;   /* :flags: kiln attaches with a link, which other programs of the cgroup may share */
}

static int args_none(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
		     struct kiln_attach_opts *o)
{
	(void)h, (void)c, (void)p, (void)a, (void)n, (void)o;
	return 0;
}

static int args_sk_lookup(struct lisp *h, const struct kl_node *c, struct kiln_prog *p, struct lv **a, int n,
			  struct kiln_attach_opts *o)
{
	(void)p;
	struct lv *ns = host_kwarg(a, n, 0, "netns-path");
	return ns && !(o->netns = str_arg(h, c, ns, "attach-sk-lookup :netns-path")) ? -1 : 0;
}

/* attach-NAME (PROG ARGS...) or attach-obj-NAME (OBJ PROG-NAME ARGS...) */
static const struct attach_fn {
	const char *name;
	attach_args_fn args;
	int min, max;              /* the arguments after the program */
} attach_fns[] = {
	{ "kprobe", args_kprobe, 1, 3 }, { "uprobe", args_uprobe, 2, 4 },
	{ "xdp", args_xdp, 1, 3 }, { "tc", args_tc, 1, 3 }, { "cgroup", args_cgroup, 2, 4 },
	{ "lsm", args_none, 0, 1 }, { "fentry", args_none, 0, 1 }, { "sk-lookup", args_sk_lookup, 0, 2 },
};

static struct lv *do_attach(struct lisp *h, const struct kl_node *c, const struct attach_fn *f, struct host_obj *o,
			    struct kiln_prog *p, struct lv **a, int n)
{
	struct kiln_attach_opts opts = { .sz = sizeof(opts) };
	if (f->args(h, c, p, a, n, &opts))
		return NULL;
	return host_attach_prog(h, c, o, p, &opts);
}

/* the row of attach-KIND or attach-obj-KIND (Whistler has the latter for four kinds) */
static const struct attach_fn *attach_row(const char *name)
{
	bool obj = !strncmp(name, "attach-obj-", 11);
	const char *kind = name + (obj ? 11 : 7);
	if (strncmp(name, "attach-", 7) || (obj && strcmp(kind, "kprobe") && strcmp(kind, "uprobe") &&
					    strcmp(kind, "xdp") && strcmp(kind, "tc")))
		return NULL;
	for (size_t i = 0; i < sizeof(attach_fns) / sizeof(attach_fns[0]); i++)
		if (!strcmp(kind, attach_fns[i].name))
			return &attach_fns[i];
	return NULL;
}

B(b_attach)
{
	const struct attach_fn *f = attach_row(h->self->u.bi.name);
	struct host_obj *o;
	struct kiln_prog *p = prog_arg(h, c, a[0], &o);
	return p ? do_attach(h, c, f, o, p, a + 1, n - 1) : NULL;
}

B(b_attach_obj)
{
	const struct attach_fn *f = attach_row(h->self->u.bi.name);
	struct host_obj *o = host_obj_arg(h, c, a[0]);
	const char *name = o ? str_arg(h, c, a[1], h->self->u.bi.name) : NULL;
	if (!name)
		return NULL;
	struct kiln_prog *p = kiln_object_find_prog(o->obj, name);
	if (!p)
		return lv_err(h, c, "Program %s not found", name);
	return do_attach(h, c, f, o, p, a + 2, n - 2);
}

/* (attach-tracepoint PROG NAME): NAME "CATEGORY/EVENT", "tracepoint/" before it optional, '-'
 * read as '_'. The section's tracepoint through libkiln; another one through libbpf, as
 * Whistler attaches any program to the tracepoint named. */
struct lv *host_attach_tracepoint(struct lisp *h, const struct kl_node *c, struct host_obj *o, struct kiln_prog *p,
				  const char *t)
{
	char want[512];
	snprintf(want, sizeof(want), "%s", strncmp(t, "tracepoint/", 11) ? t : t + 11);
	for (char *q = want; *q; q++)
		*q = *q == '-' ? '_' : *q;
	const char *slash = strchr(kiln_prog_section(p), '/'), *ev = strchr(want, '/');
	if (slash && !strcmp(slash + 1, want) && kiln_prog_attach_kind(p) == KILN_ATTACH_TRACEPOINT) {
		struct kiln_attach_opts opts = { .sz = sizeof(opts) };
		return host_attach_prog(h, c, o, p, &opts);
	}
	if (!ev)
		return lv_err(h, c, "attach-tracepoint: %s is not CATEGORY/EVENT", t);
	*(char *)ev = 0;
	struct bpf_link *l = bpf_program__attach_tracepoint(kiln_prog_libbpf(p), want, ev + 1);
	if (!l)
		return lv_raise(h, c, "bpf-error", "attach-tracepoint: the kernel refused the tracepoint");
	struct host_att *r = kl_arena_new(&h->a, struct host_att);
	char desc[600];
	snprintf(desc, sizeof(desc), "tracepoint %s/%s", want, ev + 1);
	*r = (struct host_att){ o, o->tp_links.len, 1, kl_arena_strdup(&h->a, desc), true };
	kl_vec_push(&h->a, &o->tp_links, l);
	return lv_foreign(h, &att_type, r);
}

B(b_attach_tracepoint)
{
	(void)n;
	struct host_obj *o;
	struct kiln_prog *p = prog_arg(h, c, a[0], &o);
	const char *t = p ? str_arg(h, c, a[1], "attach-tracepoint") : NULL;
	return t ? host_attach_tracepoint(h, c, o, p, t) : NULL;
}

/* (attach-kprobe-multi PROG NAMES &key retprobe): a kprobe on each name, one attachment */
B(b_attach_kprobe_multi)
{
	struct host_obj *o;
	struct kiln_prog *p = prog_arg(h, c, a[0], &o);
	if (!p || retprobe_ok(h, c, p, a, n, 2))
		return NULL;
	if (a[1]->k != LV_CONS)
		return lv_err(h, c, "attach-kprobe-multi: empty name list");
	if (lv_list_len(h, c, a[1], "attach-kprobe-multi") < 0)   /* circular */
		return NULL;
	size_t from = o->links.len;
	for (struct lv *l = a[1]; l->k == LV_CONS; l = l->u.cons.cdr) {
		struct kiln_attach_opts opts = { .sz = sizeof(opts) };
		struct kiln_link *k;
		if (!(opts.symbol = str_arg(h, c, l->u.cons.car, "attach-kprobe-multi")) || kiln_prog_attach(p, &opts, &k)) {
			for (size_t i = from; i < o->links.len; i++)
				kiln_link_destroy(o->links.items[i]);
			o->links.len = from;
			return opts.symbol ? host_bpf_err(h, c, "attach-kprobe-multi") : NULL;
		}
		kl_vec_push(&h->a, &o->links, k);
	}
	struct host_att *r = kl_arena_new(&h->a, struct host_att);
	*r = (struct host_att){ o, from, o->links.len - from, "kprobe-multi", false };
	return lv_foreign(h, &att_type, r);
}

bool host_detach_value(struct lv *att)
{
	const struct host_att *r = lv_foreign_data(att, &att_type);
	if (!r)
		return false;
	if (r->tp && r->from < r->o->tp_links.len) {
		bpf_link__destroy(r->o->tp_links.items[r->from]);
		r->o->tp_links.items[r->from] = NULL;
	}
	for (size_t i = r->from; !r->tp && i < r->from + r->n && i < r->o->links.len; i++) {
		kiln_link_destroy(r->o->links.items[i]);
		r->o->links.items[i] = NULL;
	}
	return true;
}

B(b_detach)
{
	(void)n;
	if (!host_detach_value(a[0]))
		return lv_err(h, c, "detach: %s is not an attachment", lv_brief(h, a[0]));
	return LNIL;
}

/* ---- typed map access ------------------------------------------------------------------ */

/* the value of key (bytes of the map's key size) as bytes, NULL with *absent when there is
 * none, NULL alone after an error */
static uint8_t *lookup(struct lisp *h, const struct kl_node *c, struct kiln_map *m, const uint8_t *key, bool *absent)
{
	uint8_t *val = kl_arena_alloc(&h->a, kiln_map_value_buf_size(m));
	int err = kiln_map_lookup(m, key, val);
	*absent = err == -ENOENT;
	if (err && !*absent)
		host_bpf_err(h, c, "map-lookup");
	return err ? NULL : val;
}

static uint8_t *int_key(struct lisp *h, const struct kl_node *c, struct kiln_map *m, struct lv *k)
{
	if (k->k != LV_INT)
		return lv_err(h, c, "the key %s is not an integer", lv_brief(h, k)), NULL;
	return host_to_bytes(h, c, k, kiln_map_info(m)->key_size, "key");
}

/* (map-lookup-int MAP KEY): the value as an unsigned little-endian integer (per-CPU values
 * summed), nil when absent */
B(b_lookup_int)
{
	(void)n;
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	uint8_t *key = m ? int_key(h, c, m, a[1]) : NULL, *val;
	bool absent;
	if (!key || !(val = lookup(h, c, m, key, &absent)))
		return key && absent ? LNIL : NULL;
	uint64_t sum = 0;
	for (size_t off = 0; off < kiln_map_value_buf_size(m); off += kiln_map_value_stride(m))
		sum += host_decode_le(val + off, kiln_map_info(m)->value_size);
	return lv_int(h, (int64_t)sum);
}

static struct lv *update(struct lisp *h, const struct kl_node *c, struct kiln_map *m, const uint8_t *key,
			 const uint8_t *val, struct lv **a, int n, int from)
{
	struct lv *f = host_kwarg(a, n, from, "flags");
	if (f && f->k != LV_INT)
		return lv_err(h, c, "map-update: :flags %s is not an integer", lv_brief(h, f));
	size_t vs = kiln_map_info(m)->value_size, buf = kiln_map_value_buf_size(m);
	uint8_t *all = kl_arena_alloc(&h->a, buf);
	for (size_t off = 0; off < buf; off += kiln_map_value_stride(m))   /* per-CPU: the same on each */
		memcpy(all + off, val, vs);
	if (kiln_map_update(m, key, all, f ? (uint64_t)f->u.i : 0))
		return host_bpf_err(h, c, "map-update");
	return LT;
}

/* (map-update-int MAP KEY VALUE &key flags) */
B(b_update_int)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	uint8_t *key = m ? int_key(h, c, m, a[1]) : NULL;
	uint8_t *val = key ? int_key(h, c, m, a[2]) : NULL;
	if (val)
		val = host_to_bytes(h, c, a[2], kiln_map_info(m)->value_size, "value");
	return val ? update(h, c, m, key, val, a, n, 3) : NULL;
}

static struct lv *delete(struct lisp *h, const struct kl_node *c, struct kiln_map *m, const uint8_t *key)
{
	return kiln_map_delete(m, key) ? host_bpf_err(h, c, "map-delete") : lv_int(h, 0);   /* the syscall's 0, as Whistler's */
}

B(b_delete_int)
{
	(void)n;
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	uint8_t *key = m ? int_key(h, c, m, a[1]) : NULL;
	return key ? delete(h, c, m, key) : NULL;
}

/* the key after key (NULL: the first), NULL with *end at the end */
static uint8_t *next_key(struct lisp *h, const struct kl_node *c, struct kiln_map *m, const uint8_t *key, bool *end)
{
	uint8_t *next = kl_arena_alloc(&h->a, kiln_map_info(m)->key_size);
	int err = kiln_map_next_key(m, key, next);
	*end = err == -ENOENT;
	if (err && !*end)
		host_bpf_err(h, c, "map-get-next-key");
	return err ? NULL : next;
}

/* (map-get-next-key-int MAP &optional KEY) */
B(b_next_int)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	uint8_t *key = NULL, *next;
	if (!m || (n > 1 && a[1]->k != LV_NIL && !(key = int_key(h, c, m, a[1]))))
		return NULL;
	bool end;
	if (!(next = next_key(h, c, m, key, &end)))
		return end ? LNIL : NULL;
	return lv_int(h, (int64_t)host_decode_le(next, kiln_map_info(m)->key_size));
}

/* (map-lookup-struct MAP KEY-BYTES S), (map-lookup-struct-int MAP KEY S): decode-S of the value */
static struct lv *lookup_struct(struct lisp *h, const struct kl_node *c, struct lv **a, bool int_keyed)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	const struct host_struct *st = m ? host_struct_arg(h, c, a[2]) : NULL;
	uint8_t *key = !st ? NULL : int_keyed ? int_key(h, c, m, a[1]) : host_to_bytes(h, c, a[1], kiln_map_info(m)->key_size, "key");
	uint8_t *val;
	bool absent;
	if (!key || !(val = lookup(h, c, m, key, &absent)))
		return key && absent ? LNIL : NULL;
	return host_decode_struct(h, c, st, host_bytes_value(h, val, kiln_map_info(m)->value_size));
}
B(b_lookup_struct) { (void)n; return lookup_struct(h, c, a, false); }
B(b_lookup_struct_int) { (void)n; return lookup_struct(h, c, a, true); }

/* (map-update-struct MAP KEY-BYTES RECORD S &key flags), map-update-struct-int with KEY */
static struct lv *update_struct(struct lisp *h, const struct kl_node *c, struct lv **a, int n, bool int_keyed)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	const struct host_struct *st = m ? host_struct_arg(h, c, a[3]) : NULL;
	uint8_t *key = !st ? NULL : int_keyed ? int_key(h, c, m, a[1]) : host_to_bytes(h, c, a[1], kiln_map_info(m)->key_size, "key");
	uint8_t *val = key ? host_encode_struct(h, c, st, a[2]) : NULL;
	if (!val)
		return NULL;
	if (st->size != kiln_map_info(m)->value_size)
		return lv_err(h, c, "%s is %u bytes, the map's values %u", st->name, st->size, kiln_map_info(m)->value_size);
	return update(h, c, m, key, val, a, n, 4);
}
B(b_update_struct) { return update_struct(h, c, a, n, false); }
B(b_update_struct_int) { return update_struct(h, c, a, n, true); }

/* a record as a key of m */
static uint8_t *struct_key(struct lisp *h, const struct kl_node *c, struct kiln_map *m, const struct host_struct *st,
			   struct lv *r)
{
	uint8_t *key = host_encode_struct(h, c, st, r);
	if (key && st->size != kiln_map_info(m)->key_size)
		return lv_err(h, c, "%s is %u bytes, the map's keys %u", st->name, st->size, kiln_map_info(m)->key_size), NULL;
	return key;
}

/* (map-delete-struct MAP RECORD S) */
B(b_delete_struct)
{
	(void)n;
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	const struct host_struct *st = m ? host_struct_arg(h, c, a[2]) : NULL;
	uint8_t *key = st ? struct_key(h, c, m, st, a[1]) : NULL;
	return key ? delete(h, c, m, key) : NULL;
}

/* (map-get-next-key-struct MAP S &optional KEY-RECORD) */
B(b_next_struct)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	const struct host_struct *st = m ? host_struct_arg(h, c, a[1]) : NULL;
	uint8_t *key = NULL, *next;
	if (!st || (n > 2 && a[2]->k != LV_NIL && !(key = struct_key(h, c, m, st, a[2]))))
		return NULL;
	bool end;
	if (!(next = next_key(h, c, m, key, &end)))
		return end ? LNIL : NULL;
	return host_decode_struct(h, c, st, host_bytes_value(h, next, kiln_map_info(m)->key_size));
}

/* ---- handles and the object's lifecycle ----------------------------------------------- */

B(b_map_info_fd) { (void)n; struct kiln_map *m = host_map_arg(h, c, a[0]); return m ? lv_int(h, kiln_map_fd(m)) : NULL; }
B(b_map_info_name) { (void)n; struct kiln_map *m = host_map_arg(h, c, a[0]); return m ? lv_cstr(h, kiln_map_name(m)) : NULL; }
B(b_prog_info_fd)
{
	(void)n;
	struct host_obj *o;
	struct kiln_prog *p = prog_arg(h, c, a[0], &o);
	return p ? lv_int(h, kiln_prog_fd(p)) : NULL;
}
B(b_prog_info_name)
{
	(void)n;
	struct host_obj *o;
	struct kiln_prog *p = prog_arg(h, c, a[0], &o);
	return p ? lv_cstr(h, kiln_prog_name(p)) : NULL;
}

/* a program of o by name (a string, or a symbol: '-' read as '_'), nil when there is none */
static struct lv *prog_by_name(struct lisp *h, const struct kl_node *c, struct host_obj *o, struct lv *name)
{
	if (!o)
		return NULL;
	const char *s = name->k == LV_STR ? name->u.str.s : name->k == LV_SYM ? name->u.name : NULL;
	if (!s)
		return lv_err(h, c, "a program name is a string or a symbol");
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *p = buf; *p; p++)
		*p = *p == '-' ? '_' : *p;
	struct kiln_prog *p = kiln_object_find_prog(o->obj, buf);
	return p ? host_prog_value(h, o, p) : LNIL;
}
B(b_object_prog) { (void)n; return prog_by_name(h, c, host_obj_arg(h, c, a[0]), a[1]); }
B(b_session_prog) { return prog_by_name(h, c, n > 1 ? host_obj_arg(h, c, a[1]) : host_session(h, c), a[0]); }
B(b_session_progs)
{
	struct host_obj *o = n ? host_obj_arg(h, c, a[0]) : host_session(h, c);
	if (!o)
		return NULL;
	struct lv *head = LNIL, **tail = &head;
	for (size_t i = 0; i < kiln_object_prog_count(o->obj); i++) {
		struct kiln_prog *p = kiln_object_prog(o->obj, i);
		*tail = lv_cons(h, lv_cons(h, lv_cstr(h, kiln_prog_name(p)), host_prog_value(h, o, p)), LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	return head;
}

/* (open-bpf-object PATH): the object, loaded by load-bpf-object */
B(b_open_object)
{
	(void)n;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "open-bpf-object needs a path string");
	struct host_obj *o = host_obj_new(h);
	o->path = kl_arena_strdup(&h->a, a[0]->u.str.s);
	return host_obj_value(h, o);
}
B(b_load_object)
{
	(void)n;
	struct host_obj *o = lv_foreign_data(a[0], &host_obj_type);
	if (!o || !o->path || o->obj)
		return lv_err(h, c, "load-bpf-object needs an object open-bpf-object made, not loaded yet: %s",
			      lv_brief(h, a[0]));
	if (host_open_load(h, c, NULL, 0, o->path, o, NULL)) {
		if (o->obj)
			kiln_object_close(o->obj);
		o->obj = NULL;
		return NULL;
	}
	H(h)->ran_session = true;
	return a[0];
}
B(b_close_object)
{
	(void)n;
	struct host_obj *o = lv_foreign_data(a[0], &host_obj_type);
	if (!o)
		return lv_err(h, c, "close-bpf-object: %s is not a BPF object", lv_brief(h, a[0]));
	if (o->obj)
		host_obj_close(o);
	return LNIL;
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } loader_builtins[] = {
	{ "map-lookup-int", b_lookup_int, 2, 2 }, { "map-update-int", b_update_int, 3, 5 },
	{ "map-delete-int", b_delete_int, 2, 2 }, { "map-get-next-key-int", b_next_int, 1, 2 },
	{ "map-lookup-struct", b_lookup_struct, 3, 3 }, { "map-lookup-struct-int", b_lookup_struct_int, 3, 3 },
	{ "map-update-struct", b_update_struct, 4, 6 }, { "map-update-struct-int", b_update_struct_int, 4, 6 },
	{ "map-delete-struct", b_delete_struct, 3, 3 }, { "map-get-next-key-struct", b_next_struct, 2, 3 },
	{ "map-info-fd", b_map_info_fd, 1, 1 }, { "map-info-name", b_map_info_name, 1, 1 },
	{ "prog-info-fd", b_prog_info_fd, 1, 1 }, { "prog-info-name", b_prog_info_name, 1, 1 },
	{ "bpf-object-prog", b_object_prog, 2, 2 }, { "bpf-session-prog", b_session_prog, 1, 2 },
	{ "bpf-session-progs", b_session_progs, 0, 1 },
	{ "open-bpf-object", b_open_object, 1, 1 }, { "load-bpf-object", b_load_object, 1, 1 },
	{ "close-bpf-object", b_close_object, 1, 1 },
	{ "attach-kprobe-multi", b_attach_kprobe_multi, 2, 4 }, { "detach", b_detach, 1, 1 },
	{ "attach-tracepoint", b_attach_tracepoint, 2, 2 },
};

/* attach-KIND and attach-obj-KIND: the row is found again through the builtin's name */
static lv_builtin_fn attach_builtin(const char *name, int *min, int *max)
{
	const struct attach_fn *f = attach_row(name);
	int obj = !strncmp(name, "attach-obj-", 11);
	if (!f)
		return NULL;
	*min = f->min + 1 + obj;
	*max = f->max + 1 + obj;
	return obj ? b_attach_obj : b_attach;
}

lv_builtin_fn host_loader_builtin(const char *name, int *min, int *max)
{
	for (size_t i = 0; i < sizeof(loader_builtins) / sizeof(loader_builtins[0]); i++)
		if (!strcmp(name, loader_builtins[i].name)) {
			*min = loader_builtins[i].min;
			*max = loader_builtins[i].max;
			return loader_builtins[i].fn;
		}
	return attach_builtin(name, min, max);
}

void host_loader_names(lv_name_fn fn, void *ctx)
{
	char name[64];
	for (size_t i = 0; i < sizeof(loader_builtins) / sizeof(loader_builtins[0]); i++)
		fn(ctx, loader_builtins[i].name);
	for (size_t i = 0; i < sizeof(attach_fns) / sizeof(attach_fns[0]); i++) {
		snprintf(name, sizeof(name), "attach-%s", attach_fns[i].name);
		fn(ctx, name);
		snprintf(name, sizeof(name), "attach-obj-%s", attach_fns[i].name);
		fn(ctx, name);
	}
	host_ring_names(fn, ctx);
}
