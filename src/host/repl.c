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
#include <strings.h>

static const char usage[] =
	"usage: kiln repl\n"
	"\n"
	"Read, evaluate and print kiln Lisp a form at a time, with line editing and history\n"
	"(libedit; kept in $KILN_HISTORY, default ~/.kiln_history) and Tab completing names. A form\n"
	"may span lines. The host side's forms (defun, let, loop, format, map-lookup ...;\n"
	"docs/whistler.md) run at once; kiln's own forms are compiled as they are entered, with those\n"
	"entered before, and a defmap or defprog loads the program (maps keep their contents when\n"
	"programs are added):\n"
	"  (attach PROG [TARGET [SYMBOL]])  attach by its section (a cgroup, a binary and symbol...)\n"
	"  (detach PROG)                    end PROG's attachments\n"
	"  (dump MAP)                       the map's entries, typed by its BTF\n"
	"  (disasm PROG)                    its instructions with their source lines\n"
	"  (check PROG)                     the verifier's answer on it\n"
	"  (load \"FILE\")                    a file's forms evaluated as if typed\n"
	"  :help                            the REPL's forms and every name it knows\n"
	"A struct read by map-lookup at the prompt prints by its fields. An error is printed and the\n"
	"session goes on; Ctrl-C stops the form being evaluated. Ctrl-D ends the session: links are\n"
	"destroyed, nothing stays loaded.\n";

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

/* The session's forms from the first not yet run on evaluated, each value printed (an error
 * reported, and the session goes on); those that (load FILE) put in the text count as run. */
static void eval_new_forms(struct lisp *h, struct kl_node **forms, uint32_t n)
{
	struct host_repl *rp = H(h)->repl;
	host_catch_sigint(true);
	for (uint32_t i = rp->done; i < n; i++) {
		host_prepare(h, forms[i]);
		rp->top = forms[i];
		struct lv *v = lisp_eval_top(h, forms[i]);
		rp->top = NULL;
		if (!v) {
			repl_report(h, stderr);
			h->exc = LV_EXC_NONE;
			continue;
		}
		lv_print(h, stdout, v, true);
		putchar('\n');
		h->out_bol = true;
	}
	rp->done = (n > rp->done ? n : rp->done) + rp->loaded;
	rp->loaded = 0;
}

/* An entry of whole forms run: into the history, onto the session's text (every position
 * stays the session's own), read and evaluated; p emptied. false when out of memory. */
static bool run_entry(struct lisp *h, struct pending *p)
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
	eval_new_forms(h, forms, n);
	return true;
}

/* A REPL command entered (":help"): run, into the history, p emptied; false for anything else */
static bool command(struct lisp *h, struct pending *p)
{
	size_t b = strspn(p->text, " \t\n"), e = p->len;
	while (e > b && strchr(" \t\n", p->text[e - 1]))
		e--;
	if (e - b != 5 || strncasecmp(p->text + b, ":help", 5))
		return false;
	p->text[e] = 0;
	add_history(p->text + b);
	repl_help(h, stdout);
	p->len = 0;
	return true;
}

/* The session Tab completes in: libedit's hook takes no argument to carry it (one session a
 * process) */
static struct lisp *completing;

/* Tab: the names that start with the word before the cursor, after matches[0], what replaces
 * the word (what they all start with). In a string, file names (load "...). */
static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = !(start > 0 && rl_line_buffer[start - 1] == '"');
	rl_completion_append_character = rl_attempted_completion_over ? ' ' : '"';
	char **w;
	long n = rl_attempted_completion_over && completing ? repl_names(completing, text, &w) : -1;
	char **m = n > 0 ? malloc(((size_t)n + 2) * sizeof(*m)) : NULL;
	if (!m) {
		for (long i = 0; i < n; i++)
			free(w[i]);
		free(n >= 0 ? w : NULL);
		return NULL;
	}
	size_t common = strlen(w[0]);
	for (long i = 1; i < n; i++)
		for (size_t j = 0; j < common; j++)
			if (w[i][j] != w[0][j])
				common = j;
	m[0] = strndup(w[0], common);   /* (one name: libedit takes it whole, and adds a space) */
	memcpy(m + 1, w, (size_t)n * sizeof(*w));
	m[n + 1] = NULL;
	free(w);
	if (m[0])
		return m;
	for (long i = 1; i <= n; i++)
		free(m[i]);
	free(m);
	return NULL;
}

/* lines read and run until Ctrl-D (or out of memory) */
static void repl_loop(struct lisp *h)
{
	static char breaks[] = " \t\n\"'`;()";   /* what ends a Lisp name */
	struct pending p = { 0 };
	completing = h;
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = rl_completer_word_break_characters = breaks;
	for (;;) {
		host_catch_sigint(false);
		fflush(stdout);
		char *line = readline(p.len ? "  ...> " : "kiln> ");
		if (!line || !add_line(&p, line))
			break;
		if (!command(h, &p) && whole_forms(&p) == 1 && !run_entry(h, &p))
			break;
	}
	completing = NULL;
	free(p.text);
}

int cmd_repl(int argc, char **argv)
{
	const struct cli_opt opts[] = { { 0 } };
	const char *none = NULL;
	int npos, r = cli_parse("repl", usage, argc, argv, opts, &none, 0, &npos);
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
	repl_detach_all(rp);
	for (size_t i = 0; i < rp->objs.len; i++)
		host_obj_close(rp->objs.items[i]);
	free(rp->elf);
	kl_arena_free(&h->a);
	free(hs);
	free(rp);
	return 0;
}
