// C twin of conn-events.lisp
#include <stddef.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct conn_event {
	__u64 timestamp;
	__u32 pid;
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 protocol;
	__u8 direction;
	__u8 padding[2];
	char comm[16];
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__uint(value_size, sizeof(struct conn_event));
	__uint(max_entries, 1);
} last_event SEC(".maps");

/* kiln counts the records with-event could not reserve in events_drops */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} events_drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} results SEC(".maps");

static __always_inline void set(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 d)
{
	__u64 *v = bpf_map_lookup_elem(&results, &k);

	if (v)
		__sync_fetch_and_add(v, d);
	else
		bpf_map_update_elem(&results, &k, &d, BPF_NOEXIST);
}

SEC("xdp")
int conn_events(struct xdp_md *ctx)
{
	set(0, sizeof(struct conn_event));
	set(1, offsetof(struct conn_event, pid));
	set(2, sizeof(((struct conn_event *)0)->comm));
	set(3, offsetof(struct conn_event, dport));
	set(4, offsetof(struct conn_event, comm));

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 38 > data_end)
		return XDP_PASS;
	if (*(__u16 *)(data + 12) != bpf_htons(0x0800))
		return XDP_PASS;

	__u8 *ip = data + 14;
	__u32 zero = 0;
	struct conn_event *e = bpf_map_lookup_elem(&last_event, &zero);

	if (e) {
		e->timestamp = e->timestamp + 1;
		e->pid = ctx->ingress_ifindex;
		e->saddr = *(__u32 *)(ip + 12);
		e->daddr = *(__u32 *)(ip + 16);
		e->sport = bpf_ntohs(*(__u16 *)(ip + 20));
		e->dport = bpf_ntohs(*(__u16 *)(ip + 22));
		e->protocol = ip[9];
		e->direction = 1;
		add(5, (__u64)e->sport + e->dport);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		e->pid = 7;
		e->saddr = *(__u32 *)(ip + 12);
		e->protocol = ip[9];
		add(6, 1);
		bpf_ringbuf_submit(e, 0);
	} else {
		__u32 zero = 0;
		__u64 *d = bpf_map_lookup_elem(&events_drops, &zero);
		if (d)
			__sync_fetch_and_add(d, 1);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
