/* decode.c — the cost of decoding one event record, for callgrind to count: an 8-field event
 * (pid, tid, seq, an ipv4_addr, a signed ret, a u64 ns, a u16 port, a 16-byte comm) made in
 * BTF here, one fixed record decoded N times by kiln_event_format, as text or JSON.
 * bench/decode.sh runs it under `valgrind --tool=callgrind --toggle-collect=kiln_event_format`
 * and prints instructions per record. Usage: decode text|json N. Exits 1 when a record does
 * not decode to what it should (so a count is of the right work). */
#include <kiln/kiln.h>
#include <bpf/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint32_t pid, tid, seq;
	uint8_t addr[4];
	int32_t ret;
	uint64_t ns;
	uint16_t port;
	char comm[16];
} __attribute__((aligned(8)));

static struct btf *make_btf(void)
{
	struct btf *btf = btf__new_empty();
	int u32 = btf__add_int(btf, "unsigned int", 4, 0);
	int s32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	int u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	int u16 = btf__add_int(btf, "short unsigned int", 2, 0);
	int ch = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	int ip = btf__add_typedef(btf, "ipv4_addr", u32);
	int comm = btf__add_array(btf, u32, ch, 16);
	btf__add_struct(btf, "ev8", sizeof(struct rec));
	btf__add_field(btf, "pid", u32, 8 * offsetof(struct rec, pid), 0);
	btf__add_field(btf, "tid", u32, 8 * offsetof(struct rec, tid), 0);
	btf__add_field(btf, "seq", u32, 8 * offsetof(struct rec, seq), 0);
	btf__add_field(btf, "addr", ip, 8 * offsetof(struct rec, addr), 0);
	btf__add_field(btf, "ret", s32, 8 * offsetof(struct rec, ret), 0);
	btf__add_field(btf, "ns", u64, 8 * offsetof(struct rec, ns), 0);
	btf__add_field(btf, "port", u16, 8 * offsetof(struct rec, port), 0);
	btf__add_field(btf, "comm", comm, 8 * offsetof(struct rec, comm), 0);
	return btf;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "text") && strcmp(argv[1], "json"))) {
		fprintf(stderr, "usage: decode text|json N\n");
		return 2;
	}
	bool json = !strcmp(argv[1], "json");
	long n = atol(argv[2]);
	struct btf *btf = make_btf();
	struct kiln_events *evs;
	const struct kiln_event *ev;
	if (kiln_events_from_btf(btf, &evs) || !(ev = kiln_events_find(evs, "ev8"))) {
		fprintf(stderr, "decode: %s\n", kiln_errmsg());
		return 1;
	}
	struct rec r = { .pid = 4242, .tid = 4243, .seq = 17, .addr = { 127, 0, 0, 1 }, .ret = -2,
			 .ns = 123456789012345ull, .port = 8080, .comm = "kiln-bench" };
	struct kiln_event_fmt fmt = { .sz = sizeof(fmt), .json = json, .cpu = -1 };
	const char *want = json ? "{\"event\":\"ev8\",\"pid\":4242,\"tid\":4243,\"seq\":17,\"addr\":\"127.0.0.1\","
				  "\"ret\":-2,\"ns\":123456789012345,\"port\":8080,\"comm\":\"kiln-bench\"}"
				: "ev8 pid=4242 tid=4243 seq=17 addr=127.0.0.1 ret=-2 ns=123456789012345 port=8080 "
				  "comm=kiln-bench";
	char buf[512];
	for (long i = 0; i < n; i++) {
		int len = kiln_event_format(ev, &r, sizeof(r), &fmt, buf, sizeof(buf));
		if (len < 0 || strcmp(buf, want)) {
			fprintf(stderr, "decode: got %s\n  want %s\n", buf, want);
			return 1;
		}
	}
	printf("%s\n", buf);
	kiln_events_free(evs);
	btf__free(btf);
	return 0;
}
