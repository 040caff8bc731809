/* testrun.c — `kiln test-run`: load an object (compiling a .lisp first), run its programs
 * with BPF_PROG_TEST_RUN on a packet, print the verdict and the maps. */
#include "cli.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char test_run_help[] =
	"usage: kiln test-run FILE.lisp|OBJ.o [--prog NAME] [--data HEX | --data-sample NAME]\n"
	"                     [--ctx HEX] [--repeat N] [--map NAME]... [--json]\n"
	"                     [--btf FILE] [--set NAME=VALUE]...\n"
	"\n"
	"Load the object, run each program (or only --prog) with BPF_PROG_TEST_RUN on a\n"
	"packet, and print its return value, the time per run and the maps (or only --map).\n"
	"--ctx gives the context struct in (e.g. a struct __sk_buff for tc programs).\n"
	"Samples: ipv4-tcp-syn (default), ipv4-udp, arp.\n"
	"--set NAME=VALUE (repeatable) sets a global variable (defparameter, defvar) before load.\n";

/* Ethernet + IPv4 + TCP SYN 10.0.0.1:12345 -> 10.0.0.2:80, and friends. */
static size_t sample_packet(const char *name, uint8_t *p, size_t cap)
{
	memset(p, 0, cap);
	static const uint8_t eth[] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1 };
	memcpy(p, eth, sizeof(eth));
	if (!strcmp(name, "arp")) {
		p[12] = 0x08, p[13] = 0x06;
		return 42;
	}
	bool udp = !strcmp(name, "ipv4-udp");
	if (!udp && strcmp(name, "ipv4-tcp-syn"))
		return 0;
	p[12] = 0x08, p[13] = 0x00;
	uint8_t *ip = p + 14;
	size_t l4 = udp ? 8 : 20;
	size_t tot = 20 + l4;
	ip[0] = 0x45, ip[2] = (uint8_t)(tot >> 8), ip[3] = (uint8_t)tot, ip[8] = 64, ip[9] = udp ? 17 : 6;
	ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8), ip[11] = (uint8_t)~sum;
	uint8_t *th = ip + 20;
	th[0] = 12345 >> 8, th[1] = 12345 & 0xff;
	th[2] = 0, th[3] = udp ? 53 : 80;
	if (udp) {
		th[5] = 8;
	} else {
		th[12] = 5 << 4, th[13] = 0x02, th[14] = 0xff, th[15] = 0xff;
	}
	size_t len = 14 + tot;
	return len < 60 ? 60 : len;
}

static int parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = 0;
	if (!strncmp(s, "0x", 2))
		s += 2;
	while (*s) {
		if (*s == ' ' || *s == ':') {
			s++;
			continue;
		}
		unsigned v;
		if (n >= cap || sscanf(s, "%2x", &v) != 1 || !s[1])
			return -1;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	*len = n;
	return 0;
}

