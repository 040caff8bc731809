/* load.c — `kiln load OBJ --pin DIR [--attach]` and `kiln unload DIR`: an object's maps,
 * programs and links pinned under bpffs for other tools, and removed again; plus attaching
 * every program by its section, which `kiln run` shares. */
#define _GNU_SOURCE
#include "cli.h"
#include "kfacts/prog_types.h"
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char load_help[] =
	"usage: kiln load OBJ.o|FILE.lisp --pin DIR [--attach] [--iface IF] [--cgroup PATH] [-w]\n"
	"                 [--egress] [--btf FILE] [--sockmap NAME] [--netns PATH]\n"
	"                 [--set NAME=VALUE]...\n"
	"\n"
	"Load the object and pin it under DIR (on bpffs, normally /sys/fs/bpf/NAME): maps at\n"
	"DIR/maps/NAME, programs at DIR/progs/NAME and, with --attach, every program attached by\n"
	"its section with the link at DIR/links/NAME, so it stays attached after kiln exits.\n"
	"bpffs refuses dots, so each '.' of a NAME is pinned as '_' (a clang object's\n"
	"OBJ.rodata at DIR/maps/OBJ_rodata, as bpftool names it); a name with '/', \"..\" or a\n"
	"control byte is refused, and then nothing is pinned.\n"
	"xdp and tc programs attach to --iface, cgroup programs to the cgroup v2 directory\n"
	"--cgroup; tc programs whose section does not say attach on ingress, or egress with\n"
	"--egress. flow_dissector and sk_lookup programs attach to the network namespace --netns\n"
	"(/proc/PID/ns/net, /run/netns/NAME; default kiln's own). sk_skb and sk_msg programs attach\n"
	"to the object's sockmap or sockhash --sockmap (default its only one); such an attachment\n"
	"is no link and cannot be pinned, so `kiln load --attach` refuses them. struct_ops maps (a\n"
	"defstruct-ops) are registered, the link pinned under one of their programs' names.\n"
	"DIR must be new or empty; what is pinned there is recorded in DIR/kiln so that\n"
	"`kiln unload DIR` removes it all again, and nothing else. -w (--no-warnings) leaves out\n"
	"a kiln source's compile warnings. --set NAME=VALUE (repeatable) sets a global variable\n"
	"(defparameter, defvar) before load, as `kiln run` does; `kiln map get|set DIR/maps/M VAR`\n"
	"reads and writes one afterwards.\n";

static const char unload_help[] =
	"usage: kiln unload DIR [--force]\n"
	"\n"
	"Remove what `kiln load` (or `kiln run --pin`) pinned under DIR: links, detached before\n"
	"they are unpinned so the hook is free when unload returns, then programs and maps (they\n"
	"live on while used elsewhere), and the directory itself. kiln load records what it pins\n"
	"in DIR/kiln; unload removes nothing if DIR holds anything else (another tool's pins, or a\n"
	"pin replaced since), unless --force, which unpins it all. A bpffs mount point such as\n"
	"/sys/fs/bpf itself is always refused.\n";

/* What a kind of hook needs from the command line. */
static const char *missing_option(enum kiln_attach_kind k, const struct cli_attach *a)
{
	if ((k == KILN_ATTACH_XDP || k == KILN_ATTACH_TC) && !a->iface)
		return "--iface IF";
	if (k == KILN_ATTACH_CGROUP && !a->cgroup)
		return "--cgroup PATH";
	return NULL;
}

/* Each struct_ops map registered, its link kept in the slot of one of the struct_ops
 * programs (there is at least one per map: a map serves its programs' one registration). */
