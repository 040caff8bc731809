/* test_stack.c — libkiln's stack traces on the running kernel (as root): kallsyms lookups, a
 * real kernel stack and this process's own user stack recorded by a kiln program on
 * sys_enter_getppid and symbolized (function names, file:line from this file's DWARF), the
 * error paths, and no fd leaked. Built with frame pointers (see the Makefile) so that the
 * kernel can walk the user stack. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *src_root = ".";
static char *kallsyms;            /* the text of /proc/kallsyms */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	for (size_t r; buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

/* The address kallsyms gives name (0 if none). */
static uint64_t kallsyms_addr(const char *name)
{
	char pat[256];
	snprintf(pat, sizeof(pat), " %s\n", name);
	char *p = kallsyms ? strstr(kallsyms, pat) : NULL;
	if (!p)
		return 0;
	while (p > kallsyms && p[-1] != '\n')
		p--;
	return strtoull(p, NULL, 16);
}

/* Whether kallsyms lists name (as a whole name, with or without a module). */
static bool kallsyms_has(const char *name)
{
	char pat[256];
	snprintf(pat, sizeof(pat), " %s\n", name);
	if (strstr(kallsyms, pat))
		return true;
	snprintf(pat, sizeof(pat), " %s\t", name);
	return strstr(kallsyms, pat) != NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, m = strlen(tail);
	return s && n >= m && !strcmp(s + n - m, tail);
}

/* An empty call: it makes kiln_test_stack_leaf a function with a frame of its own (a leaf
 * that needs no stack gets none from gcc, even with -fno-omit-frame-pointer, and the kernel's
 * frame-pointer walk would then skip its caller). */
__attribute__((noinline, used)) void kiln_test_stack_nop(void)
{
	asm volatile("" : : : "memory");
}

/* The function whose user stack the program records: the system call is made right here (on
 * x86-64 by an inline `syscall`, so that the innermost user frame is this function and not
 * glibc's syscall(), which has no frame pointer), and the result used after it. */
enum { LEAF_LINE = __LINE__ + 1 };
__attribute__((noinline, used)) long kiln_test_stack_leaf(long x)
{
	long ret;
	kiln_test_stack_nop();
#if defined(__x86_64__)
	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
#else
	ret = syscall(SYS_getppid);
#endif
	asm volatile("" : "+r"(ret) : : "memory");
	return ret + x;
}

/* Symbolize n user addresses of this process; true when `want` names one of them. */
static bool user_stack_has(struct kiln_syms *s, const uint64_t *ips, int n, const char *want,
			   struct kiln_frame *found)
{
	for (int i = 0; i < n; i++) {
		struct kiln_frame f;
		/* callers' addresses are return addresses: name the call before them */
		if (kiln_syms_user(s, getpid(), i ? ips[i] - 1 : ips[i], &f) == 0 && f.symbol &&
		    !strcmp(f.symbol, want)) {
			if (found)
				*found = f;
			return true;
		}
	}
	return false;
}

static void test_kallsyms(struct kiln_syms *s)
{
	const char *name = "schedule";
	uint64_t a = kallsyms_addr(name);
	if (!a) {
		name = "do_sys_openat2";
		a = kallsyms_addr(name);
	}
	if (!a) {
		printf("SKIP kallsyms: /proc/kallsyms shows no address for schedule or do_sys_openat2 "
		       "(kptr_restrict?)\n");
		return;
	}
	struct kiln_frame f;
	int err = kiln_syms_kernel(s, a + 4, &f);
	CHECK("kallsyms: a known symbol + 4", err == 0 && f.symbol && !strcmp(f.symbol, name) && f.offset == 4 &&
	      f.module && !strcmp(f.module, "kernel") && f.addr == a + 4,
	      "%s at 0x%llx: err %d, %s+0x%llx [%s]", name, (unsigned long long)a, err, f.symbol ? f.symbol : "(null)",
	      (unsigned long long)f.offset, f.module ? f.module : "(null)");
	char buf[256];
	char want[128];
	snprintf(want, sizeof(want), "%s+0x4 [kernel]", name);
	kiln_frame_format(&f, buf, sizeof(buf));
	CHECK("kallsyms: kiln_frame_format", !strcmp(buf, want), "'%s', not '%s'", buf, want);
	err = kiln_syms_kernel(s, a, &f);
	CHECK("kallsyms: the symbol's own address", err == 0 && f.offset == 0 && f.symbol && kallsyms_has(f.symbol),
	      "err %d, %s+0x%llx", err, f.symbol ? f.symbol : "(null)", (unsigned long long)f.offset);
	err = kiln_syms_kernel(s, 0x1000, &f);
	CHECK("kallsyms: below every symbol is -ENOENT", err == -ENOENT && !f.symbol, "err %d", err);
	err = kiln_syms_kernel(s, 0xffffffffffffff00ull, &f);
	CHECK("kallsyms: far past every symbol is -ENOENT", err == -ENOENT && !f.symbol, "err %d (%s)", err,
	      f.symbol ? f.symbol : "");
	struct kiln_frame unk = { .addr = 0x1234 };
	kiln_frame_format(&unk, buf, sizeof(buf));
	CHECK("format: an unknown address", !strcmp(buf, "0x1234"), "'%s'", buf);
}

/* The frames of a kernel stack: each named by kallsyms, and the system call path among them. */
static void test_kernel_stack(struct kiln_syms *s, struct kiln_map *stacks, uint32_t id)
{
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int n = kiln_stack_read(stacks, id, ips, KILN_STACK_MAX_DEPTH);
	CHECK("kernel stack: read", n >= 1, "kiln_stack_read(%u) = %d: %s", id, n, kiln_errmsg());
	int named = 0, syscall_path = 0;
	char bad[256] = "";
	for (int i = 0; i < n; i++) {
		struct kiln_frame f;
		int err = kiln_syms_kernel(s, i ? ips[i] - 1 : ips[i], &f);
		if (!err && f.symbol && kallsyms_has(f.symbol) && f.module && !strcmp(f.module, "kernel"))
			named++;
		else if (!bad[0])
			snprintf(bad, sizeof(bad), "#%d 0x%llx: err %d %s", i, (unsigned long long)ips[i], err,
				 f.symbol ? f.symbol : "");
		if (!err && f.symbol && strcasestr(f.symbol, "syscall"))
			syscall_path++;
	}
	CHECK("kernel stack: every frame is a kallsyms function", n >= 1 && named == n, "%d of %d; %s", named, n, bad);
	CHECK("kernel stack: the system call entry is on it", syscall_path > 0, "no frame of %d names *syscall*", n);
	/* the same stack into a smaller buffer: cut at max */
	uint64_t two[2];
	int m = kiln_stack_read(stacks, id, two, 2);
	CHECK("kernel stack: read into a short buffer", m == (n < 2 ? n : 2) && two[0] == ips[0], "%d", m);
}

static void test_user_stack(struct kiln_syms *s, struct kiln_map *stacks, uint32_t id)
{
	uint64_t ips[KILN_STACK_MAX_DEPTH];
	int n = kiln_stack_read(stacks, id, ips, KILN_STACK_MAX_DEPTH);
	CHECK("user stack: read", n >= 1, "kiln_stack_read(%u) = %d: %s", id, n, kiln_errmsg());
	if (n < 1)
		return;
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	struct kiln_frame f = { 0 };
	const char *preload = getenv("LD_PRELOAD");
	if (preload && strstr(preload, "vgpreload")) {
		printf("SKIP user stack: under valgrind the kernel walks valgrind's stack, not this program's\n");
		return;
	}
	bool leaf = user_stack_has(s, ips, n, "kiln_test_stack_leaf", &f);
	bool has_main = user_stack_has(s, ips, n, "main", NULL);
#if defined(__x86_64__)
	CHECK("user stack: this test's functions", leaf && has_main, "leaf %d, main %d in %d frames", leaf, has_main, n);
	CHECK("user stack: the innermost frame is the leaf, in this binary",
	      leaf && f.module && !strcmp(f.module, exe) && ends_with(f.file, "test_stack.c"),
	      "module %s, file %s", f.module ? f.module : "(null)", f.file ? f.file : "(null)");
#else
	CHECK("user stack: this test's functions", leaf || has_main, "leaf %d, main %d in %d frames", leaf, has_main, n);
#endif
}

/* A function whose symbol the Makefile renames to "kiln_hostile<ESC>[31m<LF>name": names from
 * binaries are printed, so the symbolizer hands them out escaped (lib/text.h). */
__attribute__((noinline, used)) int kiln_test_hostile_fn(int x)
{
	return x * 3 + 1;
}

static void test_hostile_names(struct kiln_syms *s)
{
	struct kiln_frame f;
	int err = kiln_syms_user(s, getpid(), (uint64_t)(uintptr_t)&kiln_test_hostile_fn, &f);
	CHECK("user: a symbol with control bytes is escaped", err == 0 && f.symbol &&
	      !strcmp(f.symbol, "kiln_hostile\\x1b[31m\\x0aname"), "err %d, '%s'", err, f.symbol ? f.symbol : "(null)");
	/* a mapped file whose path holds an escape sequence: its module name is escaped, the file
	 * itself still found */
	char dir[] = "/tmp/kiln-stack-XXXXXX", path[64];
	int fd = -1;
	void *m = MAP_FAILED;
	if (mkdtemp(dir)) {
		snprintf(path, sizeof(path), "%s/lib\x1b]0;x\x07.so", dir);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	}
	if (fd >= 0 && ftruncate(fd, 4096) == 0)
		m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	char want[96];
	snprintf(want, sizeof(want), "%s/lib\\x1b]0;x\\x07.so", dir);
	err = m == MAP_FAILED ? -1 : kiln_syms_user(s, getpid(), (uint64_t)(uintptr_t)m + 8, &f);
	CHECK("user: a mapped path with control bytes is escaped", err == 0 && f.module && !strcmp(f.module, want),
	      "err %d, module '%s', want '%s'", err, f.module ? f.module : "(null)", want);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	rmdir(dir);
}

static void test_user_syms(struct kiln_syms *s)
{
	struct kiln_frame f;
	uint64_t a = (uint64_t)(uintptr_t)&kiln_test_stack_leaf;
	int err = kiln_syms_user(s, getpid(), a, &f);
	CHECK("user: a function of this binary", err == 0 && f.symbol && !strcmp(f.symbol, "kiln_test_stack_leaf") &&
	      f.offset == 0, "err %d, %s+0x%llx", err, f.symbol ? f.symbol : "(null)", (unsigned long long)f.offset);
	CHECK("user: file:line from DWARF", ends_with(f.file, "test_stack.c") && f.line >= LEAF_LINE &&
	      f.line <= LEAF_LINE + 12, "%s:%d, want test_stack.c:%d or a line of its body", f.file ? f.file : "(null)", f.line, LEAF_LINE);
	char buf[256], want[64];
	snprintf(want, sizeof(want), "kiln_test_stack_leaf+0x0 (test_stack.c:%d)", f.line);
	kiln_frame_format(&f, buf, sizeof(buf));
	CHECK("user: kiln_frame_format", !strcmp(buf, want), "'%s', not '%s'", buf, want);
	err = kiln_syms_user(s, getpid(), a + 3, &f);
	CHECK("user: an address inside the function", err == 0 && f.symbol &&
	      !strcmp(f.symbol, "kiln_test_stack_leaf") && f.offset == 3, "err %d, %s+0x%llx", err,
	      f.symbol ? f.symbol : "(null)", (unsigned long long)f.offset);
	/* a shared library's function (libc is stripped: its .dynsym) */
	a = (uint64_t)(uintptr_t)&getppid;
	err = kiln_syms_user(s, getpid(), a, &f);
	CHECK("user: a libc function", err == 0 && f.symbol && strstr(f.symbol, "getppid") && f.module &&
	      strstr(f.module, "libc"), "err %d, %s [%s]", err, f.symbol ? f.symbol : "(null)",
	      f.module ? f.module : "(null)");
	/* the main thread's stack: a mapping, but no file (near its top: its start moves down as
	 * it grows, since the symbolizer read the maps) */
	uint64_t stack_top = 0;
	char *maps = slurp("/proc/self/maps");
	for (char *line = maps; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		if (!strncmp(strchrnul(line, '\n') - 7, "[stack]", 7)) {
			stack_top = strtoull(strchr(line, '-') + 1, NULL, 16);
			break;
		}
	free(maps);
	err = kiln_syms_user(s, getpid(), stack_top - 64, &f);
	CHECK("user: [stack] is known, unnamed", err == 0 && !f.symbol && f.module && !strcmp(f.module, "[stack]"),
	      "0x%llx: err %d, module %s", (unsigned long long)stack_top - 64, err, f.module ? f.module : "(null)");
	/* mapped after the symbolizer read the maps: read again */
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = 0;
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	void *late = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (fd >= 0)
		close(fd);
	err = late == MAP_FAILED ? -1 : kiln_syms_user(s, getpid(), (uint64_t)(uintptr_t)late + 16, &f);
	CHECK("user: a file mapped since the maps were read", err == 0 && f.module && !strcmp(f.module, exe),
	      "err %d, module %s", err, f.module ? f.module : "(null)");
	if (late != MAP_FAILED)
		munmap(late, 4096);
	err = kiln_syms_user(s, getpid(), 0x10, &f);
	CHECK("user: an unmapped address is -ENOENT", err == -ENOENT, "err %d", err);
	err = kiln_syms_user(s, 999999999, 0x400000, &f);
	CHECK("user: a pid that does not exist is -ESRCH", err == -ESRCH && strstr(kiln_errmsg(), "999999999"),
	      "err %d: %s", err, kiln_errmsg());
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ROOT"))
		src_root = getenv("ROOT");
	if (geteuid() != 0) {
		printf("FAIL test_stack: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	int fds_before = check_open_fds();
	kallsyms = slurp("/proc/kallsyms");
	CHECK("read /proc/kallsyms", kallsyms != NULL, "%s", strerror(errno));
	if (!kallsyms)
		return 1;

	struct kiln_syms *s = NULL;
	int err = kiln_syms_new(&s);
	CHECK("kiln_syms_new", err == 0 && s, "err %d", err);
	if (err)
		return 1;
	test_kallsyms(s);
	test_user_syms(s);
	test_hostile_names(s);

	/* a kiln program records both stacks of this process's getppid() calls */
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/tests/lib/obj-stack.lisp", src_root);
	struct kiln_object *obj = NULL;
	struct kiln_link *link = NULL;
	err = kiln_object_open(src, NULL, &obj);
	CHECK("stack program: open (compiled in memory)", err == 0, "%s: %s", src, kiln_errmsg());
	if (!err)
		err = kiln_object_load(obj);
	CHECK("stack program: load", err == 0, "%s\n%s", kiln_errmsg(), obj ? kiln_object_log(obj) : "");
	struct kiln_map *stacks = err ? NULL : kiln_object_find_map(obj, "stacks");
	struct kiln_map *ustacks = err ? NULL : kiln_object_find_map(obj, "ustacks");
	struct kiln_map *ids = err ? NULL : kiln_object_find_map(obj, "ids");
	uint32_t k;
	uint64_t v;
	if (stacks && ustacks && ids) {
		k = 3, v = (uint64_t)getpid();
		err = kiln_map_update(ids, &k, &v, BPF_ANY);
		if (!err)
			err = kiln_prog_attach(kiln_object_find_prog(obj, "stack-getppid"), NULL, &link);
		CHECK("stack program: attach on sys_enter_getppid", err == 0, "%s", kiln_errmsg());
	}
	if (link) {
		long want = getppid();    /* before: the last call's stacks are the ones kept */
		long r = kiln_test_stack_leaf(0);
		CHECK("getppid through the leaf", r == want, "%ld, not %ld", r, want);
		uint64_t kid = UINT64_MAX, uid = UINT64_MAX, pid = 0;
		k = 0, kiln_map_lookup(ids, &k, &kid);
		k = 1, kiln_map_lookup(ids, &k, &uid);
		k = 2, kiln_map_lookup(ids, &k, &pid);
		CHECK("stack program: recorded this process", pid == (uint64_t)getpid() && kid < 1024 && uid < 1024,
		      "pid %llu, kernel stack id %lld, user stack id %lld", (unsigned long long)pid, (long long)kid,
		      (long long)uid);
		if (kid < 1024)
			test_kernel_stack(s, stacks, (uint32_t)kid);
		if (uid < 1024)
			test_user_stack(s, ustacks, (uint32_t)uid);

		uint64_t ips[4];
		err = kiln_stack_read(stacks, 999999, ips, 4);
		CHECK("stack: an unknown id is -ENOENT", err == -ENOENT && strstr(kiln_errmsg(), "999999"),
		      "err %d: %s", err, kiln_errmsg());
		uint32_t empty = (uint32_t)(kid + 1) % 1024;   /* this process's calls have one kernel stack */
		err = kiln_stack_read(stacks, empty, ips, 4);
		CHECK("stack: an id with no stack is -ENOENT", err == -ENOENT, "id %u: err %d", empty, err);
		err = kiln_stack_read(ids, 0, ips, 4);
		CHECK("stack: an array map is -EINVAL", err == -EINVAL && strstr(kiln_errmsg(), "stack_trace"),
		      "err %d: %s", err, kiln_errmsg());
	}
	kiln_link_destroy(link);
	kiln_object_close(obj);
	kiln_syms_free(s);

	/* a second symbolizer, freed at once, and one never used */
	if (!kiln_syms_new(&s)) {
		struct kiln_frame f;
		kiln_syms_user(s, getpid(), (uint64_t)(uintptr_t)&main, &f);
		kiln_syms_free(s);
	}
	free(kallsyms);
	int fds_after = check_open_fds();
	CHECK("no fd leaked", fds_after == fds_before, "%d fds before, %d after", fds_before, fds_after);
	return CHECK_DONE();
}
