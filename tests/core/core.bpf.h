/* core.bpf.h — what the clang twins of tests/core/ share: the `results` map (u32 index -> u64
 * value, the same indexes as the kiln program of the same name), the `target` config map
 * (index 0: the tgid to watch, index 1: a TCP port) and put(). vmlinux.h is generated at test
 * time into the build directory (bpftool btf dump file /sys/kernel/btf/vmlinux format c). */
#ifndef KILN_CORE_BPF_H
#define KILN_CORE_BPF_H
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define DONE 31            /* written last, with 1: the test waits for it */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32);
	__type(key, __u32);
	__type(value, __u64);
} results SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} target SEC(".maps");

static __always_inline void put(__u32 k, __u64 v)
{
	bpf_map_update_elem(&results, &k, &v, BPF_ANY);
}

static __always_inline __u32 target_cfg(__u32 k)
{
	__u32 *v = bpf_map_lookup_elem(&target, &k);
	return v ? *v : 0;
}

static __always_inline int is_target(void)
{
	return (__u32)(bpf_get_current_pid_tgid() >> 32) == target_cfg(0);
}

char LICENSE[] SEC("license") = "GPL";
#endif
