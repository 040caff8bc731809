/* twin.c — runs a kiln-compiled BPF object and its clang-compiled C twin side by side in the
 * kernel (BPF_PROG_TEST_RUN) and fails, saying exactly what differed, on any observable difference. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define MAX_INPUTS   256
#define DATA_OUT_MAX 16384          /* room for programs that grow the packet */
#define STATS_LOG_SZ (256 * 1024)
#define MAX_DIFFS    40             /* lines of detail; the verdict counts all of them */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: twin KILN.o CLANG.o [--input HEX]... [--ctx HEX]... [--no-default-inputs]\n"
		"            [--repeat N] [--stats] [-v]\n"
		"Loads both objects, runs every pair of same-named programs on the same inputs with\n"
		"BPF_PROG_TEST_RUN and compares return values, output packets and skb contexts after\n"
		"every run, then compares every pair of same-named maps entry by entry.\n"
		"  --input HEX          an extra packet (after the defaults), e.g. 0011aabb or 00:11:aa:bb\n"
		"  --ctx HEX            a context for raw_tracepoint programs (u64 args, little-endian)\n"
		"  --no-default-inputs  only the --input packets\n"
		"  --repeat N           run each input N times (default 1), comparing after each run\n"
		"  --stats              print STATS lines: instruction and verifier 'processed' counts\n"
		"  -v                   say what was run and compared (-vv: libbpf's debug log too)\n"
		"Default inputs: ipv4-tcp-syn, ipv4-udp-dns, ipv4-icmp-echo, ipv6-tcp-syn, arp-request,\n"
		"runt-10, ones-64, eth-only-14, ipv4-tcp-1500.\n"
		"Exit status: 0 identical, 1 a difference or a load/run failure, 2 bad usage.\n");
}

/* ---- options and diagnostics ---------------------------------------------------------------- */

struct buf { unsigned char *p; size_t n; const char *name; };

static struct {
	const char *path[2];
	struct buf inputs[MAX_INPUTS];
	int ninputs;
	struct buf ctxs[MAX_INPUTS];
	int nctxs;
	bool defaults;
	int repeat;
	bool stats;
	int verbose;                  /* 1: what was run; 2: libbpf's debug output too */
} opt = { .defaults = true, .repeat = 1 };

static const char *side_name[2] = { "kiln", "clang" };
static int ndiffs;

static void diff(const char *fmt, ...)
{
	va_list ap;

	if (++ndiffs > MAX_DIFFS) {
		if (ndiffs == MAX_DIFFS + 1)
			printf("  ... (more differences not shown)\n");
		return;
	}
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void verbose(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libbpf's warnings, kept so that a failed load can show the verifier's reasons. */
static char *liblog;
static size_t liblog_len, liblog_cap;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *line = NULL;
	int n;

	if (level == LIBBPF_DEBUG && opt.verbose < 2)
		return 0;
	/* One call can carry a whole verifier log: no fixed-size line buffer. */
	n = vasprintf(&line, fmt, ap);
	if (n < 0)
		return 0;
	if (opt.verbose)
		fputs(line, stderr);
	if (level != LIBBPF_DEBUG && liblog_len + n + 1 > liblog_cap) {
		size_t cap = liblog_cap ? liblog_cap * 2 : 65536;
		char *p;

		while (cap < liblog_len + n + 1)
			cap *= 2;
		p = realloc(liblog, cap);
		if (p) {
			liblog = p;
			liblog_cap = cap;
		}
	}
	if (level != LIBBPF_DEBUG && liblog_len + n + 1 <= liblog_cap) {
		memcpy(liblog + liblog_len, line, n);
		liblog_len += n;
		liblog[liblog_len] = 0;
	}
	free(line);
	return n;
}

static void hexstr(char *out, size_t outsz, const unsigned char *p, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 3 < outsz; i++)
		o += snprintf(out + o, outsz - o, "%02x", p[i]);
	if (i < n && outsz > 4)
		strcpy(out + (o < outsz - 4 ? o : outsz - 4), "...");
	else if (outsz)
		out[o < outsz ? o : outsz - 1] = 0;
}

