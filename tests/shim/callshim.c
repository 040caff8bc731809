/* callshim.c — test shim (LD_PRELOAD) for the attach points a kernel may lack: it logs the
 * bpf() and perf_event_open() calls a program makes through libc's syscall() (libbpf's and
 * libkiln's alike), with their arguments, and can stand in for the kernel features missing,
 * so that the attach code after them runs and its calls can be checked
 * (tests/suites/attach-calls.sh). Environment:
 *   CALLSHIM_LOG=FILE      one line a call, appended (required: without it the shim only
 *                          passes calls through)
 *   CALLSHIM_ROOT=DIR      an open of a path P that DIR/P exists for opens DIR/P instead: a
 *                          kprobe PMU of the test's own (DIR/sys/bus/event_source/devices/
 *                          kprobe/type, format/retprobe), another list of active LSMs
 *   CALLSHIM_STANDIN=1     a tracing, lsm or kprobe program the kernel refuses to load with
 *                          EPERM (lockdown) is answered with a stand-in: a "r0 = 0; exit"
 *                          socket filter of the same name, a real program fd
 *   CALLSHIM_PERF=ok|ERRNO perf_event_open of the kprobe PMU CALLSHIM_ROOT makes up: an fd of the
 *                          shim's (an eventfd), or that error (default: the kernel answers)
 *   CALLSHIM_LINK=ok|ERRNO bpf(BPF_LINK_CREATE) or bpf(BPF_RAW_TRACEPOINT_OPEN) of a kprobe,
 *                          tracing or lsm program (loaded or stand-in), or on a made-up perf
 *                          fd: a made-up link fd, or that error (default: the kernel answers). BPF_LINK_DETACH, BPF_OBJ_PIN and
 *                          close() of a made-up link are logged; detach says 0, pin EPERM.
 *   CALLSHIM_IDS=FILE      the id of every program and map the process loads or creates (a
 *                          stand-in too), appended as "prog ID" or "map ID": what a test made,
 *                          to count by id, never by the machine's lists
 * ERRNO is a number or a name the table below knows (ENOENT, ENOTSUPP, ...). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PMU_TYPE "/sys/bus/event_source/devices/kprobe/type"
#define MAX_FDS 1024

enum fd_kind { FD_NONE, FD_PROG, FD_STANDIN_PROG, FD_MADEUP_PERF, FD_MADEUP_LINK };
static enum fd_kind fd_kinds[MAX_FDS];

static const struct { const char *name; int err; } errnos[] = {
	{ "EPERM", EPERM }, { "ENOENT", ENOENT }, { "EINVAL", EINVAL }, { "EBUSY", EBUSY },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "ENOTSUPP", 524 }, { "ENODEV", ENODEV }, { "EACCES", EACCES },
};

static const char *const attach_types[] = {
	[BPF_PERF_EVENT] = "BPF_PERF_EVENT", [BPF_TRACE_FENTRY] = "BPF_TRACE_FENTRY",
	[BPF_TRACE_FEXIT] = "BPF_TRACE_FEXIT", [BPF_MODIFY_RETURN] = "BPF_MODIFY_RETURN",
	[BPF_LSM_MAC] = "BPF_LSM_MAC", [BPF_TRACE_RAW_TP] = "BPF_TRACE_RAW_TP",
};

static const char *const prog_types[] = {
	[BPF_PROG_TYPE_KPROBE] = "BPF_PROG_TYPE_KPROBE", [BPF_PROG_TYPE_TRACING] = "BPF_PROG_TYPE_TRACING",
	[BPF_PROG_TYPE_LSM] = "BPF_PROG_TYPE_LSM",
};

static long (*real_syscall)(long, ...);

static long next_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	if (!real_syscall)
		real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real_syscall(n, a, b, c, d, e, f);
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	const char *path = getenv("CALLSHIM_LOG");
	if (!path)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	int saved = errno;
	int fd = (int)next_syscall(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600, 0, 0);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) < 0) { /* a test reading the log sees the gap */ }
		next_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	}
	errno = saved;
}

static const char *name_of(const char *const *names, size_t n, unsigned v, char *buf, size_t len)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "%u", v);
	return buf;
}
#define NAME_OF(tbl, v, buf) name_of(tbl, sizeof(tbl) / sizeof(tbl[0]), (v), buf, sizeof(buf))

/* The answer a variable asks for: 0 for "ok", a positive errno, or -1 for "the kernel's". */
static int answer(const char *var)
{
	const char *v = getenv(var);
	if (!v || !*v)
		return -1;
	if (!strcmp(v, "ok"))
		return 0;
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(v, errnos[i].name))
			return errnos[i].err;
	return atoi(v) > 0 ? atoi(v) : -1;
}

static enum fd_kind kind(long fd)
{
	return fd >= 0 && fd < MAX_FDS ? fd_kinds[fd] : FD_NONE;
}

static long madeup_fd(enum fd_kind k)
{
	int fd = eventfd(0, EFD_CLOEXEC);
	if (fd >= 0 && fd < MAX_FDS)
		fd_kinds[fd] = k;
	return fd;
}

