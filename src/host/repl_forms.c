/* repl_forms.c — what `kiln repl` adds to the host side (repl.c has the session loop): its
 * own forms (attach, detach, dump, disasm, check, load, and map-lookup printing a struct by its
 * fields) on the newest object, and kiln forms compiled as they are entered, a defmap or
 * defprog loading the program again as a new object whose maps are the previous object's.
 * Apart from repl.c so that nothing here needs libedit. */
#include "hv.h"
#include "repl.h"
#include "cli/cli.h"
#include <kiln/error.h>
#include <kiln/map.h>
#include <kiln/object.h>
#include <kiln/value.h>
#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

struct host_obj *host_repl_current(struct lisp *h)
{
	return H(h)->repl->objs.len ? H(h)->repl->objs.items[H(h)->repl->objs.len - 1] : NULL;
}

/* The program named by n (a symbol) in the newest object; NULL when none is */
static struct kiln_prog *find_prog(struct lisp *h, const struct kl_node *n)
{
	struct host_obj *o = host_repl_current(h);
	return o && n->kind == KL_N_SYM ? kiln_object_find_prog(host_obj_object(o), kl_name(n)) : NULL;
}

static struct kiln_prog *prog_arg(struct lisp *h, const struct kl_node *n)
{
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM) {
		lv_err(h, n, "%s needs a program's name", kl_name(n->items[0]));
		return NULL;
	}
	struct kiln_prog *p = find_prog(h, n->items[1]);
	if (!p)
		lv_err(h, n->items[1], "no program %s is loaded", kl_name(n->items[1]));
	return p;
}

/* (attach PROG ...) as bpf:attach; the link is the REPL's own, for (detach PROG) */
static struct lv *rf_attach(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *r = host_attach(h, n, env);
	struct host_repl *rp = H(h)->repl;
	struct lv_global *g = lv_global(h, "*bpf-session*", false);
	struct host_obj *o = host_repl_current(h);
	if (!r || !o || !g || g->val != rp->session)
		return r;                  /* attached in a session of the user's: its links */
	struct kiln_prog *p = find_prog(h, n->items[1]);
	struct repl_link l = { p ? kiln_prog_name(p) : kl_name(n->items[1]), r };
	kl_vec_push(&h->a, &rp->links, l);
	return r;
}

/* The links of the program named name destroyed: how many there were */
static size_t detach_prog(struct host_repl *rp, const char *name)
{
	size_t out = 0, gone = 0;
	for (size_t i = 0; i < rp->links.len; i++) {
		if (strcmp(rp->links.items[i].prog, name)) {
			rp->links.items[out++] = rp->links.items[i];
			continue;
		}
		gone += host_detach_value(rp->links.items[i].att);
	}
	rp->links.len = out;
	return gone;
}

void repl_detach_all(struct host_repl *rp)
{
	for (size_t i = 0; i < rp->links.len; i++)
		host_detach_value(rp->links.items[i].att);
	rp->links.len = 0;
}

/* (detach PROG): every attachment of PROG made at the prompt ended. Anything else goes to
 * the host's own detach, when it has one (a session's attachment objects). */
static struct lv *rf_detach(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *host = lv_function(h, "detach");
	struct kiln_prog *p = n->nitems == 2 ? find_prog(h, n->items[1]) : NULL;
	/* an expression, or a variable (holding an attachment): the host's detach; a name that is
	 * neither a program nor a variable: the error below */
	const struct kl_node *arg = n->nitems == 2 ? n->items[1] : NULL;
	struct lv_global *g = arg && arg->kind == KL_N_SYM ? lv_global(h, lv_symname(h, arg), false) : NULL;
	bool value = !arg || arg->kind != KL_N_SYM || (g && g->val);
	if (!p && host && value) {
		int na = (int)n->nitems - 1;
		struct lv **args = kl_arena_array(&h->a, struct lv *, (size_t)na + 1);
		for (int i = 0; i < na; i++)
			if (!(args[i] = lv_eval(h, n->items[i + 1], env)))
				return NULL;
		return lv_apply(h, n, host, args, na);
	}
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM)
		return lv_err(h, n, "detach needs a program's name");
	if (!p)
		return lv_err(h, n->items[1], "no program %s is loaded", kl_name(n->items[1]));
	if (!detach_prog(H(h)->repl, kiln_prog_name(p)))
		return lv_err(h, n->items[1], "%s is not attached", kl_name(n->items[1]));
	return LT;
}

static struct lv *rf_disasm(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	struct kiln_prog *p = prog_arg(h, n);
	if (!p)
		return NULL;
	fflush(stdout);
	if (cli_disasm_image(h->src.path, H(h)->repl->elf, H(h)->repl->size, kiln_prog_name(p), false, stdout, stderr))
		return lv_err(h, n, "disasm %s failed", kiln_prog_name(p));
	return LT;
}

static struct lv *rf_check(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	struct kiln_prog *p = prog_arg(h, n);
	if (!p)
		return NULL;
	printf("%s: accepted by the verifier (%s, %zu instructions)\n", kiln_prog_name(p), kiln_prog_section(p),
	       kiln_prog_insn_count(p));
	return LT;
}

static struct lv *rf_dump(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	struct host_obj *o = host_repl_current(h);
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM)
		return lv_err(h, n, "dump needs a map's name");
	struct kiln_map *m = o ? kiln_object_find_map(host_obj_object(o), kl_name(n->items[1])) : NULL;
	if (!m)
		return lv_err(h, n->items[1], "no map %s is loaded", kl_name(n->items[1]));
	fflush(stdout);
	if (cli_map_print(stdout, m, false, false))
		return lv_err(h, n, "dump %s: %s", kl_name(n->items[1]), kiln_errmsg());
	return LT;
}