static int parse_hex(const char *s, struct buf *b)
{
	size_t len = strlen(s), n = 0;
	int hi = -1;

	b->p = malloc(len / 2 + 1);
	if (!b->p)
		return -ENOMEM;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		int v;

		if (isspace((unsigned char)*s) || *s == ':' || *s == '-' || *s == '_')
			continue;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
		v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		if (hi < 0) {
			hi = v;
		} else {
			b->p[n++] = (unsigned char)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		return -EINVAL;
	b->n = n;
	return 0;
}

/* ---- the default packets -------------------------------------------------------------------- */

static const unsigned char mac_dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const unsigned char mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static void put16(unsigned char *p, unsigned v) { p[0] = v >> 8; p[1] = v & 0xff; }
static void put32(unsigned char *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v & 0xffff); }

static uint32_t csum_add(uint32_t sum, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static unsigned csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static size_t eth(unsigned char *p, const unsigned char *dst, unsigned type)
{
	memcpy(p, dst, 6);
	memcpy(p + 6, mac_src, 6);
	put16(p + 12, type);
	return 14;
}

/* An IPv4 header at p carrying l4len bytes of protocol proto; the L4 checksum is left to the caller. */
static size_t ipv4(unsigned char *p, unsigned proto, uint32_t src, uint32_t dst, size_t l4len)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, 20 + l4len);
	put16(p + 4, 0x1234);
	put16(p + 6, 0x4000);
	p[8] = 64;
	p[9] = proto;
	put32(p + 12, src);
	put32(p + 16, dst);
	put16(p + 10, csum_fold(csum_add(0, p, 20)));
	return 20;
}

static unsigned l4_csum4(const unsigned char *ip, const unsigned char *l4, size_t n, unsigned proto)
{
	uint32_t sum = csum_add(0, ip + 12, 8);

	sum += proto + n;
	return csum_fold(csum_add(sum, l4, n));
}

static size_t tcp(unsigned char *p, unsigned sport, unsigned dport, unsigned flags, size_t paylen)
{
	size_t i;

	memset(p, 0, 20);
	put16(p, sport);
	put16(p + 2, dport);
	put32(p + 4, 1);
	put32(p + 8, (flags & 0x10) ? 0x01020304 : 0);
	p[12] = 5 << 4;
	p[13] = flags;
	put16(p + 14, 65535);
	for (i = 0; i < paylen; i++)
		p[20 + i] = (unsigned char)(i * 7 + 3);
	return 20 + paylen;
}

static void add_input(const char *name, const unsigned char *p, size_t n)
{
	struct buf *b = &opt.inputs[opt.ninputs++];

	b->p = malloc(n ? n : 1);
	memcpy(b->p, p, n);
	b->n = n;
	b->name = name;
}

