/* targs-clang.bpf.c — clang's twin of tests/lib/targs.lisp's on-fork (test_targs.c loads both
 * and compares what they read): a tp_btf program reading sched_process_fork's task pointers
 * directly, as vmlinux.h (generated into the build directory) and preserve_access_index make
 * clang do. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} out SEC(".maps");

static void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&out, &k, &v, 0);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork_clang, struct task_struct *parent, struct task_struct *child)
{
	__u32 zero = 0;
	__u64 *want = bpf_map_lookup_elem(&cfg, &zero);
	if (!want || parent->tgid != *want)
		return 0;
	put(0, child->pid);
	put(1, child->tgid);
	put(2, child->real_parent->tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
