/* check.c — `kiln check FILE.lisp|OBJ.o`: load every program into the kernel, one at a time,
 * and unload it: the verdict, instruction and "processed" counts, or where it was refused. */
#include "cli.h"
#include "lib/text.h"
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

static const char check_help[] =
	"usage: kiln check FILE.lisp|OBJ.o [--json] [--log] [-w|--no-warnings] [--btf FILE]\n"
	"                  [--set NAME=VALUE]...\n"
	"\n"
	"Load each program of the object into the kernel on its own and unload it again. Prints\n"
	"the verifier's verdict, the object's instruction count, the kernel's translated count and\n"
	"the verifier's \"processed\" count. On a rejection it says where in the source the\n"
	"verifier stopped (file:line:col, the line and a caret), its message, the instruction, a\n"
	"hint for the common causes and the verifier's last steps (the whole log with --log);\n"
	"--json gives each of these as a field. Exit status 1 if any program was refused.\n"
	"--btf FILE takes a kiln source's kernel types from FILE instead of the running kernel.\n"
	"--set NAME=VALUE (repeatable) sets a global variable before each load: compare the\n"
	"counts with a setting on and off to see what the verifier no longer walks.\n";

struct verdict {
	bool ok;
	size_t insns;
	struct kiln_prog_info info;
	char *error, *log;
	struct kiln_object *obj;   /* kept open for its kiln_object_verifier_error() */
};

/* --set on a fresh open, its errors already said when the names were read */
static int set_quietly(struct kiln_object *obj)
{
	for (int i = 0; i < cli_sets.n; i++) {
		const char *s = cli_sets.items[i], *eq = strchr(s, '=');
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
		if (kiln_object_set_global(obj, name, eq + 1))
			return -1;
	}
	return 0;
}

/* Load only program `index` of a fresh open of the object. */
static int check_one(const char *path, size_t index, struct verdict *v)
{
	struct kiln_object *obj;
	struct kiln_object_opts o = { .sz = sizeof(o) };
	if (kiln_object_open(path, &o, &obj)) {
		v->error = strdup(kiln_errmsg());
		return -1;
	}
	for (size_t i = 0; i < kiln_object_prog_count(obj); i++)
		bpf_program__set_autoload(kiln_prog_libbpf(kiln_object_prog(obj, i)), i == index);
	struct kiln_prog *p = kiln_object_prog(obj, index);
	v->insns = kiln_prog_insn_count(p);
	if (set_quietly(obj)) {     /* checked when the names were read */
		v->error = strdup(kiln_errmsg());
	} else if (kiln_object_load(obj)) {
		v->error = strdup(kiln_errmsg());
		v->log = strdup(kiln_object_log(obj));
	} else if (kiln_prog_info_fd(kiln_prog_fd(p), &v->info)) {
		v->error = strdup(kiln_errmsg());
	} else {
		v->ok = true;
	}
	v->obj = obj;
	return 0;
}

/* The rejection's fields under "verifier" (see kiln/verifier.h). */
static void json_rejection(const struct kiln_verifier_error *e)
{
	const struct {
		const char *key, *val;
	} strs[] = {
		{ "message", e->message }, { "detail", e->detail }, { "insn_text", e->insn_text },
		{ "file", e->file }, { "source", e->source }, { "cause", e->cause }, { "hint", e->hint },
		{ "excerpt", e->excerpt },
	};
	printf(",\"verifier\":{\"insn\":%ld,\"line\":%u,\"col\":%u", e->insn, e->line, e->col);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		printf(",\"%s\":", strs[i].key);
		cli_json_str(stdout, strs[i].val, strlen(strs[i].val));
	}
	putchar('}');
}

int cmd_check(int argc, char **argv)
{
	const char *file = NULL;
	bool json = false, full_log = false;
	const struct cli_opt opts[] = {
		{ "--json", CLI_FLAG, &json, NULL }, { "--log", CLI_FLAG, &full_log, NULL },
		{ "--no-warnings|-w", CLI_FLAG, &cli_no_warnings, NULL },
		{ "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { "--set", CLI_LIST, &cli_sets, "NAME=VALUE" }, { 0 },
	};
	int npos, r = cli_parse("check", check_help, argc, argv, opts, &file, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!npos) {
		fputs(check_help, stderr);
		return 2;
	}
	/* Opened once to list the programs (and to report a compile error once). */
	struct kiln_object *obj;
	struct kiln_object_opts o = { .sz = sizeof(o) };
	if (cli_object_open("check", file, &o, &obj))
		return 1;
	if (cli_set_globals("check", obj)) {
		kiln_object_close(obj);
		return 1;
	}
	size_t n = kiln_object_prog_count(obj);
	char **names = calloc(n + 1, sizeof(*names));
	for (size_t i = 0; names && i < n; i++)
		names[i] = strdup(kiln_prog_name(kiln_object_prog(obj, i)));
	kiln_object_close(obj);
	if (!names) {
		fprintf(stderr, "kiln check: out of memory\n");
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct verdict v = { 0 };
		check_one(file, i, &v);
		if (!v.ok)
			rc = 1;
		if (json) {
			printf("{\"prog\":");
			cli_json_str(stdout, names[i], 256);
			printf(",\"verdict\":\"%s\",\"insns\":%zu", v.ok ? "accepted" : "rejected", v.insns);
			if (v.ok)
				printf(",\"xlated_insns\":%u,\"processed\":%u,\"jited_bytes\":%u", v.info.xlated_insns,
				       v.info.verified_insns, v.info.jited_bytes);
			if (v.error) {
				printf(",\"error\":");
				cli_json_str(stdout, v.error, strlen(v.error));
			}
			if (!v.ok && kiln_object_verifier_error(v.obj))
				json_rejection(kiln_object_verifier_error(v.obj));
			if (v.log && *v.log) {
				printf(",\"log\":");
				cli_json_str(stdout, v.log, strlen(v.log));
			}
			printf("}\n");
		} else if (v.ok) {
			printf("%-24s accepted  %5zu insns, %5u after the verifier, %6u processed\n", kl_safe(names[i]), v.insns,
			       v.info.xlated_insns, v.info.verified_insns);
		} else {
			printf("%-24s REJECTED  %s\n", kl_safe(names[i]), v.error ? v.error : "?");
			if (v.log && *v.log)
				cli_verifier_report(stdout, kiln_object_verifier_error(v.obj), v.log, full_log);
		}
		kiln_object_close(v.obj);
		free(v.error);
		free(v.log);
		free(names[i]);
	}
	free(names);
	return rc;
}
