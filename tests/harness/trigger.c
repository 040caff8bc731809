/* trigger.c — test tool: load an object with libbpf, attach every program by its section,
 * run a command as the trigger, then print the child's pid and every u64 value of an array
 * map. Everything is detached and closed before exit.
 * usage: trigger OBJ.o MAP CMD [ARGS...] */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: trigger OBJ.o MAP CMD [ARGS...]\n");
		return 2;
	}
	libbpf_set_print(print);
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "load %s: %s\n", argv[1], strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	struct bpf_link *links[16];
	int nlinks = 0, rc = 0;
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj) {
		if (nlinks == 16 || !(links[nlinks] = bpf_program__attach(p))) {
			fprintf(stderr, "attach %s: %s\n", bpf_program__name(p), strerror(errno));
			rc = 1;
			goto out;
		}
		nlinks++;
	}
	pid_t child = fork();
	if (child == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	int st;
	waitpid(child, &st, 0);
	printf("child %d\n", (int)child);
	struct bpf_map *m = bpf_object__find_map_by_name(obj, argv[2]);
	if (!m || bpf_map__value_size(m) != 8) {
		fprintf(stderr, "no array map %s with u64 values\n", argv[2]);
		rc = 1;
		goto out;
	}
	for (__u32 k = 0; k < bpf_map__max_entries(m); k++) {
		__u64 v = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(m), &k, &v)) {
			fprintf(stderr, "lookup %s[%u]: %s\n", argv[2], k, strerror(errno));
			rc = 1;
			goto out;
		}
		printf("%s[%u] %llu\n", argv[2], k, (unsigned long long)v);
	}
out:
	while (nlinks)
		bpf_link__destroy(links[--nlinks]);
	bpf_object__close(obj);
	return rc;
}
