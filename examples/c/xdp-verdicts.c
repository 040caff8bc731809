/* xdp-verdicts.c — libkiln from C: compile examples/xdp-count.lisp in memory, load it, run it
 * on a TCP packet to port 23 and one to port 80 with BPF_PROG_TEST_RUN, read the verdicts map.
 * Build: cc xdp-verdicts.c $(pkg-config --cflags --libs kiln) -o xdp-verdicts */
#include <kiln/kiln.h>
#include <stdio.h>
#include <string.h>

/* Ethernet + IPv4 + TCP SYN to dport. */
static size_t packet(unsigned char *p, unsigned dport)
{
	memset(p, 0, 64);
	p[12] = 0x08;                                   /* ETH_P_IP */
	p[14] = 0x45, p[16] = 0, p[17] = 40, p[22] = 64, p[23] = 6;
	p[36] = (unsigned char)(dport >> 8), p[37] = (unsigned char)dport;
	p[46] = 5 << 4, p[47] = 0x02;
	return 64;
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : "examples/xdp-count.lisp";
	struct kiln_object *obj;
	if (kiln_object_open(src, NULL, &obj) || kiln_object_load(obj)) {
		fprintf(stderr, "xdp-verdicts: %s\n%s", kiln_errmsg(), kiln_errlog());
		return 1;
	}
	struct kiln_prog *prog = kiln_object_find_prog(obj, "xdp_count");
	struct kiln_map *verdicts = kiln_object_find_map(obj, "verdicts");
	int rc = 1;
	if (!prog || !verdicts) {
		fprintf(stderr, "xdp-verdicts: %s has no program xdp_count or no map verdicts\n", src);
		goto out;
	}
	unsigned ports[] = { 23, 80, 80 };
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		unsigned char pkt[64];
		struct kiln_test_run run = { .sz = sizeof(run), .data_in = pkt, .data_size_in = (unsigned)packet(pkt, ports[i]) };
		if (kiln_prog_test_run(kiln_prog_fd(prog), &run)) {
			fprintf(stderr, "xdp-verdicts: %s\n", kiln_errmsg());
			goto out;
		}
		printf("port %u: verdict %u\n", ports[i], run.retval);
	}
	for (unsigned k = 0; k < 5; k++) {
		unsigned long long n = 0;
		if (kiln_map_lookup(verdicts, &k, &n)) {
			fprintf(stderr, "xdp-verdicts: %s\n", kiln_errmsg());
			goto out;
		}
		if (n)
			printf("verdicts[%u] = %llu\n", k, n);
	}
	rc = 0;
out:
	kiln_object_close(obj);
	return rc;
}
