/* load.c — `kiln load OBJ --pin DIR [--attach]` and `kiln unload DIR`: an object's maps,
 * programs and links pinned under bpffs for other tools, and removed again; plus attaching
 * every program by its section, which `kiln run` shares. */
#include "cli.h"
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char load_help[] =
	"usage: kiln load OBJ.o|FILE.lisp --pin DIR [--attach] [--iface IF] [--cgroup PATH] [-w]\n"
	"\n"
	"Load the object and pin it under DIR (on bpffs, normally /sys/fs/bpf/NAME): maps at\n"
	"DIR/maps/NAME, programs at DIR/progs/NAME and, with --attach, every program attached by\n"
	"its section with the link at DIR/links/NAME, so it stays attached after kiln exits.\n"
	"xdp and tc programs attach to --iface, cgroup programs to the cgroup v2 directory\n"
	"--cgroup. `kiln unload DIR` removes it all again. -w (--no-warnings) leaves out a kiln\n"
	"source's compile warnings.\n";

static const char unload_help[] =
	"usage: kiln unload DIR\n"
	"\n"
	"Remove what `kiln load` pinned under DIR: links (which detaches them), programs and\n"
	"maps, and the directory itself. Objects still used elsewhere live on.\n";

/* What a kind of hook needs from the command line. */
static const char *missing_option(enum kiln_attach_kind k, const struct cli_attach *a)
{
	if ((k == KILN_ATTACH_XDP || k == KILN_ATTACH_TC) && !a->iface)
		return "--iface IF";
	if (k == KILN_ATTACH_CGROUP && !a->cgroup)
		return "--cgroup PATH";
	return NULL;
}

int cli_attach_all(const char *cmd, struct kiln_object *obj, const struct cli_attach *a,
		   struct kiln_link **links, bool quiet)
{
	size_t n = kiln_object_prog_count(obj);
	for (size_t i = 0; i < n; i++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		enum kiln_attach_kind k = kiln_prog_attach_kind(p);
		links[i] = NULL;
		if (k == KILN_ATTACH_NONE || k == KILN_ATTACH_PERF_EVENT) {
			if (!quiet)
				fprintf(stderr, "kiln %s: %s (section %s) has no hook to attach to; loaded only\n", cmd,
					kiln_prog_name(p), kiln_prog_section(p));
			continue;
		}
		const char *need = missing_option(k, a);
		if (need) {
			fprintf(stderr, "kiln %s: program %s is %s: it needs %s\n", cmd, kiln_prog_name(p),
				kiln_attach_kind_name(k), need);
			goto fail;
		}
		struct kiln_attach_opts o = { .sz = sizeof(o), .iface = a->iface, .cgroup = a->cgroup,
					      .tc_dir = a->egress ? KILN_TC_EGRESS : KILN_TC_INGRESS };
		if (kiln_prog_attach(p, &o, &links[i])) {
			cli_fail(cmd);
			goto fail;
		}
		if (!quiet)
			fprintf(stderr, "kiln %s: attached %s: %s\n", cmd, kiln_prog_name(p), kiln_link_describe(links[i]));
	}
	return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		kiln_link_destroy(links[i]);
		links[i] = NULL;
	}
	return -1;
}

static int pin_one(const char *cmd, const char *dir, const char *sub, const char *name, int fd)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name) >= (int)sizeof(path)) {
		fprintf(stderr, "kiln %s: path too long under %s\n", cmd, dir);
		return -ENAMETOOLONG;
	}
	int err = kiln_pin(fd, path);
	if (err)
		cli_fail(cmd);
	return err;
}

