// C twin of const-fold.lisp
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 24);
} folded SEC(".maps"), runtime SEC(".maps"), reduced SEC(".maps");

static __always_inline void set(void *map, __u32 k, __u64 v)
{
	bpf_map_update_elem(map, &k, &v, BPF_ANY);
}

#define M1 0xffffffffffffffffULL

SEC("xdp")
int const_fold(struct xdp_md *ctx)
{
	set(&folded, 0, M1 / 2);
	set(&folded, 1, M1 % 10);
	set(&folded, 2, (__u64)-8 >> 1);
	set(&folded, 3, (__u64)((__s64)-8 >> 1));
	set(&folded, 4, M1 < 1 ? 1 : 0);
	set(&folded, 5, -1LL < 1 ? 1 : 0);
	set(&folded, 6, 0xffffffffULL * 0xffffffffULL);
	set(&folded, 7, 0x7fffffffffffffffULL + 1);
	set(&folded, 8, 0 - 0x8000000000000000ULL);
	set(&folded, 9, M1 / 3);
	set(&folded, 10, (__u64)((__s64)0x8000000000000000ULL >> 63));
	set(&folded, 11, ~0ULL);
	set(&folded, 12, (__u64)(__s64)(__s8)0x80);
	set(&folded, 13, (__u8)M1);
	set(&folded, 14, __builtin_bswap16(0x1234));
	set(&folded, 15, __builtin_bswap64(0x0102030405060708ULL));
	set(&folded, 16, M1 ^ 0xff);
	set(&folded, 17, 5ULL - 10);
	set(&folded, 18, M1 * M1);
	set(&folded, 19, 7 % M1);
	set(&folded, 20, 0x8000000000000000ULL > 0x7fffffffffffffffULL ? 1 : 0);
	set(&folded, 21, (__s64)0x8000000000000000ULL > 0x7fffffffffffffffLL ? 1 : 0);
	set(&folded, 22, (__u64)(__s64)(__s32)0xffffffffU);
	set(&folded, 23, -(__u64)(__s64)(__s16)0x8000);

	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 64 > data_end)
		return XDP_PASS;
	__u64 m1 = *(__u64 *)data, two = *(__u64 *)(data + 8), h = *(__u64 *)(data + 16);
	__u64 lo = *(__u64 *)(data + 24), one = *(__u64 *)(data + 32);
	__u64 eight = *(__u64 *)(data + 40), three = *(__u64 *)(data + 48);
	__u64 mx = *(__u64 *)(data + 56);

#define UDIV(x, y) ((y) ? (x) / (y) : 0)
#define UMOD(x, y) ((y) ? (x) % (y) : (x))
	set(&runtime, 0, UDIV(m1, two));
	set(&runtime, 1, UMOD(m1, eight + two));
	set(&runtime, 2, (0 - eight) >> (one & 63));
	set(&runtime, 3, (__u64)((__s64)(0 - eight) >> (one & 63)));
	set(&runtime, 4, m1 < one ? 1 : 0);
	set(&runtime, 5, (__s64)m1 < (__s64)one ? 1 : 0);
	set(&runtime, 6, lo * lo);
	set(&runtime, 7, mx + one);
	set(&runtime, 8, 0 - h);
	set(&runtime, 9, UDIV(m1, three));
	set(&runtime, 10, (__u64)((__s64)h >> 63));
	set(&runtime, 11, ~(one - one));
	set(&runtime, 12, (__u64)(__s64)(__s8)(one << 7));
	set(&runtime, 13, (__u8)m1);
	set(&runtime, 14, __builtin_bswap16((__u16)(lo + 0x1235)));
	set(&runtime, 15, __builtin_bswap64(mx * three));
	set(&runtime, 16, m1 ^ (lo & 0xff));
	set(&runtime, 17, (three + two) - (eight + two));
	set(&runtime, 18, m1 * m1);
	set(&runtime, 19, UMOD(three + 4, m1));
	set(&runtime, 20, h > mx ? 1 : 0);
	set(&runtime, 21, (__s64)h > (__s64)mx ? 1 : 0);
	set(&runtime, 22, (__u64)(__s64)(__s32)lo);
	set(&runtime, 23, -(__u64)(__s64)(__s16)(one << 15));

	set(&reduced, 0, mx / 8);
	set(&reduced, 1, mx % 8);
	set(&reduced, 2, mx * 8);
	set(&reduced, 3, mx / 1);
	set(&reduced, 4, mx % 1);
	set(&reduced, 5, mx * 0);
	set(&reduced, 6, mx - mx);
	set(&reduced, 7, mx & 0);
	set(&reduced, 8, mx | M1);
	set(&reduced, 9, mx << 0);
	set(&reduced, 10, (__u64)((__s64)h >> 0));
	set(&reduced, 11, mx * M1);
	set(&reduced, 12, m1 / 0x8000000000000000ULL);
	set(&reduced, 13, mx % 0x8000000000000000ULL);
	set(&reduced, 14, lo * 0x100000000ULL);
	set(&reduced, 15, m1 / 0x100000000ULL);
	set(&reduced, 16, m1 % 0x100000000ULL);
	set(&reduced, 17, h / 2);
	set(&reduced, 18, three * 1024);
	set(&reduced, 19, mx + 0);
	set(&reduced, 20, mx ^ 0);
	set(&reduced, 21, h & M1);
	set(&reduced, 22, lo / 65536);
	set(&reduced, 23, lo % 65536);
	return (__u32)(mx * three);
}

char LICENSE[] SEC("license") = "GPL";
