/* args.c — every subcommand's options as a table: flags, options with a value, repeated
 * options and -O levels, parsed one way, with the same messages for every command. */
#include "cli.h"
#include <string.h>

bool cli_opt_is(const char *names, const char *a)
{
	size_t n = strlen(a);
	for (const char *p = names; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, a, n))
			return true;
		p += len + (bar ? 1 : 0);
	}
	return false;
}

/* "-5" and "-0x10" are values (map keys), not options. */
static bool is_option(const char *a)
{
	return a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9');
}

int cli_parse(const char *cmd, const char *help, int argc, char **argv, const struct cli_opt *opts,
	      const char **pos, int maxpos, int *npos)
{
	*npos = 0;
	if (cli_doc_capture)   /* kiln help --man: the table as it is, whatever the arguments */
		for (const struct cli_opt *o = opts; o && o->name && cli_doc_capture->nopts < CLI_DOC_MAXOPTS; o++)
			cli_doc_capture->opts[cli_doc_capture->nopts++] = (struct cli_opt){ o->name, o->kind, NULL, o->arg };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(help, stdout);
			return CLI_HELP;
		}
		if (!is_option(a)) {
			if (*npos >= maxpos) {
				fprintf(stderr, "kiln %s: unexpected argument '%s'\n%s", cmd, a, help);
				return CLI_USAGE;
			}
			pos[(*npos)++] = a;
			continue;
		}
		const struct cli_opt *o = opts;
		while (o && o->name && !(o->kind == CLI_OLEVEL ? !strcmp(a, "-O0") || !strcmp(a, "-O1") ||
				      !strcmp(a, "-O2") : o->kind == CLI_PREFIX ? !strncmp(a, o->name, strlen(o->name)) && a[strlen(o->name)]
				      : cli_opt_is(o->name, a)))
			o++;
		if (!o || !o->name) {
			fprintf(stderr, "kiln %s: unknown option '%s'\n%s", cmd, a, help);
			return CLI_USAGE;
		}
		if (o->kind == CLI_FLAG) {
			*(bool *)o->dst = true;
		} else if (o->kind == CLI_OLEVEL) {
			*(int *)o->dst = a[2] - '0';
		} else if (o->kind == CLI_PREFIX) {
			struct cli_list *l = o->dst;
			if (l->n >= (int)(sizeof(l->items) / sizeof(l->items[0]))) {
				fprintf(stderr, "kiln %s: too many %s options\n", cmd, o->name);
				return CLI_USAGE;
			}
			l->items[l->n++] = a + strlen(o->name);
		} else if (i + 1 >= argc) {
			fprintf(stderr, "kiln %s: %s needs %s\n", cmd, a, o->arg ? o->arg : "a value");
			return CLI_USAGE;
		} else if (o->kind == CLI_STR) {
			*(const char **)o->dst = argv[++i];
		} else {
			struct cli_list *l = o->dst;
			if (l->n >= (int)(sizeof(l->items) / sizeof(l->items[0]))) {
				fprintf(stderr, "kiln %s: too many %s options\n", cmd, a);
				return CLI_USAGE;
			}
			l->items[l->n++] = argv[++i];
		}
	}
	return CLI_OK;
}