static long fail_with(int err)
{
	errno = err;
	return -1;
}

/* "7", or "-1 ENOENT" as strace writes a failure */
static const char *result(long r, char *buf, size_t len)
{
	if (r >= 0) {
		snprintf(buf, len, "%ld", r);
		return buf;
	}
	snprintf(buf, len, "-1 %d", errno);
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == errno)
			snprintf(buf, len, "-1 %s", errnos[i].name);
	return buf;
}

/* The PMU type CALLSHIM_ROOT gives the kprobe PMU, or -1. */
static long madeup_pmu_type(void)
{
	const char *dir = getenv("CALLSHIM_ROOT");
	char path[4096], buf[32] = "";
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s%s", dir, PMU_TYPE);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long t = fgets(buf, sizeof(buf), f) ? strtol(buf, NULL, 10) : -1;
	fclose(f);
	return t;
}

static long shim_perf_event_open(long a, long b, long c, long d, long e)
{
	const struct perf_event_attr *attr = (const void *)a;
	char func[256] = "", res[32];
	bool dynamic = attr->type == (uint32_t)madeup_pmu_type();
	if (attr->config1)
		snprintf(func, sizeof(func), "%s", (const char *)(uintptr_t)attr->config1);
	long r;
	int want = dynamic ? answer("CALLSHIM_PERF") : -1;
	if (want == 0)
		r = madeup_fd(FD_MADEUP_PERF);
	else if (want > 0)
		r = fail_with(want);
	else
		r = next_syscall(SYS_perf_event_open, a, b, c, d, e, 0);
	logf_("perf_event_open type=%u config=%#llx config1=\"%s\" config2=%#llx pid=%d cpu=%d group_fd=%d flags=%#lx = %s%s",
	      attr->type, (unsigned long long)attr->config, func, (unsigned long long)attr->config2, (int)b, (int)c, (int)d,
	      (unsigned long)e, result(r, res, sizeof(res)), want == 0 ? " (made up)" : "");
	return r;
}

/* A stand-in for a program the kernel refused: "r0 = 0; exit", of the same name. */
static long standin_prog(const union bpf_attr *refused)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr at;
	memset(&at, 0, sizeof(at));
	at.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	at.insns = (uint64_t)(uintptr_t)insns;
	at.insn_cnt = 2;
	at.license = (uint64_t)(uintptr_t)"GPL";
	memcpy(at.prog_name, refused->prog_name, sizeof(at.prog_name));
	long r = next_syscall(SYS_bpf, BPF_PROG_LOAD, (long)&at, sizeof(at), 0, 0, 0);
	if (r >= 0 && r < MAX_FDS)
		fd_kinds[r] = FD_STANDIN_PROG;
	return r;
}

/* "KIND ID" of fd (a program or a map it just made) appended to CALLSHIM_IDS, if set. */
static void record_id(const char *kind, long fd)
{
	const char *path = getenv("CALLSHIM_IDS");
	if (!path || fd < 0)
		return;
	struct bpf_prog_info pinfo = { 0 };
	struct bpf_map_info minfo = { 0 };
	bool prog = !strcmp(kind, "prog");
	union bpf_attr a = { 0 };
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = prog ? sizeof(pinfo) : sizeof(minfo);
	a.info.info = prog ? (uint64_t)(uintptr_t)&pinfo : (uint64_t)(uintptr_t)&minfo;
	int e = errno;
	long r = next_syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, (long)&a, sizeof(a), 0, 0, 0);
	errno = e;
	if (r)
		return;
	FILE *f = fopen(path, "ae");
	if (f) {
		fprintf(f, "%s %u\n", kind, prog ? pinfo.id : minfo.id);
		fclose(f);
	}
}

static long shim_prog_load(long cmd, union bpf_attr *at, long size)
{
	char res[32], tb[16], ab[16];
	long r = next_syscall(SYS_bpf, cmd, (long)at, size, 0, 0, 0);
	bool standin = false;
	unsigned t = at->prog_type;
	if (r < 0 && errno == EPERM && getenv("CALLSHIM_STANDIN") &&
	    (t == BPF_PROG_TYPE_TRACING || t == BPF_PROG_TYPE_LSM || t == BPF_PROG_TYPE_KPROBE)) {
		logf_("bpf BPF_PROG_LOAD prog_type=%s prog_name=\"%.16s\" expected_attach_type=%s attach_btf_id=%u = %s",
		      NAME_OF(prog_types, t, tb), at->prog_name, NAME_OF(attach_types, at->expected_attach_type, ab),
		      at->attach_btf_id, result(r, res, sizeof(res)));
		r = standin_prog(at);
		standin = r >= 0;
	}
	bool watched = t < sizeof(prog_types) / sizeof(prog_types[0]) && prog_types[t];
	if (watched && !standin && r >= 0 && r < MAX_FDS)
		fd_kinds[r] = FD_PROG;
	if (watched)
		logf_("bpf BPF_PROG_LOAD prog_type=%s prog_name=\"%.16s\" expected_attach_type=%s attach_btf_id=%u = %s%s",
		      NAME_OF(prog_types, t, tb), at->prog_name, NAME_OF(attach_types, at->expected_attach_type, ab),
		      at->attach_btf_id, result(r, res, sizeof(res)), standin ? " (stand-in)" : "");
	record_id("prog", r);
	return r;
}