static void default_inputs(void)
{
	static const unsigned char bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned char pk[1600];
	size_t n, l4;
	unsigned char *ip, *t;
	const uint32_t a1 = 0x0a000001, a2 = 0x0a000002; /* 10.0.0.1, 10.0.0.2 */

	/* IPv4 TCP SYN 10.0.0.1:12345 -> 10.0.0.2:80 */
	n = eth(pk, mac_dst, 0x0800);
	ip = pk + n;
	t = ip + 20;
	l4 = tcp(t, 12345, 80, 0x02, 0);
	ipv4(ip, 6, a1, a2, l4);
	put16(t + 16, l4_csum4(ip, t, l4, 6));
	add_input("ipv4-tcp-syn", pk, n + 20 + l4);

	/* IPv4 UDP 10.0.0.1:5353 -> 10.0.0.53:53, a DNS query for example.com */
	{
		static const unsigned char dns[] = {
			0xab, 0xcd, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0x00, 0x01, 0x00, 0x01,
		};
		memset(pk, 0, sizeof(pk));
		n = eth(pk, mac_dst, 0x0800);
		ip = pk + n;
		t = ip + 20;
		l4 = 8 + sizeof(dns);
		put16(t, 5353);
		put16(t + 2, 53);
		put16(t + 4, l4);
		memcpy(t + 8, dns, sizeof(dns));
		ipv4(ip, 17, a1, 0x0a000035, l4);
		put16(t + 6, l4_csum4(ip, t, l4, 17));
		add_input("ipv4-udp-dns", pk, n + 20 + l4);
	}

	/* IPv4 ICMP echo request 10.0.0.1 -> 10.0.0.2, 32 bytes of payload */
	memset(pk, 0, sizeof(pk));
	n = eth(pk, mac_dst, 0x0800);
	ip = pk + n;
	t = ip + 20;
	l4 = 8 + 32;
	t[0] = 8;
	put16(t + 4, 0x0102);
	put16(t + 6, 1);
	for (size_t i = 0; i < 32; i++)
		t[8 + i] = (unsigned char)('a' + i % 23);
	put16(t + 2, csum_fold(csum_add(0, t, l4)));
	ipv4(ip, 1, a1, a2, l4);
	add_input("ipv4-icmp-echo", pk, n + 20 + l4);

	/* IPv6 TCP SYN [2001:db8::1]:40000 -> [2001:db8::2]:443 */
	memset(pk, 0, sizeof(pk));
	n = eth(pk, mac_dst, 0x86dd);
	ip = pk + n;
	ip[0] = 0x60;
	put16(ip + 4, 20);
	ip[6] = 6;
	ip[7] = 64;
	put32(ip + 8, 0x20010db8);
	ip[23] = 1;
	put32(ip + 24, 0x20010db8);
	ip[39] = 2;
	t = ip + 40;
	l4 = tcp(t, 40000, 443, 0x02, 0);
	{
		uint32_t sum = csum_add(0, ip + 8, 32) + 6 + l4;
		put16(t + 16, csum_fold(csum_add(sum, t, l4)));
	}
	add_input("ipv6-tcp-syn", pk, n + 40 + l4);

	/* ARP who-has 10.0.0.2 tell 10.0.0.1 */
	memset(pk, 0, sizeof(pk));
	n = eth(pk, bcast, 0x0806);
	put16(pk + n, 1);
	put16(pk + n + 2, 0x0800);
	pk[n + 4] = 6;
	pk[n + 5] = 4;
	put16(pk + n + 6, 1);
	memcpy(pk + n + 8, mac_src, 6);
	put32(pk + n + 14, a1);
	put32(pk + n + 24, a2);
	add_input("arp-request", pk, n + 28);

	/* Too short for an Ethernet header: the kernel refuses it for every program type, and
	 * both sides must be refused alike. */
	memset(pk, 0, sizeof(pk));
	memcpy(pk, mac_dst, 6);
	pk[6] = 0x02;
	add_input("runt-10", pk, 10);

	memset(pk, 0xff, 64);
	add_input("ones-64", pk, 64);

	/* An Ethernet header that promises IPv4 and carries nothing: the bounds checks' case. */
	n = eth(pk, mac_dst, 0x0800);
	add_input("eth-only-14", pk, n);

	/* A full-size IPv4 TCP segment (ACK|PSH) with a byte pattern payload */
	memset(pk, 0, sizeof(pk));
	n = eth(pk, mac_dst, 0x0800);
	ip = pk + n;
	t = ip + 20;
	l4 = tcp(t, 12345, 80, 0x18, 1500 - 14 - 20 - 20);
	ipv4(ip, 6, a1, a2, l4);
	put16(t + 16, l4_csum4(ip, t, l4, 6));
	add_input("ipv4-tcp-1500", pk, n + 20 + l4);
}

/* ---- loading ----------------------------------------------------------------------------------- */

struct side {
	struct bpf_object *obj;
	char *logs[64];                /* --stats: per-program verifier log (BPF_LOG_STATS) */
	struct bpf_program *progs[64];
	int nlogs;
	char pinned[64][32];           /* names of the maps that asked for pinning */
	int npinned;
};

static struct side sides[2];

static bool is_internal(const struct bpf_map *m)
{
	return bpf_map__is_internal(m) || bpf_map__name(m)[0] == '.';
}

