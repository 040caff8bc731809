/* globals-twin.bpf.c — the clang twin of tests/globals/globals.lisp: the same global
 * variables in the same order (tests/suites/globals.sh compares the data sections' BTF and
 * what each program computes). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s16 s16;
typedef __s32 s32;

const volatile u32 limit = 100;
const volatile u8 mode = 0;
const volatile s32 offset = -5;
u64 counter = 0;
u32 last = 7;
s16 tiny = 0;
u32 seen[4] = {};

SEC("xdp")
int globals_xdp(struct xdp_md *ctx)
{
	u32 len = ctx->data_end - ctx->data;
	__sync_fetch_and_add(&counter, 1);
	tiny -= 1;
	last = len;
	seen[len & 3] = len;
	if (mode == 1)
		return limit + offset;
	return len > limit ? 1 : 2;
}

char _license[] SEC("license") = "GPL";
