/* struct-ops-clang.bpf.c — clang's twin of tests/lib/struct-ops-cc.lisp's congestion control:
 * the same three operations in a SEC(".struct_ops") tcp_congestion_ops (tests/suites/
 * struct-ops.sh compares the objects' shapes and registers this one with kiln run, as any
 * clang object's struct_ops is). CC_NAME and OPS come from the command line: the run's own. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

static void count(__u32 slot)
{
	__u64 *n = bpf_map_lookup_elem(&calls, &slot);
	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("struct_ops/kcc_ssthresh")
__u32 BPF_PROG(kcc_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	count(1);
	return tp->snd_cwnd >> 1 > 2 ? tp->snd_cwnd >> 1 : 2;
}

SEC("struct_ops/kcc_cong_avoid")
void BPF_PROG(kcc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 cwnd = tp->snd_cwnd;
	count(0);
	if (cwnd < tp->snd_ssthresh) {
		tp->snd_cwnd = cwnd + acked < tp->snd_cwnd_clamp ? cwnd + acked : tp->snd_cwnd_clamp;
		return;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= cwnd) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd = cwnd + 1 < tp->snd_cwnd_clamp ? cwnd + 1 : tp->snd_cwnd_clamp;
	}
}

SEC("struct_ops/kcc_undo_cwnd")
__u32 BPF_PROG(kcc_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops OPS = {
	.ssthresh = (void *)kcc_ssthresh,
	.cong_avoid = (void *)kcc_cong_avoid,
	.undo_cwnd = (void *)kcc_undo_cwnd,
	.name = CC_NAME,
};
