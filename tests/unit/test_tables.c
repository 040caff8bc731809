/* test_tables.c — kiln's kernel tables against the uapi headers they describe: helper ids and
 * argument kinds, program and map types, context field offsets, constants. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include "compiler/tables.h"
#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *kind_name(enum kl_arg_kind k)
{
	static const char *const names[] = { "NONE", "SCALAR", "PTR", "MAP", "CTX" };
	return (unsigned)k < COUNT(names) ? names[k] : "?";
}

/* A helper's row, checked against what its uapi doc says. */
struct want_helper {
	const char *name;
	uint32_t id;
	bool ret_ptr;
	uint8_t nargs;
	enum kl_arg_kind args[5];
};

static const struct want_helper want_helpers[] = {
	{ "map-lookup-elem", BPF_FUNC_map_lookup_elem, true, 2, { KL_ARG_MAP, KL_ARG_PTR } },
	{ "map-update-elem", BPF_FUNC_map_update_elem, false, 4,
	  { KL_ARG_MAP, KL_ARG_PTR, KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "map-delete-elem", BPF_FUNC_map_delete_elem, false, 2, { KL_ARG_MAP, KL_ARG_PTR } },
	{ "ktime-get-ns", BPF_FUNC_ktime_get_ns, false, 0, { KL_ARG_NONE } },
	{ "get-current-pid-tgid", BPF_FUNC_get_current_pid_tgid, false, 0, { KL_ARG_NONE } },
	{ "get-current-comm", BPF_FUNC_get_current_comm, false, 2, { KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "perf-event-output", BPF_FUNC_perf_event_output, false, 5,
	  { KL_ARG_CTX, KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "tail-call", BPF_FUNC_tail_call, false, 3, { KL_ARG_CTX, KL_ARG_MAP, KL_ARG_SCALAR } },
	{ "ringbuf-reserve", BPF_FUNC_ringbuf_reserve, true, 3,
	  { KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	{ "ringbuf-submit", BPF_FUNC_ringbuf_submit, false, 2, { KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "ringbuf-output", BPF_FUNC_ringbuf_output, false, 4,
	  { KL_ARG_MAP, KL_ARG_PTR, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	{ "redirect-map", BPF_FUNC_redirect_map, false, 3,
	  { KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	{ "skb-load-bytes", BPF_FUNC_skb_load_bytes, false, 4,
	  { KL_ARG_CTX, KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "xdp-adjust-head", BPF_FUNC_xdp_adjust_head, false, 2, { KL_ARG_CTX, KL_ARG_SCALAR } },
	{ "get-stackid", BPF_FUNC_get_stackid, false, 3, { KL_ARG_CTX, KL_ARG_MAP, KL_ARG_SCALAR } },
	{ "get-local-storage", BPF_FUNC_get_local_storage, true, 2, { KL_ARG_MAP, KL_ARG_SCALAR } },
	{ "sk-lookup-tcp", BPF_FUNC_sk_lookup_tcp, true, 5,
	  { KL_ARG_CTX, KL_ARG_PTR, KL_ARG_SCALAR, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	/* the source address is any value to the verifier, so an integer */
	{ "probe-read-kernel", BPF_FUNC_probe_read_kernel, false, 3,
	  { KL_ARG_PTR, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	{ "probe-read-user-str", BPF_FUNC_probe_read_user_str, false, 3,
	  { KL_ARG_PTR, KL_ARG_SCALAR, KL_ARG_SCALAR } },
	/* a callback context in third place is not the program context */
	{ "user-ringbuf-drain", BPF_FUNC_user_ringbuf_drain, false, 4,
	  { KL_ARG_MAP, KL_ARG_PTR, KL_ARG_PTR, KL_ARG_SCALAR } },
	/* rows by hand: documented as void *ctx, really a BTF pointer */
	{ "skb-output", BPF_FUNC_skb_output, false, 5,
	  { KL_ARG_PTR, KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR } },
	{ "trace-printk", BPF_FUNC_trace_printk, false, 5,
	  { KL_ARG_PTR, KL_ARG_SCALAR, KL_ARG_SCALAR, KL_ARG_SCALAR, KL_ARG_SCALAR } },
};

static void check_helper_rows(void)
{
	char name[96];

	for (size_t i = 0; i < COUNT(want_helpers); i++) {
		const struct want_helper *w = &want_helpers[i];
		const struct kl_helper *h = kl_helper_find(w->name);

		snprintf(name, sizeof name, "helper %s", w->name);
		if (!h) {
			CHECK(name, false, "not found");
			continue;
		}
		bool args_ok = h->nargs == w->nargs;
		for (int a = 0; args_ok && a < w->nargs; a++)
			args_ok = h->args[a] == w->args[a];
		CHECK(name, h->id == w->id && h->ret_ptr == w->ret_ptr && args_ok,
		      "id %u ret_ptr %d nargs %u first arg %s (want id %u ret_ptr %d nargs %u %s)",
		      h->id, h->ret_ptr, h->nargs, kind_name(h->args[0]),
		      w->id, w->ret_ptr, w->nargs, kind_name(w->args[0]));
	}
}

/* Every helper the header declares, through the header's own list, against the enum (the
 * mapper writes the comma after each row). */
#define HELPER_ENUM_ROW(x) { #x, BPF_FUNC_##x }
static const struct { const char *c_name; uint32_t id; } enum_helpers[] = {
	__BPF_FUNC_MAPPER(HELPER_ENUM_ROW)
};

static void check_helper_enum(void)
{
	char kiln[96];
	int missing = 0, wrong = 0;
	const char *first_bad = "";

	for (size_t i = 0; i < COUNT(enum_helpers); i++) {
		if (enum_helpers[i].id == BPF_FUNC_unspec)
			continue;
		snprintf(kiln, sizeof kiln, "%s", enum_helpers[i].c_name);
		for (char *p = kiln; *p; p++)
			if (*p == '_')
				*p = '-';
		const struct kl_helper *h = kl_helper_find(kiln);
		const struct kl_helper *by_id = kl_helper_by_id(enum_helpers[i].id);
		if (!h || !by_id) {
			if (!missing++ && !wrong)
				first_bad = enum_helpers[i].c_name;
		} else if (h->id != enum_helpers[i].id || by_id != h || h->nargs > 5) {
			if (!wrong++ && !missing)
				first_bad = enum_helpers[i].c_name;
		}
	}
	CHECK("helper every BPF_FUNC_* found by name and id", missing == 0 && wrong == 0,
	      "%d missing, %d wrong, first %s", missing, wrong, first_bad);
	/* and the rows newer than the header (linux 6.1's): cgrp-storage-get/-delete, 6.2's */
	static const struct { const char *name; uint32_t id; } newer[] = {
		{ "cgrp-storage-get", 210 }, { "cgrp-storage-delete", 211 },
	};
	uint32_t next = __BPF_FUNC_MAX_ID;
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++) {
		const struct kl_helper *h = kl_helper_find(newer[i].name);
		CHECK("helper newer than the header, by name and id", h && h->id == newer[i].id &&
		      kl_helper_by_id(newer[i].id) == h && newer[i].id == next, "%s", newer[i].name);
		next++;
	}
	CHECK("helper count is __BPF_FUNC_MAX_ID - 1 and the newer rows",
	      kl_helper_count() == __BPF_FUNC_MAX_ID - 1 + sizeof(newer) / sizeof(newer[0]),
	      "%u rows, header has %d", kl_helper_count(), __BPF_FUNC_MAX_ID - 1);
	CHECK("helper by id 0 (unspec) is absent", kl_helper_by_id(0) == NULL, "found");
	CHECK("helper by id past the end is absent", kl_helper_by_id(next) == NULL, "found");
}

static void check_helper_names(void)
{
	const struct kl_helper *h = kl_helper_find("trace-printk");

	CHECK("helper printk alias", kl_helper_find("printk") == h && h, "not trace-printk");
	CHECK("helper bpf- prefix", kl_helper_find("bpf-map-lookup-elem") ==
	      kl_helper_find("map-lookup-elem"), "not map-lookup-elem");
	CHECK("helper C spelling is not a kiln name", kl_helper_find("map_lookup_elem") == NULL,
	      "found");
	CHECK("helper unknown", kl_helper_find("no-such-helper") == NULL, "found");
	CHECK("helper trace-printk needs 2", h && kl_helper_min_args(h) == 2 && h->nargs == 5,
	      "min %u max %u", h ? kl_helper_min_args(h) : 0, h ? h->nargs : 0);
	h = kl_helper_find("map-update-elem");
	CHECK("helper map-update-elem needs 4", h && kl_helper_min_args(h) == 4, "min %u",
	      h ? kl_helper_min_args(h) : 0);
}

static void check_prog_types(void)
{
	static const struct {
		const char *keyword;
		uint32_t type;
		const char *section;
		enum kl_ctx_btf ctx;
		const char *fields;
	} want[] = {
		{ "xdp", BPF_PROG_TYPE_XDP, "xdp", KL_CTX_XDP_MD, "xdp_md" },
		{ "tc", BPF_PROG_TYPE_SCHED_CLS, "tc", KL_CTX_SK_BUFF, "__sk_buff" },
		{ "socket-filter", BPF_PROG_TYPE_SOCKET_FILTER, "socket", KL_CTX_SK_BUFF,
		  "__sk_buff" },
		{ "cgroup-skb", BPF_PROG_TYPE_CGROUP_SKB, "cgroup_skb/ingress", KL_CTX_SK_BUFF,
		  "__sk_buff" },
		{ "tracepoint", BPF_PROG_TYPE_TRACEPOINT, NULL, KL_CTX_VOID, NULL },
		{ "raw-tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, KL_CTX_U64_ARRAY, NULL },
		{ "fentry", BPF_PROG_TYPE_TRACING, NULL, KL_CTX_U64_ARRAY, NULL },
		{ "fexit", BPF_PROG_TYPE_TRACING, NULL, KL_CTX_U64_ARRAY, NULL },
		{ "fmod-ret", BPF_PROG_TYPE_TRACING, NULL, KL_CTX_U64_ARRAY, NULL },
		{ "kprobe", BPF_PROG_TYPE_KPROBE, NULL, KL_CTX_PT_REGS, NULL },
		{ "uprobe", BPF_PROG_TYPE_KPROBE, "uprobe", KL_CTX_PT_REGS, NULL },
		{ "uretprobe", BPF_PROG_TYPE_KPROBE, "uretprobe", KL_CTX_PT_REGS, NULL },
		{ "perf-event", BPF_PROG_TYPE_PERF_EVENT, "perf_event", KL_CTX_VOID,
		  "bpf_perf_event_data" },
		{ "sk-lookup", BPF_PROG_TYPE_SK_LOOKUP, "sk_lookup", KL_CTX_VOID, "bpf_sk_lookup" },
		{ "cgroup-sock", BPF_PROG_TYPE_CGROUP_SOCK, "cgroup/sock", KL_CTX_VOID, "bpf_sock" },
		{ "cgroup-sock-addr", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, NULL, KL_CTX_VOID,
		  "bpf_sock_addr" },
		{ "sock-ops", BPF_PROG_TYPE_SOCK_OPS, "sockops", KL_CTX_VOID, "bpf_sock_ops" },
	};
	char name[96];

	for (size_t i = 0; i < COUNT(want); i++) {
		const struct kl_prog_type *pt = kl_prog_type_find(want[i].keyword);
		snprintf(name, sizeof name, "prog type %s", want[i].keyword);
		if (!pt) {
			CHECK(name, false, "not found");
			continue;
		}
		bool sec_ok = want[i].section ? pt->section && !strcmp(pt->section, want[i].section)
					      : !pt->section;
		bool fields_ok = want[i].fields ? pt->ctx_fields && !strcmp(pt->ctx_fields, want[i].fields)
						: !pt->ctx_fields;
		CHECK(name, pt->prog_type == want[i].type && sec_ok && pt->ctx == want[i].ctx &&
		      fields_ok && pt->section_prefix,
		      "type %u section %s ctx %d", pt->prog_type, pt->section ? pt->section : "NULL",
		      pt->ctx);
		/* A default section must satisfy its own type's rules, or no program would compile. */
		snprintf(name, sizeof name, "prog type %s default section is valid", want[i].keyword);
		CHECK(name, !pt->section || kl_prog_type_section_ok(pt, pt->section), "%s rejected",
		      pt->section);
		/* Its prefix pattern, completed with a target, too. */
		snprintf(name, sizeof name, "prog type %s prefix with a target is valid",
			 want[i].keyword);
		char sec[128];
		size_t n = strlen(pt->section_prefix);
		snprintf(sec, sizeof sec, "%s%sfoo", pt->section_prefix,
			 n && pt->section_prefix[n - 1] == '/' ? "" : "/");
		/* xdp/NAME is accepted: Whistler names tail-call targets so */
		bool want_ok = strcmp(want[i].keyword, "tc") &&
			       strcmp(want[i].keyword, "socket-filter") &&
			       strcmp(want[i].keyword, "cgroup-skb") &&
			       strcmp(want[i].keyword, "perf-event") &&
			       strcmp(want[i].keyword, "sk-lookup") &&
			       strcmp(want[i].keyword, "cgroup-sock") &&
			       strcmp(want[i].keyword, "cgroup-sock-addr") &&
			       strcmp(want[i].keyword, "sock-ops");
		CHECK(name, kl_prog_type_section_ok(pt, sec) == want_ok, "%s %s", sec,
		      want_ok ? "rejected" : "accepted");
	}
	CHECK("prog type unknown", kl_prog_type_find("no-such-type") == NULL, "found");

	static const struct { const char *keyword, *section; bool ok; } sections[] = {
		{ "tracepoint", "tracepoint/syscalls/sys_enter_openat", true },
		{ "tracepoint", "tp/sched/sched_switch", true },
		{ "tracepoint", "tracepoint/", false },          /* no target */
		{ "tracepoint", "tracepoint", false },
		{ "tracepoint", "kprobe/do_sys_open", false },   /* another type's section */
		{ "raw-tracepoint", "raw_tracepoint/sched_switch", true },
		{ "raw-tracepoint", "raw_tp/sched_switch", true },
		{ "raw-tracepoint", "raw_tp.w/sched_switch", false },
		{ "fentry", "fentry/tcp_connect", true },
		{ "fentry", "fexit/tcp_connect", false },
		{ "fexit", "fexit/tcp_connect", true },
		{ "kprobe", "kprobe/do_unlinkat", true },
		{ "kprobe", "kprobe", false },
		{ "kprobe", "kretprobe/do_unlinkat", false },
		{ "kretprobe", "kretprobe/do_unlinkat", true },
		{ "uprobe", "uprobe", true },
		{ "uprobe", "uprobe//bin/bash:readline", true },
		{ "uprobe", "uprobes", false },
		{ "uprobe", "uprobe/", false },
		{ "uretprobe", "uretprobe/libc.so.6:malloc", true },
		{ "xdp", "xdp", true },
		{ "xdp", "xdp.frags", true },
		{ "xdp", "xdp/devmap", true },
		{ "xdp", "xdp/ipv4", true },             /* Whistler's tail-call targets */
		{ "xdp", "xdp/", false },
		{ "xdp", "xdpfoo", false },
		{ "tc", "tc", true },
		{ "tc", "classifier", true },
		{ "tc", "tc/ingress", true },
		{ "tc", "tc/sideways", false },
		{ "cgroup-skb", "cgroup_skb/egress", true },
		{ "cgroup-skb", "cgroup/skb", true },
		{ "cgroup-skb", "cgroup_skb/sideways", false },
		{ "socket-filter", "socket", true },
		{ "socket-filter", "socket/1", false },
		{ "perf-event", "perf_event", true },
		{ "sk-lookup", "sk_lookup", true },
		{ "sk-lookup", "sk_lookup/x", false },
		{ "cgroup-sock", "cgroup/sock", true },
		{ "cgroup-sock", "cgroup/sock_release", true },
		{ "cgroup-sock", "cgroup/post_bind6", true },
		{ "cgroup-sock", "cgroup/connect4", false },
		{ "cgroup-sock", "sockops", false },             /* an alias, not its own section */
		{ "cgroup-sock-addr", "cgroup/connect4", true },
		{ "cgroup-sock-addr", "cgroup/getsockname6", true },
		{ "cgroup-sock-addr", "cgroup/sock", false },
		{ "cgroup-sock-addr", "cgroup/connect", false },
		{ "sock-ops", "sockops", true },
		{ "sock-ops", "sockops/x", false },
	};
	for (size_t i = 0; i < COUNT(sections); i++) {
		const struct kl_prog_type *pt = kl_prog_type_find(sections[i].keyword);
		snprintf(name, sizeof name, "section %s %s %s", sections[i].keyword,
			 sections[i].ok ? "accepts" : "rejects", sections[i].section);
		CHECK(name, pt && kl_prog_type_section_ok(pt, sections[i].section) == sections[i].ok,
		      "wrong answer");
	}

	/* What a defprog compiles as: Whistler's (:type :cgroup-sock :section "sockops") is a
	 * sock-ops program; any other pairing is the keyword's own type, suited or not. */
	static const struct { const char *keyword, *section, *as; bool ok; } resolve[] = {
		{ "cgroup-sock", "sockops", "sock-ops", true },
		{ "cgroup-sock", "cgroup/sock_create", "cgroup-sock", true },
		{ "cgroup-sock", NULL, "cgroup-sock", true },
		{ "cgroup-sock", "sk_lookup", "cgroup-sock", false },
		{ "sock-ops", "cgroup/sock", "sock-ops", false },
		{ "xdp", NULL, "xdp", true },
		{ "tc", "xdp", "tc", false },
		{ "no-such-type", "sockops", NULL, true },
	};
	for (size_t i = 0; i < COUNT(resolve); i++) {
		bool ok = !resolve[i].ok;
		const struct kl_prog_type *pt = kl_prog_type_resolve(resolve[i].keyword,
								     resolve[i].section, &ok);
		snprintf(name, sizeof name, "resolve :%s %s", resolve[i].keyword,
			 resolve[i].section ? resolve[i].section : "(no section)");
		bool as_ok = resolve[i].as ? pt && !strcmp(pt->keyword, resolve[i].as) : !pt;
		CHECK(name, as_ok && (!pt || ok == resolve[i].ok), "got %s, section %s",
		      pt ? pt->keyword : "NULL", ok ? "ok" : "refused");
	}
}

static void check_map_types(void)
{
	/* the compiler's columns of the map-type list (kfacts/map_types.def) */
	static const struct {
		const char *keyword;
		uint32_t map_type;
		bool sizes_only, no_key_value;
		uint8_t key_size, value_size;
		uint32_t required_flags;
		bool percpu, no_key;
	} want[] = {
		{ "hash", BPF_MAP_TYPE_HASH, false, false, 0, 0, 0, false, false },
		{ "array", BPF_MAP_TYPE_ARRAY, false, false, 4, 0, 0, false, false },
		{ "percpu-hash", BPF_MAP_TYPE_PERCPU_HASH, false, false, 0, 0, 0, true, false },
		{ "percpu-array", BPF_MAP_TYPE_PERCPU_ARRAY, false, false, 4, 0, 0, true, false },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF, false, true, 0, 0, 0, false, false },
		{ "prog-array", BPF_MAP_TYPE_PROG_ARRAY, true, false, 4, 4, 0, false, false },
		{ "lpm-trie", BPF_MAP_TYPE_LPM_TRIE, false, false, 0, 0, BPF_F_NO_PREALLOC, false, false },
		{ "lru-hash", BPF_MAP_TYPE_LRU_HASH, false, false, 0, 0, 0, false, false },
		{ "lru-percpu-hash", BPF_MAP_TYPE_LRU_PERCPU_HASH, false, false, 0, 0, 0, true, false },
		{ "stack-trace", BPF_MAP_TYPE_STACK_TRACE, true, false, 4, 0, 0, false, false },
		{ "perf-event-array", BPF_MAP_TYPE_PERF_EVENT_ARRAY, true, false, 4, 4, 0, false, false },
		{ "array-of-maps", BPF_MAP_TYPE_ARRAY_OF_MAPS, true, false, 4, 4, 0, false, false },
		{ "hash-of-maps", BPF_MAP_TYPE_HASH_OF_MAPS, true, false, 0, 4, 0, false, false },
		{ "cgroup-array", BPF_MAP_TYPE_CGROUP_ARRAY, true, false, 4, 4, 0, false, false },
		{ "queue", BPF_MAP_TYPE_QUEUE, false, false, 0, 0, 0, false, true },
		{ "stack", BPF_MAP_TYPE_STACK, false, false, 0, 0, 0, false, true },
		{ "bloom-filter", BPF_MAP_TYPE_BLOOM_FILTER, false, false, 0, 0, 0, false, true },
	};
	char name[96];

	for (size_t i = 0; i < COUNT(want); i++) {
		const struct kl_map_type *m = kl_map_type_find(want[i].keyword);
		snprintf(name, sizeof name, "map type %s", want[i].keyword);
		if (!m) {
			CHECK(name, false, "not found");
			continue;
		}
		CHECK(name, m->map_type == want[i].map_type && m->sizes_only == want[i].sizes_only &&
		      m->no_key_value == want[i].no_key_value && m->key_size == want[i].key_size &&
		      m->value_size == want[i].value_size &&
		      m->required_flags == want[i].required_flags && m->percpu == want[i].percpu &&
		      m->no_key == want[i].no_key,
		      "type %u sizes_only %d no_kv %d key %u value %u flags %#x percpu %d",
		      m->map_type, m->sizes_only, m->no_key_value, m->key_size, m->value_size,
		      m->required_flags, m->percpu);
		snprintf(name, sizeof name, "map type %s by id", want[i].keyword);
		CHECK(name, kl_map_type_by_id(want[i].map_type) == m, "another row");
	}
	CHECK("map type unknown", kl_map_type_find("no-such-map") == NULL, "found");
	CHECK("map type by unknown id", kl_map_type_by_id(BPF_MAP_TYPE_UNSPEC) == NULL, "found");
}

static void check_ctx_fields(void)
{
	/* Offsets are the uapi ABI; the numbers are what verifier messages quote. */
	static const struct {
		const char *set, *name;
		uint16_t offset;
		uint8_t size;
		bool writable, is_pointer;
	} want[] = {
		{ "xdp_md", "data", 0, 4, false, true },
		{ "xdp_md", "data-end", 4, 4, false, true },
		{ "xdp_md", "data-meta", 8, 4, false, true },
		{ "xdp_md", "ingress-ifindex", 12, 4, false, false },
		{ "xdp_md", "rx-queue-index", 16, 4, false, false },
		{ "xdp_md", "egress-ifindex", 20, 4, false, false },
		{ "__sk_buff", "len", 0, 4, false, false },
		{ "__sk_buff", "mark", 8, 4, true, false },
		{ "__sk_buff", "queue-mapping", 12, 4, true, false },
		{ "__sk_buff", "protocol", 16, 4, false, false },
		{ "__sk_buff", "priority", 32, 4, true, false },
		{ "__sk_buff", "ifindex", 40, 4, false, false },
		{ "__sk_buff", "tc-index", 44, 4, true, false },
		{ "__sk_buff", "cb0", 48, 4, true, false },
		{ "__sk_buff", "cb4", 64, 4, true, false },
		{ "__sk_buff", "hash", 68, 4, false, false },
		{ "__sk_buff", "tc-classid", 72, 4, true, false },
		{ "__sk_buff", "data", 76, 4, false, true },
		{ "__sk_buff", "data-end", 80, 4, false, true },
		{ "__sk_buff", "family", 88, 4, false, false },
		{ "__sk_buff", "remote-ip4", 92, 4, false, false },
		{ "__sk_buff", "remote-ip6-0", 100, 4, false, false },
		{ "__sk_buff", "local-ip6-3", 128, 4, false, false },
		{ "__sk_buff", "local-port", 136, 4, false, false },
		{ "__sk_buff", "data-meta", 140, 4, false, true },
		{ "__sk_buff", "tstamp", 152, 8, true, false },
		{ "__sk_buff", "wire-len", 160, 4, false, false },
		{ "__sk_buff", "gso-size", 176, 4, false, false },
		{ "__sk_buff", "hwtstamp", 184, 8, false, false },
		{ "bpf_sk_lookup", "sk", 0, 8, false, true },
		{ "bpf_sk_lookup", "family", 8, 4, false, false },
		{ "bpf_sk_lookup", "remote-port", 36, 2, false, false },
		{ "bpf_sk_lookup", "local-port", 60, 4, false, false },
		{ "bpf_sk_lookup", "ingress-ifindex", 64, 4, false, false },
		{ "bpf_sock", "bound-dev-if", 0, 4, true, false },
		{ "bpf_sock", "mark", 16, 4, true, false },
		{ "bpf_sock", "priority", 20, 4, true, false },
		{ "bpf_sock", "src-port", 44, 4, false, false },
		{ "bpf_sock", "dst-port", 48, 2, false, false },
		{ "bpf_sock", "rx-queue-mapping", 76, 4, false, false },
		{ "bpf_sock_addr", "user-family", 0, 4, false, false },
		{ "bpf_sock_addr", "user-ip4", 4, 4, true, false },
		{ "bpf_sock_addr", "user-ip6-3", 20, 4, true, false },
		{ "bpf_sock_addr", "user-port", 24, 4, true, false },
		{ "bpf_sock_addr", "protocol", 36, 4, false, false },
		{ "bpf_sock_addr", "msg-src-ip6-3", 56, 4, true, false },
		{ "bpf_sock_addr", "sk", 64, 8, false, true },
		{ "bpf_sock_ops", "op", 0, 4, false, false },
		{ "bpf_sock_ops", "reply", 4, 4, true, false },
		{ "bpf_sock_ops", "args-0", 4, 4, false, false },
		{ "bpf_sock_ops", "replylong-1", 8, 4, false, false },
		{ "bpf_sock_ops", "local-port", 68, 4, false, false },
		{ "bpf_sock_ops", "sk-txhash", 164, 4, true, false },
		{ "bpf_sock_ops", "bytes-acked", 176, 8, false, false },
		{ "bpf_sock_ops", "sk", 184, 8, false, true },
		{ "bpf_sock_ops", "skb-data", 192, 8, false, true },
		{ "bpf_sock_ops", "skb-tcp-flags", 212, 4, false, false },
		{ "bpf_perf_event_data", "sample-period", 168, 8, false, false },
		{ "bpf_perf_event_data", "addr", 176, 8, false, false },
#if defined(__x86_64__)
		{ "bpf_perf_event_data", "regs-ip", 128, 8, false, false },
#endif
	};
	char name[96];

	for (size_t i = 0; i < COUNT(want); i++) {
		const struct kl_ctx_field *f = kl_ctx_field_find(want[i].set, want[i].name);
		snprintf(name, sizeof name, "ctx %s %s", want[i].set, want[i].name);
		if (!f) {
			CHECK(name, false, "not found");
			continue;
		}
		CHECK(name, f->offset == want[i].offset && f->size == want[i].size &&
		      f->writable == want[i].writable && f->is_pointer == want[i].is_pointer,
		      "offset %u size %u writable %d pointer %d", f->offset, f->size, f->writable,
		      f->is_pointer);
	}
	CHECK("ctx sets are separate", kl_ctx_field_find("xdp_md", "mark") == NULL, "found");
	/* flow-dissector's keys and the socket: pointers the verifier types by program */
	const struct kl_ctx_field *fk = kl_ctx_field_find("__sk_buff", "flow-keys");
	CHECK("ctx flow-keys is a pointer", fk && fk->is_pointer && fk->size == 8 && !fk->writable, "not");
	const struct kl_ctx_field *sk = kl_ctx_field_find("__sk_buff", "sk");
	CHECK("ctx sk is a pointer", sk && sk->is_pointer && sk->size == 8, "not");

	/* Every field of a program type's set lies inside that struct. */
	const struct kl_ctx_field *f = kl_ctx_field_find("__sk_buff", "hwtstamp");
	CHECK("ctx __sk_buff last field ends the struct",
	      f && f->offset + f->size == sizeof(struct __sk_buff), "ends at %u of %zu",
	      f ? f->offset + f->size : 0, sizeof(struct __sk_buff));
	f = kl_ctx_field_find("xdp_md", "egress-ifindex");
	CHECK("ctx xdp_md last field ends the struct",
	      f && f->offset + f->size == sizeof(struct xdp_md), "ends at %u of %zu",
	      f ? f->offset + f->size : 0, sizeof(struct xdp_md));
	/* A store by offset finds the writable alias: reply, not args-0. */
	f = kl_ctx_field_at("bpf_sock_ops", 4, 4);
	CHECK("ctx bpf_sock_ops offset 4 is reply", f && !strcmp(f->name, "reply"), "%s",
	      f ? f->name : "NULL");
}

static void check_constants(void)
{
	static const struct { const char *name; int64_t value; } want[] = {
		{ "XDP_ABORTED", 0 }, { "XDP_DROP", 1 }, { "XDP_PASS", 2 }, { "XDP_TX", 3 },
		{ "XDP_REDIRECT", 4 },
		{ "TC_ACT_UNSPEC", -1 }, { "TC_ACT_OK", 0 }, { "TC_ACT_SHOT", 2 },
		{ "TC_ACT_REDIRECT", 7 },
		{ "BPF_ANY", 0 }, { "BPF_NOEXIST", 1 }, { "BPF_EXIST", 2 }, { "BPF_F_LOCK", 4 },
		{ "BPF_F_CURRENT_CPU", 0xffffffffLL }, { "BPF_F_INDEX_MASK", 0xffffffffLL },
		{ "BPF_F_NO_PREALLOC", 1 }, { "BPF_F_USER_STACK", 1 << 8 },
		{ "BPF_RB_NO_WAKEUP", 1 }, { "BPF_RB_FORCE_WAKEUP", 2 },
		{ "BPF_F_INGRESS", 1 }, { "SK_DROP", 0 }, { "SK_PASS", 1 },
		{ "ETH_P_IP", 0x0800 }, { "ETH_P_IPV6", 0x86DD }, { "ETH_P_ARP", 0x0806 },
		{ "ETH_P_8021Q", 0x8100 }, { "ETH_HLEN", 14 },
		{ "IPPROTO_ICMP", 1 }, { "IPPROTO_TCP", 6 }, { "IPPROTO_UDP", 17 },
		{ "IPPROTO_ICMPV6", 58 }, { "BPF_F_CURRENT_NETNS", -1 },
		{ "BPF_F_CTXLEN_MASK", 0xfffffLL << 32 }, { "SIGKILL", 9 },
		{ "BPF_SOCK_OPS_TCP_CONNECT_CB", 3 }, { "BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB", 4 },
		{ "BPF_SOCK_OPS_STATE_CB_FLAG", 4 }, { "BPF_TCP_LISTEN", 10 },
		{ "SOCK_STREAM", 1 }, { "SOCK_DGRAM", 2 }, { "AF_INET6", 10 },
	};
	char name[96];
	int64_t v;

	for (size_t i = 0; i < COUNT(want); i++) {
		snprintf(name, sizeof name, "constant %s", want[i].name);
		bool found = kl_constant_find(want[i].name, &v);
		CHECK(name, found && v == want[i].value, "%s %lld, want %lld",
		      found ? "value" : "missing", found ? (long long)v : 0LL,
		      (long long)want[i].value);
	}
	/* The same through the header's own names, where the test can see them. */
	CHECK("constant TC_ACT_STOLEN from pkt_cls.h",
	      kl_constant_find("TC_ACT_STOLEN", &v) && v == TC_ACT_STOLEN, "mismatch");
	CHECK("constant ETH_P_8021AD from if_ether.h",
	      kl_constant_find("ETH_P_8021AD", &v) && v == ETH_P_8021AD, "mismatch");
	CHECK("constant unknown", !kl_constant_find("XDP_MAYBE", &v), "found");
	/* names match without regard to case, as Common Lisp's reader folds them */
	v = -1;
	CHECK("constant xdp_pass is XDP_PASS", kl_constant_find("xdp_pass", &v) && v == XDP_PASS, "value %lld",
	      (long long)v);
	v = -1;
	CHECK("constant Tc_Act_Shot is TC_ACT_SHOT", kl_constant_find("Tc_Act_Shot", &v) && v == TC_ACT_SHOT,
	      "value %lld", (long long)v);
	CHECK("constant xdp_pass_ is unknown", !kl_constant_find("xdp_pass_", &v), "found");
}

int main(void)
{
	check_helper_rows();
	check_helper_enum();
	check_helper_names();
	check_prog_types();
	check_map_types();
	check_ctx_fields();
	check_constants();
	return CHECK_DONE();
}