static const char *verdict(enum bpf_prog_type t, uint32_t r)
{
	static const char *const xdp[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT" };
	if (t == BPF_PROG_TYPE_XDP && r < 5)
		return xdp[r];
	if (t == BPF_PROG_TYPE_SCHED_CLS)
		return r == 0 ? "TC_ACT_OK" : r == 2 ? "TC_ACT_SHOT" : r == (uint32_t)-1 ? "TC_ACT_UNSPEC" : "";
	return "";
}

int cmd_test_run(int argc, char **argv)
{
	const char *file = NULL, *prog_name = NULL, *data_hex = NULL, *ctx_hex = NULL, *sample = "ipv4-tcp-syn";
	const char *repeat_s = "1";
	struct cli_list maps = { .n = 0 };
	bool json = false;
	const struct cli_opt opts[] = {
		{ "--prog", CLI_STR, &prog_name, "a program name" }, { "--data", CLI_STR, &data_hex, "hex bytes" },
		{ "--ctx", CLI_STR, &ctx_hex, "hex bytes" }, { "--data-sample", CLI_STR, &sample, "a sample name" },
		{ "--repeat", CLI_STR, &repeat_s, "a count" }, { "--map", CLI_LIST, &maps, "a map name" },
		{ "--json", CLI_FLAG, &json, NULL }, { "--btf", CLI_STR, &cli_btf_path, "a BTF file" },
		{ "--set", CLI_LIST, &cli_sets, "NAME=VALUE" }, { 0 },
	};
	int npos, r = cli_parse("test-run", test_run_help, argc, argv, opts, &file, 1, &npos);
	if (r != CLI_OK)
		return r;
	char *end;
	long repeat = strtol(repeat_s, &end, 10);
	if (!file || *end || repeat < 1 || repeat > UINT32_MAX) {
		fputs(test_run_help, stderr);
		return 2;
	}
	uint8_t pkt[2048], ctx[1024];
	size_t len, ctx_len = 0;
	if (data_hex) {
		if (parse_hex(data_hex, pkt, sizeof(pkt), &len)) {
			fprintf(stderr, "kiln test-run: --data is not hex bytes\n");
			return 2;
		}
	} else if (!(len = sample_packet(sample, pkt, sizeof(pkt)))) {
		fprintf(stderr, "kiln test-run: unknown sample '%s'\n", sample);
		return 2;
	}
	if (ctx_hex && parse_hex(ctx_hex, ctx, sizeof(ctx), &ctx_len)) {
		fprintf(stderr, "kiln test-run: --ctx is not hex bytes\n");
		return 2;
	}

	struct kiln_object *obj;
	struct kiln_object_opts oo = { .sz = sizeof(oo) };
	if (cli_object_open("test-run", file, &oo, &obj))
		return 1;
	int rc = 1;
	if (cli_object_load("test-run", obj, file))
		goto out;
	bool ran = false;
	for (size_t i = 0; i < kiln_object_prog_count(obj); i++) {
		struct kiln_prog *p = kiln_object_prog(obj, i);
		if (prog_name && strcmp(prog_name, kiln_prog_name(p)))
			continue;
		uint8_t out_buf[4096], ctx_out[1024];
		struct kiln_test_run r = { .sz = sizeof(r), .data_in = pkt, .data_size_in = (uint32_t)len,
					   .data_out = out_buf, .data_size_out = sizeof(out_buf),
					   .repeat = (uint32_t)repeat };
		if (ctx_len) {
			r.ctx_in = ctx, r.ctx_size_in = (uint32_t)ctx_len;
			r.ctx_out = ctx_out, r.ctx_size_out = sizeof(ctx_out);
		}
		ran = true;
		if (kiln_prog_test_run(kiln_prog_fd(p), &r)) {
			cli_fail("test-run");
			goto out;
		}
		if (json) {
			printf("{\"prog\":");
			cli_json_str(stdout, kiln_prog_name(p), 256);
			printf(",\"retval\":%d,\"verdict\":\"%s\",\"duration_ns\":%u,\"repeat\":%ld,\"data_out\":\"0x",
			       (int)r.retval, verdict(kiln_prog_type(p), r.retval), r.duration, repeat);
			for (uint32_t k = 0; k < r.data_size_out && k < sizeof(out_buf); k++)
				printf("%02x", out_buf[k]);
			printf("\"}\n");
		} else {
			printf("prog %s: retval %d %s, %u ns per run over %ld run%s\n", kiln_prog_name(p), (int)r.retval,
			       verdict(kiln_prog_type(p), r.retval), r.duration, repeat, repeat == 1 ? "" : "s");
		}
	}
	if (!ran) {
		fprintf(stderr, "kiln test-run: no program %s%s\n", prog_name ? "named " : "", prog_name ? prog_name : "");
		goto out;
	}
	for (size_t i = 0; i < kiln_object_map_count(obj); i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		bool want = !maps.n;
		for (int k = 0; k < maps.n; k++)
			want |= !strcmp(maps.items[k], kiln_map_name(m));
		if (want && cli_map_print(stdout, m, json, false)) {
			cli_fail("test-run");
			goto out;
		}
	}
	rc = 0;
out:
	kiln_object_close(obj);
	return rc;
}
