// odd.c — shapes kiln sources do not make but clang objects carry, for `kiln gen` on a clang
// object (tests/suites/gen.sh): a union, bitfields, an enum, an anonymous struct and union
// member, a pointer, a packed struct inside an aligned one, a 2-D array, a float.
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

enum color { RED, GREEN = 7, BLUE = 300 };

struct tight {
	__u8 tag;
	__u64 wide;
	__u16 tail;
} __attribute__((packed));

union number {
	__u64 u;
	__s32 i;
	__u8 bytes[8];
};

struct odd {
	__u32 flags : 3, kind : 5, rest : 24;
	enum color color;
	union number n;
	struct {
		__s16 x, y;
	};
	union {
		__u32 word;
		__u16 halves[2];
	};
	__u8 pad_me;
	struct tight t;
	__u32 grid[2][3];
	void *ptr;
	float ratio;
	__s64 last;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct odd);
	__uint(max_entries, 1);
} odds SEC(".maps");

SEC("xdp")
int odd_prog(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct odd *o = bpf_map_lookup_elem(&odds, &k);
	if (o)
		o->last++;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
