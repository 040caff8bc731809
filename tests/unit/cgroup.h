/* cgroup.h — the cgroup v2 hierarchy for unit tests that attach to cgroups or read cgroup
 * storage: where it is mounted (or a mount made for the test), this process's own cgroup in
 * it, and moving the process between cgroups. Header-only, as check.h. */
#ifndef KILN_TEST_CGROUP_H
#define KILN_TEST_CGROUP_H
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

struct cg2 {
	char mount[256];         /* the cgroup2 mount point */
	char home[1024];         /* this process's cgroup, as a directory */
	bool mounted_here;       /* the test mounted it; cg2_release() unmounts */
};

/* The mounted cgroup2 hierarchy, or one mounted here for the test; false if neither. */
static inline bool cg2_find(struct cg2 *cg)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], mnt[256], type[64], line[512];

	memset(cg, 0, sizeof(*cg));
	while (f && fscanf(f, "%255s %255s %63s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(cg->mount, sizeof(cg->mount), "%s", mnt);
			break;
		}
	if (f)
		fclose(f);
	if (!cg->mount[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(cg->mount, sizeof(cg->mount), "%s/kiln-test-cgroup2-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(cg->mount))
			return false;
		if (mount("none", cg->mount, "cgroup2", 0, NULL)) {
			rmdir(cg->mount);
			return false;
		}
		cg->mounted_here = true;
	}
	f = fopen("/proc/self/cgroup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(cg->home, sizeof(cg->home), "%s%s", cg->mount, line + 3);
		}
	if (f)
		fclose(f);
	if (!cg->home[0])
		snprintf(cg->home, sizeof(cg->home), "%s", cg->mount);
	return true;
}

static inline void cg2_release(struct cg2 *cg)
{
	if (cg->mounted_here) {
		umount2(cg->mount, MNT_DETACH);
		rmdir(cg->mount);
		cg->mounted_here = false;
	}
}

/* Move this process into the cgroup directory: 0 or a negative errno. */
static inline int cg2_move_self(const char *cgroup)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	int ok = fprintf(f, "%d\n", getpid()) > 0;
	ok &= fclose(f) == 0;
	return ok ? 0 : -EIO;
}
#endif
