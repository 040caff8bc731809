/* helper_verdict.c — test tool: the verifier's own word on "call HELPER; exit" in a program of
 * type TYPE, one line a helper, as an oracle for `kiln probe` that shares none of its code:
 * the type by libbpf's name, the helper by its name in the kernel's BTF (enum bpf_func_id).
 *   usage: helper_verdict TYPE HELPER...   (TYPE one that loads without an attach type)
 * prints "HELPER ok" when the program loads or is refused for another reason than the call,
 * "HELPER refused: <the verifier's line>" when the call itself is refused, "HELPER unknown"
 * when the kernel's BTF has no such helper. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int helper_id(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	if (id <= 0 || strncmp(name, "bpf_", 4))
		return -1;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_enum *e = btf_enum(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, e++) {
		const char *n = btf__name_by_offset(btf, e->name_off);
		if (n && !strncmp(n, "BPF_FUNC_", 9) && !strcmp(n + 9, name + 4))
			return e->val;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: helper_verdict TYPE HELPER...\n");
		return 2;
	}
	int type = -1;
	for (int t = 1; t < 64; t++)
		if (libbpf_bpf_prog_type_str(t) && !strcmp(libbpf_bpf_prog_type_str(t), argv[1]))
			type = t;
	struct btf *btf = btf__load_vmlinux_btf();
	if (type < 0 || !btf) {
		fprintf(stderr, "helper_verdict: no program type %s, or no kernel BTF\n", argv[1]);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int id = helper_id(btf, argv[i]);
		if (id < 0) {
			printf("%s unknown\n", argv[i]);
			continue;
		}
		struct bpf_insn insns[] = {
			{ .code = BPF_JMP | BPF_CALL, .imm = id },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		char log[4096] = "";
		LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
		int fd = bpf_prog_load(type, NULL, "GPL", insns, 2, &o);
		if (fd >= 0) {
			close(fd);
			printf("%s ok\n", argv[i]);
			continue;
		}
		/* the line after "0: (85) call ..." is what the verifier made of the call */
		char *call = strstr(log, ") call ");
		char *line = call ? strchr(call, '\n') : NULL;
		line = line ? line + 1 : log;
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "cannot use helper") || strstr(line, "unknown func") || strstr(line, "invalid func"))
			printf("%s refused: %s\n", argv[i], line);
		else
			printf("%s ok\n", argv[i]);
	}
	btf__free(btf);
	return 0;
}
