/* hostile.c — an object for tests/suites/gen-hostile.sh whose every name is hostile. C cannot
 * spell most of them, so each is a placeholder H(NN) here (160 characters, all alike but for
 * NN) that tests/gen/hostile.py overwrites in the object with the hostile name the comment
 * gives (hostile.py's NAMES is the list; \/ in these comments stands for /): the same bytes then stand in the ELF symbols, the
 * section names and the BTF, as if a compiler had written them. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define PAD0 _placeholder_placeholder_placeholder_placeholder_placeholder_placeholder_
#define PAD1 placeholder_placeholder_placeholder_placeholder_placeholder_placeholder_placeh
#define CAT3(a, b, c, d) a##b##c##d
#define CAT(a, b, c, d) CAT3(a, b, c, d)
#define H(n) CAT(HOSTILE_##n, PAD0, PAD1, x)
#define STR2(x) #x
#define STR(x) STR2(x)

typedef unsigned int H(30);                  /* uint32_t */
enum H(31) { H(32) = 1, H(33) = 2 };         /* union { EINVAL, x*\/\ny } */

/* fields whose names collide, are keywords or special, or are no identifiers */
struct coll {
	__u32 H(02);          /* a$b       @0 */
	__u32 H(03);          /* a_b       @4 */
	__u16 H(04);          /* self      @8 */
	__u16 H(05);          /* class     @10 */
	__u32 H(06);          /* in        @12 */
	__u32 H(07);          /* func      @16 */
	__u32 H(08);          /* _pad0     @20 */
	__u32 H(09);          /* _fields_  @24 */
	__u64 H(10);          /* x*\/y      @32 */
	__u32 H(11);          /* n\nl      @40 */
	__u32 H(12);          /* \xff\xfe  @44 */
	__u32 H(13);          /* int       @48 */
	__u32 H(14);          /* errno     @52 */
	H(30) H(15);          /* EINVAL    @56 */
	enum H(31) H(16);     /* type      @60 */
	__u8 H(17)[3];        /* struct    @64 */
};

/* types named as keywords and built-in names of the languages */
struct H(18) { __u32 v; };                   /* class */
struct H(19) { __u32 v; };                   /* impl */
struct H(20) { __u32 v; };                   /* func */
struct H(21) { __u8 v, w; };                 /* u8 */
struct H(22) { __u32 v; };                   /* ctypes */
struct H(23) { __u32 v; };                   /* int */
struct H(24) { __u32 v; };                   /* Self */
struct H(25) { __u32 v; struct H(21) u; };   /* a$b (its u a u8) */
struct H(26) { __u64 v, w; };                /* a_b */
struct H(27) { __u32 v; };                   /* a Python line */
struct H(28) { __u32 v; };                   /* C code */
struct H(29) { __u32 v; };                   /* a Rust item */
struct H(35) { __u32 v; };                   /* q*\/\n\xff */

/* an anonymous member whose field would hide one of the struct's own, and one that would not */
struct promo {
	__u32 H(36);                  /* x */
	struct { __u32 x, y; };       /* @4 */
	union { __u32 z; __u16 h; };  /* @12 */
};

struct holder {
	struct H(18) a; struct H(19) b; struct H(20) c; struct H(21) d; struct H(22) e;
	struct H(23) f; struct H(24) g; struct H(25) h; struct H(26) i; struct H(35) j;
	struct promo k;
};

#define MAP(name, vt) \
	struct { __uint(type, BPF_MAP_TYPE_ARRAY); __type(key, __u32); __type(value, vt); \
		 __uint(max_entries, 1); } name SEC(".maps")
MAP(H(40), struct coll);        /* C code in a string literal */
MAP(H(44), struct holder);      /* Python code in a dict key */
MAP(H(41), struct H(27));       /* a$b */
MAP(H(42), struct H(28));       /* a_b */
MAP(plain, struct H(29));

SEC("kprobe/" STR(H(50)))       /* C code after a comment's end */
int H(51)(void *ctx)            /* C code in a string literal */
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&H(40), &k) && bpf_map_lookup_elem(&H(44), &k) &&
	       bpf_map_lookup_elem(&H(41), &k) && bpf_map_lookup_elem(&H(42), &k) &&
	       bpf_map_lookup_elem(&plain, &k);
}

SEC("kprobe/" STR(H(52)))       /* a\nb*\/c */
int H(53)(void *ctx)            /* p2\"\n*\/ */
{
	return 0;
}

SEC("kprobe/f")
int H(54)(void *ctx)            /* p3\xff\xfe */
{
	return 0;
}

SEC("kprobe/g")
int H(55)(void *ctx)            /* int */
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
