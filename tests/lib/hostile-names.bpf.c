/* hostile-names.bpf.c — hostile.sh's clang objects whose names would lead out of a directory:
 * a program (-DPROG_NAME) or map (-DMAP_NAME) whose ELF or BTF name, spelt with an __asm__
 * label, holds "/../", and a tracepoint program whose section (-DTP_SECTION) reaches out of
 * tracefs. Each defaults to a plain name. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifndef PROG_NAME
#define PROG_NAME "on_getppid"
#endif
#ifndef MAP_NAME
#define MAP_NAME "hits"
#endif
#ifndef TP_SECTION
#define TP_SECTION "tracepoint/syscalls/sys_enter_getppid"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits __asm__(MAP_NAME) SEC(".maps");

int on_getppid(void *ctx) __asm__(PROG_NAME);

SEC(TP_SECTION)
int on_getppid(void *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&hits, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
