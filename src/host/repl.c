/* repl.c — `kiln repl`: the host interpreter a form at a time, with libedit's line editing
 * and history. kiln forms (defmap, defprog, defstruct, ...) are compiled as they are entered
 * with everything entered before, and a defmap or defprog loads the program again as a new
 * object whose maps are the previous object's (their contents stay); (attach PROG ...),
 * (dump MAP), (disasm PROG) and (check PROG) work on the newest object. An error of any kind
 * is printed and the session goes on; a kiln form that did not compile or load is forgotten. */
#include "host.h"
#include "hv.h"
#include "cli/cli.h"
#include <editline/readline.h>
#include <kiln/error.h>
#include <kiln/object.h>
#include <stdlib.h>
#include <string.h>

struct host_repl {
	KL_VEC(struct host_obj *) objs;     /* every object loaded; the last is the current one */
	void *elf;                          /* the current compilation, for disasm */
	size_t size;
};

static const char repl_help[] =
	"usage: kiln repl\n"
	"\n"
	"Read, evaluate and print kiln Lisp a form at a time, with line editing and history\n"
	"(libedit; kept in $KILN_HISTORY, default ~/.kiln_history). A form may span lines. The host\n"
	"side's forms (defun, let, loop, format, map-lookup ...; docs/whistler.md) run at once;\n"
	"kiln's own forms are compiled as they are entered, with those entered before, and a\n"
	"defmap or defprog loads the program (maps keep their contents when programs are added):\n"
	"  (attach PROG [TARGET [SYMBOL]])  attach by its section (a cgroup, a binary and symbol...)\n"
	"  (dump MAP)                       the map's entries, typed by its BTF\n"
	"  (disasm PROG)                    its instructions with their source lines\n"
	"  (check PROG)                     the verifier's answer on it\n"
	"An error is printed and the session goes on; Ctrl-C stops the form being evaluated.\n"
	"Ctrl-D ends the session: links are destroyed, nothing stays loaded.\n";

static struct host_obj *current(struct host *h)
{
	return h->repl->objs.len ? h->repl->objs.items[h->repl->objs.len - 1] : NULL;
}

static struct kiln_prog *prog_arg(struct host *h, const struct kl_node *n)
{
	struct host_obj *o = current(h);
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
	struct host_obj *o = current(h);
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
	if (host_open_load(h, form, elf, size, NULL, o, current(h))) {
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

/* Is this read error one more line would fix? */
static bool incomplete(const struct kl_diag *d)
{
	return strstr(d->msg, "before the end of the file") || strstr(d->msg, "unterminated") ||
	       strstr(d->msg, "unexpected end of file");
}

static void history_path(char *buf, size_t size)
{
	const char *p = getenv("KILN_HISTORY"), *home = getenv("HOME");
	if (p)
		snprintf(buf, size, "%s", p);
	else
		snprintf(buf, size, "%s/.kiln_history", home ? home : ".");
}

int cmd_repl(int argc, char **argv)
{
	const struct cli_opt opts[] = { { 0 } };
	const char *none = NULL;
	int npos, r = cli_parse("repl", repl_help, argc, argv, opts, &none, 0, &npos);
	if (r != CLI_OK)
		return r;
	struct host *h = calloc(1, sizeof(*h));
	struct host_repl *rp = calloc(1, sizeof(*rp));
	char *pending = NULL;
	size_t plen = 0;
	if (!h || !rp) {
		fprintf(stderr, "kiln repl: out of memory\n");
		free(h);
		free(rp);
		return 1;
	}
	h->repl = rp;
	host_set_text(h, "<repl>", "", 0);
	host_setup(h, 0, NULL);
	char hist[4096];
	history_path(hist, sizeof(hist));
	using_history();
	read_history(hist);
	uint32_t done = 0;
	for (;;) {
		host_catch_sigint(false);
		fflush(stdout);
		char *line = readline(plen ? "  ...> " : "kiln> ");
		if (!line)
			break;
		size_t l = strlen(line);
		char *np = realloc(pending, plen + l + 2);
		if (!np) {
			free(line);
			break;
		}
		pending = np;
		memcpy(pending + plen, line, l);
		plen += l;
		pending[plen++] = '\n';
		pending[plen] = 0;
		free(line);
		/* a whole form yet? */
		struct kl_arena ta = { 0 };
		struct kl_diag d = { 0 };
		struct kl_source ts = { "<repl>", pending, plen };
		struct kl_node **forms;
		uint32_t n;
		int bad = kl_read(&ta, &d, &ts, &forms, &n);
		kl_arena_free(&ta);
		if (bad && incomplete(&d))
			continue;
		if (bad) {
			kl_diag_print(&d, stderr);
			plen = 0;
			continue;
		}
		if (!n) {
			plen = 0;
			continue;
		}
		pending[plen - 1] = 0;
		add_history(pending);
		pending[plen - 1] = '\n';
		/* the session's text grows by the entry: every position stays the session's own */
		char *all = malloc(h->src.len + plen + 1);
		if (!all)
			break;
		memcpy(all, h->src.text, h->src.len);
		memcpy(all + h->src.len, pending, plen);
		host_set_text(h, "<repl>", all, h->src.len + plen);
		free(all);
		plen = 0;
		struct kl_diag d2 = { 0 };
		if (kl_read(&h->a, &d2, &h->src, &forms, &n)) {
			kl_diag_print(&d2, stderr);
			continue;
		}
		host_catch_sigint(true);
		for (; done < n; done++) {
			host_prepare(h, forms[done]);
			struct hv *v = hv_eval(h, forms[done], NULL);
			if (!v) {
				host_report(h);
				h->exc = EXC_NONE;
				continue;
			}
			hv_print(h, stdout, v, true);
			putchar('\n');
			h->out_bol = true;
		}
	}
	putchar('\n');
	write_history(hist);
	for (size_t i = 0; i < rp->objs.len; i++)
		host_obj_close(rp->objs.items[i]);
	free(rp->elf);
	free(pending);
	kl_arena_free(&h->a);
	free(h);
	free(rp);
	return 0;
}
