/* session.c — the kiln side of a host file: its kiln forms gathered into one program
 * compiled by kiln's compiler, with-bpf-session and with-bpf-object loading it through
 * libkiln, attaching, map access, and the decoders of defstructs. Nothing is pinned: closing
 * the object and destroying the links leaves nothing behind. */
#include "loader.h"
#include "cli/cli.h"
#include "compiler/types.h"
#include <kiln/compile.h>
#include <kiln/error.h>
#include <kiln/map.h>
#include <kiln/object.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- gathering kiln forms ------------------------------------------------------------ */

/* The end of the form that starts at off: balanced brackets, strings, comments, #\c. */
static uint32_t form_end(const char *t, uint32_t len, uint32_t off)
{
	uint32_t p = off;
	int depth = 0;
	while (p < len && (t[p] == '\'' || t[p] == '`' || t[p] == ',' || t[p] == '@' ||
			   (t[p] == '#' && p + 1 < len && t[p + 1] == '\'')))
		p += t[p] == '#' ? 2 : 1;
	do {
		if (p >= len)
			return len;
		char c = t[p];
		if (c == '"') {
			for (p++; p < len && t[p] != '"'; p++)
				if (t[p] == '\\')
					p++;
			p++;
		} else if (c == ';') {
			while (p < len && t[p] != '\n')
				p++;
		} else if (c == '#' && p + 1 < len && t[p + 1] == '\\') {
			p += 3;
			while (p < len && !strchr(" \t\n()[]\";", t[p]))
				p++;
		} else if (c == '(' || c == '[') {
			depth++, p++;
		} else if (c == ')' || c == ']') {
			depth--, p++;
		} else if (strchr(" \t\r\n", c)) {
			p++;
		} else {
			while (p < len && !strchr(" \t\r\n()[]\";", t[p]))
				p++;
		}
	} while (depth > 0);
	return p;
}

void host_collect(struct lisp *h, const struct kl_node *form)
{
	uint32_t off = host_offset(h, form->span);
	for (size_t i = 0; i < H(h)->segs.len; i++)
		if (H(h)->segs.items[i].off == off)
			return;                       /* eval'd twice */
	struct host_seg s = { off, form_end(h->src.text, (uint32_t)h->src.len, off), form };
	kl_vec_push(&h->a, &H(h)->segs, s);
}

void host_collect_value(struct lisp *h, struct lv *form)
{
	kl_vec_push(&h->a, &H(h)->extra, lv_to_text(h, form, true));
}

/* Rewrite a copied form in place: bpf:map and bpf:prog become defmap and defprog, and package
 * prefixes (whistler:getmap, cl:incf) are blanked, keeping every other byte where it was. */
static void rewrite(struct lisp *h, char *text, const struct kl_node *n)
{
	if (n->kind == KL_N_LIST) {
		for (uint32_t i = 0; i < n->nitems; i++)
			rewrite(h, text, n->items[i]);
		return;
	}
	if (n->kind != KL_N_SYM || !n->name)
		return;
	const char *w = n->name, *c = strrchr(w, ':');
	if (!c || c == w)
		return;
	uint32_t off = host_offset(h, n->span);
	if (off + strlen(w) > h->src.len || strncmp(text + off, w, strlen(w)))
		return;                               /* a node kiln made (quote's symbol) */
	if (!strcasecmp(w, "bpf:map"))
		memcpy(text + off, "defmap ", 7);
	else if (!strcasecmp(w, "bpf:prog"))
		memcpy(text + off, "defprog ", 8);
	else
		memset(text + off, ' ', (size_t)(c + 1 - w));
}

static void copy_form(struct lisp *h, char *text, uint32_t off, uint32_t end, const struct kl_node *n)
{
	memcpy(text + off, h->src.text + off, end - off);
	rewrite(h, text, n);
}

/* The file's kiln forms (and extra, a session's bpf:map/bpf:prog) as one source, each where
 * it is in the file so the compiler's and the verifier's positions are the file's. */
