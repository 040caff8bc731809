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

/* The text entered and not yet evaluated: lines until they read as whole forms. */
struct pending { char *text; size_t len; };

/* line (freed) added to p with its newline; false when out of memory */
static bool add_line(struct pending *p, char *line)
{
	size_t l = strlen(line);
	char *np = realloc(p->text, p->len + l + 2);
	if (!np) {
		free(line);
		return false;
	}
	p->text = np;
	memcpy(p->text + p->len, line, l);
	p->len += l;
	p->text[p->len++] = '\n';
	p->text[p->len] = 0;
	free(line);
	return true;
}

/* Does p read as whole forms? 1: yes; 0: not yet (a form goes on); -1: nothing to run (a read
 * error, printed, or no form), p emptied. */
static int whole_forms(struct pending *p)
{
	struct kl_arena ta = { 0 };
	struct kl_diag d = { 0 };
	struct kl_source ts = { "<repl>", p->text, p->len };
	struct kl_node **forms;
	uint32_t n;
	int bad = kl_read(&ta, &d, &ts, &forms, &n);
	kl_arena_free(&ta);
	if (bad && incomplete(&d))
		return 0;
	if (bad)
		kl_diag_print(&d, stderr);
	if (bad || !n) {
		p->len = 0;
		return -1;
	}
	return 1;
}

/* The session's forms from *done on evaluated, each value printed (an error reported, and
 * the session goes on). */
static void eval_new_forms(struct lisp *h, struct kl_node **forms, uint32_t n, uint32_t *done)
{
	host_catch_sigint(true);
	for (; *done < n; ++*done) {
		host_prepare(h, forms[*done]);
		struct lv *v = lisp_eval_top(h, forms[*done]);
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

/* An entry of whole forms run: into the history, onto the session's text (every position
 * stays the session's own), read and evaluated; p emptied. false when out of memory. */
static bool run_entry(struct lisp *h, struct pending *p, uint32_t *done)
{
	p->text[p->len - 1] = 0;
	add_history(p->text);
	p->text[p->len - 1] = '\n';
	char *all = malloc(h->src.len + p->len + 1);
	if (!all)
		return false;
	memcpy(all, h->src.text, h->src.len);
	memcpy(all + h->src.len, p->text, p->len);
	host_set_text(h, "<repl>", all, h->src.len + p->len);
	free(all);
	p->len = 0;
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(&h->a, &d, &h->src, &forms, &n)) {
		kl_diag_print(&d, stderr);
		return true;
	}
	eval_new_forms(h, forms, n, done);
	return true;
}

/* lines read and run until Ctrl-D (or out of memory) */
static void repl_loop(struct lisp *h)
{
	struct pending p = { 0 };
	uint32_t done = 0;
	for (;;) {
		host_catch_sigint(false);
		fflush(stdout);
		char *line = readline(p.len ? "  ...> " : "kiln> ");
		if (!line || !add_line(&p, line))
			break;
		if (whole_forms(&p) == 1 && !run_entry(h, &p, &done))
			break;
	}
	free(p.text);
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
	repl_loop(h);
	putchar('\n');
	write_history(hist);
	for (size_t i = 0; i < rp->objs.len; i++)
		host_obj_close(rp->objs.items[i]);
	free(rp->elf);
	kl_arena_free(&h->a);
	free(hs);
	free(rp);
	return 0;
}
