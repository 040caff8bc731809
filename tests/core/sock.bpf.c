/* sock.bpf.c — clang twin of sock.lisp: the client side of the test's loopback TCP connect
 * (SYN_SENT -> ESTABLISHED with the destination port the test set in target[1]), its struct
 * sock read from the tracepoint's skaddr: members of sock_common inside anonymous structs. */
#include "core.bpf.h"

SEC("tracepoint/sock/inet_sock_set_state")
int core_sock(struct trace_event_raw_inet_sock_set_state *ctx)
{
	if (ctx->protocol != IPPROTO_TCP || ctx->oldstate != 2 /* TCP_SYN_SENT */ ||
	    ctx->newstate != 1 /* TCP_ESTABLISHED */ || ctx->dport != target_cfg(1))
		return 0;
	struct sock *sk = (void *)ctx->skaddr;
	put(0, BPF_CORE_READ(sk, __sk_common.skc_num));
	put(1, BPF_CORE_READ(sk, __sk_common.skc_dport));
	put(2, BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr));
	put(3, BPF_CORE_READ(sk, __sk_common.skc_daddr));
	put(4, BPF_CORE_READ(sk, __sk_common.skc_family));
	put(5, BPF_CORE_READ(sk, sk_peek_off));               /* int, -1: sign-extended */
	put(DONE, 1);
	return 0;
}
