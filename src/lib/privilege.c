/* privilege.c — whether this process may use bpf() to load programs, told plainly when not:
 * libbpf's own words for it ("Failed to bump RLIMIT_MEMLOCK") do not say. */
#include "kiln/error.h"
#include "fail.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int kiln_capabilities(uint64_t *set)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	if (syscall(SYS_capget, &h, d))
		return -errno;
	*set = (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
	return 0;
}

/* kernel.unprivileged_bpf_disabled: 0 lets users without CAP_BPF load socket filters. */
static bool unprivileged_bpf_allowed(void)
{
	char c = '1';
	int fd = open("/proc/sys/kernel/unprivileged_bpf_disabled", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '1';
		close(fd);
	}
	return c == '0';
}

int kiln_bpf_privileged(void)
{
	uint64_t caps;
	if (kiln_capabilities(&caps))
		return 0;           /* cannot tell: let bpf() decide */
	bool bpf = caps & (1ULL << CAP_BPF), admin = caps & (1ULL << CAP_SYS_ADMIN);
	if (bpf || admin || unprivileged_bpf_allowed())
		return 0;
	return kl_fail_msg(-EPERM, "this user lacks the privilege to use BPF: neither CAP_BPF nor "
			   "CAP_SYS_ADMIN is among the process's effective capabilities (run as root, or grant "
			   "CAP_BPF, with CAP_PERFMON for tracing and CAP_NET_ADMIN for xdp and tc programs)");
}
