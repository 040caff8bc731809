/* repl_forms.c — what `kiln repl` adds to the host side (repl.c has the session loop): its
 * own forms (attach, dump, disasm, check) on the newest object, and kiln forms compiled as
 * they are entered, a defmap or defprog loading the program again as a new object whose maps
 * are the previous object's. Apart from repl.c so that nothing here needs libedit. */
#include "hv.h"
#include "repl.h"
#include "cli/cli.h"
#include <kiln/error.h>
#include <kiln/object.h>
#include <stdlib.h>
#include <string.h>

struct host_obj *host_repl_current(struct lisp *h)
{
	return H(h)->repl->objs.len ? H(h)->repl->objs.items[H(h)->repl->objs.len - 1] : NULL;
}

static struct kiln_prog *prog_arg(struct lisp *h, const struct kl_node *n)
{
	struct host_obj *o = host_repl_current(h);
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM) {
		lv_err(h, n, "%s needs a program's name", kl_name(n->items[0]));
		return NULL;
	}
	struct kiln_prog *p = o ? kiln_object_find_prog(host_obj_object(o), kl_name(n->items[1])) : NULL;
	if (!p)
		lv_err(h, n->items[1], "no program %s is loaded", kl_name(n->items[1]));
	return p;
}

static struct lv *rf_attach(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	return host_attach(h, n, env);
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

static const struct { const char *name; lv_special_fn fn; } repl_forms[] = {
	{ "attach", rf_attach }, { "disasm", rf_disasm }, { "check", rf_check }, { "dump", rf_dump },
};

lv_special_fn host_repl_special(struct lisp *h, const char *name)
{
	(void)h;
	for (size_t i = 0; i < sizeof(repl_forms) / sizeof(repl_forms[0]); i++)
		if (!strcmp(name, repl_forms[i].name))
			return repl_forms[i].fn;
	return NULL;
}

/* A kiln form was entered (and gathered): compile everything gathered; a defmap or defprog
 * loads it. On failure the form is forgotten and h holds the error. */
int host_repl_kiln_form(struct lisp *h, const struct kl_node *form)
{
	void *elf;
	size_t size;
	if (host_compile(h, form, NULL, 0, &elf, &size)) {
		H(h)->segs.len--;
		return -1;
	}
	const char *hd = kl_head(form);
	const char *c = hd ? strrchr(hd, ':') : NULL;
	hd = c ? c + 1 : hd;
	if (!hd || (strcmp(hd, "defmap") && strcmp(hd, "defprog"))) {
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
	lv_global(h, "*bpf-session*", true)->val = host_obj_value(h, o);
	return 0;
}

