/* globals-pin.bpf.c — unload.sh's clang object with global data: libbpf makes the maps
 * OBJ.rodata, OBJ.data and OBJ.bss of it, which bpffs cannot hold under those dotted names.
 * -DCLASH adds a map named glob_rodata, which glob.rodata would pin over. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile int x = 1;
int counter;
int seen = 3;

#ifdef CLASH
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} glob_rodata SEC(".maps");
#endif

SEC("tracepoint/syscalls/sys_enter_getppid")
int count_getppid(void *ctx)
{
	counter += x + seen;
#ifdef CLASH
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&glob_rodata, &k);
	if (v)
		*v += 1;
#endif
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
