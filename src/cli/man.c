/* man.c — `kiln help --man [COMMAND]`: a man page in roff built from what --help prints and
 * the command's option table, so the page cannot drift from the help. The help texts follow
 * one shape, which this reads: a "usage:" (or "USAGE:") block, paragraphs, and lists whose entries start
 * two spaces in ("  --json   what it does", continued further in), optionally under a
 * "heading:" line. `--commands` and `--options COMMAND` list the table for scripts and tests. */
#include "cli.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char kiln_summary[] = "a Lisp that compiles to eBPF";

/* Text for roff: backslashes and minus signs escaped (so options render as ASCII hyphens
 * and never hyphenate), a leading dot or quote neutralised so it is not a request, and a
 * break allowed after each comma. */
static void put_roff(FILE *out, const char *s, size_t n, bool breaks)
{
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (i == 0 && (ch == '.' || ch == '\''))
			fputs("\\&", out);
		if (ch == '\\')
			fputs("\\e", out);
		else if (ch == '-')
			fputs("\\-", out);
		else if (ch == '"')
			fputs("\\(dq", out);
		else if (ch == ',' && breaks)   /* a place to break a long JSON shape */
			fputs(",\\:", out);
		else
			fputc(ch, out);
	}
}

static void put_esc(FILE *out, const char *s, size_t n)
{
	put_roff(out, s, n, false);
}

/* A line of filled text. */
static void put_line(FILE *out, const char *s, size_t n)
{
	put_roff(out, s, n, true);
	fputc('\n', out);
}

struct line {
	const char *s;
	size_t n;
	int indent;
};

/* The next line of text from *p: its extent without the newline and its indentation. */
static bool next_line(const char **p, struct line *l)
{
	if (!**p)
		return false;
	const char *e = strchr(*p, '\n');
	l->s = *p;
	l->n = e ? (size_t)(e - *p) : strlen(*p);
	*p = e ? e + 1 : *p + l->n;
	l->indent = 0;
	while ((size_t)l->indent < l->n && l->s[l->indent] == ' ')
		l->indent++;
	return true;
}

static bool is_blank(const struct line *l) { return (size_t)l->indent == l->n; }

/* A list entry's term, up to two spaces in a row: "-o OUT.o", "-w, --no-warnings". */
static size_t term_len(const struct line *l)
{
	size_t i = (size_t)l->indent;
	while (i < l->n && !(l->s[i] == ' ' && (i + 1 == l->n || l->s[i + 1] == ' ')))
		i++;
	return i - (size_t)l->indent;
}

/* Whether a list term ("-w, --no-warnings", "-O0 -O1 -O2") names spelling w. */
static bool term_names(const char *t, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++)
		if (!strncmp(t + i, w, wl) && (i == 0 || t[i - 1] == ' ') &&
		    (i + wl == n || t[i + wl] == ' ' || t[i + wl] == ','))
			return true;
	return false;
}

/* The value's placeholder an option has in the usage lines ("--duration S" gives "S"). */
static void placeholder(const char *usage, size_t ulen, const char *w, char *buf, size_t size)
{
	size_t wl = strlen(w);
	buf[0] = 0;
	for (size_t i = 0; i + wl < ulen; i++)
		if (!strncmp(usage + i, w, wl) && usage[i + wl] == ' ' && (i == 0 || strchr(" [", usage[i - 1]))) {
			const char *v = usage + i + wl + 1;
			size_t k = 0;
			while (v + k < usage + ulen && (isupper((unsigned char)v[k]) || v[k] == '_' || v[k] == '.'))
				k++;
			if (k && k < size)
				snprintf(buf, size, "%.*s", (int)k, v);
			return;
		}
}

struct page {
	FILE *out;
	const struct cli_doc *doc;        /* NULL for kiln(1) */
	bool in_options, documented[CLI_DOC_MAXOPTS];
};

static void section(struct page *pg, const char *name)
{
	fprintf(pg->out, ".SH %s\n", name);
	pg->in_options = !strcmp(name, "OPTIONS");
}

