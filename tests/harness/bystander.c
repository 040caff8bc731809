/* bystander.c — test tool: load OBJ with libbpf, attach every program by its section and pin
 * the links under DIR, so they stay attached after this exits (tools/soak.sh removes DIR).
 * usage: bystander OBJ DIR */
#include <bpf/libbpf.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bystander OBJ DIR\n");
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bystander: cannot load %s\n", argv[1]);
		return 1;
	}
	struct bpf_program *p;
	int n = 0;
	bpf_object__for_each_program(p, obj) {
		struct bpf_link *l = bpf_program__attach(p);
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", argv[2], bpf_program__name(p));
		if (!l || bpf_link__pin(l, path)) {
			fprintf(stderr, "bystander: cannot attach and pin %s\n", bpf_program__name(p));
			return 1;
		}
		n++;
	}
	printf("bystander: %d programs attached, links pinned in %s\n", n, argv[2]);
	return 0;
}
