/* binpath.c — uprobe targets resolved to files (binpath.h). */
#define _GNU_SOURCE
#include "trace/binpath.h"
#include <dirent.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The loader's own directories after those ld.so.conf names (ld.so(8)). */
static const char *const default_dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
					    "/usr/lib64", "/lib", "/usr/lib" };

/* Whether path is an ELF file (libc.so next to libc.so.6 is a linker script). */
static bool is_elf(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "re");
	bool ok = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
	if (f)
		fclose(f);
	return ok;
}

/* In dir, the first ELF "NAME.so.*" in name order (libc.so.6), or else "NAME.so". */
static const char *lib_in(struct kl_arena *a, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.so.*", dir, name);
	glob_t g;
	const char *found = NULL;
	if (glob(path, 0, NULL, &g) == 0)
		for (size_t i = 0; !found && i < g.gl_pathc; i++)
			if (is_elf(g.gl_pathv[i]))
				found = kl_arena_strdup(a, g.gl_pathv[i]);
	globfree(&g);
	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	if (!found && is_elf(path))
		found = kl_arena_strdup(a, path);
	return found;
}

/* The directories of one ld.so.conf file, following its `include GLOB` lines (depth-bounded). */
static const char *conf_search(struct kl_arena *a, const char *conf, const char *name, int depth)
{
	FILE *f = depth < 4 ? fopen(conf, "re") : NULL;
	if (!f)
		return NULL;
	char line[1024];
	const char *found = NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#\n")] = 0;
		char *s = line + strspn(line, " \t");
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			if (glob(s + 8 + strspn(s + 8, " \t"), 0, NULL, &g) == 0)
				for (size_t i = 0; !found && i < g.gl_pathc; i++)
					found = conf_search(a, g.gl_pathv[i], name, depth + 1);
			globfree(&g);
		} else if (*s == '/') {
			s[strcspn(s, " \t")] = 0;
			found = lib_in(a, s, name);
		}
	}
	fclose(f);
	return found;
}

int kt_find_binary(struct kl_arena *a, const char *name, const char **out, char *msg, size_t len)
{
	if (strchr(name, '/')) {
		if (access(name, R_OK)) {
			snprintf(msg, len, "%s: no such file", name);
			return -1;
		}
		*out = name;
		return 0;
	}
	if (!strncmp(name, "lib", 3)) {
		const char *p = conf_search(a, "/etc/ld.so.conf", name, 0);
		for (size_t i = 0; !p && i < sizeof(default_dirs) / sizeof(default_dirs[0]); i++)
			p = lib_in(a, default_dirs[i], name);
		if (p) {
			*out = p;
			return 0;
		}
	}
	const char *path = getenv("PATH");
	char *dirs = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", d, name);
		if (access(full, X_OK) == 0) {
			*out = kl_arena_strdup(a, full);
			free(dirs);
			return 0;
		}
	}
	free(dirs);
	snprintf(msg, len, "%s: no library of that name in the loader's directories, and no program in $PATH", name);
	return -1;
}
