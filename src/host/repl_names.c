/* repl_names.c — the names kiln repl completes (Tab, through libedit in repl.c) and :help lists:
 * its own forms, the host's and the Lisp core's forms and functions, kiln's top-level forms,
 * what the session defined (defuns, variables) and its maps and programs, as written. Each
 * comes from the list that defines it; nothing here repeats one. */
#include "hv.h"
#include "repl.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The names gathered: those that start with prefix (case aside) */
struct names {
	const char *prefix;
	size_t plen;
	char **items;
	size_t len, cap;
	bool oom;
};

static void add(void *ctx, const char *name)
{
	struct names *ns = ctx;
	if (ns->oom || strncasecmp(name, ns->prefix, ns->plen))
		return;
	if (ns->len == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 64;
		char **p = realloc(ns->items, cap * sizeof(*p));
		if (!p) {
			ns->oom = true;
			return;
		}
		ns->items = p;
		ns->cap = cap;
	}
	if (!(ns->items[ns->len] = strdup(name)))
		ns->oom = true;
	else
		ns->len++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The session's defmaps and defprogs (a package prefix aside) by the names they were given */
static void session_names(struct lisp *h, struct names *ns)
{
	for (size_t i = 0; i < H(h)->segs.len; i++) {
		const struct kl_node *f = H(h)->segs.items[i].node;
		const char *hd = kl_head(f), *c = hd ? strrchr(hd, ':') : NULL;
		hd = c ? c + 1 : hd;
		if (hd && (!strcmp(hd, "defmap") || !strcmp(hd, "defprog") || !strcmp(hd, "map") ||
			   !strcmp(hd, "prog")) && f->nitems > 1 && f->items[1]->kind == KL_N_SYM)
			add(ns, kl_name(f->items[1]));
	}
	for (size_t b = 0; b < LV_NGLOBAL; b++)
		for (const struct lv_global *g = h->globals[b]; g; g = g->next)
			add(ns, g->name);
}

static void all_names(struct lisp *h, struct names *ns)
{
	for (const struct repl_form *f = repl_forms; f->name; f++)
		add(ns, f->name);
	host_layer_names(add, ns);
	lv_special_names(add, ns);
	lv_builtin_names(add, ns);
	session_names(h, ns);
}

long repl_names(struct lisp *h, const char *prefix, char ***out)
{
	struct names ns = { .prefix = prefix, .plen = strlen(prefix) };
	all_names(h, &ns);
	if (ns.len)
		qsort(ns.items, ns.len, sizeof(*ns.items), by_name);
	size_t n = 0;
	for (size_t i = 0; i < ns.len; i++) {
		if (n && !strcmp(ns.items[n - 1], ns.items[i]))
			free(ns.items[i]);
		else
			ns.items[n++] = ns.items[i];
	}
	*out = ns.items;
	if (!ns.oom)
		return (long)n;
	for (size_t i = 0; i < n; i++)
		free(ns.items[i]);
	free(ns.items);
	*out = NULL;
	return -1;
}

/* words, each once, filled into lines of at most 80 columns after an indent of two */
static void print_words(FILE *out, char **w, long n)
{
	int col = 0;
	for (long i = 0; i < n; i++) {
		int l = (int)strlen(w[i]);
		if (col && col + 1 + l > 80) {
			fputc('\n', out);
			col = 0;
		}
		col += fprintf(out, col ? " %s" : "  %s", w[i]);
	}
	if (col)
		fputc('\n', out);
}

void repl_help(struct lisp *h, FILE *out)
{
	fputs("kiln repl: forms are evaluated as they are entered (docs/repl.md); Tab completes names.\n"
	      "Commands:\n"
	      "  :help                            this list\n"
	      "  Ctrl-C                           stop the form being evaluated\n"
	      "  Ctrl-D                           end the session (links destroyed, nothing stays loaded)\n"
	      "The REPL's own forms:\n", out);
	for (const struct repl_form *f = repl_forms; f->name; f++)
		fprintf(out, "  %-32s %s\n", f->usage, f->doc);
	char **w;
	long n = repl_names(h, "", &w);
	if (n < 0)
		return;
	fputs("Every name known here (the host's and kiln's forms and functions, the session's own):\n", out);
	print_words(out, w, n);
	for (long i = 0; i < n; i++)
		free(w[i]);
	free(w);
}
