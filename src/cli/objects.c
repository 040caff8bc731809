/* objects.c — what several subcommands do with an object: open it (compiling a kiln source
 * in memory), load it, and on a verifier rejection say where and why in the source's terms. */
#include "cli.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool cli_no_warnings;
const char *cli_btf_path;
struct cli_list cli_sets;

int cli_set_globals(const char *cmd, struct kiln_object *obj)
{
	for (int i = 0; i < cli_sets.n; i++) {
		const char *s = cli_sets.items[i], *eq = strchr(s, '=');
		char name[256];
		if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name)) {
			fprintf(stderr, "kiln %s: --set '%s' is not NAME=VALUE\n", cmd, s);
			return -EINVAL;
		}
		memcpy(name, s, (size_t)(eq - s));
		name[eq - s] = 0;
		int err = kiln_object_set_global(obj, name, eq + 1);
		if (err) {
			fprintf(stderr, "kiln %s: --set %s: %s\n", cmd, name, kiln_errmsg());
			return err;
		}
	}
	return 0;
}

int cli_object_open(const char *cmd, const char *path, const struct kiln_object_opts *opts,
		    struct kiln_object **out)
{
	struct kiln_object_opts o = *opts;
	if (cli_btf_path && !o.btf_path) {
		o.sz = sizeof(o);
		o.btf_path = cli_btf_path;
	}
	int err = kiln_object_open(path, &o, out);
	if (!err && !cli_no_warnings)
		fputs(kiln_object_warnings(*out), stderr);
	if (err) {
		const char *log = kiln_errlog();
		/* a compile error is complete as the compiler prints it (file:line:col, caret) */
		if (*log)
			fprintf(stderr, "%s\n", log);
		else
			cli_fail(cmd);
	} else if ((err = kiln_bpf_privileged())) {   /* every caller loads it next */
		cli_fail(cmd);
		kiln_object_close(*out);
		*out = NULL;
	}
	return err;
}

void cli_put_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}


int cli_verifier_report(FILE *out, const struct kiln_verifier_error *ve, const char *log, bool full_log)
{
	if (full_log && log && *log) {
		size_t n = strlen(log);
		cli_put_text(out, log, n);
		if (log[n - 1] != '\n')
			fputc('\n', out);
	}
	struct kiln_verifier_error *own = NULL;
	if (!ve && log && *log && !kiln_verifier_explain(log, NULL, &own))
		ve = own;
	if (ve)
		kiln_verifier_error_print(ve, out, !full_log);
	kiln_verifier_error_free(own);
	return 0;
}

int cli_object_load(const char *cmd, struct kiln_object *obj, const char *path)
{
	int err = cli_set_globals(cmd, obj);
	if (err)
		return err;
	err = kiln_object_load(obj);
	if (!err)
		return 0;
	cli_fail(cmd);
	const char *log = kiln_object_log(obj);
	if (log && *log)
		cli_verifier_report(stderr, kiln_object_verifier_error(obj), log, false);
	return err;
}

int cli_parse_duration(const char *s, double *secs)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*secs = v;
	return 0;
}
