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

struct host_obj *host_repl_current(struct host *h)
{
	return h->repl->objs.len ? h->repl->objs.items[h->repl->objs.len - 1] : NULL;
}

static struct kiln_prog *prog_arg(struct host *h, const struct kl_node *n)
{
	struct host_obj *o = host_repl_current(h);
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM) {
		hv_err(h, n, "%s needs a program's name", kl_name(n->items[0]));
		return NULL;
	}
	struct kiln_prog *p = o ? kiln_object_find_prog(host_obj_object(o), kl_name(n->items[1])) : NULL;
	if (!p)
		hv_err(h, n->items[1], "no program %s is loaded", kl_name(n->items[1]));
	return p;
}

static struct hv *rf_attach(struct host *h, const struct kl_node *n, struct hv_frame *env)
{
	return host_attach(h, n, env);
}

static struct hv *rf_disasm(struct host *h, const struct kl_node *n, struct hv_frame *env)
{
	(void)env;
	struct kiln_prog *p = prog_arg(h, n);
	if (!p)
		return NULL;
	fflush(stdout);
	if (cli_disasm_image(h->src.path, h->repl->elf, h->repl->size, kiln_prog_name(p), false, stdout, stderr))
		return hv_err(h, n, "disasm %s failed", kiln_prog_name(p));
	return HT;
}

static struct hv *rf_check(struct host *h, const struct kl_node *n, struct hv_frame *env)
{
	(void)env;
	struct kiln_prog *p = prog_arg(h, n);
	if (!p)
		return NULL;
	printf("%s: accepted by the verifier (%s, %zu instructions)\n", kiln_prog_name(p), kiln_prog_section(p),
	       kiln_prog_insn_count(p));
	return HT;
}

static struct hv *rf_dump(struct host *h, const struct kl_node *n, struct hv_frame *env)
{
	(void)env;
	struct host_obj *o = host_repl_current(h);
	if (n->nitems != 2 || n->items[1]->kind != KL_N_SYM)
		return hv_err(h, n, "dump needs a map's name");
	struct kiln_map *m = o ? kiln_object_find_map(host_obj_object(o), kl_name(n->items[1])) : NULL;
	if (!m)
		return hv_err(h, n->items[1], "no map %s is loaded", kl_name(n->items[1]));
	fflush(stdout);
	if (cli_map_print(stdout, m, false, false))
		return hv_err(h, n, "dump %s: %s", kl_name(n->items[1]), kiln_errmsg());
	return HT;
}

static const struct { const char *name; special_fn fn; } repl_forms[] = {
	{ "attach", rf_attach }, { "disasm", rf_disasm }, { "check", rf_check }, { "dump", rf_dump },
};

special_fn host_repl_special(struct host *h, const char *name)
{
	(void)h;
	for (size_t i = 0; i < sizeof(repl_forms) / sizeof(repl_forms[0]); i++)
		if (!strcmp(name, repl_forms[i].name))
			return repl_forms[i].fn;
	return NULL;
}

/* A kiln form was entered (and gathered): compile everything gathered; a defmap or defprog
 * loads it. On failure the form is forgotten and h holds the error. */
int host_repl_kiln_form(struct host *h, const struct kl_node *form)
{
	void *elf;
	size_t size;
	if (host_compile(h, form, NULL, 0, &elf, &size)) {
		h->segs.len--;
		return -1;
	}
	const char *hd = kl_head(form);
	const char *c = hd ? strrchr(hd, ':') : NULL;
	hd = c ? c + 1 : hd;
	if (!hd || (strcmp(hd, "defmap") && strcmp(hd, "defprog"))) {
		free(h->repl->elf);
		h->repl->elf = elf;
		h->repl->size = size;
		return 0;
	}
	struct host_obj *o = host_obj_new(h);
	if (host_open_load(h, form, elf, size, NULL, o, host_repl_current(h))) {
		if (host_obj_object(o))
			host_obj_close(o);
		free(elf);
		h->segs.len--;
		return -1;
	}
	free(h->repl->elf);
	h->repl->elf = elf;
	h->repl->size = size;
	kl_vec_push(&h->a, &h->repl->objs, o);
	hv_global(h, "*bpf-session*", true)->val = host_obj_value(h, o);
	return 0;
}

