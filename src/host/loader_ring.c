/* loader_ring.c — Whistler's ring-buffer consumers on libkiln's reader (kiln/ringbuf.h):
 * open-ring-consumer calls back with (SAP LEN) for each record, open-decoding-ring-consumer
 * and with-decoding-ring-consumer with the decoder's value of the record's bytes; ring-poll
 * waits (:timeout-ms, 100) and delivers, ring-consume delivers what is there,
 * close-ring-consumer stops. A SAP is the record's bytes, copied: sb-sys:sap-ref-8/16/32/64
 * read it (little-endian) and sap+ offsets it, as SBCL's do on the ring's memory. A consumer
 * is kept on the object of its map: closing the object closes it too. */
#include "loader.h"
#include <kiln/error.h>
#include <kiln/ringbuf.h>
#include <errno.h>
#include <string.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

struct host_ring {
	struct lisp *h;
	const struct kl_node *at;       /* the ring-poll or ring-consume delivering now */
	struct lv *callback, *decoder;  /* decoder NULL: callback takes (SAP LEN) */
	struct host_obj *o;
	size_t slot;                    /* o->readers.items[slot] */
	bool failed;                    /* a callback's error stopped the reader: raised at the poll */
};
struct host_sap { const uint8_t *p; size_t len; };

static const struct lv_foreign_type ring_type = { "RING-CONSUMER", NULL };
static const struct lv_foreign_type sap_type = { "SYSTEM-AREA-POINTER", NULL };

void host_reader_free(struct kiln_reader *r)
{
	kiln_reader_free(r);
}

static struct lv *sap_value(struct lisp *h, const uint8_t *p, size_t len)
{
	struct host_sap *s = kl_arena_new(&h->a, struct host_sap);
	*s = (struct host_sap){ p, len };
	return lv_foreign(h, &sap_type, s);
}

static int on_record(void *ctx, const struct kiln_record *rec)
{
	struct host_ring *g = ctx;
	struct lisp *h = g->h;
	uint8_t *copy = kl_arena_alloc(&h->a, rec->size ? rec->size : 1);
	memcpy(copy, rec->data, rec->size);
	struct lv *args[2], *v;
	if (g->decoder) {
		args[0] = host_bytes_value(h, copy, rec->size);
		v = lv_apply(h, g->at, g->decoder, args, 1);
		v = v ? lv_apply(h, g->at, g->callback, (args[0] = lv_primary(v), args), 1) : NULL;
	} else {
		args[0] = sap_value(h, copy, rec->size);
		args[1] = lv_int(h, (int64_t)rec->size);
		v = lv_apply(h, g->at, g->callback, args, 2);
	}
	g->failed = !v;
	return v ? 0 : -1;
}

/* the open object whose map m is */
static struct host_obj *owner(struct lisp *h, const struct kiln_map *m)
{
	for (struct host_obj *o = H(h)->objs; o; o = o->next)
		if (o->obj && kiln_object_find_map(o->obj, kiln_map_name(m)) == m)
			return o;
	return NULL;
}

static struct lv *open_consumer(struct lisp *h, const struct kl_node *c, struct lv *map, struct lv *decoder,
				struct lv *callback)
{
	struct kiln_map *m = host_map_arg(h, c, map);
	struct host_obj *o = m ? owner(h, m) : NULL;
	if (!o)
		return m ? lv_err(h, c, "open-ring-consumer: map %s is of no open object", kiln_map_name(m)) : NULL;
	struct host_ring *g = kl_arena_new(&h->a, struct host_ring);
	*g = (struct host_ring){ h, c, callback, decoder, o, o->readers.len, false };
	struct kiln_reader *r;
	if (kiln_reader_new(&r) || kiln_reader_add_ringbuf(r, m, on_record, g, NULL)) {
		struct lv *e = lv_err(h, c, "open-ring-consumer %s: %s", kiln_map_name(m), kiln_errmsg());
		kiln_reader_free(r);
		return e;
	}
	kl_vec_push(&h->a, &o->readers, r);
	return lv_foreign(h, &ring_type, g);
}

B(b_open) { (void)n; return open_consumer(h, c, a[0], NULL, a[1]); }
B(b_open_decoding) { (void)n; return open_consumer(h, c, a[0], a[1], a[2]); }

static struct host_ring *ring_arg(struct lisp *h, const struct kl_node *c, struct lv *v, struct kiln_reader **r)
{
	struct host_ring *g = lv_foreign_data(v, &ring_type);
	*r = g && g->o->obj && g->slot < g->o->readers.len ? g->o->readers.items[g->slot] : NULL;
	if (!*r)
		lv_err(h, c, "%s is not an open ring consumer", lv_brief(h, v));
	return *r ? g : NULL;
}

static struct lv *poll(struct lisp *h, const struct kl_node *c, struct lv *consumer, int timeout_ms)
{
	struct kiln_reader *r;
	struct host_ring *g = ring_arg(h, c, consumer, &r);
	if (!g)
		return NULL;
	g->at = c;
	fflush(stdout);
	int got = kiln_reader_poll(r, timeout_ms);
	if (g->failed)
		return NULL;                 /* the callback's error (or Ctrl-C in it) */
	if (got == -EINTR)
		return host_interrupt_pending(h, c) ? NULL : lv_int(h, 0);
	if (got < 0)
		return lv_err(h, c, "ring-poll: %s", kiln_errmsg());
	return host_interrupt_pending(h, c) ? NULL : lv_int(h, got);
}