static int open_side(int s, bool stats)
{
	struct side *sd = &sides[s];
	struct bpf_program *p;
	struct bpf_map *m;
	int err;

	sd->obj = bpf_object__open_file(opt.path[s], NULL);
	if (!sd->obj) {
		err = -errno;
		printf("cannot open %s object %s: %s\n", side_name[s], opt.path[s], strerror(-err));
		return err;
	}
	/* Maps pinned by name would be shared by the two objects (and left behind): the twins
	 * must each get their own, so pinning is recorded for comparison and then switched off. */
	bpf_object__for_each_map(m, sd->obj) {
		if (!bpf_map__pin_path(m))
			continue;
		if (sd->npinned < 64)
			snprintf(sd->pinned[sd->npinned++], sizeof(sd->pinned[0]), "%s", bpf_map__name(m));
		bpf_map__set_pin_path(m, NULL);
	}
	if (!stats)
		return 0;
	bpf_object__for_each_program(p, sd->obj) {
		if (sd->nlogs == 64)
			break;
		sd->logs[sd->nlogs] = calloc(1, STATS_LOG_SZ);
		sd->progs[sd->nlogs] = p;
		bpf_program__set_log_buf(p, sd->logs[sd->nlogs], STATS_LOG_SZ);
		bpf_program__set_log_level(p, 4 /* BPF_LOG_STATS */);
		sd->nlogs++;
	}
	return 0;
}

static void close_side(int s)
{
	struct side *sd = &sides[s];

	bpf_object__close(sd->obj);
	sd->obj = NULL;
	for (int i = 0; i < sd->nlogs; i++)
		free(sd->logs[i]);
	sd->nlogs = 0;
	sd->npinned = 0;
}

/* The verifier's reason is at the end of its log, which can be very long: show the tail. */
static void print_tail(const char *log, int lines)
{
	const char *p = log + strlen(log);
	int n = 0;

	while (p > log && n <= lines)
		if (*--p == '\n')
			n++;
	if (p > log) {
		printf("  ... (%s log truncated; -v shows all of it)\n", "libbpf");
		p++;
	}
	printf("%s", p);
}

static int load_side(int s)
{
	int err;

	if (open_side(s, opt.stats))
		return -1;
	liblog_len = 0;
	if (liblog)
		liblog[0] = 0;
	err = bpf_object__load(sides[s].obj);
	if (!err)
		return 0;
	printf("%s object %s does not load: %s\n", side_name[s], opt.path[s], strerror(-err));
	if (opt.stats) {
		/* A stats-level log says nothing about why: load again for the verifier's own words. */
		close_side(s);
		liblog_len = 0;
		if (open_side(s, false) == 0)
			bpf_object__load(sides[s].obj);
	}
	if (liblog_len)
		print_tail(liblog, 100);
	return -1;
}

static long processed(int s, const struct bpf_program *p)
{
	const char *q;

	for (int i = 0; i < sides[s].nlogs; i++) {
		if (sides[s].progs[i] != p)
			continue;
		q = strstr(sides[s].logs[i], "processed ");
		if (q)
			return strtol(q + 10, NULL, 10);
	}
	return -1;
}

/* ---- programs ---------------------------------------------------------------------------------- */

enum run_kind { RUN_NONE, RUN_PACKET, RUN_SKB, RUN_CTX };

static enum run_kind run_kind(enum bpf_prog_type t)
{
	switch (t) {
	case BPF_PROG_TYPE_XDP:
		return RUN_PACKET;
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT:
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT:
		return RUN_SKB;        /* also has a __sk_buff we can read back */
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return RUN_CTX;
	default:
		return RUN_NONE;
	}
}

struct result {
	int err;
	__u32 retval;
	unsigned char data[DATA_OUT_MAX];
	__u32 data_len;
	struct __sk_buff skb;
	__u32 skb_len;
};

static struct result res[2];

static void run_one(int s, int fd, enum run_kind kind, const struct buf *in)
{
	struct result *r = &res[s];
	LIBBPF_OPTS(bpf_test_run_opts, o);

	memset(r, 0, sizeof(*r));
	if (kind == RUN_CTX) {
		o.ctx_in = in->p;
		o.ctx_size_in = in->n;
	} else {
		o.data_in = in->p;
		o.data_size_in = in->n;
		o.data_out = r->data;
		o.data_size_out = sizeof(r->data);
		if (kind == RUN_SKB) {
			o.ctx_out = &r->skb;
			o.ctx_size_out = sizeof(r->skb);
		}
	}
	r->err = bpf_prog_test_run_opts(fd, &o) ? -errno : 0;
	r->retval = o.retval;
	r->data_len = o.data_size_out;
	r->skb_len = o.ctx_size_out;
}