/* A list: entries two spaces in, their descriptions after the term or on the lines below. */
static void put_list(struct page *pg, const char **p, struct line l)
{
	do {
		if (l.indent <= 3) {
			size_t tl = term_len(&l);
			fputs(".TP\n.B \"", pg->out);
			/* the spellings the table has and the term leaves out ("-t" of "--prog-type") */
			for (int i = 0; pg->doc && i < pg->doc->nopts; i++) {
				char names[8][32];
				int n = cli_opt_spellings(&pg->doc->opts[i], names, 8);
				bool named[8] = { 0 }, any = false;
				for (int k = 0; k < n; k++)
					any |= named[k] = term_names(l.s + l.indent, tl, names[k]);
				for (int k = 0; any && k < n; k++)
					if (!named[k]) {
						put_esc(pg->out, names[k], strlen(names[k]));
						fputs(", ", pg->out);
					}
				pg->documented[i] |= any;
			}
			put_esc(pg->out, l.s + l.indent, tl);
			fputs("\"\n", pg->out);
			size_t rest = (size_t)l.indent + tl;
			while (rest < l.n && l.s[rest] == ' ')
				rest++;
			if (rest < l.n)
				put_line(pg->out, l.s + rest, l.n - rest);
		} else {
			put_line(pg->out, l.s + l.indent, l.n - (size_t)l.indent);
		}
	} while (next_line(p, &l) && !is_blank(&l));
}

/* Options in the table that no list describes (the help explains them in its prose). */
static void put_undocumented(struct page *pg, const char *usage, size_t ulen)
{
	bool any = false;
	for (int i = 0; i < pg->doc->nopts; i++) {
		if (pg->documented[i])
			continue;
		if (!any && !pg->in_options)
			section(pg, "OPTIONS");
		any = true;
		char names[8][32], ph[32];
		int n = cli_opt_spellings(&pg->doc->opts[i], names, 8);
		bool value = pg->doc->opts[i].kind == CLI_STR || pg->doc->opts[i].kind == CLI_LIST;
		fputs(value ? ".TP\n.BI \"" : ".TP\n.B \"", pg->out);
		for (int k = 0; k < n; k++) {
			fputs(k ? ", " : "", pg->out);
			put_esc(pg->out, names[k], strlen(names[k]));
		}
		fputs("\"", pg->out);
		if (value) {
			placeholder(usage, ulen, names[0], ph, sizeof(ph));
			fprintf(pg->out, " \" %s\"", ph[0] ? ph : "VALUE");
		}
		fputs("\nSee DESCRIPTION.\n", pg->out);
	}
}