/* (ring-poll CONSUMER &key timeout-ms) */
B(b_poll)
{
	struct lv *t = host_kwarg(a, n, 1, "timeout-ms");
	if (t && (t->k != LV_INT || t->u.i < 0 || t->u.i > 0x7fffffff))
		return lv_err(h, c, "ring-poll: :timeout-ms %s is not a count of milliseconds", lv_brief(h, t));
	return poll(h, c, a[0], t ? (int)t->u.i : 100);
}
B(b_consume) { (void)n; return poll(h, c, a[0], 0); }

B(b_close)
{
	(void)n;
	struct kiln_reader *r;
	struct host_ring *g = ring_arg(h, c, a[0], &r);
	if (!g)
		return NULL;
	kiln_reader_free(r);
	g->o->readers.items[g->slot] = NULL;
	return LNIL;
}

/* (sap-ref-N SAP OFFSET): the N-bit little-endian integer there */
static struct lv *sap_ref(struct lisp *h, const struct kl_node *c, struct lv **a, size_t bytes)
{
	const struct host_sap *s = lv_foreign_data(a[0], &sap_type);
	if (!s || a[1]->k != LV_INT)
		return lv_err(h, c, "%s needs a SAP and an offset", h->self->u.bi.name);
	if (a[1]->u.i < 0 || (uint64_t)a[1]->u.i + bytes > s->len)
		return lv_err(h, c, "%s: offset %lld is outside the record's %zu bytes", h->self->u.bi.name,
			      (long long)a[1]->u.i, s->len);
	return lv_int(h, (int64_t)host_decode_le(s->p + a[1]->u.i, bytes));
}
B(b_sap8) { (void)n; return sap_ref(h, c, a, 1); }
B(b_sap16) { (void)n; return sap_ref(h, c, a, 2); }
B(b_sap32) { (void)n; return sap_ref(h, c, a, 4); }
B(b_sap64) { (void)n; return sap_ref(h, c, a, 8); }
B(b_sap_plus)
{
	(void)n;
	const struct host_sap *s = lv_foreign_data(a[0], &sap_type);
	if (!s || a[1]->k != LV_INT || a[1]->u.i < 0 || (uint64_t)a[1]->u.i > s->len)
		return lv_err(h, c, "sap+ needs a SAP and an offset within its record");
	return sap_value(h, s->p + a[1]->u.i, s->len - (size_t)a[1]->u.i);
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } ring_builtins[] = {
	{ "open-ring-consumer", b_open, 2, 2 }, { "open-decoding-ring-consumer", b_open_decoding, 3, 3 },
	{ "ring-poll", b_poll, 1, 3 }, { "ring-consume", b_consume, 1, 1 },
	{ "close-ring-consumer", b_close, 1, 1 },
	{ "sap-ref-8", b_sap8, 2, 2 }, { "sap-ref-16", b_sap16, 2, 2 }, { "sap-ref-32", b_sap32, 2, 2 },
	{ "sap-ref-64", b_sap64, 2, 2 }, { "sap+", b_sap_plus, 2, 2 },
};

lv_builtin_fn host_ring_builtin(const char *name, int *min, int *max)
{
	for (size_t i = 0; i < sizeof(ring_builtins) / sizeof(ring_builtins[0]); i++)
		if (!strcmp(name, ring_builtins[i].name)) {
			*min = ring_builtins[i].min;
			*max = ring_builtins[i].max;
			return ring_builtins[i].fn;
		}
	return NULL;
}

/* (with-decoding-ring-consumer (VAR MAP DECODER CALLBACK) BODY...): the consumer closed at the
 * end whatever happened */
struct lv *host_with_decoding_ring_consumer(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	const struct kl_node *spec = n->nitems > 1 ? n->items[1] : NULL;
	if (!spec || spec->kind != KL_N_LIST || spec->nitems != 4 || spec->items[0]->kind != KL_N_SYM)
		return lv_err(h, n, "with-decoding-ring-consumer needs (VAR MAP-INFO DECODER CALLBACK)");
	struct lv *v[3];
	for (int i = 0; i < 3; i++)
		if (!(v[i] = lv_eval(h, spec->items[i + 1], env)))
			return NULL;
	struct lv *cons = open_consumer(h, n, lv_primary(v[0]), lv_primary(v[1]), lv_primary(v[2]));
	if (!cons)
		return NULL;
	struct lv_frame f = { lv_symname(h, spec->items[0]), cons, env };
	struct lv *r = lv_body_from(h, n, 2, &f);
	struct host_ring *g = lv_foreign_data(cons, &ring_type);
	if (g->o->obj && g->slot < g->o->readers.len) {
		kiln_reader_free(g->o->readers.items[g->slot]);
		g->o->readers.items[g->slot] = NULL;
	}
	return r;
}

void host_ring_names(lv_name_fn fn, void *ctx)
{
	for (size_t i = 0; i < sizeof(ring_builtins) / sizeof(ring_builtins[0]); i++)
		fn(ctx, ring_builtins[i].name);
}