/* Compare the two sides' last runs; returns true when they agree. */
static bool compare_run(const char *prog, int idx, const struct buf *in, int rep)
{
	const struct result *k = &res[0], *c = &res[1];
	char where[200];
	bool same = true;

	snprintf(where, sizeof(where), "program %s input %d (%s)", prog, idx, in->name);
	if (opt.repeat > 1)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), " run %d", rep + 1);
	if (k->err != c->err) {
		diff("%s: test-run result differs: kiln %s, clang %s", where,
		     k->err ? strerror(-k->err) : "ok", c->err ? strerror(-c->err) : "ok");
		return false;
	}
	if (k->err) {
		/* Expected for some default inputs (runts, skb programs and bare headers); for a
		 * test's own input it is a mistake in the test, so say so. */
		if (!strncmp(in->name, "--", 2) && rep == 0)
			fprintf(stderr, "twin: note: %s: the kernel refused the run for both: %s\n", where,
				strerror(-k->err));
		return true;
	}
	if (k->retval != c->retval) {
		diff("%s: retval kiln=%u (0x%x) clang=%u (0x%x)", where, k->retval, k->retval,
		     c->retval, c->retval);
		same = false;
	}
	if (k->data_len != c->data_len) {
		diff("%s: output packet length kiln=%u clang=%u", where, k->data_len, c->data_len);
		same = false;
	}
	for (__u32 i = 0; i < k->data_len && i < c->data_len; i++) {
		if (k->data[i] != c->data[i]) {
			char kh[40], ch[40];
			__u32 n = k->data_len - i < 8 ? k->data_len - i : 8;

			if (c->data_len - i < n)
				n = c->data_len - i;
			hexstr(kh, sizeof(kh), k->data + i, n);
			hexstr(ch, sizeof(ch), c->data + i, n);
			diff("%s: output packet differs at byte %u: kiln %s clang %s", where, i, kh, ch);
			same = false;
			break;
		}
	}
	if (k->skb_len != c->skb_len || memcmp(&k->skb, &c->skb, k->skb_len < sizeof(k->skb) ? k->skb_len : sizeof(k->skb))) {
		const unsigned char *kb = (const void *)&k->skb, *cb = (const void *)&c->skb;

		for (size_t i = 0; i < sizeof(k->skb); i++) {
			if (kb[i] != cb[i]) {
				diff("%s: __sk_buff after the run differs at offset %zu (mark kiln=%u clang=%u, "
				     "priority kiln=%u clang=%u, cb[0] kiln=%u clang=%u)", where, i,
				     k->skb.mark, c->skb.mark, k->skb.priority, c->skb.priority,
				     k->skb.cb[0], c->skb.cb[0]);
				break;
			}
		}
		same = false;
	}
	verbose("%s: retval %u, %u bytes out%s", where, k->retval, k->data_len, same ? "" : " (DIFFERS)");
	return same;
}

static int runs_done;

