/* loader_struct.c — a defstruct's record codecs on the host side, as Whistler generates them:
 * (make-S-record &key FIELD...), (encode-S RECORD) to the struct's bytes (C layout), and the
 * struct named by the typed map calls ('stats-entry). decode-S and S-record-FIELD are
 * session.c's and layer.c's. An integer field is written little-endian at its size, an array
 * field's bytes as given (a byte vector, as decode-S gives it; nil: zeros). */
#include "loader.h"
#include <string.h>
#include <strings.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

const struct host_struct *host_struct_arg(struct lisp *h, const struct kl_node *at, struct lv *name)
{
	const char *s = name->k == LV_SYM ? name->u.name : name->k == LV_STR ? name->u.str.s : NULL;
	const struct host_struct *st = s ? host_find_struct(h, s) : NULL;
	if (!st)
		lv_err(h, at, "No decode/encode functions for %s: no defstruct of that name", lv_brief(h, name));
	return st;
}

static bool put_field(struct lisp *h, const struct kl_node *at, uint8_t *b, const struct host_field *f, struct lv *v)
{
	size_t len = f->count ? (size_t)f->count * f->size : f->size;
	if (!f->count && v->k == LV_INT) {
		for (size_t i = 0; i < len && i < 8; i++)
			b[f->off + i] = (uint8_t)((uint64_t)v->u.i >> (8 * i));
		return true;
	}
	if (f->count && v->k == LV_NIL)
		return true;
	if (f->count && (v->k == LV_VEC || v->k == LV_STR)) {
		size_t m = v->k == LV_VEC ? v->u.vec.len : v->u.str.len;
		for (size_t i = 0; i < m && i < len; i++) {
			struct lv *x = v->k == LV_VEC ? v->u.vec.items[i] : NULL;
			if (x && x->k != LV_INT)
				return lv_err(h, at, "field %s: %s is not a byte", f->name, lv_brief(h, x)), false;
			b[f->off + i] = x ? (uint8_t)x->u.i : (uint8_t)v->u.str.s[i];
		}
		return true;
	}
	lv_err(h, at, "field %s: %s is not %s", f->name, lv_brief(h, v), f->count ? "a byte vector" : "an integer");
	return false;
}

uint8_t *host_encode_struct(struct lisp *h, const struct kl_node *at, const struct host_struct *st, struct lv *r)
{
	const struct host_record *rec = lv_foreign_data(r, &host_record_type);
	if (!rec || rec->st != st)
		return lv_err(h, at, "encode-%s: %s is not a record of %s", st->name, lv_brief(h, r), st->name), NULL;
	uint8_t *b = kl_arena_alloc(&h->a, st->size ? st->size : 1);
	memset(b, 0, st->size);
	for (uint32_t i = 0; i < st->nfields; i++)
		if (!put_field(h, at, b, &st->fields[i], rec->fields[i]))
			return NULL;
	return b;
}

B(b_encode)
{
	(void)n;
	const struct host_struct *st = h->self->u.bi.data;
	uint8_t *b = host_encode_struct(h, c, st, a[0]);
	return b ? host_bytes_value(h, b, st->size) : NULL;
}

/* (make-S-record &key FIELD...): integers 0 and arrays nil unless given */
B(b_make)
{
	const struct host_struct *st = h->self->u.bi.data;
	struct host_record *r = kl_arena_new(&h->a, struct host_record);
	r->st = st;
	r->fields = kl_arena_array(&h->a, struct lv *, st->nfields ? st->nfields : 1);
	for (uint32_t i = 0; i < st->nfields; i++)
		r->fields[i] = st->fields[i].count ? LNIL : lv_int(h, 0);
	for (int i = 0; i < n; i += 2) {
		uint32_t f = 0;
		while (a[i]->k == LV_KEY && f < st->nfields && strcasecmp(a[i]->u.name, st->fields[f].name))
			f++;
		if (i + 1 >= n || a[i]->k != LV_KEY || f == st->nfields)
			return lv_err(h, c, "make-%s-record: %s is no field of %s", st->name, lv_brief(h, a[i]), st->name);
		r->fields[f] = a[i + 1];
	}
	return lv_foreign(h, &host_record_type, r);
}

lv_builtin_fn host_struct_builtin(struct lisp *h, const char *name, const void **data, int *min, int *max)
{
	const struct host_struct *st;
	if (!strncmp(name, "encode-", 7) && (st = host_find_struct(h, name + 7))) {
		*data = st;
		*min = *max = 1;
		return b_encode;
	}
	size_t l = strlen(name);
	if (strncmp(name, "make-", 5) || l < 12 || strcmp(name + l - 7, "-record"))
		return NULL;
	char buf[256];
	snprintf(buf, sizeof(buf), "%.*s", (int)(l - 12), name + 5);
	if (!(st = host_find_struct(h, buf)))
		return NULL;
	*data = st;
	*min = 0;
	*max = 2 * (int)st->nfields;
	return b_make;
}