static int attach_struct_ops(const char *cmd, struct kiln_object *obj, struct kiln_link **links, bool quiet)
{
	size_t n = kiln_object_prog_count(obj), slot = 0;
	for (size_t m = 0; m < kiln_object_map_count(obj); m++) {
		const struct kiln_map_info *mi = kiln_map_info(kiln_object_map(obj, m));
		if (!mi || mi->type != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		while (slot < n && kiln_prog_attach_kind(kiln_object_prog(obj, slot)) != KILN_ATTACH_STRUCT_OPS)
			slot++;
		if (slot == n) {
			fprintf(stderr, "kiln %s: struct_ops map %s has no program of its own\n", cmd,
				kiln_map_name(kiln_object_map(obj, m)));
			return -1;
		}
		if (kiln_object_attach_struct_ops(obj, m, &links[slot])) {
			cli_fail(cmd);
			return -1;
		}
		if (!quiet)
			fprintf(stderr, "kiln %s: registered %s\n", cmd, kiln_link_describe(links[slot]));
		slot++;
	}
	return 0;
}

int cli_attach_all(const char *cmd, struct kiln_object *obj, const struct cli_attach *a,
		   struct kiln_link **links, bool quiet)
{
	size_t n = kiln_object_prog_count(obj);
	for (size_t i = 0; i < n; i++)
		links[i] = NULL;
	for (size_t i = 0; i < n; i++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		enum kiln_attach_kind k = kiln_prog_attach_kind(p);
		if (k == KILN_ATTACH_STRUCT_OPS)
			continue;   /* registered with its map, below */
		if (k == KILN_ATTACH_NONE || (k == KILN_ATTACH_PERF_EVENT && !strcmp(cmd, "load"))) {
			/* sampling is a link per CPU, which kiln does not pin */
			const struct kl_attach_section *row = kl_attach_section_find(kiln_prog_section(p));
			if (!quiet)
				fprintf(stderr, "kiln %s: %s (section %s) has no hook to attach to; loaded only%s%s%s\n",
					cmd, kiln_prog_name(p), kiln_prog_section(p), row && row->hint ? " (" : "",
					row && row->hint ? row->hint : "", row && row->hint ? ")" : "");
			continue;
		}
		const char *need = missing_option(k, a);
		if (need) {
			fprintf(stderr, "kiln %s: program %s is %s: it needs %s\n", cmd, kiln_prog_name(p),
				kiln_attach_kind_name(k), need);
			goto fail;
		}
		struct kiln_attach_opts o = { .sz = sizeof(o), .iface = a->iface, .cgroup = a->cgroup,
					      .tc_dir = a->egress ? KILN_TC_EGRESS : KILN_TC_INGRESS,
					      .map = a->sockmap, .netns = a->netns };
		char *end = NULL;
		if (a->freq && (!(o.freq = strtoull(a->freq, &end, 10)) || *end)) {
			fprintf(stderr, "kiln %s: --freq '%s' is not a number of samples a second\n", cmd, a->freq);
			goto fail;
		}
		if (a->period && (!(o.period = strtoull(a->period, &end, 10)) || *end)) {
			fprintf(stderr, "kiln %s: --period '%s' is not a number of nanoseconds\n", cmd, a->period);
			goto fail;
		}
		if (kiln_prog_attach(p, &o, &links[i])) {
			cli_fail(cmd);
			goto fail;
		}
		if (!quiet)
			fprintf(stderr, "kiln %s: attached %s: %s\n", cmd, kiln_prog_name(p), kiln_link_describe(links[i]));
	}
	if (!attach_struct_ops(cmd, obj, links, quiet))
		return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		kiln_link_destroy(links[i]);
		links[i] = NULL;
	}
	return -1;
}

/* DIR must be new, or an empty directory (empty maps/progs/links left are fine), and not a
 * bpffs mount point: unload removes DIR again, and only what the load put there. */
static int check_pin_dir(const char *cmd, const char *dir)
{
	struct statx sx;
	if (!statx(AT_FDCWD, dir, 0, 0, &sx) && (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
		fprintf(stderr, "kiln %s: %s is a mount point; pin under a directory of your own, such "
			"as %s/NAME\n", cmd, dir, KILN_BPFFS_ROOT);
		return -EPERM;
	}
	DIR *d = opendir(dir);
	if (!d && errno == ENOENT)
		return 0;
	if (!d) {
		int err = -errno;
		fprintf(stderr, "kiln %s: %s: %s\n", cmd, dir, strerror(-err));
		return err;
	}
	char sub[PATH_MAX], busy[NAME_MAX + 1] = "";
	for (struct dirent *e; !busy[0] && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		bool empty_sub = false;
		if (!strcmp(e->d_name, "maps") || !strcmp(e->d_name, "progs") || !strcmp(e->d_name, "links")) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
			DIR *s = opendir(sub);
			struct dirent *se;
			empty_sub = s != NULL;
			while (s && (se = readdir(s)))
				empty_sub &= !strcmp(se->d_name, ".") || !strcmp(se->d_name, "..");
			if (s)
				closedir(s);
		}
		if (!empty_sub)
			snprintf(busy, sizeof(busy), "%s", e->d_name);
	}
	closedir(d);
	if (busy[0]) {
		fprintf(stderr, "kiln %s: %s already holds %s; kiln pins into a new or empty directory "
			"(`kiln unload %s` removes what kiln load made)\n", cmd, dir, busy, dir);
		return -EEXIST;
	}
	return 0;
}