static void compare_programs(void)
{
	struct bpf_program *kp, *cp;

	bpf_object__for_each_program(kp, sides[0].obj) {
		const char *name = bpf_program__name(kp);
		enum bpf_prog_type type = bpf_program__type(kp);
		enum run_kind kind;
		int kfd, cfd;

		cp = bpf_object__find_program_by_name(sides[1].obj, name);
		if (!cp) {
			diff("program %s: in the kiln object only", name);
			continue;
		}
		if (type != bpf_program__type(cp)) {
			diff("program %s: type kiln=%d clang=%d", name, type, bpf_program__type(cp));
			continue;
		}
		if (bpf_program__expected_attach_type(kp) != bpf_program__expected_attach_type(cp))
			diff("program %s: expected attach type kiln=%d clang=%d", name,
			     bpf_program__expected_attach_type(kp), bpf_program__expected_attach_type(cp));
		if (strcmp(bpf_program__section_name(kp), bpf_program__section_name(cp)))
			verbose("program %s: section kiln \"%s\" clang \"%s\"", name,
				bpf_program__section_name(kp), bpf_program__section_name(cp));
		kfd = bpf_program__fd(kp);
		cfd = bpf_program__fd(cp);
		kind = run_kind(type);
		if (kind == RUN_NONE) {
			verbose("program %s: loaded; type %d cannot be test-run", name, type);
			continue;
		}
		if (kind == RUN_CTX) {
			for (int i = 0; i < opt.nctxs; i++) {
				for (int r = 0; r < opt.repeat; r++) {
					run_one(0, kfd, kind, &opt.ctxs[i]);
					run_one(1, cfd, kind, &opt.ctxs[i]);
					runs_done++;
					compare_run(name, i, &opt.ctxs[i], r);
				}
			}
			continue;
		}
		for (int i = 0; i < opt.ninputs; i++) {
			for (int r = 0; r < opt.repeat; r++) {
				run_one(0, kfd, kind, &opt.inputs[i]);
				run_one(1, cfd, kind, &opt.inputs[i]);
				runs_done++;
				compare_run(name, i, &opt.inputs[i], r);
			}
		}
	}
	bpf_object__for_each_program(cp, sides[1].obj) {
		if (!bpf_object__find_program_by_name(sides[0].obj, bpf_program__name(cp)))
			diff("program %s: in the clang object only", bpf_program__name(cp));
	}
}

/* ---- maps -------------------------------------------------------------------------------------- */

static bool is_percpu(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH || t == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
}

