/* hostile-core.bpf.c — a clang object with CO-RE relocations (.BTF.ext core_relo records)
 * for test_hostile to corrupt; it is only opened, never loaded. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} core_seen SEC(".maps");

SEC("raw_tracepoint/sys_enter")
int core_read(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	__u32 k = 0;
	__u64 v = 0;
	bpf_probe_read_kernel(&v, sizeof(int), &t->tgid);
	bpf_map_update_elem(&core_seen, &k, &v, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
