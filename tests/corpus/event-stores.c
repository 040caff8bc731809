// C twin of event-stores.lisp: seed 002's ConnectionEvent, packed, written field by field
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct ConnectionEvent {
	__u64 timestamp;
	__u32 pid, saddr, daddr;
	__u16 sport, dport;
	__u8 protocol, direction, padding[2];
	char comm[16];
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct ConnectionEvent);
	__uint(max_entries, 2);
} events SEC(".maps");

SEC("xdp")
int stores(struct xdp_md *ctx)
{
	__u64 len = (__u64)ctx->data_end - ctx->data;
	__u32 k0 = 0, k1 = 1;
	struct ConnectionEvent *e = bpf_map_lookup_elem(&events, &k0);

	if (e) {
		e->timestamp = len * 1000;
		e->pid = len + 7;
		e->protocol = 6;
		e->sport = len + 1;
		e->dport = 443;
		e->direction = 1;
		e->saddr = 0x0a000001;
	}
	e = bpf_map_lookup_elem(&events, &k1);
	if (e) {
		e->daddr = len;
		e->daddr = 0;
		__builtin_memset(e->comm, 0x41, sizeof(e->comm));
		__builtin_memset(e->comm, 0, sizeof(e->comm));
		e->dport = 80;
		e->protocol = 171;      /* set-u8-fields: the 1-byte :u8 fields */
		e->direction = 171;
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
