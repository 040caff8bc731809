/* version.c — `kiln version` (and `kiln --version`): kiln's version from the Makefile's
 * VERSION, the git revision it was built from when built in a checkout, and with --json the
 * libbpf it runs on and the kernel, for bug reports. */
#include "cli.h"
#include <bpf/libbpf.h>
#include <string.h>
#include <sys/utsname.h>

/* The Makefile defines both for this file; other builds of it (the fuzzers') say so. */
#ifndef KL_VERSION
#define KL_VERSION "unknown"
#endif
#ifndef KL_GIT
#define KL_GIT ""
#endif

static const char version_help[] =
	"usage: kiln version [--json]\n"
	"\n"
	"Print kiln's version, and the git revision it was built from when it was built in a\n"
	"git checkout. `kiln --version` prints the same line.\n"
	"\n"
	"  --json  {\"version\",\"git\",\"libbpf\",\"kernel\":{\"sysname\",\"release\",\"machine\"}}:\n"
	"          also the version of the libbpf kiln is running with and the kernel's uname\n";

const char *cli_version(void)
{
	return KL_VERSION;
}

int cmd_version(int argc, char **argv)
{
	bool json = false;
	const struct cli_opt opts[] = { { "--json", CLI_FLAG, &json, NULL }, { 0 } };
	int npos, r = cli_parse("version", version_help, argc, argv, opts, NULL, 0, &npos);
	if (r != CLI_OK)
		return r;
	if (!json) {
		printf("kiln %s%s%s%s\n", KL_VERSION, KL_GIT[0] ? " (git " : "", KL_GIT, KL_GIT[0] ? ")" : "");
		return 0;
	}
	struct utsname u;
	if (uname(&u)) {
		perror("kiln version: uname");
		return 1;
	}
	printf("{\"version\":");
	cli_json_str(stdout, KL_VERSION, sizeof(KL_VERSION) - 1);
	printf(",\"git\":");
	cli_json_str(stdout, KL_GIT, sizeof(KL_GIT) - 1);
	printf(",\"libbpf\":\"%u.%u\",\"kernel\":{\"sysname\":", libbpf_major_version(), libbpf_minor_version());
	cli_json_str(stdout, u.sysname, strlen(u.sysname));
	printf(",\"release\":");
	cli_json_str(stdout, u.release, strlen(u.release));
	printf(",\"machine\":");
	cli_json_str(stdout, u.machine, strlen(u.machine));
	printf("}}\n");
	return 0;
}
