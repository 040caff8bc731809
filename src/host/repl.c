/* repl.c — `kiln repl`: the host interpreter a form at a time, with libedit's line editing
 * and history. kiln forms (defmap, defprog, defstruct, ...) are compiled as they are entered
 * with everything entered before, and a defmap or defprog loads the program again as a new
 * object whose maps are the previous object's (their contents stay); (attach PROG ...),
 * (dump MAP), (disasm PROG) and (check PROG) work on the newest object. An error of any kind
 * is printed and the session goes on; a kiln form that did not compile or load is forgotten. */
#include "host.h"
#include "hv.h"
#include "cli/cli.h"
#include "repl.h"
#include <editline/readline.h>
#include <kiln/error.h>
#include <kiln/object.h>
#include <stdlib.h>
#include <string.h>

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
	struct host *hs = calloc(1, sizeof(*hs));
	struct host_repl *rp = calloc(1, sizeof(*rp));
	char *pending = NULL;
	size_t plen = 0;
	if (!hs || !rp) {
		fprintf(stderr, "kiln repl: out of memory\n");
		free(hs);
		free(rp);
		return 1;
	}
	struct lisp *h = &hs->L;
	hs->repl = rp;
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
			struct lv *v = lisp_eval_top(h, forms[done]);
			if (!v) {
				host_report(h, stderr);
				h->exc = LV_EXC_NONE;
				continue;
			}
			lv_print(h, stdout, v, true);
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
	free(hs);
	free(rp);
	return 0;
}
