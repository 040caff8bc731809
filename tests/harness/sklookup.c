/* sklookup.c — test tool: load an object with libbpf and run one sk_lookup program with
 * BPF_PROG_TEST_RUN on a TCP/IPv4 lookup (a struct bpf_sk_lookup as ctx_in, no packet), so a
 * test can check what the program reads from its context. Prints "retval N"; exits 1 on
 * failure.   usage: sklookup OBJ.o PROG REMOTE-IP4 REMOTE-PORT LOCAL-IP4 LOCAL-PORT */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: sklookup OBJ.o PROG REMOTE-IP4 REMOTE-PORT LOCAL-IP4 LOCAL-PORT\n");
		return 2;
	}
	struct bpf_sk_lookup ctx = { .family = AF_INET, .protocol = IPPROTO_TCP };
	if (inet_pton(AF_INET, argv[3], &ctx.remote_ip4) != 1 ||
	    inet_pton(AF_INET, argv[5], &ctx.local_ip4) != 1) {
		fprintf(stderr, "sklookup: bad IPv4 address\n");
		return 2;
	}
	ctx.remote_port = htons((uint16_t)atoi(argv[4]));   /* network order, as the kernel's */
	ctx.local_port = (uint32_t)atoi(argv[6]);             /* host order */

	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct bpf_program *p, *prog = NULL;
	bpf_object__for_each_program(p, obj) {
		if (!strcmp(bpf_program__name(p), argv[2]))
			prog = p;
		else
			bpf_program__set_autoload(p, false);
	}
	if (!prog) {
		fprintf(stderr, "sklookup: no program %s in %s\n", argv[2], argv[1]);
		bpf_object__close(obj);
		return 1;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "load %s: %s\n", argv[1], strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx));
	int rc = 0;
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o)) {
		fprintf(stderr, "test run %s: %s\n", argv[2], strerror(errno));
		rc = 1;
	} else {
		printf("retval %u\n", o.retval);
	}
	bpf_object__close(obj);
	return rc;
}
