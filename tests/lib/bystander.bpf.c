/* bystander.bpf.c — someone else's BPF programs, built by clang and loaded by libbpf
 * (tests/harness/bystander.c) while kiln's suite runs (tools/soak.sh): they count and send
 * records on the same tracepoints the suite uses, so a test that counts the machine's links,
 * programs or events instead of its own fails beside them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} bystander_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} bystander_ring SEC(".maps");

static void bump(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&bystander_counts, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int bystander_getppid(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	bump(0);
	bpf_ringbuf_output(&bystander_ring, &id, sizeof(id), 0);   /* nobody reads it: it fills */
	return 0;
}

SEC("raw_tracepoint/sys_enter")
int bystander_sys_enter(void *ctx)
{
	bump(1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