/* A struct read from a map, as text through the map's BTF: what the prompt prints */
static void print_typed(struct lv_printer *p, const struct lv *v)
{
	lv_printer_put(p, v->u.foreign.data);
}
static const struct lv_foreign_type typed_type = { "BPF-VALUE", print_typed };

/* val (the map's kiln_map_value_buf_size() bytes) as text when the map's value is a struct or
 * union by its BTF: {a: 1, b: 2} as `kiln map` and dump write it, one a CPU in [...] for a
 * per-CPU map. NULL otherwise (the bytes are printed as they are). */
static char *struct_text(struct kiln_map *m, const uint8_t *val)
{
	const struct kiln_map_info *mi = kiln_map_info(m);
	struct btf *btf = mi->btf_id && mi->btf_value_type_id ? btf__load_from_kernel_by_id(mi->btf_id) : NULL;
	int id = btf ? btf__resolve_type(btf, mi->btf_value_type_id) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = t && btf_is_composite(t) ? open_memstream(&text, &len) : NULL;
	if (f) {
		const struct kiln_value_fmt fmt = { .sz = sizeof(fmt), .style = KILN_VALUE_C };
		size_t stride = kiln_map_value_stride(m), ncpu = kiln_map_value_buf_size(m) / stride;
		for (size_t c = 0; c < ncpu; c++) {
			fputs(ncpu == 1 ? "" : c ? ", " : "[", f);
			kiln_value_print(f, btf, mi->btf_value_type_id, val + c * stride, mi->value_size, &fmt);
		}
		fputs(ncpu == 1 ? "" : "]", f);
		fclose(f);
	}
	btf__free(btf);
	return text;
}

/* (map-lookup MAP KEY) as the session's; typed at the prompt (not inside another form), a
 * struct value is printed by its fields through the map's BTF */
static struct lv *rf_map_lookup(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct lv *f = lv_function(h, "map-lookup");
	int na = (int)n->nitems - 1;
	struct lv **args = kl_arena_array(&h->a, struct lv *, (size_t)na + 1);
	for (int i = 0; i < na; i++)
		if (!(args[i] = lv_eval(h, n->items[i + 1], env)))
			return NULL;
	struct lv *v = f ? lv_apply(h, n, f, args, na) : lv_err(h, n, "undefined function map-lookup");
	struct kiln_map *m = v && v->k == LV_VEC && na && n == H(h)->repl->top ? host_map_of(args[0]) : NULL;
	if (!m || v->u.vec.len != kiln_map_value_buf_size(m))
		return v;
	uint8_t *val = kl_arena_alloc(&h->a, v->u.vec.len);
	for (size_t i = 0; i < v->u.vec.len; i++)
		val[i] = (uint8_t)v->u.vec.items[i]->u.i;
	char *text = struct_text(m, val);
	if (!text)
		return v;
	struct lv *r = lv_foreign(h, &typed_type, kl_arena_strdup(&h->a, text));
	free(text);
	return r;
}

const struct repl_form repl_forms[] = {
	{ "attach", "(attach PROG [TARGET [SYMBOL]])", "attach by its section (a cgroup, a binary and symbol...)",
	  rf_attach },
	{ "detach", "(detach PROG)", "end PROG's attachments made here", rf_detach },
	{ "dump", "(dump MAP)", "the map's entries, typed by its BTF", rf_dump },
	{ "disasm", "(disasm PROG)", "its instructions with their source lines", rf_disasm },
	{ "check", "(check PROG)", "the verifier's answer on it", rf_check },
	{ "load", "(load \"FILE\")", "evaluate a file's forms here, as if typed", repl_load },
	{ "map-lookup", "(map-lookup MAP KEY)", "the value; a struct is printed by its fields", rf_map_lookup },
	{ NULL, NULL, NULL, NULL },
};

lv_special_fn host_repl_special(struct lisp *h, const char *name)
{
	(void)h;
	for (const struct repl_form *f = repl_forms; f->name; f++)
		if (!strcmp(name, f->name))
			return f->fn;
	return NULL;
}

/* A kiln form was entered (and gathered): compile everything gathered; a defmap or defprog
 * loads it. On failure the form is forgotten and h holds the error. */
int host_repl_kiln_form(struct lisp *h, const struct kl_node *form)
{
	void *elf;
	size_t size;
	const char *hd = kl_head(form);
	const char *c = hd ? strrchr(hd, ':') : NULL;
	hd = c ? c + 1 : hd;
	bool loads = hd && (!strcmp(hd, "defmap") || !strcmp(hd, "defprog"));
	if (host_compile(h, form, NULL, 0, &elf, &size)) {
		if (!loads && strstr(kiln_errmsg(), "no defprog or defmap")) {
			h->exc = LV_EXC_NONE;   /* read and checked; compiled with the first defmap */
			return 0;
		}
		H(h)->segs.len--;
		return -1;
	}
	if (!loads) {
		free(H(h)->repl->elf);
		H(h)->repl->elf = elf;
		H(h)->repl->size = size;
		return 0;
	}
	struct host_obj *o = host_obj_new(h);
	if (host_open_load(h, form, elf, size, NULL, o, host_repl_current(h))) {
		if (host_obj_object(o))
			host_obj_close(o);
		free(elf);
		H(h)->segs.len--;
		return -1;
	}
	free(H(h)->repl->elf);
	H(h)->repl->elf = elf;
	H(h)->repl->size = size;
	kl_vec_push(&h->a, &H(h)->repl->objs, o);
	H(h)->repl->session = host_obj_value(h, o);
	lv_global(h, "*bpf-session*", true)->val = H(h)->repl->session;
	return 0;
}
