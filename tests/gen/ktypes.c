/* ktypes.c — maps valued by kernel structs (vmlinux.h, which tests/suites/gen-hostile.sh
 * writes from /sys/kernel/btf/vmlinux): real names that the generators must rename, such as
 * the typedefs bool, size_t and sigset_t that C's headers declare too, and
 * __call_single_node, which Python would mangle in a class body. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct task_struct);
	__uint(max_entries, 1);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct sk_buff);
	__uint(max_entries, 1);
} skbs SEC(".maps");

SEC("kprobe/do_nanosleep")
int nap(void *ctx)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&tasks, &k) && bpf_map_lookup_elem(&skbs, &k);
}

char LICENSE[] SEC("license") = "GPL";