/* BPF_LINK_CREATE and BPF_RAW_TRACEPOINT_OPEN: made up on what the shim made, or the kernel's. */
static long shim_attach(long cmd, union bpf_attr *at, long size)
{
	char res[32], ab[16];
	bool ours = cmd == BPF_LINK_CREATE
		? kind(at->link_create.prog_fd) != FD_NONE || kind(at->link_create.target_fd) == FD_MADEUP_PERF
		: kind(at->raw_tracepoint.prog_fd) != FD_NONE;
	int want = ours ? answer("CALLSHIM_LINK") : -1;
	long r = want == 0 ? madeup_fd(FD_MADEUP_LINK) : want > 0 ? fail_with(want)
		: next_syscall(SYS_bpf, cmd, (long)at, size, 0, 0, 0);
	const char *made = want == 0 ? " (made up)" : "";
	if (cmd == BPF_LINK_CREATE)
		logf_("bpf BPF_LINK_CREATE prog_fd=%u target_fd=%u attach_type=%s target_btf_id=%u flags=%#x = %s%s",
		      at->link_create.prog_fd, at->link_create.target_fd,
		      NAME_OF(attach_types, at->link_create.attach_type, ab), at->link_create.target_btf_id,
		      at->link_create.flags, result(r, res, sizeof(res)), made);
	else
		logf_("bpf BPF_RAW_TRACEPOINT_OPEN name=%s%s%s prog_fd=%u = %s%s",
		      at->raw_tracepoint.name ? "\"" : "",
		      at->raw_tracepoint.name ? (const char *)(uintptr_t)at->raw_tracepoint.name : "NULL",
		      at->raw_tracepoint.name ? "\"" : "", at->raw_tracepoint.prog_fd, result(r, res, sizeof(res)), made);
	return r;
}

static long shim_bpf(long cmd, union bpf_attr *at, long size)
{
	char res[32];
	switch (cmd) {
	case BPF_PROG_LOAD:
		return shim_prog_load(cmd, at, size);
	case BPF_MAP_CREATE: {
		long fd = next_syscall(SYS_bpf, cmd, (long)at, size, 0, 0, 0);
		record_id("map", fd);
		return fd;
	}
	case BPF_LINK_CREATE:
	case BPF_RAW_TRACEPOINT_OPEN:
		return shim_attach(cmd, at, size);
	case BPF_LINK_DETACH:
		if (kind(at->link_detach.link_fd) == FD_MADEUP_LINK) {
			logf_("bpf BPF_LINK_DETACH link_fd=%u = 0 (made up)", at->link_detach.link_fd);
			return 0;
		}
		break;
	case BPF_OBJ_PIN:
		if (kind(at->bpf_fd) == FD_MADEUP_LINK) {
			logf_("bpf BPF_OBJ_PIN bpf_fd=%u pathname=\"%s\" = -1 EPERM (made up)", at->bpf_fd,
			      (const char *)(uintptr_t)at->pathname);
			return fail_with(EPERM);
		}
		break;
	}
	long r = next_syscall(SYS_bpf, cmd, (long)at, size, 0, 0, 0);
	if (cmd == BPF_LINK_DETACH)
		logf_("bpf BPF_LINK_DETACH link_fd=%u = %s", at->link_detach.link_fd, result(r, res, sizeof(res)));
	return r;
}

long syscall(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_bpf)
		return shim_bpf(a, (union bpf_attr *)b, c);
	if (n == SYS_perf_event_open)
		return shim_perf_event_open(a, b, c, d, e);
	return next_syscall(n, a, b, c, d, e, f);
}

int close(int fd)
{
	static int (*real_close)(int);
	if (!real_close)
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	enum fd_kind k = kind(fd);
	if (k != FD_NONE) {
		fd_kinds[fd] = FD_NONE;
		logf_("close fd=%d (%s)", fd, k == FD_PROG ? "program" : k == FD_STANDIN_PROG ? "stand-in program" :
		      k == FD_MADEUP_PERF ? "made-up perf event" : "made-up link");
	}
	return real_close(fd);
}

/* An absolute path, moved under CALLSHIM_ROOT where that has the file. */
static const char *root_path(const char *path, char *buf, size_t len)
{
	const char *dir = getenv("CALLSHIM_ROOT");
	if (!dir || !path || path[0] != '/')
		return path;
	snprintf(buf, len, "%s%s", dir, path);
	return access(buf, F_OK) ? path : buf;
}

int open(const char *path, int flags, ...)
{
	static int (*real_open)(const char *, int, ...);
	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	char buf[4096];
	return real_open(root_path(path, buf, sizeof(buf)), flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real_openat)(int, const char *, int, ...);
	if (!real_openat)
		real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	char buf[4096];
	return real_openat(dirfd, root_path(path, buf, sizeof(buf)), flags, mode);
}
