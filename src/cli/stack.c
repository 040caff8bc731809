/* stack.c — `kiln stack TARGET STACKID [-p|--pid PID] [--json]`: one entry of a :stack-trace
 * map, innermost frame first, kernel addresses named through /proc/kallsyms and user ones
 * through the ELF symbols (and DWARF lines) of what process PID maps. */
#include "cli.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char stack_help[] =
	"usage: kiln stack TARGET STACKID [-p|--pid PID] [--json]\n"
	"\n"
	"Print stack STACKID of a stack-trace map (as (get-stackid ctx MAP FLAGS) gives it), the\n"
	"innermost frame first: address, function+offset, and the kernel module, or for user\n"
	"addresses the mapped file (or source file:line where it has DWARF). TARGET is a pinned\n"
	"path, id:N or name:NAME. Kernel addresses are named through /proc/kallsyms; user\n"
	"addresses through the maps of process PID (--pid), and stay raw without it.\n"
	"\n"
	"  --pid PID   the process whose user stack it is\n"
	"  --json      {\"stackid\":N,\"frames\":[{\"addr\":\"0x..\",\"symbol\":..,\"offset\":..,\n"
	"              \"module\":..,\"file\":..,\"line\":..}]}\n";

static bool is_kernel_addr(uint64_t a)
{
#if defined(__x86_64__)
	return a >= 0xffff800000000000ull;
#else
	return a >> 63;
#endif
}

static void json_str_or_null(const char *s)
{
	if (s)
		cli_json_str(stdout, s, strlen(s));
	else
		fputs("null", stdout);
}

/* What symbolizing a stack warned of already, and whether user addresses were left raw. */
struct warned { bool raw_user, user, kernel; };

/* Frame i of a stack at address a, named through syms (user addresses only with a pid). */
static void name_frame(struct kiln_syms *syms, long pid, int i, uint64_t a, struct warned *w,
		       struct kiln_frame *f)
{
	bool kernel = is_kernel_addr(a);
	/* a caller's address is where its call returns to, which may already be the next
	 * function (or line): name a - 1, the call, and give the offset of a */
	uint64_t q = i > 0 ? a - 1 : a;
	int err;
	if (kernel) {
		err = kiln_syms_kernel(syms, q, f);
		if (err && (err != -ENOENT || strstr(kiln_errmsg(), "kallsyms")) && !w->kernel) {
			fprintf(stderr, "kiln stack: warning: %s\n", kiln_errmsg());
			w->kernel = true;
		}
	} else if (pid) {
		err = kiln_syms_user(syms, (int)pid, q, f);
		if (err && err != -ENOENT && !w->user) {
			fprintf(stderr, "kiln stack: warning: %s; user addresses shown raw\n", kiln_errmsg());
			w->user = true;
		}
	} else {
		err = -ENOENT;
		w->raw_user = true;
	}
	if (err)
		memset(f, 0, sizeof(*f));
	else
		f->offset += a - q;
	f->addr = a;
}

static void print_frame_json(int i, const struct kiln_frame *f)
{
	printf("%s{\"addr\":\"0x%" PRIx64 "\",\"symbol\":", i ? "," : "", f->addr);
	json_str_or_null(f->symbol);
	if (f->symbol)
		printf(",\"offset\":%" PRIu64, f->offset);
	else
		fputs(",\"offset\":null", stdout);
	fputs(",\"module\":", stdout);
	json_str_or_null(f->module);
	fputs(",\"file\":", stdout);
	json_str_or_null(f->file);
	if (f->file)
		printf(",\"line\":%d}", f->line);
	else
		fputs(",\"line\":null}", stdout);
}

static void print_frame_text(int i, const struct kiln_frame *f, long pid)
{
	char buf[512];
	if (f->symbol || f->module)
		kiln_frame_format(f, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "%s", is_kernel_addr(f->addr) ? "?" : pid ? "? [user]" : "[user]");
	printf("  #%d 0x%016" PRIx64 " %s\n", i, f->addr, buf);
}

/* The arguments: a stack id (0 to UINT32_MAX) and an optional pid; 2 with a message if bad. */
static int parse_ids(const char *id_s, const char *pid_s, unsigned long long *id, long *pid)
{
	char *end;
	errno = 0;
	*id = strtoull(id_s, &end, 0);
	if (!*id_s || *end || errno || *id > UINT32_MAX || id_s[0] == '-') {
		fprintf(stderr, "kiln stack: '%s' is not a stack id (0 to %u)\n", id_s, UINT32_MAX);
		return 2;
	}
	*pid = 0;
	if (pid_s) {
		errno = 0;
		*pid = strtol(pid_s, &end, 10);
		if (!*pid_s || *end || errno || *pid <= 0 || *pid > INT32_MAX) {
			fprintf(stderr, "kiln stack: '%s' is not a process id\n", pid_s);
			return 2;
		}
	}
	return 0;
}

int cmd_stack(int argc, char **argv)
{
	bool json = false;
	const char *pid_s = NULL, *pos[2];
	const struct cli_opt opts[] = {
		{ "--json", CLI_FLAG, &json, NULL },
		{ "--pid|-p", CLI_STR, &pid_s, "a process id" },
		{ 0 },
	};
	int npos, r = cli_parse("stack", stack_help, argc, argv, opts, pos, 2, &npos);
	if (r != CLI_OK)
		return r;
	if (npos != 2) {
		fprintf(stderr, "kiln stack: needs a map and a stack id\n%s", stack_help);
		return 2;
	}
	unsigned long long id;
	long pid;
	if (parse_ids(pos[1], pid_s, &id, &pid))
		return 2;

	struct kiln_map *m;
	if (cli_map_open_target("stack", pos[0], &m))
		return 1;
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int n = kiln_stack_read(m, (uint32_t)id, ips, KILN_STACK_MAX_DEPTH);
	if (n < 0)
		cli_fail("stack");
	kiln_map_close(m);
	struct kiln_syms *syms;
	if (n < 0)
		return 1;
	if (kiln_syms_new(&syms)) {
		cli_fail("stack");
		return 1;
	}
	struct warned w = { 0 };
	if (json)
		printf("{\"stackid\":%llu,\"frames\":[", id);
	for (int i = 0; i < n; i++) {
		struct kiln_frame f;
		name_frame(syms, pid, i, ips[i], &w, &f);
		if (json)
			print_frame_json(i, &f);
		else
			print_frame_text(i, &f, pid);
	}
	if (json)
		printf("]}\n");
	if (w.raw_user)
		fprintf(stderr, "kiln stack: note: user addresses are shown raw; --pid PID names them\n");
	kiln_syms_free(syms);
	return 0;
}