static bool is_arraylike(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static bool is_hashlike(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_HASH || t == BPF_MAP_TYPE_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_LRU_HASH || t == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_LPM_TRIE;
}

static void value_diff(const char *map, const void *key, size_t ksz, const unsigned char *kv,
		       const unsigned char *cv, size_t vsz, size_t stride, int ncpu)
{
	char kh[130], vh1[260], vh2[260];

	hexstr(kh, sizeof(kh), key, ksz);
	if (!stride) {
		hexstr(vh1, sizeof(vh1), kv, vsz);
		hexstr(vh2, sizeof(vh2), cv, vsz);
		diff("map %s key %s: value kiln %s clang %s", map, kh, vh1, vh2);
		return;
	}
	for (int c = 0; c < ncpu; c++) {
		if (!memcmp(kv + c * stride, cv + c * stride, vsz))
			continue;
		hexstr(vh1, sizeof(vh1), kv + c * stride, vsz);
		hexstr(vh2, sizeof(vh2), cv + c * stride, vsz);
		diff("map %s key %s cpu %d: value kiln %s clang %s", map, kh, c, vh1, vh2);
	}
}

static int entries_compared;

/* Every key of map `from` (side s) must be in the other side's map with the same value;
 * values are compared only on the first pass, presence on both. */
static void walk_keys(const char *name, int s, int fds[2], size_t ksz, size_t vsz, size_t stride,
		      int ncpu, __u32 max, bool compare_values)
{
	unsigned char *key = calloc(1, ksz), *next = calloc(1, ksz);
	size_t vbuf = stride ? stride * ncpu : vsz;
	unsigned char *v[2] = { calloc(1, vbuf), calloc(1, vbuf) };
	void *prev = NULL;
	__u64 guard = (__u64)max * 2 + 16;
	char kh[130];

	while (guard-- && bpf_map_get_next_key(fds[s], prev, next) == 0) {
		int e[2];

		memcpy(key, next, ksz);
		prev = key;
		e[s] = bpf_map_lookup_elem(fds[s], key, v[s]) ? -errno : 0;
		e[!s] = bpf_map_lookup_elem(fds[!s], key, v[!s]) ? -errno : 0;
		if (e[s])
			continue;               /* deleted (LRU) between next-key and lookup */
		if (e[!s]) {
			hexstr(kh, sizeof(kh), key, ksz);
			diff("map %s key %s: present in %s only", name, kh, side_name[s]);
			continue;
		}
		if (!compare_values)
			continue;
		entries_compared++;
		if (memcmp(v[0], v[1], vbuf))
			value_diff(name, key, ksz, v[0], v[1], vsz, stride, ncpu);
	}
	free(key);
	free(next);
	free(v[0]);
	free(v[1]);
}

static void compare_map(struct bpf_map *km, struct bpf_map *cm)
{
	const char *name = bpf_map__name(km);
	enum bpf_map_type t = bpf_map__type(km);
	size_t ksz = bpf_map__key_size(km), vsz = bpf_map__value_size(km), stride = 0;
	int ncpu = 1, fds[2] = { bpf_map__fd(km), bpf_map__fd(cm) };
	__u32 max = bpf_map__max_entries(km);

	if (t != bpf_map__type(cm) || ksz != bpf_map__key_size(cm) || vsz != bpf_map__value_size(cm) ||
	    max != bpf_map__max_entries(cm) || bpf_map__map_flags(km) != bpf_map__map_flags(cm)) {
		diff("map %s: definition differs: kiln type=%d key=%zu value=%zu max_entries=%u flags=%#x, "
		     "clang type=%d key=%u value=%u max_entries=%u flags=%#x", name, t, ksz, vsz, max,
		     bpf_map__map_flags(km), bpf_map__type(cm), bpf_map__key_size(cm),
		     bpf_map__value_size(cm), bpf_map__max_entries(cm), bpf_map__map_flags(cm));
		return;
	}
	if (is_percpu(t)) {
		ncpu = libbpf_num_possible_cpus();
		stride = (vsz + 7) & ~(size_t)7;
	}
	if (is_arraylike(t)) {
		size_t vbuf = stride ? stride * ncpu : vsz;
		unsigned char *v[2] = { calloc(1, vbuf), calloc(1, vbuf) };

		for (__u32 i = 0; i < max; i++) {
			int e0 = bpf_map_lookup_elem(fds[0], &i, v[0]) ? -errno : 0;
			int e1 = bpf_map_lookup_elem(fds[1], &i, v[1]) ? -errno : 0;

			entries_compared++;
			if (e0 || e1) {
				diff("map %s index %u: lookup kiln %s clang %s", name, i,
				     e0 ? strerror(-e0) : "ok", e1 ? strerror(-e1) : "ok");
				continue;
			}
			if (memcmp(v[0], v[1], vbuf))
				value_diff(name, &i, sizeof(i), v[0], v[1], vsz, stride, ncpu);
		}
		free(v[0]);
		free(v[1]);
		return;
	}
	if (is_hashlike(t)) {
		walk_keys(name, 0, fds, ksz, vsz, stride, ncpu, max, true);
		walk_keys(name, 1, fds, ksz, vsz, stride, ncpu, max, false);
		return;
	}
	if (t == BPF_MAP_TYPE_QUEUE || t == BPF_MAP_TYPE_STACK) {
		/* pop both to the end: the same elements in the same order */
		unsigned char *v[2] = { calloc(1, vsz + 1), calloc(1, vsz + 1) };
		for (__u32 i = 0; i <= max; i++) {
			int e0 = bpf_map_lookup_and_delete_elem(fds[0], NULL, v[0]) ? -errno : 0;
			int e1 = bpf_map_lookup_and_delete_elem(fds[1], NULL, v[1]) ? -errno : 0;

			entries_compared++;
			if (e0 != e1)
				diff("map %s element %u: pop kiln %s clang %s", name, i, e0 ? strerror(-e0) : "ok",
				     e1 ? strerror(-e1) : "ok");
			if (e0 || e1)
				break;
			if (memcmp(v[0], v[1], vsz))
				value_diff(name, &i, sizeof(i), v[0], v[1], vsz, 0, 1);
		}
		free(v[0]);
		free(v[1]);
		return;
	}
	/* ringbuf, prog/perf-event/cgroup arrays, stack traces, maps of maps: their contents are
	 * fds, ids or streams, not the program's results. */
	verbose("map %s: type %d, contents not compared", name, t);
}

static int maps_compared;

static bool pinned(int s, const char *name)
{
	for (int i = 0; i < sides[s].npinned; i++)
		if (!strcmp(sides[s].pinned[i], name))
			return true;
	return false;
}

static void compare_maps(void)
{
	struct bpf_map *km, *cm;

	bpf_object__for_each_map(km, sides[0].obj) {
		const char *name = bpf_map__name(km);

		if (is_internal(km)) {
			verbose("map %s: internal to libbpf in the kiln object", name);
			continue;
		}
		cm = bpf_object__find_map_by_name(sides[1].obj, name);
		if (!cm || is_internal(cm)) {
			diff("map %s: in the kiln object only", name);
			continue;
		}
		if (pinned(0, name) != pinned(1, name))
			diff("map %s: pinning kiln=%s clang=%s", name, pinned(0, name) ? "by-name" : "none",
			     pinned(1, name) ? "by-name" : "none");
		maps_compared++;
		compare_map(km, cm);
	}
	bpf_object__for_each_map(cm, sides[1].obj) {
		if (is_internal(cm)) {
			verbose("map %s: internal to libbpf in the clang object, ignored", bpf_map__name(cm));
			continue;
		}
		km = bpf_object__find_map_by_name(sides[0].obj, bpf_map__name(cm));
		if (!km || is_internal(km))
			diff("map %s: in the clang object only", bpf_map__name(cm));
	}
}

/* ---- main -------------------------------------------------------------------------------------- */

static void print_stats(void)
{
	struct bpf_program *kp, *cp;

	bpf_object__for_each_program(kp, sides[0].obj) {
		cp = bpf_object__find_program_by_name(sides[1].obj, bpf_program__name(kp));
		if (!cp)
			continue;
		printf("STATS %s kiln_insns=%zu clang_insns=%zu kiln_processed=%ld clang_processed=%ld\n",
		       bpf_program__name(kp), bpf_program__insn_cnt(kp), bpf_program__insn_cnt(cp),
		       processed(0, kp), processed(1, cp));
	}
}

/* Per-CPU maps must be compared slot by slot, so both programs must run on the same CPU. */
static void stay_on_one_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		cpu = 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		verbose("cannot pin to cpu %d: %s", cpu, strerror(errno));
}

