/* doc.c — a command's documentation as its --help prints it, and its option table, for the
 * generated man pages and completion script: one source for all three. */
#include "cli.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cli_table cli_table;
struct cli_doc *cli_doc_capture;

const struct kl_cmd *cli_cmd_find(const char *name)
{
	for (size_t i = 0; i < cli_table.n; i++)
		if (!strcmp(cli_table.cmds[i].name, name))
			return &cli_table.cmds[i];
	return NULL;
}

int cli_opt_spellings(const struct cli_opt *o, char names[][32], int max)
{
	if (o->kind == CLI_OLEVEL) {
		int i = 0;
		for (; i < 3 && i < max; i++)
			snprintf(names[i], 32, "-O%d", i);
		return i;
	}
	if (o->kind == CLI_PREFIX && max > 0) {   /* "-fno-" taking a pass: "-fno-PASS" */
		snprintf(names[0], 32, "%s%s", o->name, o->arg ? o->arg : "");
		return 1;
	}
	int n = 0;
	for (const char *p = o->name; *p && n < max;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		snprintf(names[n++], 32, "%.*s", (int)len, p);
		p += len + (bar ? 1 : 0);
	}
	return n;
}

/* A command that parses its own arguments (not with cli_parse) has no table to copy: its
 * options are read from the option list of its help, entries two spaces in whose term is
 * options and perhaps a placeholder: "  -e PROGRAM   ...", "  -l [GLOB]  ...". */
static void opts_from_help(struct cli_doc *d)
{
	size_t used = 0;
	for (const char *p = d->help; *p && d->nopts < CLI_DOC_MAXOPTS;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (e - p > 3 && !strncmp(p, "  -", 3)) {
			const char *t = p + 2, *te = t;
			while (te < e && !(te[0] == ' ' && (te + 1 == e || te[1] == ' ')))
				te++;
			char *name = d->names + used;
			const char *ph = NULL;
			for (const char *w = t; w < te;) {
				const char *we = w;
				while (we < te && *we != ' ' && *we != ',')
					we++;
				size_t n = (size_t)(we - w);
				if (*w == '-' && used + n + 2 < sizeof(d->names)) {
					if (d->names + used > name)
						d->names[used++] = '|';
					memcpy(d->names + used, w, n);
					used += n;
				} else if (n && *w != '[' && !ph) {
					ph = w;
				}
				for (w = we; w < te && (*w == ' ' || *w == ','); w++)
					;
			}
			if (d->names + used > name) {
				d->names[used++] = 0;
				d->opts[d->nopts++] = (struct cli_opt){ name, ph ? CLI_STR : CLI_FLAG, NULL,
									ph && strstr(ph, "FILE") == ph ? "a file" : "a value" };
			}
		}
		p = *e ? e + 1 : e;
	}
}

/* Runs the command with --help with stdout sent to a temporary file: the text is exactly
 * what a user sees, whether or not the command parses its arguments with cli_parse. */
int cli_doc_get(const struct kl_cmd *c, struct cli_doc *d)
{
	memset(d, 0, sizeof(*d));
	FILE *tmp = tmpfile();
	int saved = -1;
	fflush(stdout);
	if (!tmp || (saved = dup(STDOUT_FILENO)) < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		perror("kiln help");
		if (saved >= 0)
			close(saved);
		if (tmp)
			fclose(tmp);
		return -1;
	}
	char *argv[] = { (char *)c->name, "--help", NULL };
	cli_doc_capture = d;
	int r = c->fn(2, argv);
	cli_doc_capture = NULL;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	long n = ftell(tmp);
	d->help = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!d->help || (rewind(tmp), fread(d->help, 1, (size_t)n, tmp) != (size_t)n)) {
		fprintf(stderr, "kiln help: cannot read the help of '%s'\n", c->name);
		fclose(tmp);
		cli_doc_free(d);
		return -1;
	}
	d->help[n] = 0;
	fclose(tmp);
	if (!d->nopts)
		opts_from_help(d);
	if (r != 0 || !n) {
		fprintf(stderr, "kiln help: '%s --help' failed (status %d)\n", c->name, r);
		cli_doc_free(d);
		return -1;
	}
	return 0;
}

void cli_doc_free(struct cli_doc *d)
{
	free(d->help);
	d->help = NULL;
}