/* One entry of the record: PREFIX and the pin name of an object called name, in path. */
static int pin_entry(const char *cmd, const char *what, const char *name, const char *prefix, char *path,
		     struct kiln_pin_entry *e, int fd)
{
	char pname[NAME_MAX + 1];
	if (kiln_pin_name(name, pname, sizeof(pname))) {
		fprintf(stderr, "kiln %s: %s: %s; nothing pinned\n", cmd, what, kiln_errmsg());
		return -EINVAL;
	}
	snprintf(path, PATH_MAX, "%s%s", prefix, pname);
	*e = (struct kiln_pin_entry){ path, fd };
	return 0;
}

int cli_pin_all(const char *cmd, struct kiln_object *obj, const char *dir, struct kiln_link **links)
{
	if (!strncmp(dir, KILN_BPFFS_ROOT, strlen(KILN_BPFFS_ROOT)) && kiln_bpffs_check_or_mount(NULL)) {
		cli_fail(cmd);
		return -1;
	}
	int err = check_pin_dir(cmd, dir);
	if (err)
		return err;
	size_t nm = kiln_object_map_count(obj), np = kiln_object_prog_count(obj), n = 0;
	struct kiln_pin_entry *e = calloc(nm + 2 * np + 1, sizeof(*e));
	char (*paths)[PATH_MAX] = calloc(nm + 2 * np + 1, PATH_MAX);
	if (!e || !paths) {
		free(e);
		free(paths);
		fprintf(stderr, "kiln %s: out of memory\n", cmd);
		return -ENOMEM;
	}
	/* each pin named by kiln_pin_name (no '.', no way out of DIR), all checked before any is made */
	for (size_t i = 0; !err && i < nm; i++, n++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		err = pin_entry(cmd, "map", kiln_map_name(m), "maps/", paths[n], &e[n], kiln_map_fd(m));
	}
	for (size_t i = 0; !err && i < np; i++, n++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		err = pin_entry(cmd, "program", kiln_prog_name(p), "progs/", paths[n], &e[n], kiln_prog_fd(p));
	}
	for (size_t i = 0; !err && links && i < np; i++) {
		if (!links[i])
			continue;
		if (kiln_link_fd(links[i]) < 0) {   /* a sockmap attachment, a legacy tc filter */
			fprintf(stderr, "kiln %s: %s (%s) is no link, which cannot be pinned\n", cmd,
				kiln_prog_name(kiln_object_prog(obj, i)), kiln_link_describe(links[i]));
			err = -EOPNOTSUPP;
			break;
		}
		err = pin_entry(cmd, "link of program", kiln_prog_name(kiln_object_prog(obj, i)), "links/", paths[n],
				&e[n], kiln_link_fd(links[i]));
		n++;
	}
	/* the record first: whatever of the pins is made, unload finds it listed */
	bool made_dir = access(dir, F_OK) != 0;
	if (!err && (err = kiln_pin_record(dir, e, n)))
		cli_fail(cmd);
	if (err) {        /* nothing made */
		free(e);
		free(paths);
		return err;
	}
	for (size_t i = 0; !err && i < n; i++) {
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", dir, e[i].path) >= (int)sizeof(path)) {
			fprintf(stderr, "kiln %s: path too long under %s\n", cmd, dir);
			err = -ENAMETOOLONG;
		} else if (!strncmp(e[i].path, "links/", 6)) {
			size_t k = 0;    /* the link of this entry: links are pinned through their owner */
			while (!links[k] || kiln_link_fd(links[k]) != e[i].fd)
				k++;
			if ((err = kiln_link_pin(links[k], path)))
				cli_fail(cmd);
		} else if ((err = kiln_pin(e[i].fd, path))) {
			cli_fail(cmd);
		}
	}
	if (err && access(dir, F_OK) == 0) {
		/* nothing half-pinned: what this call pinned goes again */
		kiln_unload(dir, 0);
		if (!made_dir)
			mkdir(dir, 0700);
	}
	free(e);
	free(paths);
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
		{ "--attach", CLI_FLAG, &attach, NULL }, { "--no-warnings|-w", CLI_FLAG, &cli_no_warnings, NULL },
		{ "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { "--sockmap", CLI_STR, &a.sockmap, "a map name" },
		{ "--netns", CLI_STR, &a.netns, "a network namespace file" }, { "--set", CLI_LIST, &cli_sets, "NAME=VALUE" },
		{ 0 },
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
	bool force = false;
	const struct cli_opt opts[] = { { "--force", CLI_FLAG, &force, NULL }, { 0 } };
	int npos, r = cli_parse("unload", unload_help, argc, argv, opts, &dir, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!dir) {
		fputs(unload_help, stderr);
		return 2;
	}
	if (kiln_unload(dir, force ? KILN_UNLOAD_FORCE : 0)) {
		cli_fail("unload");
		return 1;
	}
	return 0;
}