int cli_pin_all(const char *cmd, struct kiln_object *obj, const char *dir, struct kiln_link **links)
{
	struct stat st;
	char sub[PATH_MAX];
	if (!strncmp(dir, KILN_BPFFS_ROOT, strlen(KILN_BPFFS_ROOT)) && kiln_bpffs_check_or_mount(NULL)) {
		cli_fail(cmd);
		return -1;
	}
	for (const char *s = "maps\0progs\0links\0"; *s; s += strlen(s) + 1) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, s);
		DIR *d = opendir(sub);
		struct dirent *e;
		bool busy = false;
		while (d && (e = readdir(d)))
			busy |= e->d_name[0] != '.';
		if (d)
			closedir(d);
		if (busy) {
			fprintf(stderr, "kiln %s: %s already holds pins; `kiln unload %s` first\n", cmd, sub, dir);
			return -EEXIST;
		}
	}
	bool made_dir = stat(dir, &st) != 0;
	int err = 0;
	for (size_t i = 0; !err && i < kiln_object_map_count(obj); i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		err = pin_one(cmd, dir, "maps", kiln_map_name(m), kiln_map_fd(m));
	}
	for (size_t i = 0; !err && i < kiln_object_prog_count(obj); i++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		err = pin_one(cmd, dir, "progs", kiln_prog_name(p), kiln_prog_fd(p));
	}
	for (size_t i = 0; !err && links && i < kiln_object_prog_count(obj); i++) {
		if (!links[i])
			continue;
		snprintf(sub, sizeof(sub), "%s/links/%s", dir, kiln_prog_name(kiln_object_prog(obj, i)));
		if ((err = kiln_link_pin(links[i], sub)))
			cli_fail(cmd);
	}
	if (err) {
		/* nothing half-pinned: what this call pinned goes again */
		for (const char *s = "maps\0progs\0links\0"; *s; s += strlen(s) + 1) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, s);
			kiln_unpin_tree(sub);
		}
		if (made_dir)
			rmdir(dir);
	}
	return err;
}

int cmd_load(int argc, char **argv)
{
	const char *file = NULL, *dir = NULL;
	struct cli_attach a = { 0 };
	bool attach = false;
	const struct cli_opt opts[] = {
		{ "--pin", CLI_STR, &dir, "a directory" }, { "--iface", CLI_STR, &a.iface, "an interface" },
		{ "--cgroup", CLI_STR, &a.cgroup, "a cgroup directory" }, { "--egress", CLI_FLAG, &a.egress, NULL },
		{ "--attach", CLI_FLAG, &attach, NULL }, { "--no-warnings|-w", CLI_FLAG, &cli_no_warnings, NULL }, { 0 },
	};
	int npos, r = cli_parse("load", load_help, argc, argv, opts, &file, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!file || !dir) {
		fputs(load_help, stderr);
		return 2;
	}
	struct kiln_object *obj;
	struct kiln_object_opts o = { .sz = sizeof(o) };
	if (cli_object_open("load", file, &o, &obj))
		return 1;
	int rc = 1;
	size_t n = kiln_object_prog_count(obj);
	struct kiln_link **links = calloc(n + 1, sizeof(*links));
	if (!links || cli_object_load("load", obj, file))
		goto out;
	if (attach && cli_attach_all("load", obj, &a, links, false))
		goto out;
	if (cli_pin_all("load", obj, dir, attach ? links : NULL))
		goto out;
	printf("pinned %zu map%s and %zu program%s under %s%s\n", kiln_object_map_count(obj),
	       kiln_object_map_count(obj) == 1 ? "" : "s", n, n == 1 ? "" : "s", dir,
	       attach ? ", attached" : "");
	rc = 0;
out:
	for (size_t i = 0; links && i < n; i++)
		kiln_link_destroy(links[i]);   /* pinned links stay attached */
	free(links);
	kiln_object_close(obj);
	return rc;
}

int cmd_unload(int argc, char **argv)
{
	const char *dir = NULL;
	int npos, r = cli_parse("unload", unload_help, argc, argv, NULL, &dir, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!dir) {
		fputs(unload_help, stderr);
		return 2;
	}
	if (kiln_unpin_tree(dir)) {
		cli_fail("unload");
		return 1;
	}
	return 0;
}
