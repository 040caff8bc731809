/* paths.c — the process-wide bpffs root and map prefix (kiln/paths.h), the pin paths built
 * from them, the environment that points tc at the same root, and the notice of the kernel
 * filesystems kiln mounts (the mounting is compiler/mounts.c's, below the compiler too). */
#define _GNU_SOURCE
#include "kiln/paths.h"
#include "kiln/pin.h"
#include "fail.h"
#include "compiler/mounts.h"
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Every distinct value ever set, never freed: a getter's pointer must outlive a concurrent
 * set, and nothing can tell when the last reader is done with it. Roots and prefixes are set
 * a handful of times in a process, so this is a few strings. */
struct interned {
	struct interned *next;
	char s[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct interned *kept;
static const char *root = KILN_BPFFS_ROOT;
static const char *prefix = KILN_MAP_PREFIX_DEFAULT;

/* s (n bytes) as a string that lives as long as the process; called with lock held. */
static const char *intern(const char *s, size_t n)
{
	for (struct interned *i = kept; i; i = i->next)
		if (!strncmp(i->s, s, n) && !i->s[n])
			return i->s;
	struct interned *i = malloc(sizeof(*i) + n + 1);
	if (!i)
		return NULL;
	memcpy(i->s, s, n);
	i->s[n] = 0;
	i->next = kept;
	kept = i;
	return i->s;
}

static int set(const char **slot, const char *s, size_t n, const char *what)
{
	pthread_mutex_lock(&lock);
	const char *v = intern(s, n);
	if (v)
		__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	return v ? 0 : kl_fail(ENOMEM, "setting the map %s", what);
}

const char *kiln_map_root(void)
{
	return __atomic_load_n(&root, __ATOMIC_ACQUIRE);
}

const char *kiln_map_prefix(void)
{
	return __atomic_load_n(&prefix, __ATOMIC_ACQUIRE);
}

int kiln_map_set_root(const char *path)
{
	if (!path)
		path = KILN_BPFFS_ROOT;
	size_t n = strlen(path);
	if (path[0] != '/')
		return kl_fail_msg(-EINVAL, "map root '%s': not an absolute path", path);
	if (n >= PATH_MAX)
		return kl_fail_msg(-ENAMETOOLONG, "map root of %zu bytes: longer than PATH_MAX", n);
	while (n > 1 && path[n - 1] == '/')
		n--;
	return set(&root, path, n, "root");
}

int kiln_map_set_prefix(const char *p)
{
	if (!p)
		p = KILN_MAP_PREFIX_DEFAULT;
	if (strchr(p, '.'))
		return kl_fail_msg(-EINVAL, "map prefix '%s': bpffs refuses names with a '.'", p);
	size_t n = strlen(p);
	if (n >= PATH_MAX)
		return kl_fail_msg(-ENAMETOOLONG, "map prefix of %zu bytes: longer than PATH_MAX", n);
	while (*p == '/')
		p++, n--;
	while (n && p[n - 1] == '/')
		n--;
	return set(&prefix, p, n, "prefix");
}

/* ROOT[/PREFIX][/NAME] into buf: "/" as the root takes no second slash. */
static int build(const char *name, char *buf, size_t len)
{
	const char *r = kiln_map_root(), *p = kiln_map_prefix();
	const char *rs = strcmp(r, "/") ? "/" : "";
	int n = snprintf(buf, len, "%s%s%s%s%s", r, p[0] ? rs : "", p, name && (p[0] || rs[0]) ? "/" : "",
			 name ? name : "");
	if (n < 0 || (size_t)n >= len || n >= PATH_MAX) {
		if (len)
			buf[0] = 0;
		return kl_fail_msg(-ENAMETOOLONG, "map path %s%s%s%s%s: %d bytes do not fit in %zu", r,
				   rs, p, name ? "/" : "", name ? name : "", n, len < PATH_MAX ? len : PATH_MAX);
	}
	return 0;
}

static int check_name(const char *name)
{
	if (!name || !name[0] || strchr(name, '/'))
		return kl_fail_msg(-EINVAL, "map name '%s': want one path component", name ? name : "");
	return 0;
}

int kiln_map_prefix_path(char *buf, size_t len)
{
	return build(NULL, buf, len);
}

int kiln_map_path(const char *name, char *buf, size_t len)
{
	int err = check_name(name);
	return err ? err : build(name, buf, len);
}

int kiln_local_map_name(const char *name, uint16_t id, char *buf, size_t len)
{
	int err = check_name(name);
	if (err)
		return err;
	int n = snprintf(buf, len, "%s%05u", name, (unsigned)id);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = 0;
		return kl_fail_msg(-ENAMETOOLONG, "local map name %s%05u: does not fit in %zu bytes", name,
				   (unsigned)id, len);
	}
	return 0;
}

int kiln_local_map_path(const char *name, uint16_t id, char *buf, size_t len)
{
	char local[NAME_MAX + 1];
	int err = kiln_local_map_name(name, id, local, sizeof(local));
	return err ? err : build(local, buf, len);
}

/* ---- the environment ---------------------------------------------------------------------- */

#define TC_MNT "TC_BPF_MNT"

int kiln_environment(unsigned flags, char ***out)
{
	size_t n = 0, k = 0;
	*out = NULL;
	if ((flags & KILN_ENV_INHERIT) && environ)
		while (environ[n])
			n++;
	char **env = calloc(n + 2, sizeof(*env));
	if (!env)
		return kl_fail(ENOMEM, "environment");
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], TC_MNT "=", sizeof(TC_MNT)))
			continue;
		if (!(env[k++] = strdup(environ[i])))
			goto oom;
	}
	if (asprintf(&env[k], TC_MNT "=%s", kiln_map_root()) < 0) {
		env[k] = NULL;
		goto oom;
	}
	k++;
	*out = env;
	return (int)k;
oom:
	kiln_environment_free(env);
	return kl_fail(ENOMEM, "environment");
}

void kiln_environment_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

void kiln_set_mount_notice(kiln_mount_notice_fn fn, void *ctx)
{
	kl_mount_set_notice(fn, ctx);
}

const char *kiln_tracefs_root(void)
{
	return kl_tracefs_root();
}
