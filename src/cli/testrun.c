/* testrun.c — `kiln test-run`: load an object (compiling a .lisp first), run its programs
 * with BPF_PROG_TEST_RUN on a packet, print the verdict and the maps. */
#include "cli.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char test_run_help[] =
	"usage: kiln test-run FILE.lisp|OBJ.o [--prog NAME] [--data HEX | --data-sample NAME]\n"
	"                     [--repeat N] [--map NAME]...\n"
	"\n"
	"Load the object, run each program (or only --prog) with BPF_PROG_TEST_RUN on a\n"
	"packet, and print its return value, the time per run and the maps (or only --map).\n"
	"Samples: ipv4-tcp-syn (default), ipv4-udp, arp.\n";

static char libbpf_log[16384];
static size_t libbpf_log_len;

static int capture(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || libbpf_log_len >= sizeof(libbpf_log) - 1)
		return 0;
	int n = vsnprintf(libbpf_log + libbpf_log_len, sizeof(libbpf_log) - libbpf_log_len, fmt, ap);
	if (n > 0)
		libbpf_log_len += (size_t)n;
	if (libbpf_log_len >= sizeof(libbpf_log))
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return 0;
}

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

static void print_bytes(const uint8_t *p, size_t n)
{
	if (n <= 8) {
		uint64_t v = 0;
		memcpy(&v, p, n);
		printf("%llu", (unsigned long long)v);
		return;
	}
	printf("0x");
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void dump_map(struct bpf_map *m)
{
	enum bpf_map_type t = bpf_map__type(m);
	int fd = bpf_map__fd(m);
	uint32_t ks = bpf_map__key_size(m), vs = bpf_map__value_size(m);
	bool percpu = t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH ||
		      t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
	printf("map %s:\n", bpf_map__name(m));
	if (t == BPF_MAP_TYPE_RINGBUF || t == BPF_MAP_TYPE_PROG_ARRAY || t == BPF_MAP_TYPE_PERF_EVENT_ARRAY ||
	    t == BPF_MAP_TYPE_STACK_TRACE || !ks) {
		printf("  (not listed: %s map)\n", libbpf_bpf_map_type_str(t));
		return;
	}
	int ncpu = percpu ? libbpf_num_possible_cpus() : 1;
	size_t stride = percpu ? (vs + 7) / 8 * 8 : vs;
	uint8_t *key = calloc(1, ks), *next = calloc(1, ks), *val = calloc((size_t)ncpu, stride);
	bool first = true, any = false;
	while (key && next && val && !bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		first = false;
		memcpy(key, next, ks);
		if (bpf_map_lookup_elem(fd, key, val))
			continue;
		bool zero = true;
		for (size_t i = 0; i < stride * (size_t)ncpu; i++)
			zero &= !val[i];
		if (zero && (t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY))
			continue;   /* arrays list their non-zero slots */
		any = true;
		printf("  ");
		print_bytes(key, ks);
		printf(" => ");
		if (!percpu) {
			print_bytes(val, vs);
		} else {
			uint64_t sum = 0;
			printf("[");
			for (int c = 0; c < ncpu; c++) {
				uint64_t v = 0;
				memcpy(&v, val + (size_t)c * stride, vs < 8 ? vs : 8);
				sum += v;
				printf("%s%llu", c ? " " : "", (unsigned long long)v);
			}
			printf("] sum %llu", (unsigned long long)sum);
		}
		printf("\n");
	}
	if (!any)
		printf("  (empty)\n");
	free(key);
	free(next);
	free(val);
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
	const char *file = NULL, *prog_name = NULL, *data_hex = NULL, *sample = "ipv4-tcp-syn";
	const char *maps[32];
	int nmaps = 0, repeat = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(test_run_help, stdout);
			return 0;
		} else if (!strcmp(a, "--prog") && v) {
			prog_name = v, i++;
		} else if (!strcmp(a, "--data") && v) {
			data_hex = v, i++;
		} else if (!strcmp(a, "--data-sample") && v) {
			sample = v, i++;
		} else if (!strcmp(a, "--repeat") && v) {
			repeat = atoi(v), i++;
		} else if (!strcmp(a, "--map") && v && nmaps < 32) {
			maps[nmaps++] = v, i++;
		} else if (a[0] == '-') {
			fprintf(stderr, "kiln test-run: unknown or incomplete option '%s'\n%s", a, test_run_help);
			return 2;
		} else {
			file = a;
		}
	}
	if (!file || repeat < 1) {
		fputs(test_run_help, stderr);
		return 2;
	}
	uint8_t pkt[2048];
	size_t len;
	if (data_hex) {
		if (parse_hex(data_hex, pkt, sizeof(pkt), &len)) {
			fprintf(stderr, "kiln test-run: --data is not hex bytes\n");
			return 2;
		}
	} else if (!(len = sample_packet(sample, pkt, sizeof(pkt)))) {
		fprintf(stderr, "kiln test-run: unknown sample '%s'\n", sample);
		return 2;
	}

	char tmp[] = "/tmp/kiln-XXXXXX.o";
	const char *obj_path = file;
	if (cli_is_lisp(file)) {
		int fd = mkstemps(tmp, 2);
		if (fd < 0) {
			perror("kiln test-run: temporary file");
			return 1;
		}
		close(fd);
		if (cli_compile_file(file, tmp, 2, false)) {
			unlink(tmp);
			return 1;
		}
		obj_path = tmp;
	}
	libbpf_set_print(capture);
	int rc = 1;
	struct bpf_object *obj = bpf_object__open_file(obj_path, NULL);
	if (!obj) {
		fprintf(stderr, "kiln test-run: cannot open %s: %s\n%s", obj_path, strerror(errno), libbpf_log);
		goto out;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "kiln test-run: the kernel rejected %s: %s\n%s", file, strerror(errno), libbpf_log);
		goto out;
	}
	struct bpf_program *p;
	bool ran = false;
	bpf_object__for_each_program(p, obj) {
		if (prog_name && strcmp(prog_name, bpf_program__name(p)))
			continue;
		uint8_t out_buf[4096];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = (uint32_t)len,
			    .data_out = out_buf, .data_size_out = sizeof(out_buf), .repeat = repeat);
		int err = bpf_prog_test_run_opts(bpf_program__fd(p), &o);
		ran = true;
		if (err) {
			fprintf(stderr, "kiln test-run: %s: BPF_PROG_TEST_RUN failed: %s\n", bpf_program__name(p),
				strerror(errno));
			goto out;
		}
		printf("prog %s: retval %d %s, %u ns per run over %d run%s\n", bpf_program__name(p), (int)o.retval,
		       verdict(bpf_program__type(p), o.retval), o.duration, repeat, repeat == 1 ? "" : "s");
	}
	if (!ran) {
		fprintf(stderr, "kiln test-run: no program %s%s\n", prog_name ? "named " : "", prog_name ? prog_name : "");
		goto out;
	}
	struct bpf_map *m;
	bpf_object__for_each_map(m, obj) {
		bool want = !nmaps;
		for (int i = 0; i < nmaps; i++)
			want |= !strcmp(maps[i], bpf_map__name(m));
		if (want)
			dump_map(m);
	}
	rc = 0;
out:
	bpf_object__close(obj);
	if (obj_path == tmp)
		unlink(tmp);
	return rc;
}
