/* tables.c — the rows behind tables.h: what kiln knows about the kernel, as data. Numbers come
 * from the uapi headers (offsetof, enum and macro names), never retyped by hand. */
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/pkt_cls.h>
#include "tables.h"
#include "nearest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ----------------------------------------------------------------------------- */

/* Sorted by id: tools/gen-helpers.sh writes helpers.inc in __BPF_FUNC_MAPPER order. */
static const struct kl_helper helpers[] = {
#include "helpers.inc"
	/* newer than the uapi header helpers.inc comes from (linux 6.1): linux 6.2's */
	{ "cgrp-storage-get", 210, true, 4, { KL_ARG_MAP, KL_ARG_PTR, KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "cgrp-storage-delete", 211, false, 2, { KL_ARG_MAP, KL_ARG_PTR } },
};

/* Other spellings users reach for. A leading "bpf-" is also accepted on any helper name. */
static const struct { const char *alias, *name; } helper_aliases[] = {
	{ "printk", "trace-printk" },                 /* libbpf's bpf_printk() */
	{ "smp-processor-id", "get-smp-processor-id" },
	{ "prandom-u32", "get-prandom-u32" },
};

/* Helpers whose rows are variadic (gen-helpers.sh marks them so in helpers.inc and says so
 * when it runs): how many of their arguments a call must give. */
static const struct { uint32_t id; uint8_t fixed; } helper_variadic[] = {
	{ BPF_FUNC_trace_printk, 2 },         /* fmt, fmt_size, then up to 3 values */
};

static const struct kl_helper *helper_by_name(const char *name)
{
	for (size_t i = 0; i < COUNT(helpers); i++)
		if (strcmp(helpers[i].name, name) == 0)
			return &helpers[i];
	return NULL;
}

const struct kl_helper *kl_helper_find(const char *name)
{
	const struct kl_helper *h;

	if (strncmp(name, "bpf-", 4) == 0)
		name += 4;
	if ((h = helper_by_name(name)))
		return h;
	for (size_t i = 0; i < COUNT(helper_aliases); i++)
		if (strcmp(helper_aliases[i].alias, name) == 0)
			return helper_by_name(helper_aliases[i].name);
	return NULL;
}

void kl_helper_names_near(struct kl_nearest *nb)
{
	for (size_t i = 0; i < COUNT(helpers); i++)
		kl_nearest_add(nb, helpers[i].name);
	for (size_t i = 0; i < COUNT(helper_aliases); i++)
		kl_nearest_add(nb, helper_aliases[i].alias);
}

const struct kl_helper *kl_helper_by_id(uint32_t id)
{
	size_t lo = 0, hi = COUNT(helpers);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (helpers[mid].id == id)
			return &helpers[mid];
		if (helpers[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint32_t kl_helper_count(void)
{
	return COUNT(helpers);
}

uint8_t kl_helper_min_args(const struct kl_helper *h)
{
	for (size_t i = 0; i < COUNT(helper_variadic); i++)
		if (helper_variadic[i].id == h->id)
			return helper_variadic[i].fixed;
	return h->nargs;
}

/* ---- program types ----------------------------------------------------------------------- */

/* The defprog :type rows of the program-type list (kfacts/prog_types.def, which says what
 * each field holds). */
#define SECTIONS(...) ((const char *const[]){ __VA_ARGS__, NULL })
static const struct kl_prog_type prog_types[] = {
#define KERNEL_PROG(constant, ...)
#define PROG_TYPE(kw, constant, ...) { .keyword = kw, .prog_type = constant, __VA_ARGS__ },
#define ATTACH_SECTION(pattern, ...)
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
};
#undef SECTIONS

const struct kl_prog_type *kl_prog_type_find(const char *keyword)
{
	for (size_t i = 0; i < COUNT(prog_types); i++)
		if (strcmp(prog_types[i].keyword, keyword) == 0)
			return &prog_types[i];
	return NULL;
}

/* A :section is only useful if libbpf, reading it back, picks the program type the user asked
 * for; otherwise the object loads as something else or not at all. So a section must match
 * one of its type's patterns, libbpf's section_defs entries for that type (the rows'
 * patterns). */
bool kl_prog_type_section_ok(const struct kl_prog_type *pt, const char *section)
{
	for (const char *const *p = pt->patterns; *p; p++)
		if (kl_section_matches(*p, section))
			return true;
	return false;
}

const struct kl_prog_type *kl_prog_type_resolve(const char *keyword, const char *section,
						bool *section_ok)
{
	const struct kl_prog_type *pt = kl_prog_type_find(keyword);

	*section_ok = true;
	if (!pt || !section)
		return pt;
	if (pt->alias_section && !strcmp(pt->alias_section, section))
		return kl_prog_type_find(pt->alias_as);
	/* Whistler declares uprobes :kprobe (the kernel's program type for both) with a uprobe
	 * section (ffi-call-tracker.lisp: "uprobe/ffi_call"): the section says which it is */
	if (!strcmp(keyword, "kprobe"))
		for (const char *const *u = (const char *const[]){ "uprobe", "uretprobe", NULL }; *u; u++)
			if (kl_prog_type_section_ok(kl_prog_type_find(*u), section))
				return kl_prog_type_find(*u);
	*section_ok = kl_prog_type_section_ok(pt, section);
	return pt;
}

const char *kl_prog_type_names(struct kl_arena *a)
{
	size_t len = 1;
	for (size_t i = 0; i < COUNT(prog_types); i++)
		len += strlen(prog_types[i].keyword) + 2;
	char *out = kl_arena_alloc(a, len), *p = out;
	*p = 0;
	for (size_t i = 0; i < COUNT(prog_types); i++) {
		if (p != out)
			*p++ = ' ';
		*p++ = ':';
		p = stpcpy(p, prog_types[i].keyword);
	}
	return out;
}

/* ---- context fields ---------------------------------------------------------------------- */

#define MEMBER_SIZE(type, member) sizeof(((type *)0)->member)
/* One row per field: offset and load size straight from the uapi struct. */
#define XDP(name, member, ptr) \
	{ "xdp_md", name, offsetof(struct xdp_md, member), \
	  MEMBER_SIZE(struct xdp_md, member), false, ptr }
#define SKB(name, member, wr, ptr) \
	{ "__sk_buff", name, offsetof(struct __sk_buff, member), \
	  MEMBER_SIZE(struct __sk_buff, member), wr, ptr }
#define FIELD(set, name, member, wr, ptr) \
	{ #set, name, offsetof(struct set, member), MEMBER_SIZE(struct set, member), wr, ptr }
#define LOOKUP(name, member, ptr)   FIELD(bpf_sk_lookup, name, member, false, ptr)
#define SOCK(name, member, wr)      FIELD(bpf_sock, name, member, wr, false)
#define ADDR(name, member, wr, ptr) FIELD(bpf_sock_addr, name, member, wr, ptr)
#define OPS(name, member, wr, ptr)  FIELD(bpf_sock_ops, name, member, wr, ptr)
#define PERF(name, member)          FIELD(bpf_perf_event_data, name, member, false, false)
#define REUSE(name, member, ptr)    FIELD(sk_reuseport_md, name, member, false, ptr)
#define MSG(name, member, ptr)      FIELD(sk_msg_md, name, member, false, ptr)
#define SOCKOPT(name, member, wr, ptr) FIELD(bpf_sockopt, name, member, wr, ptr)

/* Writable follows the kernel's tc rules (tc_cls_act_is_valid_access): mark, priority,
 * tc_index, tc_classid, queue_mapping, tstamp and cb[]. The same set serves socket-filter and
 * cgroup-skb, which allow less (socket filters may write only cb[], neither reads data or
 * tc_classid; only cgroup-skb and sk_skb read family..local_port); the verifier has the last
 * word there. flow_keys and sk are pointers to kernel objects kiln does not model. */
static const struct kl_ctx_field ctx_fields[] = {
	XDP("data",            data,            true),
	XDP("data-end",        data_end,        true),
	XDP("data-meta",       data_meta,       true),
	XDP("ingress-ifindex", ingress_ifindex, false),
	XDP("rx-queue-index",  rx_queue_index,  false),
	XDP("egress-ifindex",  egress_ifindex,  false),

	SKB("len",             len,             false, false),
	SKB("pkt-type",        pkt_type,        false, false),
	SKB("mark",            mark,            true,  false),
	SKB("queue-mapping",   queue_mapping,   true,  false),
	SKB("protocol",        protocol,        false, false),
	SKB("vlan-present",    vlan_present,    false, false),
	SKB("vlan-tci",        vlan_tci,        false, false),
	SKB("vlan-proto",      vlan_proto,      false, false),
	SKB("priority",        priority,        true,  false),
	SKB("ingress-ifindex", ingress_ifindex, false, false),
	SKB("ifindex",         ifindex,         false, false),
	SKB("tc-index",        tc_index,        true,  false),
	SKB("cb0",             cb[0],           true,  false),
	SKB("cb1",             cb[1],           true,  false),
	SKB("cb2",             cb[2],           true,  false),
	SKB("cb3",             cb[3],           true,  false),
	SKB("cb4",             cb[4],           true,  false),
	SKB("hash",            hash,            false, false),
	SKB("tc-classid",      tc_classid,      true,  false),
	SKB("data",            data,            false, true),
	SKB("data-end",        data_end,        false, true),
	SKB("napi-id",         napi_id,         false, false),
	SKB("family",          family,          false, false),
	SKB("remote-ip4",      remote_ip4,      false, false),
	SKB("local-ip4",       local_ip4,       false, false),
	SKB("remote-ip6-0",    remote_ip6[0],   false, false),
	SKB("remote-ip6-1",    remote_ip6[1],   false, false),
	SKB("remote-ip6-2",    remote_ip6[2],   false, false),
	SKB("remote-ip6-3",    remote_ip6[3],   false, false),
	SKB("local-ip6-0",     local_ip6[0],    false, false),
	SKB("local-ip6-1",     local_ip6[1],    false, false),
	SKB("local-ip6-2",     local_ip6[2],    false, false),
	SKB("local-ip6-3",     local_ip6[3],    false, false),
	SKB("remote-port",     remote_port,     false, false),
	SKB("local-port",      local_port,      false, false),
	SKB("data-meta",       data_meta,       false, true),
	SKB("tstamp",          tstamp,          true,  false),
	SKB("wire-len",        wire_len,        false, false),
	SKB("gso-segs",        gso_segs,        false, false),
	SKB("gso-size",        gso_size,        false, false),
	SKB("tstamp-type",     tstamp_type,     false, false), /* set with skb-set-tstamp */
	SKB("hwtstamp",        hwtstamp,        false, false),
	/* flow-dissector only: the struct bpf_flow_keys the program fills in (load/store it) */
	SKB("flow-keys",       flow_keys,       false, true),
	SKB("sk",              sk,              false, true),

	/* sk_lookup_is_valid_access: all read-only. sk is the socket already selected (or NULL);
	 * remote_port is a __be16 followed by padding, read as 2 bytes (a 4-byte load of it is
	 * also allowed, for old programs). */
	LOOKUP("sk",              sk,              true),
	LOOKUP("family",          family,          false),
	LOOKUP("protocol",        protocol,        false),
	LOOKUP("remote-ip4",      remote_ip4,      false),
	LOOKUP("remote-ip6-0",    remote_ip6[0],   false),
	LOOKUP("remote-ip6-1",    remote_ip6[1],   false),
	LOOKUP("remote-ip6-2",    remote_ip6[2],   false),
	LOOKUP("remote-ip6-3",    remote_ip6[3],   false),
	LOOKUP("remote-port",     remote_port,     false),
	LOOKUP("local-ip4",       local_ip4,       false),
	LOOKUP("local-ip6-0",     local_ip6[0],    false),
	LOOKUP("local-ip6-1",     local_ip6[1],    false),
	LOOKUP("local-ip6-2",     local_ip6[2],    false),
	LOOKUP("local-ip6-3",     local_ip6[3],    false),
	LOOKUP("local-port",      local_port,      false),
	LOOKUP("ingress-ifindex", ingress_ifindex, false),

	/* cgroup-sock (sock_filter_is_valid_access): bound_dev_if, mark and priority are
	 * readable and writable in sock_create/sock_release only, src_* readable in post_bind
	 * only; the verifier checks which section the program is in. */
	SOCK("bound-dev-if",     bound_dev_if,     true),
	SOCK("family",           family,           false),
	SOCK("type",             type,             false),
	SOCK("protocol",         protocol,         false),
	SOCK("mark",             mark,             true),
	SOCK("priority",         priority,         true),
	SOCK("src-ip4",          src_ip4,          false),
	SOCK("src-ip6-0",        src_ip6[0],       false),
	SOCK("src-ip6-1",        src_ip6[1],       false),
	SOCK("src-ip6-2",        src_ip6[2],       false),
	SOCK("src-ip6-3",        src_ip6[3],       false),
	SOCK("src-port",         src_port,         false),
	SOCK("dst-port",         dst_port,         false),
	SOCK("dst-ip4",          dst_ip4,          false),
	SOCK("dst-ip6-0",        dst_ip6[0],       false),
	SOCK("dst-ip6-1",        dst_ip6[1],       false),
	SOCK("dst-ip6-2",        dst_ip6[2],       false),
	SOCK("dst-ip6-3",        dst_ip6[3],       false),
	SOCK("state",            state,            false),
	SOCK("rx-queue-mapping", rx_queue_mapping, false),

	/* sock_addr_is_valid_access: the addresses and port can be rewritten (4-byte stores);
	 * user-ip4 exists for the *4 sections, user-ip6 for the *6 ones, msg-src-* for sendmsg
	 * only, which the verifier checks. */
	ADDR("user-family",   user_family,    false, false),
	ADDR("user-ip4",      user_ip4,       true,  false),
	ADDR("user-ip6-0",    user_ip6[0],    true,  false),
	ADDR("user-ip6-1",    user_ip6[1],    true,  false),
	ADDR("user-ip6-2",    user_ip6[2],    true,  false),
	ADDR("user-ip6-3",    user_ip6[3],    true,  false),
	ADDR("user-port",     user_port,      true,  false),
	ADDR("family",        family,         false, false),
	ADDR("type",          type,           false, false),
	ADDR("protocol",      protocol,       false, false),
	ADDR("msg-src-ip4",   msg_src_ip4,    true,  false),
	ADDR("msg-src-ip6-0", msg_src_ip6[0], true,  false),
	ADDR("msg-src-ip6-1", msg_src_ip6[1], true,  false),
	ADDR("msg-src-ip6-2", msg_src_ip6[2], true,  false),
	ADDR("msg-src-ip6-3", msg_src_ip6[3], true,  false),
	ADDR("sk",            sk,             false, true),

	/* sock_ops_is_valid_access: only reply (the first word of the args/reply union) and
	 * sk_txhash can be written. reply comes before args-0, its alias, so that a store by
	 * offset, (setf (ctx u32 4) v), finds the writable row. */
	OPS("op",                    op,                    false, false),
	OPS("reply",                 reply,                 true,  false),
	OPS("replylong-0",           replylong[0],          true,  false),
	OPS("replylong-1",           replylong[1],          false, false),
	OPS("replylong-2",           replylong[2],          false, false),
	OPS("replylong-3",           replylong[3],          false, false),
	OPS("args-0",                args[0],               false, false),
	OPS("args-1",                args[1],               false, false),
	OPS("args-2",                args[2],               false, false),
	OPS("args-3",                args[3],               false, false),
	OPS("family",                family,                false, false),
	OPS("remote-ip4",            remote_ip4,            false, false),
	OPS("local-ip4",             local_ip4,             false, false),
	OPS("remote-ip6-0",          remote_ip6[0],         false, false),
	OPS("remote-ip6-1",          remote_ip6[1],         false, false),
	OPS("remote-ip6-2",          remote_ip6[2],         false, false),
	OPS("remote-ip6-3",          remote_ip6[3],         false, false),
	OPS("local-ip6-0",           local_ip6[0],          false, false),
	OPS("local-ip6-1",           local_ip6[1],          false, false),
	OPS("local-ip6-2",           local_ip6[2],          false, false),
	OPS("local-ip6-3",           local_ip6[3],          false, false),
	OPS("remote-port",           remote_port,           false, false),
	OPS("local-port",            local_port,            false, false),
	OPS("is-fullsock",           is_fullsock,           false, false),
	OPS("snd-cwnd",              snd_cwnd,              false, false),
	OPS("srtt-us",               srtt_us,               false, false),
	OPS("bpf-sock-ops-cb-flags", bpf_sock_ops_cb_flags, false, false),
	OPS("state",                 state,                 false, false),
	OPS("rtt-min",               rtt_min,               false, false),
	OPS("snd-ssthresh",          snd_ssthresh,          false, false),
	OPS("rcv-nxt",               rcv_nxt,               false, false),
	OPS("snd-nxt",               snd_nxt,               false, false),
	OPS("snd-una",               snd_una,               false, false),
	OPS("mss-cache",             mss_cache,             false, false),
	OPS("ecn-flags",             ecn_flags,             false, false),
	OPS("rate-delivered",        rate_delivered,        false, false),
	OPS("rate-interval-us",      rate_interval_us,      false, false),
	OPS("packets-out",           packets_out,           false, false),
	OPS("retrans-out",           retrans_out,           false, false),
	OPS("total-retrans",         total_retrans,         false, false),
	OPS("segs-in",               segs_in,               false, false),
	OPS("data-segs-in",          data_segs_in,          false, false),
	OPS("segs-out",              segs_out,              false, false),
	OPS("data-segs-out",         data_segs_out,         false, false),
	OPS("lost-out",              lost_out,              false, false),
	OPS("sacked-out",            sacked_out,            false, false),
	OPS("sk-txhash",             sk_txhash,             true,  false),
	OPS("bytes-received",        bytes_received,        false, false),
	OPS("bytes-acked",           bytes_acked,           false, false),
	OPS("sk",                    sk,                    false, true),
	OPS("skb-data",              skb_data,              false, true),
	OPS("skb-data-end",          skb_data_end,          false, true),
	OPS("skb-len",               skb_len,               false, false),
	OPS("skb-tcp-flags",         skb_tcp_flags,         false, false),

	/* pe_prog_is_valid_access: read-only; regs is the user-visible pt_regs of the
	 * architecture, named here for x86-64 as the kernel names its members. */
	PERF("sample-period", sample_period),
	PERF("addr",          addr),
#if defined(__x86_64__)
	PERF("regs-r15",      regs.r15),
	PERF("regs-r14",      regs.r14),
	PERF("regs-r13",      regs.r13),
	PERF("regs-r12",      regs.r12),
	PERF("regs-bp",       regs.rbp),
	PERF("regs-bx",       regs.rbx),
	PERF("regs-r11",      regs.r11),
	PERF("regs-r10",      regs.r10),
	PERF("regs-r9",       regs.r9),
	PERF("regs-r8",       regs.r8),
	PERF("regs-ax",       regs.rax),
	PERF("regs-cx",       regs.rcx),
	PERF("regs-dx",       regs.rdx),
	PERF("regs-si",       regs.rsi),
	PERF("regs-di",       regs.rdi),
	PERF("regs-orig-ax",  regs.orig_rax),
	PERF("regs-ip",       regs.rip),
	PERF("regs-cs",       regs.cs),
	PERF("regs-flags",    regs.eflags),
	PERF("regs-sp",       regs.rsp),
	PERF("regs-ss",       regs.ss),

	/* sk_reuseport: data..data-end start at the UDP or TCP header; sk and migrating_sk are
	 * kernel sockets kiln does not model */
	REUSE("data",          data,         true),
	REUSE("data-end",      data_end,     true),
	REUSE("len",           len,          false),
	REUSE("eth-protocol",  eth_protocol, false),
	REUSE("ip-protocol",   ip_protocol,  false),
	REUSE("bind-inany",    bind_inany,   false),
	REUSE("hash",          hash,         false),
#endif

	/* sk_msg_is_valid_access: all read-only; data..data-end is the part of the message the
	 * program may read (msg-pull-data widens it), size the whole message's length */
	MSG("data",         data,          true),
	MSG("data-end",     data_end,      true),
	MSG("family",       family,        false),
	MSG("remote-ip4",   remote_ip4,    false),
	MSG("local-ip4",    local_ip4,     false),
	MSG("remote-ip6-0", remote_ip6[0], false),
	MSG("remote-ip6-1", remote_ip6[1], false),
	MSG("remote-ip6-2", remote_ip6[2], false),
	MSG("remote-ip6-3", remote_ip6[3], false),
	MSG("local-ip6-0",  local_ip6[0],  false),
	MSG("local-ip6-1",  local_ip6[1],  false),
	MSG("local-ip6-2",  local_ip6[2],  false),
	MSG("local-ip6-3",  local_ip6[3],  false),
	MSG("remote-port",  remote_port,   false),
	MSG("local-port",   local_port,    false),
	MSG("size",         size,          false),
	MSG("sk",           sk,            true),

	/* cgroup-device: access-type is (BPF_DEVCG_ACC_* << 16) | BPF_DEVCG_DEV_* */
	FIELD(bpf_cgroup_dev_ctx, "access-type", access_type, false, false),
	FIELD(bpf_cgroup_dev_ctx, "major",       major,       false, false),
	FIELD(bpf_cgroup_dev_ctx, "minor",       minor,       false, false),

	/* cgroup-sysctl: the name and values go through the sysctl-* helpers */
	FIELD(bpf_sysctl, "write",    write,    false, false),
	FIELD(bpf_sysctl, "file-pos", file_pos, true,  false),

	/* cgroup_sockopt_is_valid_access: optval..optval-end is the option's buffer; getsockopt
	 * may set retval and optlen, setsockopt level, optname and optlen */
	SOCKOPT("sk",         sk,         false, true),
	SOCKOPT("optval",     optval,     false, true),
	SOCKOPT("optval-end", optval_end, false, true),
	SOCKOPT("level",      level,      true,  false),
	SOCKOPT("optname",    optname,    true,  false),
	SOCKOPT("optlen",     optlen,     true,  false),
	SOCKOPT("retval",     retval,     true,  false),
};

const struct kl_ctx_field *kl_ctx_field_find(const char *set, const char *name)
{
	for (size_t i = 0; i < COUNT(ctx_fields); i++)
		if (strcmp(ctx_fields[i].set, set) == 0 && strcmp(ctx_fields[i].name, name) == 0)
			return &ctx_fields[i];
	return NULL;
}

/* ---- constants --------------------------------------------------------------------------- */

/* Spelled as in C, valued by the header that defines them. */
#define K(name) { #name, (int64_t)(name) }
static const struct { const char *name; int64_t value; } constants[] = {
	/* program return codes */
	K(XDP_ABORTED), K(XDP_DROP), K(XDP_PASS), K(XDP_TX), K(XDP_REDIRECT),
	K(TC_ACT_UNSPEC), K(TC_ACT_OK), K(TC_ACT_RECLASSIFY), K(TC_ACT_SHOT), K(TC_ACT_PIPE),
	K(TC_ACT_STOLEN), K(TC_ACT_QUEUED), K(TC_ACT_REPEAT), K(TC_ACT_REDIRECT), K(TC_ACT_TRAP),
	K(SK_DROP), K(SK_PASS),
	K(BPF_OK), K(BPF_DROP), K(BPF_REDIRECT), K(BPF_LWT_REROUTE), K(BPF_FLOW_DISSECTOR_CONTINUE),
	K(BPF_DEVCG_ACC_MKNOD), K(BPF_DEVCG_ACC_READ), K(BPF_DEVCG_ACC_WRITE),
	K(BPF_DEVCG_DEV_BLOCK), K(BPF_DEVCG_DEV_CHAR), K(BPF_F_SYSCTL_BASE_NAME),

	/* sock-ops: (ctx op), (ctx state), sock-ops-cb-flags-set */
	K(BPF_SOCK_OPS_VOID), K(BPF_SOCK_OPS_TIMEOUT_INIT), K(BPF_SOCK_OPS_RWND_INIT),
	K(BPF_SOCK_OPS_TCP_CONNECT_CB), K(BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB),
	K(BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB), K(BPF_SOCK_OPS_NEEDS_ECN),
	K(BPF_SOCK_OPS_BASE_RTT), K(BPF_SOCK_OPS_RTO_CB), K(BPF_SOCK_OPS_RETRANS_CB),
	K(BPF_SOCK_OPS_STATE_CB), K(BPF_SOCK_OPS_TCP_LISTEN_CB), K(BPF_SOCK_OPS_RTT_CB),
	K(BPF_SOCK_OPS_PARSE_HDR_OPT_CB), K(BPF_SOCK_OPS_HDR_OPT_LEN_CB),
	K(BPF_SOCK_OPS_WRITE_HDR_OPT_CB),
	K(BPF_SOCK_OPS_RTO_CB_FLAG), K(BPF_SOCK_OPS_RETRANS_CB_FLAG),
	K(BPF_SOCK_OPS_STATE_CB_FLAG), K(BPF_SOCK_OPS_RTT_CB_FLAG),
	K(BPF_SOCK_OPS_PARSE_ALL_HDR_OPT_CB_FLAG), K(BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG),
	K(BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG), K(BPF_SOCK_OPS_ALL_CB_FLAGS),
	K(BPF_TCP_ESTABLISHED), K(BPF_TCP_SYN_SENT), K(BPF_TCP_SYN_RECV), K(BPF_TCP_FIN_WAIT1),
	K(BPF_TCP_FIN_WAIT2), K(BPF_TCP_TIME_WAIT), K(BPF_TCP_CLOSE), K(BPF_TCP_CLOSE_WAIT),
	K(BPF_TCP_LAST_ACK), K(BPF_TCP_LISTEN), K(BPF_TCP_CLOSING), K(BPF_TCP_NEW_SYN_RECV),

	/* map-update-elem flags */
	K(BPF_ANY), K(BPF_NOEXIST), K(BPF_EXIST), K(BPF_F_LOCK),

	/* map creation flags (:flags) */
	K(BPF_F_NO_PREALLOC), K(BPF_F_NO_COMMON_LRU), K(BPF_F_NUMA_NODE), K(BPF_F_RDONLY),
	K(BPF_F_WRONLY), K(BPF_F_STACK_BUILD_ID), K(BPF_F_ZERO_SEED), K(BPF_F_RDONLY_PROG),
	K(BPF_F_WRONLY_PROG), K(BPF_F_CLONE), K(BPF_F_MMAPABLE), K(BPF_F_PRESERVE_ELEMS),
	K(BPF_F_INNER_MAP),

	/* perf-event-output, perf-event-read, skb-output */
	K(BPF_F_INDEX_MASK), K(BPF_F_CURRENT_CPU), K(BPF_F_CTXLEN_MASK),

	/* get-stackid, get-stack */
	K(BPF_F_SKIP_FIELD_MASK), K(BPF_F_USER_STACK), K(BPF_F_FAST_STACK_CMP),
	K(BPF_F_REUSE_STACKID), K(BPF_F_USER_BUILD_ID),

	/* ringbuf-output/-submit/-discard, ringbuf-query */
	K(BPF_RB_NO_WAKEUP), K(BPF_RB_FORCE_WAKEUP),
	K(BPF_RB_AVAIL_DATA), K(BPF_RB_RING_SIZE), K(BPF_RB_CONS_POS), K(BPF_RB_PROD_POS),

	/* redirect, redirect-map, clone-redirect */
	K(BPF_F_INGRESS), K(BPF_F_BROADCAST), K(BPF_F_EXCLUDE_INGRESS),

	/* skb-store-bytes, l3/l4-csum-replace, csum-level */
	K(BPF_F_RECOMPUTE_CSUM), K(BPF_F_INVALIDATE_HASH), K(BPF_F_HDR_FIELD_MASK),
	K(BPF_F_PSEUDO_HDR), K(BPF_F_MARK_MANGLED_0), K(BPF_F_MARK_ENFORCE),
	K(BPF_CSUM_LEVEL_QUERY), K(BPF_CSUM_LEVEL_INC), K(BPF_CSUM_LEVEL_DEC),
	K(BPF_CSUM_LEVEL_RESET),

	/* skb-adjust-room, skb-load-bytes-relative */
	K(BPF_ADJ_ROOM_NET), K(BPF_ADJ_ROOM_MAC),
	K(BPF_F_ADJ_ROOM_FIXED_GSO), K(BPF_F_ADJ_ROOM_ENCAP_L3_IPV4),
	K(BPF_F_ADJ_ROOM_ENCAP_L3_IPV6), K(BPF_F_ADJ_ROOM_ENCAP_L4_GRE),
	K(BPF_F_ADJ_ROOM_ENCAP_L4_UDP), K(BPF_F_ADJ_ROOM_NO_CSUM_RESET),
	K(BPF_F_ADJ_ROOM_ENCAP_L2_ETH),
	K(BPF_HDR_START_MAC), K(BPF_HDR_START_NET),

	/* skb-get/set-tunnel-key */
	K(BPF_F_TUNINFO_IPV6), K(BPF_F_ZERO_CSUM_TX), K(BPF_F_DONT_FRAGMENT), K(BPF_F_SEQ_NUMBER),

	/* sk-lookup-tcp/-udp, sk-assign */
	K(BPF_F_CURRENT_NETNS), K(BPF_SK_LOOKUP_F_REPLACE), K(BPF_SK_LOOKUP_F_NO_REUSEPORT),

	/* sk/task/inode-storage-get */
	K(BPF_LOCAL_STORAGE_GET_F_CREATE), K(BPF_SK_STORAGE_GET_F_CREATE),

	/* fib-lookup, check-mtu */
	K(BPF_FIB_LOOKUP_DIRECT), K(BPF_FIB_LOOKUP_OUTPUT),
	K(BPF_FIB_LKUP_RET_SUCCESS), K(BPF_FIB_LKUP_RET_BLACKHOLE),
	K(BPF_FIB_LKUP_RET_UNREACHABLE), K(BPF_FIB_LKUP_RET_PROHIBIT),
	K(BPF_FIB_LKUP_RET_NOT_FWDED), K(BPF_FIB_LKUP_RET_FWD_DISABLED),
	K(BPF_FIB_LKUP_RET_UNSUPP_LWT), K(BPF_FIB_LKUP_RET_NO_NEIGH),
	K(BPF_FIB_LKUP_RET_FRAG_NEEDED),
	K(BPF_MTU_CHK_SEGS), K(BPF_MTU_CHK_RET_SUCCESS), K(BPF_MTU_CHK_RET_FRAG_NEEDED),
	K(BPF_MTU_CHK_RET_SEGS_TOOBIG),

	/* read-branch-records */
	K(BPF_F_GET_BRANCH_RECORDS_SIZE),

	/* Ethernet */
	K(ETH_ALEN), K(ETH_HLEN), K(ETH_P_ALL), K(ETH_P_IP), K(ETH_P_IPV6), K(ETH_P_ARP),
	K(ETH_P_8021Q), K(ETH_P_8021AD), K(ETH_P_MPLS_UC), K(ETH_P_MPLS_MC), K(ETH_P_TEB),
	K(ETH_P_LLDP), K(ETH_P_PPP_SES),

	/* __sk_buff pkt-type */
	K(PACKET_HOST), K(PACKET_BROADCAST), K(PACKET_MULTICAST), K(PACKET_OTHERHOST),
	K(PACKET_OUTGOING),

	/* __sk_buff, bpf_sock, bpf_sock_addr family and type */
	K(AF_UNSPEC), K(AF_INET), K(AF_INET6), K(AF_UNIX),
	K(SOCK_STREAM), K(SOCK_DGRAM), K(SOCK_RAW),

	/* IP protocols and ICMP types */
	K(IPPROTO_IP), K(IPPROTO_ICMP), K(IPPROTO_IGMP), K(IPPROTO_IPIP), K(IPPROTO_TCP),
	K(IPPROTO_UDP), K(IPPROTO_IPV6), K(IPPROTO_GRE), K(IPPROTO_ESP), K(IPPROTO_AH),
	K(IPPROTO_ICMPV6), K(IPPROTO_SCTP), K(IPPROTO_UDPLITE), K(IPPROTO_MPLS), K(IPPROTO_RAW),
	K(ICMP_ECHOREPLY), K(ICMP_DEST_UNREACH), K(ICMP_ECHO), K(ICMP_TIME_EXCEEDED),
	K(ICMPV6_DEST_UNREACH), K(ICMPV6_PKT_TOOBIG), K(ICMPV6_TIME_EXCEED),
	K(ICMPV6_ECHO_REQUEST), K(ICMPV6_ECHO_REPLY),

	/* send-signal, send-signal-thread */
	K(SIGHUP), K(SIGINT), K(SIGKILL), K(SIGUSR1), K(SIGUSR2), K(SIGTERM), K(SIGSTOP),
	K(SIGCONT),
};
#undef K

/* XDP_PASS, xdp_pass, Xdp_Pass: as Common Lisp's reader would fold them, one name. */
bool kl_constant_find(const char *name, int64_t *value)
{
	for (size_t i = 0; i < COUNT(constants); i++)
		if (strcasecmp(constants[i].name, name) == 0) {
			*value = constants[i].value;
			return true;
		}
	return false;
}

const struct kl_ctx_field *kl_ctx_field_at(const char *set, uint16_t offset, uint8_t size)
{
	for (size_t i = 0; i < COUNT(ctx_fields); i++)
		if (!strcmp(ctx_fields[i].set, set) && ctx_fields[i].offset == offset && ctx_fields[i].size == size)
			return &ctx_fields[i];
	return NULL;
}

const char *kl_ctx_field_names(struct kl_arena *a, const char *set)
{
	size_t len = 1;
	for (size_t i = 0; i < COUNT(ctx_fields); i++)
		if (!strcmp(ctx_fields[i].set, set))
			len += strlen(ctx_fields[i].name) + 1;
	char *out = kl_arena_alloc(a, len), *p = out;
	*p = 0;
	for (size_t i = 0; i < COUNT(ctx_fields); i++)
		if (!strcmp(ctx_fields[i].set, set)) {
			if (p != out)
				*p++ = ' ';
			p = stpcpy(p, ctx_fields[i].name);
		}
	return out;
}
