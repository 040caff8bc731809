/* loadobj.c — test tool: open and load an object with libbpf, as any libbpf user would,
 * and check that every program (or only --prog NAME) reached the kernel with its BTF func
 * and line info. Prints one line per program; exits 1 on failure, 3 when the kernel
 * refused with EPERM (a locked-down kernel refusing a tracing program). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	if (argc == 4 && !strcmp(argv[2], "--prog"))
		only = argv[3];
	else if (argc != 2) {
		fprintf(stderr, "usage: loadobj OBJ.o [--prog NAME]\n");
		return 2;
	}
	libbpf_set_print(print);
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int rc = 0;
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj)
		if (only && strcmp(only, bpf_program__name(p)))
			bpf_program__set_autoload(p, false);
	if (bpf_object__load(obj)) {
		int err = errno;
		fprintf(stderr, "load %s: %s\n", argv[1], strerror(err));
		bpf_object__close(obj);
		return err == EPERM ? 3 : 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
			fprintf(stderr, "%s: no info: %s\n", bpf_program__name(p), strerror(errno));
			rc = 1;
			continue;
		}
		printf("%s: %u insns, %u func_info, %u line_info, btf_id %u\n", bpf_program__name(p),
		       info.xlated_prog_len / 8, info.nr_func_info, info.nr_line_info, info.btf_id);
		if (!info.btf_id || !info.nr_func_info || !info.nr_line_info) {
			fprintf(stderr, "%s: missing BTF, func info or line info\n", bpf_program__name(p));
			rc = 1;
		}
	}
	struct bpf_map *m;
	bpf_object__for_each_map(m, obj)
		printf("map %s: type %s, key %u, value %u, max_entries %u, btf key %u value %u\n",
		       bpf_map__name(m), libbpf_bpf_map_type_str(bpf_map__type(m)), bpf_map__key_size(m),
		       bpf_map__value_size(m), bpf_map__max_entries(m), bpf_map__btf_key_type_id(m),
		       bpf_map__btf_value_type_id(m));
	bpf_object__unpin_maps(obj, NULL);   /* maps pinned :by-name leave nothing behind */
	bpf_object__close(obj);
	return rc;
}