int main(int argc, char **argv)
{
	int npaths = 0, rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--input") || !strcmp(a, "--ctx")) {
			bool ctx = !strcmp(a, "--ctx");
			struct buf *b;

			if (i + 1 >= argc || (ctx ? opt.nctxs : opt.ninputs) >= MAX_INPUTS - 16) {
				usage(stderr);
				return 2;
			}
			b = ctx ? &opt.ctxs[opt.nctxs++] : &opt.inputs[opt.ninputs++];
			if (parse_hex(argv[++i], b)) {
				fprintf(stderr, "twin: %s: not a hex string: %s\n", a, argv[i]);
				return 2;
			}
			b->name = ctx ? "--ctx" : "--input";
		} else if (!strcmp(a, "--no-default-inputs")) {
			opt.defaults = false;
		} else if (!strcmp(a, "--repeat")) {
			if (i + 1 >= argc || (opt.repeat = atoi(argv[++i])) < 1) {
				usage(stderr);
				return 2;
			}
		} else if (!strcmp(a, "--stats")) {
			opt.stats = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			opt.verbose++;
		} else if (!strcmp(a, "-vv")) {
			opt.verbose += 2;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "twin: unknown option %s\n", a);
			usage(stderr);
			return 2;
		} else if (npaths < 2) {
			opt.path[npaths++] = a;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (npaths != 2) {
		usage(stderr);
		return 2;
	}
	if (opt.defaults) {
		/* The defaults come first so that input indexes mean the same in every test. */
		struct buf extra[MAX_INPUTS];
		int n = opt.ninputs;

		memcpy(extra, opt.inputs, sizeof(extra[0]) * n);
		opt.ninputs = 0;
		default_inputs();
		for (int i = 0; i < n; i++)
			opt.inputs[opt.ninputs++] = extra[i];
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	stay_on_one_cpu();
	if (load_side(0) || load_side(1)) {
		close_side(0);
		close_side(1);
		return 1;
	}
	compare_programs();
	compare_maps();
	if (opt.stats)
		print_stats();
	close_side(0);
	close_side(1);
	if (ndiffs) {
		printf("twin: %d difference%s between %s and %s\n", ndiffs, ndiffs == 1 ? "" : "s",
		       opt.path[0], opt.path[1]);
		rc = 1;
	} else {
		printf("twin: identical: %d runs, %d maps (%d entries)\n", runs_done, maps_compared,
		       entries_compared);
		rc = 0;
	}
	free(liblog);
	return rc;
}