static void put_page(FILE *out, const char *cmd, const char *summary, const char *text, const struct cli_doc *doc)
{
	struct page pg = { .out = out, .doc = doc };
	char title[64];
	snprintf(title, sizeof(title), "%s%s", cmd ? "kiln-" : "kiln", cmd ? cmd : "");
	fputs(".TH \"", out);
	for (const char *t = title; *t; t++)
		fputc(toupper((unsigned char)*t), out);
	fprintf(out, "\" 1 \"\" \"kiln %s\" \"kiln manual\"\n.nh\n.ad l\n", cli_version());
	section(&pg, "NAME");
	put_esc(out, title, strlen(title));
	fputs(" \\- ", out);
	put_esc(out, summary, strlen(summary));
	fputc('\n', out);

	const char *p = text, *usage = text;
	size_t ulen = 0;
	struct line l;
	bool described = false;
	while (next_line(&p, &l)) {
		if (is_blank(&l))
			continue;
		/* "usage: kiln X ..." or, as `kiln trace` writes it after bpftrace, "USAGE:" above
		 * indented "kiln X ..." lines */
		bool upper = l.n == 6 && !strncmp(l.s, "USAGE:", 6);
		if (!strncmp(l.s, "usage: ", 7) || (upper && next_line(&p, &l) && !is_blank(&l))) {
			section(&pg, "SYNOPSIS");
			fputs(".nf\n", out);
			usage = l.s;
			do {
				size_t skip = !strncmp(l.s, "usage: ", 7) ? 7 : (size_t)l.indent;
				bool cont = strncmp(l.s + skip, "kiln", 4) != 0;
				fputs(cont ? "    " : "", out);
				put_esc(out, l.s + skip, l.n - skip);
				fputc('\n', out);
				ulen = (size_t)(l.s + l.n - usage);
			} while (next_line(&p, &l) && !is_blank(&l));
			fputs(".fi\n", out);
		} else if (l.indent == 0 && l.s[l.n - 1] == ':' && !memchr(l.s, ' ', l.n)) {
			char name[32];
			size_t k = 0;
			for (; k + 1 < l.n && k < sizeof(name) - 1; k++)
				name[k] = (char)toupper((unsigned char)l.s[k]);
			name[k] = 0;
			section(&pg, name);
			if (next_line(&p, &l) && !is_blank(&l))
				put_list(&pg, &p, l);
		} else if (l.indent == 2) {
			if (!pg.in_options && l.s[2] == '-')
				section(&pg, "OPTIONS");
			put_list(&pg, &p, l);
		} else {
			if (!described || pg.in_options)
				section(&pg, "DESCRIPTION");
			else
				fputs(".PP\n", out);
			described = true;
			do
				put_line(out, l.s + l.indent, l.n - (size_t)l.indent);
			while (next_line(&p, &l) && !is_blank(&l));
		}
	}
	if (doc)
		put_undocumented(&pg, usage, ulen);
	section(&pg, "SEE ALSO");
	if (cmd) {
		fputs(".BR kiln (1)\n", out);
		return;
	}
	for (size_t i = 0; i < cli_table.n; i++) {
		fputs(".BR kiln\\-", out);
		put_esc(out, cli_table.cmds[i].name, strlen(cli_table.cmds[i].name));
		fputs(i + 1 < cli_table.n ? " (1),\n" : " (1)\n", out);
	}
}

static int man_main(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return 1;
	cli_table.usage(m);
	fclose(m);
	put_page(stdout, NULL, kiln_summary, text, NULL);
	free(text);
	return 0;
}

static int man_cmd(const struct kl_cmd *c)
{
	struct cli_doc d;
	if (cli_doc_get(c, &d))
		return 1;
	put_page(stdout, c->name, c->summary, d.help, &d);
	cli_doc_free(&d);
	return 0;
}

static int list_options(const struct kl_cmd *c)
{
	struct cli_doc d;
	if (cli_doc_get(c, &d))
		return 1;
	for (int i = 0; i < d.nopts; i++) {
		char names[8][32];
		int n = cli_opt_spellings(&d.opts[i], names, 8);
		for (int k = 0; k < n; k++)
			printf("%s\n", names[k]);
	}
	cli_doc_free(&d);
	return 0;
}

int cli_help_doc(int argc, char **argv)
{
	const char *what = argv[0];
	const struct kl_cmd *c = argc > 1 ? cli_cmd_find(argv[1]) : NULL;
	if (argc > 2 || (argc == 2 && !c)) {
		fprintf(stderr, "kiln help: %s %s: %s\n", what, argc > 1 ? argv[1] : "",
			argc > 2 ? "one command at a time" : "no such command");
		return 2;
	}
	if (!strcmp(what, "--man"))
		return c ? man_cmd(c) : man_main();
	if (!strcmp(what, "--options") && c)
		return list_options(c);
	if (!strcmp(what, "--commands") && argc == 1) {
		for (size_t i = 0; i < cli_table.n; i++)
			printf("%s\n", cli_table.cmds[i].name);
		return 0;
	}
	fprintf(stderr, "usage: kiln help [COMMAND | --man [COMMAND] | --commands | --options COMMAND]\n");
	return 2;
}
