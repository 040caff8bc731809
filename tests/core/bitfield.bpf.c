/* bitfield.bpf.c — clang twin of bitfield.lisp: bitfields of the test's client TCP socket
 * (the one sock.bpf.c watches), which the test set with setsockopt before connecting:
 * tcp_sock.nonagle (4 bits: TCP_NODELAY), thin_lto (TCP_THIN_LINEAR_TIMEOUTS), recvmsg_inq
 * (TCP_INQ), sock.sk_no_check_tx (SO_NO_CHECK), and neighbours left 0 (repair,
 * fastopen_connect), read as BPF_CORE_READ_BITFIELD_PROBED does. */
#include "core.bpf.h"

SEC("tracepoint/sock/inet_sock_set_state")
int core_bitfield(struct trace_event_raw_inet_sock_set_state *ctx)
{
	if (ctx->protocol != IPPROTO_TCP || ctx->oldstate != 2 || ctx->newstate != 1 ||
	    ctx->dport != target_cfg(1))
		return 0;
	struct tcp_sock *tp = (void *)ctx->skaddr;
	struct sock *sk = (void *)ctx->skaddr;
	put(0, BPF_CORE_READ_BITFIELD_PROBED(tp, nonagle));
	put(1, BPF_CORE_READ_BITFIELD_PROBED(tp, thin_lto));
	put(2, BPF_CORE_READ_BITFIELD_PROBED(tp, recvmsg_inq));
	put(3, BPF_CORE_READ_BITFIELD_PROBED(sk, sk_no_check_tx));
	put(4, BPF_CORE_READ_BITFIELD_PROBED(tp, repair));
	put(5, BPF_CORE_READ_BITFIELD_PROBED(tp, fastopen_connect));
	put(DONE, 1);
	return 0;
}