int host_compile(struct lisp *h, const struct kl_node *at, const struct kl_node *const *extra, uint32_t nextra,
		 void **elf, size_t *size)
{
	size_t len = h->src.len, xlen = 0;
	for (size_t i = 0; i < H(h)->extra.len; i++)
		xlen += strlen(H(h)->extra.items[i]) + 1;
	char *text = malloc(len + xlen + 2);
	if (!text) {
		lv_err(h, at, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		text[i] = h->src.text[i] == '\n' ? '\n' : ' ';
	for (size_t i = 0; i < H(h)->segs.len; i++)
		copy_form(h, text, H(h)->segs.items[i].off, H(h)->segs.items[i].end, H(h)->segs.items[i].node);
	for (uint32_t i = 0; i < nextra; i++) {
		uint32_t off = host_offset(h, extra[i]->span);
		copy_form(h, text, off, form_end(h->src.text, (uint32_t)len, off), extra[i]);
	}
	char *p = text + len;
	for (size_t i = 0; i < H(h)->extra.len; i++)
		p += sprintf(p, "\n%s", H(h)->extra.items[i]);
	*p = 0;            /* the compiler reads source text as a C string too */
	char *warnings = NULL;
	struct kiln_compile_opts co = { .sz = sizeof(co), .text = text, .text_len = (size_t)(p - text),
					.warnings = &warnings };
	int err = kiln_compile(h->src.path, elf, size, &co);
	free(text);
	if (warnings && !err)
		fputs(warnings, stderr);
	free(warnings);
	if (err)   /* the compiler's diagnostic whole: file:line:col, the line, a caret */
		lv_raise(h, at, "compiled", *kiln_errlog() ? kiln_errlog() : kiln_errmsg());
	return err;
}

/* ---- objects and sessions ------------------------------------------------------------- */

/* The host's kinds of value, foreign to the core: an object (or session), a map of one, and a
 * record decoded by a defstruct's decode-S. */

static void print_map(struct lv_printer *p, const struct lv *v)
{
	const struct host_map_ref *r = v->u.foreign.data;
	lv_printer_put(p, "#<BPF-MAP ");
	lv_printer_put(p, r->name);
	lv_printer_put(p, ">");
}

static void print_record(struct lv_printer *p, const struct lv *v)
{
	const struct host_record *r = v->u.foreign.data;
	lv_printer_put(p, "#S(");
	lv_printer_put(p, r->st->name);
	lv_printer_put(p, "-RECORD");
	for (uint32_t i = 0; i < r->st->nfields; i++) {
		lv_printer_put(p, " :");
		lv_printer_put(p, r->st->fields[i].name);
		lv_printer_put(p, " ");
		lv_printer_value(p, r->fields[i]);
	}
	lv_printer_put(p, ")");
}

const struct lv_foreign_type host_obj_type = { "BPF-OBJECT", NULL };
const struct lv_foreign_type host_map_type = { "BPF-MAP", print_map };
const struct lv_foreign_type host_record_type = { "RECORD", print_record };

struct lv *host_obj_value(struct lisp *h, struct host_obj *o)
{
	return lv_foreign(h, &host_obj_type, o);
}

struct lv *host_map_value(struct lisp *h, struct kiln_map *m)
{
	struct host_map_ref *r = kl_arena_new(&h->a, struct host_map_ref);
	r->m = m;
	r->name = kl_arena_strdup(&h->a, kiln_map_name(m));
	return lv_foreign(h, &host_map_type, r);
}

/* Open and load an object (an image, or a file); with reuse, its maps of the same names are
 * reuse's (the REPL's maps keep their contents as programs are added). */
int host_open_load(struct lisp *h, const struct kl_node *at, const void *elf, size_t size, const char *path,
		   struct host_obj *o, struct host_obj *reuse)
{
	struct kiln_object_opts opts = { .sz = sizeof(opts) };
	int err = elf ? kiln_object_open_mem(elf, size, &opts, &o->obj) : kiln_object_open(path, &opts, &o->obj);
	if (!err)
		err = kiln_bpf_privileged();
	if (err) {
		lv_err(h, at, "cannot open the BPF object: %s", kiln_errmsg());
		return -1;
	}
	for (size_t i = 0; reuse && reuse->obj && i < kiln_object_map_count(reuse->obj); i++) {
		struct kiln_map *old = kiln_object_map(reuse->obj, i);
		struct bpf_map *bm = bpf_object__find_map_by_name(kiln_object_libbpf(o->obj), kiln_map_name(old));
		const struct kiln_map_info *a = kiln_map_info(old);
		if (bm && bpf_map__type(bm) == a->type && bpf_map__key_size(bm) == a->key_size &&
		    bpf_map__value_size(bm) == a->value_size && bpf_map__reuse_fd(bm, kiln_map_fd(old)))
			return lv_err(h, at, "cannot keep map %s: %s", kiln_map_name(old), strerror(errno)), -1;
	}
	if (cli_object_load(H(h)->repl ? "repl" : "run", o->obj, h->src.path)) {
		lv_raise(h, at, "bpf-verifier-error", "");   /* said already; Whistler's condition */
		return -1;
	}
	struct lv *head = LNIL, **tail = &head;
	for (size_t i = 0; i < kiln_object_map_count(o->obj); i++) {
		struct kiln_map *m = kiln_object_map(o->obj, i);
		*tail = lv_cons(h, lv_cons(h, lv_cstr(h, kiln_map_name(m)), host_map_value(h, m)), LNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	o->maps = head;
	o->next = H(h)->objs;
	H(h)->objs = o;
	return 0;
}

struct host_obj *host_obj_new(struct lisp *h)
{
	return kl_arena_new(&h->a, struct host_obj);
}

struct kiln_object *host_obj_object(struct host_obj *o)
{
	return o->obj;
}

void host_obj_close(struct host_obj *o)
{
	for (size_t i = 0; i < o->readers.len; i++)
		host_reader_free(o->readers.items[i]);
	o->readers.len = 0;
	for (size_t i = 0; i < o->links.len; i++)
		kiln_link_destroy(o->links.items[i]);
	o->links.len = 0;
	for (size_t i = 0; i < o->tp_links.len; i++)
		bpf_link__destroy(o->tp_links.items[i]);
	o->tp_links.len = 0;
	kiln_object_close(o->obj);
	o->obj = NULL;
}

/* Run body with var bound to the object, then close it whatever happened (errors and Ctrl-C
 * pass through after the links are destroyed). */
static struct lv *run_body(struct lisp *h, const struct kl_node *const *body, uint32_t n, struct lv_frame *env,
			   const char *var, struct host_obj *o)
{
	struct lv_global *g = lv_global(h, var, true);
	struct lv *saved = g->val;
	struct lv_frame f = { var, host_obj_value(h, o), env };
	g->val = f.val;
	struct lv *v = LNIL;
	for (uint32_t i = 0; i < n && v; i++) {
		const char *hd = kl_head(body[i]);
		if (hd && (!strcmp(hd, "bpf:map") || !strcmp(hd, "bpf:prog")))
			continue;
		v = lv_eval(h, body[i], strcmp(var, "*bpf-session*") ? &f : env);
	}
	g->val = saved;
	host_obj_close(o);
	return v;
}

struct lv *host_with_session(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	KL_VEC(const struct kl_node *) bpf = { 0 };
	for (uint32_t i = 2; i < n->nitems; i++) {
		const char *hd = kl_head(n->items[i]);
		if (hd && (!strcmp(hd, "bpf:map") || !strcmp(hd, "bpf:prog")))
			kl_vec_push(&h->a, &bpf, n->items[i]);
	}
	void *elf;
	size_t size;
	if (host_compile(h, n, bpf.items, (uint32_t)bpf.len, &elf, &size))
		return NULL;
	struct host_obj *o = kl_arena_new(&h->a, struct host_obj);
	int err = host_open_load(h, n, elf, size, NULL, o, NULL);
	free(elf);
	if (err) {
		if (o->obj)
			kiln_object_close(o->obj);
		return NULL;
	}
	H(h)->ran_session = true;
	return run_body(h, (const struct kl_node *const *)n->items + 2, n->nitems > 2 ? n->nitems - 2 : 0, env,
			"*bpf-session*", o);
}

/* (with-bpf-object (VAR PATH) BODY...) */
struct lv *host_with_object(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	const struct kl_node *spec = n->nitems > 1 ? n->items[1] : NULL;
	if (!spec || spec->kind != KL_N_LIST || spec->nitems != 2 || spec->items[0]->kind != KL_N_SYM)
		return lv_err(h, n, "with-bpf-object needs (VAR PATH)");
	struct lv *path = lv_eval(h, spec->items[1], env);
	if (!path)
		return NULL;
	if (path->k != LV_STR)
		return lv_err(h, spec->items[1], "with-bpf-object needs a path string");
	struct host_obj *o = kl_arena_new(&h->a, struct host_obj);
	if (host_open_load(h, n, NULL, 0, path->u.str.s, o, NULL)) {
		if (o->obj)
			kiln_object_close(o->obj);
		return NULL;
	}
	H(h)->ran_session = true;
	return run_body(h, (const struct kl_node *const *)n->items + 2, n->nitems > 2 ? n->nitems - 2 : 0, env,
			lv_symname(h, spec->items[0]), o);
}

struct host_obj *host_session(struct lisp *h, const struct kl_node *at)
{
	struct lv_global *g = lv_global(h, "*bpf-session*", false);
	struct host_obj *o = g && g->val ? lv_foreign_data(g->val, &host_obj_type) : NULL;
	if (!o || !o->obj) {
		lv_err(h, at, "%s outside of with-bpf-session", kl_head(at) ? kl_head(at) : "this");
		return NULL;
	}
	return o;
}

struct lv *host_attach_by_args(struct lisp *h, const struct kl_node *at, struct host_obj *o, const char *prog,
			       struct lv **args, int n, int attach_type)
{
	struct kiln_prog *p = kiln_object_find_prog(o->obj, prog);
	if (!p)
		return lv_err(h, at, "no program %s in the session", prog);
	for (int i = 0; i < n; i++) {
		if (args[i]->k == LV_KEY) {   /* Whistler's :flags and the like: kiln's links need none */
			n = i;
			break;
		}
		if (args[i]->k != LV_STR)
			return lv_err(h, at, "attach: %s is not a string", lv_to_text(h, args[i], true));
	}
	struct kiln_attach_opts opts = { .sz = sizeof(opts) };
	enum kiln_attach_kind kind = kiln_prog_attach_kind(p);
	switch (kind) {
	case KILN_ATTACH_CGROUP:
		if (n < 1)
			return lv_err(h, at, "attach: a cgroup program needs the cgroup's directory");
		opts.cgroup = args[0]->u.str.s;
		if (attach_type >= 0 && (int)kiln_prog_expected_attach_type(p) != attach_type)
			return lv_err(h, at, "attach: %s's section %s is attach type %d, not %d", prog, kiln_prog_section(p),
				      (int)kiln_prog_expected_attach_type(p), attach_type);
		break;
	case KILN_ATTACH_UPROBE:
		if (n < 1)
			return lv_err(h, at, "attach: a uprobe needs the binary (and the symbol)");
		opts.binary = args[0]->u.str.s;
		opts.symbol = n > 1 ? args[1]->u.str.s : NULL;
		break;
	case KILN_ATTACH_XDP:
	case KILN_ATTACH_TC:
		if (n < 1)
			return lv_err(h, at, "attach: %s needs an interface", kiln_attach_kind_name(kind));
		opts.iface = args[0]->u.str.s;
		break;
	case KILN_ATTACH_TRACEPOINT:   /* Whistler's bpf:attach: TARGET names the tracepoint */
		if (n > 0)
			return host_attach_tracepoint(h, at, o, p, args[0]->u.str.s);
		break;
	case KILN_ATTACH_KPROBE:   /* Whistler's bpf:attach: TARGET is the function */
		opts.symbol = n > 0 ? args[0]->u.str.s : NULL;
		break;
	default: break;        /* tracepoints and the rest: the section names the hook */
	}
	return host_attach_prog(h, at, o, p, &opts);
}

/* (bpf:attach PROG [TARGET [SYMBOL]]) */
struct lv *host_attach(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct host_obj *o = host_session(h, n);
	if (!o)
		return NULL;
	if (n->nitems < 2 || n->items[1]->kind != KL_N_SYM)
		return lv_err(h, n, "bpf:attach needs a program name");
	int na = (int)n->nitems - 2;
	struct lv **args = kl_arena_array(&h->a, struct lv *, (size_t)na + 1);
	for (int i = 0; i < na; i++)
		if (!(args[i] = lv_eval(h, n->items[i + 2], env)))
			return NULL;
	return host_attach_by_args(h, n, o, kl_name(n->items[1]), args, na, -1);
}

static struct kiln_map *find_map(struct lisp *h, const struct kl_node *at, struct host_obj *o, const char *name)
{
	struct kiln_map *m = kiln_object_find_map(o->obj, name);
	if (!m)
		lv_err(h, at, "no map %s in the session", name);
	return m;
}

/* the integer a little-endian value of len bytes holds */
uint64_t host_decode_le(const uint8_t *p, size_t len)
{
	uint64_t v = 0;
	for (size_t i = len > 8 ? 8 : len; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

struct lv *host_bytes_value(struct lisp *h, const uint8_t *p, size_t len)
{
	struct lv *v = lv_vec(h, len);
	for (size_t i = 0; i < len; i++)
		v->u.vec.items[i] = lv_int(h, p[i]);
	return v;
}

/* a key or value argument as bytes: a byte vector of the map's size, or an integer */
uint8_t *host_to_bytes(struct lisp *h, const struct kl_node *at, struct lv *v, size_t size, const char *what)
{
	uint8_t *b = kl_arena_alloc(&h->a, size ? size : 1);
	if (v->k == LV_INT) {
		for (size_t i = 0; i < size && i < 8; i++)
			b[i] = (uint8_t)((uint64_t)v->u.i >> (8 * i));
		return b;
	}
	if (v->k != LV_VEC || v->u.vec.len != size) {
		lv_err(h, at, "the %s is not %zu bytes: %s", what, size, lv_to_text(h, v, true));
		return NULL;
	}
	for (size_t i = 0; i < size; i++) {
		if (v->u.vec.items[i]->k != LV_INT) {
			lv_err(h, at, "the %s holds a non-integer", what);
			return NULL;
		}
		b[i] = (uint8_t)v->u.vec.items[i]->u.i;
	}
	return b;
}

/* (bpf:map-ref MAP KEY): the value as an unsigned integer, nil when the key is absent */
struct lv *host_map_ref(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct host_obj *o = host_session(h, n);
	if (!o)
		return NULL;
	if (n->nitems != 3 || n->items[1]->kind != KL_N_SYM)
		return lv_err(h, n, "bpf:map-ref needs a map name and a key");
	struct kiln_map *m = find_map(h, n, o, kl_name(n->items[1]));
	struct lv *k = m ? lv_eval(h, n->items[2], env) : NULL;
	if (!k)
		return NULL;
	const struct kiln_map_info *mi = kiln_map_info(m);
	uint8_t *key = host_to_bytes(h, n, k, mi->key_size, "key");
	uint8_t *val = kl_arena_alloc(&h->a, kiln_map_value_buf_size(m));
	if (!key)
		return NULL;
	if (kiln_map_lookup(m, key, val))
		return LNIL;
	int64_t sum = 0;
	for (size_t off = 0; off < kiln_map_value_buf_size(m); off += kiln_map_value_stride(m))
		sum += (int64_t)host_decode_le(val + off, mi->value_size);
	return lv_int(h, sum);
}

/* ---- builtins ------------------------------------------------------------------------- */

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

struct kiln_map *host_map_arg(struct lisp *h, const struct kl_node *c, struct lv *v)
{
	const struct host_map_ref *r = lv_foreign_data(v, &host_map_type);
	if (r)
		return r->m;
	lv_err(h, c, "%s is not a BPF map", lv_to_text(h, v, true));
	return NULL;
}

/* (F MAP KEY ...): the map and the key as bytes of its size, or NULL */
static struct kiln_map *map_key(struct lisp *h, const struct kl_node *c, struct lv **a, uint8_t **key)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	*key = m ? host_to_bytes(h, c, a[1], kiln_map_info(m)->key_size, "key") : NULL;
	return *key ? m : NULL;
}

B(b_map_lookup)
{
	(void)n;
	uint8_t *key;
	struct kiln_map *m = map_key(h, c, a, &key);
	if (!m)
		return NULL;
	size_t vs = kiln_map_value_buf_size(m);
	uint8_t *val = kl_arena_alloc(&h->a, vs);
	int err = kiln_map_lookup(m, key, val);
	if (err == -ENOENT)
		return LNIL;
	if (err)
		return lv_err(h, c, "map-lookup: %s", kiln_errmsg());
	if (!kiln_map_is_percpu(m))
		return host_bytes_value(h, val, vs);
	size_t stride = kiln_map_value_stride(m), ncpu = vs / stride;   /* Whistler's: one value a CPU */
	struct lv *v = lv_vec(h, ncpu);
	for (size_t i = 0; i < ncpu; i++)
		v->u.vec.items[i] = host_bytes_value(h, val + i * stride, kiln_map_info(m)->value_size);
	return v;
}
B(b_map_update)
{
	uint8_t *key;
	struct kiln_map *m = map_key(h, c, a, &key);
	uint8_t *val = m ? host_to_bytes(h, c, a[2], kiln_map_value_buf_size(m), "value") : NULL;
	uint64_t flags = 0;
	for (int i = 3; i + 1 < n; i += 2)
		if (a[i]->k == LV_KEY && !strcmp(a[i]->u.name, "flags") && a[i + 1]->k == LV_INT)
			flags = (uint64_t)a[i + 1]->u.i;
	if (!val)
		return NULL;
	if (kiln_map_update(m, key, val, flags))
		return lv_err(h, c, "map-update: %s", kiln_errmsg());
	return LT;
}
B(b_map_delete)
{
	(void)n;
	uint8_t *key;
	struct kiln_map *m = map_key(h, c, a, &key);
	if (!m)
		return NULL;
	return kiln_map_delete(m, key) ? host_bpf_err(h, c, "map-delete") : lv_int(h, 0);   /* 0, an error when absent: Whistler's */
}
B(b_next_key)
{
	struct kiln_map *m = host_map_arg(h, c, a[0]);
	if (!m)
		return NULL;
	size_t ks = kiln_map_info(m)->key_size;
	uint8_t *key = n > 1 && a[1]->k != LV_NIL ? host_to_bytes(h, c, a[1], ks, "key") : NULL;
	if (n > 1 && a[1]->k != LV_NIL && !key)
		return NULL;
	uint8_t *next = kl_arena_alloc(&h->a, ks);
	int err = kiln_map_next_key(m, key, next);
	if (err == -ENOENT)
		return LNIL;
	if (err)
		return lv_err(h, c, "map-get-next-key: %s", kiln_errmsg());
	return host_bytes_value(h, next, ks);
}
B(b_encode_int_key)
{
	(void)n;
	if (a[0]->k != LV_INT || a[1]->k != LV_INT || a[1]->u.i < 0 || a[1]->u.i > 4096)
		return lv_err(h, c, "encode-int-key needs an integer and a size");
	struct lv *v = lv_vec(h, (size_t)a[1]->u.i);
	for (int64_t i = 0; i < a[1]->u.i; i++)
		v->u.vec.items[i] = lv_int(h, i < 8 ? (int64_t)(((uint64_t)a[0]->u.i >> (8 * i)) & 0xff) : 0);
	return v;
}
B(b_decode_int_value)
{
	(void)n;
	if (a[0]->k != LV_VEC)
		return lv_err(h, c, "decode-int-value needs a byte vector: %s", lv_to_text(h, a[0], true));
	uint8_t *b = host_to_bytes(h, c, a[0], a[0]->u.vec.len, "value");
	return b ? lv_int(h, (int64_t)host_decode_le(b, a[0]->u.vec.len)) : NULL;
}

struct host_obj *host_obj_arg(struct lisp *h, const struct kl_node *c, struct lv *v)
{
	struct host_obj *o = lv_foreign_data(v, &host_obj_type);
	if (o && o->obj)
		return o;
	lv_err(h, c, "%s is not an open BPF object or session", lv_to_text(h, v, true));
	return NULL;
}
static struct lv *map_by_name(struct lisp *h, const struct kl_node *c, struct host_obj *o, struct lv *name)
{
	if (!o)
		return NULL;
	char buf[256];
	const char *s = name->k == LV_STR ? name->u.str.s : name->k == LV_SYM ? name->u.name : NULL;
	if (!s)
		return lv_err(h, c, "a map name is a string or a symbol");
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *p = buf; *p; p++)
		*p = *p == '-' ? '_' : *p;
	struct kiln_map *m = kiln_object_find_map(o->obj, buf);
	return m ? host_map_value(h, m) : LNIL;
}
B(b_session_map) { return map_by_name(h, c, n > 1 ? host_obj_arg(h, c, a[1]) : host_session(h, c), a[0]); }
B(b_object_map) { (void)n; return map_by_name(h, c, host_obj_arg(h, c, a[0]), a[1]); }
B(b_session_maps)
{
	struct host_obj *o = n ? host_obj_arg(h, c, a[0]) : host_session(h, c);
	return o ? o->maps : NULL;
}
B(b_attach_obj_cgroup)
{
	struct host_obj *o = host_obj_arg(h, c, a[0]);
	if (!o)
		return NULL;
	if (a[1]->k != LV_STR || a[3]->k != LV_INT)
		return lv_err(h, c, "attach-obj-cgroup needs OBJ PROG-NAME CGROUP-PATH ATTACH-TYPE");
	(void)n;   /* :flags: kiln attaches with a link, which other programs may share */
	return host_attach_by_args(h, c, o, a[1]->u.str.s, a + 2, 1, (int)a[3]->u.i);
}
B(b_compile_to_elf)
{
	(void)n;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "compile-to-elf needs a path");
	void *elf;
	size_t size;
	if (host_compile(h, c, NULL, 0, &elf, &size))
		return NULL;
	FILE *f = fopen(a[0]->u.str.s, "wb");
	bool ok = f && fwrite(elf, 1, size, f) == size;
	if (f && fclose(f))
		ok = false;
	free(elf);
	if (!ok)
		return lv_err(h, c, "compile-to-elf: cannot write %s", a[0]->u.str.s);
	return a[0];
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } session_builtins[] = {
	{ "map-lookup", b_map_lookup, 2, 2 }, { "map-update", b_map_update, 3, 5 },
	{ "map-delete", b_map_delete, 2, 2 }, { "map-get-next-key", b_next_key, 1, 2 },
	{ "encode-int-key", b_encode_int_key, 2, 2 }, { "decode-int-value", b_decode_int_value, 1, 1 },
	{ "bpf-session-map", b_session_map, 1, 2 }, { "bpf-session-maps", b_session_maps, 0, 1 },
	{ "bpf-object-map", b_object_map, 2, 2 }, { "attach-obj-cgroup", b_attach_obj_cgroup, 4, 6 },
	{ "compile-to-elf", b_compile_to_elf, 1, 1 },
};

lv_builtin_fn host_session_builtin(const char *name, int *min, int *max)
{
	for (size_t i = 0; i < sizeof(session_builtins) / sizeof(session_builtins[0]); i++)
		if (!strcmp(name, session_builtins[i].name)) {
			*min = session_builtins[i].min;
			*max = session_builtins[i].max;
			return session_builtins[i].fn;
		}
	lv_builtin_fn fn = host_loader_builtin(name, min, max);
	return fn ? fn : host_ring_builtin(name, min, max);
}

void host_session_names(lv_name_fn fn, void *ctx)
{
	for (size_t i = 0; i < sizeof(session_builtins) / sizeof(session_builtins[0]); i++)
		fn(ctx, session_builtins[i].name);
}

struct kiln_map *host_map_of(const struct lv *v)
{
	const struct host_map_ref *r = lv_foreign_data(v, &host_map_type);
	return r ? r->m : NULL;
}

/* ---- defstruct decoders ------------------------------------------------------------------ */

/* The field types of (defstruct NAME (FIELD TYPE) ...) into f: a built-in integer or
 * (array INT N), N from 1 to 65536. false when a field is neither. */
static bool struct_fields(const struct kl_node *form, struct kl_scalar_field *f, uint64_t *bound)
{
	for (uint32_t i = 2; i < form->nitems; i++, f++) {
		const struct kl_node *fl = form->items[i];
		if (fl->kind != KL_N_LIST || fl->nitems < 2 || fl->items[0]->kind != KL_N_SYM)
			return false;
		const struct kl_node *t = fl->items[1];
		if (kl_head(t) && !strcmp(kl_head(t), "array") && t->nitems == 3 && t->items[2]->kind == KL_N_INT) {
			if (t->items[2]->ival < 1 || t->items[2]->ival > 65536)
				return false;
			f->count = (uint32_t)t->items[2]->ival;
			t = t->items[1];
		}
		if (t->kind != KL_N_SYM)
			return false;
		f->type = t->str;
		*bound += 8 * (uint64_t)(f->count ? f->count : 1) + 7;   /* at most, padding in */
	}
	return true;
}

/* (defstruct NAME (FIELD TYPE) ...) with integer and (array INT N) fields, in the C layout the
 * compiler gives it (types.c); a struct with other fields, or past 16 MiB, gets no decoder
 * (kiln still compiles it). */
void host_define_struct(struct lisp *h, const struct kl_node *form)
{
	if (form->nitems < 3 || form->items[1]->kind != KL_N_SYM)
		return;
	uint32_t n = form->nitems - 2, size;
	uint64_t bound = 0;
	struct kl_scalar_field *sf = kl_arena_array(&h->a, struct kl_scalar_field, n);
	if (!struct_fields(form, sf, &bound) || bound > (1u << 31) || !kl_type_scalar_layout(&h->a, sf, n, &size) ||
	    sf[n - 1].offset + sf[n - 1].size * (sf[n - 1].count ? sf[n - 1].count : 1) > (1u << 24))
		return;
	struct host_struct *st = kl_arena_new(&h->a, struct host_struct);
	st->name = lv_symname(h, form->items[1]);
	st->fields = kl_arena_array(&h->a, struct host_field, n);
	for (uint32_t i = 0; i < n; i++)
		st->fields[i] = (struct host_field){ form->items[i + 2]->items[0]->str, sf[i].offset, sf[i].size,
						   sf[i].count, sf[i].is_signed };
	st->nfields = n;
	st->size = size;
	st->next = H(h)->structs;
	H(h)->structs = st;
}

const struct host_struct *host_find_struct(struct lisp *h, const char *name)
{
	for (const struct host_struct *s = H(h)->structs; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}


struct lv *host_decode_struct(struct lisp *h, const struct kl_node *at, const struct host_struct *st, struct lv *bytes)
{
	if (bytes->k != LV_VEC || bytes->u.vec.len < st->size)
		return lv_err(h, at, "decode-%s needs %u bytes: %s", st->name, st->size, lv_to_text(h, bytes, true));
	uint8_t *b = host_to_bytes(h, at, bytes, bytes->u.vec.len, "record");
	if (!b)
		return NULL;
	struct host_record *r = kl_arena_new(&h->a, struct host_record);
	r->st = st;
	r->fields = kl_arena_array(&h->a, struct lv *, st->nfields);
	for (uint32_t i = 0; i < st->nfields; i++) {
		const struct host_field *f = &st->fields[i];
		/* as Whistler's decode-S: an integer unsigned, an array its bytes */
		r->fields[i] = f->count ? host_bytes_value(h, b + f->off, (size_t)f->count * f->size)
					: lv_int(h, (int64_t)host_decode_le(b + f->off, f->size));
	}
	return lv_foreign(h, &host_record_type, r);
}

struct lv *host_record_field(const struct lv *v, const struct host_field *f)
{
	const struct host_record *r = lv_foreign_data(v, &host_record_type);
	if (r)
		for (uint32_t i = 0; i < r->st->nfields; i++)
			if (&r->st->fields[i] == f)
				return r->fields[i];
	return NULL;
}
