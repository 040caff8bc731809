/* test_elf.c — the ELF/BTF writer against the real consumers: objects built by hand from
 * encoded instructions must open and load in libbpf, run, keep their line info, and dump in bpftool. */
#include "../unit/check.h"
#include "compiler/obj.h"
#include "compiler/elf.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIN_BY_NAME 1 /* LIBBPF_PIN_BY_NAME, from bpf_helpers.h */

/* --- instruction encoding, as the back end's asm.c would; initializers, so the programs
 * below can be static arrays --- */
#define insn(c, d, s, o, k) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (k) }
#define MOV_IMM(d, k)     insn(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define MOV_REG(d, s)     insn(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, k)     insn(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, k)
#define STX_W(d, s, o)    insn(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define STX_DW(d, s, o)   insn(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define LDX_W(d, s, o)    insn(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define LD_MAP(d)         insn(BPF_LD | BPF_IMM | BPF_DW, d, BPF_PSEUDO_MAP_FD, 0, 0), insn(0, 0, 0, 0, 0)
#define JEQ_IMM(d, k, o)  insn(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, k)
#define ATOMIC_ADD(d, s)  insn(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, 0, BPF_ADD)
#define CALL_HELPER(id)   insn(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define CALL_SUB()        insn(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0)
#define EXIT()            insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define N(a)              ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* The program the objects stand for; line info points into it. */
static const char source[] =
	"(defstruct flow-key (src-ip u32) (port u16))\n"                            /* 1 */
	"(defmap counts :array :key u32 :value u64 :max-entries 4)\n"              /* 2 */
	"(defun add-one (x) (+ x 1))\n"                                            /* 3 */
	"(defun add-two (x) (add-one (add-one x)))\n"                              /* 4 */
	"(defprog count-packets :xdp\n"                                            /* 5 */
	"  (let ((v (map-lookup-elem counts 0)))\n"                                /* 6 */
	"    (when v (atomic-add! v 1)))\n"                                        /* 7 */
	"  (map-lookup-elem flows (flow-key))\n"                                   /* 8 */
	"  (add-one 1))\n"                                                         /* 9 */
	"(defprog pass-all :xdp (add-two 0))\n"                                    /* 10 */
	"(defprog on-openat :tracepoint :section \"syscalls/sys_enter_openat\" 0)\n" /* 11 */
	"(defprog tc-len :tc (ctx len))\n";                                        /* 12 */

enum { F_ADD_ONE, F_ADD_TWO, F_COUNT, F_PASS, F_OPENAT, F_TC, F_KPROBE, F_RAWTP, NFUNCS };
enum { M_COUNTS, M_FLOWS, M_EVENTS, M_JUMPS, M_PINNED, M_INNER, M_OUTER, NMAPS };

static struct bpf_insn add_one_insns[] = { MOV_REG(0, 1), ADD_IMM(0, 1), EXIT() };
static struct kl_line add_one_lines[] = { { 0, 3, 20 } };

static struct bpf_insn add_two_insns[] = { CALL_SUB(), MOV_REG(1, 0), CALL_SUB(), EXIT() };
static struct kl_reloc add_two_relocs[] = { { 0, KL_RELOC_CALL, F_ADD_ONE },
					    { 2, KL_RELOC_CALL, F_ADD_ONE } };
static struct kl_line add_two_lines[] = { { 0, 4, 29 }, { 2, 4, 20 } };

static struct bpf_insn count_insns[] = {
	MOV_IMM(1, 0),          /* 0: key = 0 */
	STX_W(10, 1, -4),
	MOV_REG(2, 10),
	ADD_IMM(2, -4),
	LD_MAP(1),              /* 4: counts */
	CALL_HELPER(BPF_FUNC_map_lookup_elem),
	JEQ_IMM(0, 0, 2),       /* 7 */
	MOV_IMM(1, 1),
	ATOMIC_ADD(0, 1),
	MOV_IMM(1, 0),          /* 10: a zero flow-key */
	STX_DW(10, 1, -16),
	MOV_REG(2, 10),
	ADD_IMM(2, -16),
	LD_MAP(1),              /* 14: flows */
	CALL_HELPER(BPF_FUNC_map_lookup_elem),
	MOV_IMM(1, 1),          /* 17 */
	CALL_SUB(),             /* 18: add-one */
	EXIT(),
};
static struct kl_reloc count_relocs[] = { { 4, KL_RELOC_MAP, M_COUNTS },
					  { 14, KL_RELOC_MAP, M_FLOWS },
					  { 18, KL_RELOC_CALL, F_ADD_ONE } };
/* two positions for insn 0 (the innermost wins) and one on an ld_imm64's second half,
 * which the writer must drop */
static struct kl_line count_lines[] = { { 0, 6, 3 }, { 0, 6, 13 }, { 6, 6, 13 }, { 7, 7, 5 },
					{ 9, 7, 14 }, { 10, 8, 3 }, { 15, 8, 3 }, { 17, 9, 3 } };

static struct bpf_insn pass_insns[] = { MOV_IMM(1, 0), CALL_SUB(), EXIT() };
static struct kl_reloc pass_relocs[] = { { 1, KL_RELOC_CALL, F_ADD_TWO } };
static struct kl_line pass_lines[] = { { 0, 10, 24 } };

static struct bpf_insn zero_insns[] = { MOV_IMM(0, 0), EXIT() };
static struct bpf_insn tc_insns[] = { LDX_W(0, 1, 0), EXIT() };  /* skb->len */

static struct kl_type flow_key, event, event_arr;
static struct kl_field flow_key_fields[2], event_fields[2];
static struct kl_type *structs[] = { &flow_key, &event };
static struct kl_func funcs[NFUNCS];
static struct kl_map maps[NMAPS];
static char pinned_name[32];

static void build_types(void)
{
	flow_key = (struct kl_type){ .kind = KL_T_STRUCT, .name = "flow-key",
				     .fields = flow_key_fields, .nfields = 2 };
	flow_key_fields[0] = (struct kl_field){ .name = "src-ip", .type = kl_type_builtin("u32") };
	flow_key_fields[1] = (struct kl_field){ .name = "port", .type = kl_type_builtin("u16") };
	kl_type_layout(&flow_key);
	/* a defevent no map uses: it must still be in the BTF by name */
	event_arr = (struct kl_type){ .kind = KL_T_ARRAY, .elem = kl_type_builtin("char"),
				      .count = 16, .size = 16, .align = 1 };
	event = (struct kl_type){ .kind = KL_T_STRUCT, .name = "exec-event", .packed = true,
				  .fields = event_fields, .nfields = 2 };
	event_fields[0] = (struct kl_field){ .name = "pid", .type = kl_type_builtin("u32") };
	event_fields[1] = (struct kl_field){ .name = "comm", .type = &event_arr };
	kl_type_layout(&event);
}

static struct kl_obj build_obj(void)
{
	struct kl_type *u32 = kl_type_builtin("u32"), *u64 = kl_type_builtin("u64");
	build_types();
	funcs[F_ADD_ONE] = (struct kl_func){ .name = "add_one", .nargs = 1, .line = 3, .col = 1,
		.insns = add_one_insns, .ninsns = N(add_one_insns),
		.lines = add_one_lines, .nlines = N(add_one_lines) };
	funcs[F_ADD_TWO] = (struct kl_func){ .name = "add_two", .nargs = 1, .line = 4, .col = 1,
		.insns = add_two_insns, .ninsns = N(add_two_insns),
		.relocs = add_two_relocs, .nrelocs = N(add_two_relocs),
		.lines = add_two_lines, .nlines = N(add_two_lines) };
	funcs[F_COUNT] = (struct kl_func){ .name = "count_packets", .section = "xdp",
		.ctx = KL_CTX_XDP_MD, .line = 5, .col = 1,
		.insns = count_insns, .ninsns = N(count_insns),
		.relocs = count_relocs, .nrelocs = N(count_relocs),
		.lines = count_lines, .nlines = N(count_lines) };
	funcs[F_PASS] = (struct kl_func){ .name = "pass_all", .section = "xdp",
		.ctx = KL_CTX_XDP_MD, .line = 10, .col = 1,
		.insns = pass_insns, .ninsns = N(pass_insns),
		.relocs = pass_relocs, .nrelocs = N(pass_relocs),
		.lines = pass_lines, .nlines = N(pass_lines) };
	/* no lines at all: the writer falls back on the defprog's own position */
	funcs[F_OPENAT] = (struct kl_func){ .name = "on_openat",
		.section = "tracepoint/syscalls/sys_enter_openat", .ctx = KL_CTX_VOID,
		.line = 11, .col = 1, .insns = zero_insns, .ninsns = N(zero_insns) };
	funcs[F_TC] = (struct kl_func){ .name = "tc_len", .section = "tc",
		.ctx = KL_CTX_SK_BUFF, .line = 12, .col = 1,
		.insns = tc_insns, .ninsns = N(tc_insns) };
	funcs[F_KPROBE] = (struct kl_func){ .name = "on_nanosleep", .section = "kprobe/do_nanosleep",
		.ctx = KL_CTX_PT_REGS, .insns = zero_insns, .ninsns = N(zero_insns) };
	funcs[F_RAWTP] = (struct kl_func){ .name = "on_sys_enter", .section = "raw_tp/sys_enter",
		.ctx = KL_CTX_U64_ARRAY, .insns = zero_insns, .ninsns = N(zero_insns) };

	snprintf(pinned_name, sizeof(pinned_name), "kl_pin_%d", (int)getpid());
	maps[M_COUNTS] = (struct kl_map){ "counts", BPF_MAP_TYPE_ARRAY, u32, u64, false, 4, 0, 0, -1, NULL, NULL };
	maps[M_FLOWS] = (struct kl_map){ "flows", BPF_MAP_TYPE_HASH, &flow_key, u64, false, 16, 0, 0, -1, NULL, NULL };
	maps[M_EVENTS] = (struct kl_map){ "events", BPF_MAP_TYPE_RINGBUF, NULL, NULL, false, 4096, 0, 0, -1, NULL, NULL };
	maps[M_JUMPS] = (struct kl_map){ "jumps", BPF_MAP_TYPE_PROG_ARRAY, u32, u32, true, 4, 0, 0, -1, NULL, NULL };
	maps[M_PINNED] = (struct kl_map){ pinned_name, BPF_MAP_TYPE_HASH, u32, u64, false, 8,
					  BPF_F_NO_PREALLOC, PIN_BY_NAME, -1, NULL, NULL };
	maps[M_INNER] = (struct kl_map){ "inner", BPF_MAP_TYPE_ARRAY, u32, u64, false, 1, 0, 0, -1, NULL, NULL };
	maps[M_OUTER] = (struct kl_map){ "outer", BPF_MAP_TYPE_ARRAY_OF_MAPS, u32, u32, false, 2,
					 0, 0, M_INNER, NULL, NULL };
	return (struct kl_obj){ .source_path = "count.lisp", .source = source, .license = "GPL",
		.funcs = funcs, .nfuncs = NFUNCS, .maps = maps, .nmaps = NMAPS,
		.structs = structs, .nstructs = N(structs) };
}

/* The output of a shell command (stdout and, as the callers ask, stderr). */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 4096, n;
	char *out = malloc(cap);
	*status = -1;
	if (!out) {
		if (p)
			pclose(p);
		return NULL;
	}
	while (p && (n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *bigger = realloc(out, cap * 2);
			if (!bigger)
				break;
			out = bigger;
			cap *= 2;
		}
	}
	out[len] = 0;
	if (p)
		*status = pclose(p);
	return out;
}

static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static struct bpf_prog_info prog_info(int fd)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);
	bpf_obj_get_info_by_fd(fd, &info, &len);
	return info;
}

/* The text of the source line the kernel has for insn 0 of the loaded program. */
static char *first_line_text(int fd, uint32_t *line_col)
{
	struct bpf_prog_info info = prog_info(fd);
	uint32_t n = info.nr_line_info, len = sizeof(info);
	struct bpf_line_info *li = calloc(n ? n : 1, sizeof(*li));
	char *text = NULL;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = n;
	info.line_info_rec_size = sizeof(*li);
	info.line_info = (uint64_t)(uintptr_t)li;
	if (n && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
		struct btf *btf = btf__load_from_kernel_by_id(info.btf_id);
		if (btf) {
			const char *s = btf__name_by_offset(btf, li[0].line_off);
			text = strdup(s ? s : "");
			*line_col = li[0].line_col;
			btf__free(btf);
		}
	}
	free(li);
	return text;
}

static void test_load_and_run(const char *path)
{
	char pin_root[] = "/sys/fs/bpf/kl_test_XXXXXX";
	if (!mkdtemp(pin_root)) {
		CHECK("elf: pin root in bpffs", 0, "mkdtemp %s: %s", pin_root, strerror(errno));
		return;
	}
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_root);
	struct bpf_object *obj = bpf_object__open_file(path, &opts);
	CHECK("elf: libbpf opens the object", obj != NULL, "open: %s", strerror(errno));
	if (!obj) {
		rmdir(pin_root);
		return;
	}
	int err = bpf_object__load(obj);
	CHECK("elf: libbpf loads all programs and maps", err == 0, "load: %s", strerror(-err));
	if (!err) {
		char pkt[64] = { 0 };
		struct bpf_program *p = bpf_object__find_program_by_name(obj, "count_packets");
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);
		err = p ? bpf_prog_test_run_opts(bpf_program__fd(p), &t) : -ENOENT;
		CHECK("elf: count_packets returns XDP_PASS via its subprogram",
		      !err && t.retval == XDP_PASS, "err %d retval %u", err, t.retval);

		struct bpf_map *m = bpf_object__find_map_by_name(obj, "counts");
		uint32_t key = 0;
		uint64_t val = 0;
		err = m ? bpf_map_lookup_elem(bpf_map__fd(m), &key, &val) : -ENOENT;
		CHECK("elf: counts[0] is 1 after one packet", !err && val == 1,
		      "err %d value %llu", err, (unsigned long long)val);

		struct bpf_prog_info info = prog_info(bpf_program__fd(p));
		CHECK("elf: count_packets keeps line info", info.nr_line_info > 0,
		      "nr_line_info %u", info.nr_line_info);
		CHECK("elf: count_packets has func info for itself and add_one",
		      info.nr_func_info == 2, "nr_func_info %u", info.nr_func_info);
		uint32_t lc = 0;
		char *text = first_line_text(bpf_program__fd(p), &lc);
		CHECK("elf: line info carries the source line's text",
		      text && !strcmp(text, "  (let ((v (map-lookup-elem counts 0)))") &&
		      lc >> 10 == 6 && (lc & 1023) == 13,
		      "insn 0 has \"%s\" line %u col %u", text ? text : "(none)", lc >> 10,
		      lc & 1023);
		free(text);

		p = bpf_object__find_program_by_name(obj, "pass_all");
		LIBBPF_OPTS(bpf_test_run_opts, t2, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);
		err = p ? bpf_prog_test_run_opts(bpf_program__fd(p), &t2) : -ENOENT;
		CHECK("elf: a second program in section xdp runs (subprogram calls subprogram)",
		      !err && t2.retval == XDP_PASS, "err %d retval %u", err, t2.retval);
		info = prog_info(bpf_program__fd(p));
		CHECK("elf: pass_all has func info for pass_all, add_two, add_one",
		      info.nr_func_info == 3 && info.nr_line_info >= 3,
		      "nr_func_info %u nr_line_info %u", info.nr_func_info, info.nr_line_info);

		p = bpf_object__find_program_by_name(obj, "tc_len");
		LIBBPF_OPTS(bpf_test_run_opts, t3, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);
		err = p ? bpf_prog_test_run_opts(bpf_program__fd(p), &t3) : -ENOENT;
		CHECK("elf: tc program reads skb->len through its __sk_buff ctx",
		      !err && t3.retval == sizeof(pkt), "err %d retval %u", err, t3.retval);

		p = bpf_object__find_program_by_name(obj, "on_openat");
		CHECK("elf: tracepoint program with a void *ctx loaded",
		      p && bpf_program__fd(p) >= 0 &&
		      bpf_program__type(p) == BPF_PROG_TYPE_TRACEPOINT, "no fd");
		info = p ? prog_info(bpf_program__fd(p)) : (struct bpf_prog_info){ 0 };
		CHECK("elf: a function without lines still gets one at its start",
		      info.nr_line_info == 1 && info.nr_func_info == 1,
		      "nr_line_info %u nr_func_info %u", info.nr_line_info, info.nr_func_info);

		m = bpf_object__find_map_by_name(obj, "outer");
		CHECK("elf: map-in-map created from its values definition",
		      m && bpf_map__fd(m) >= 0 && bpf_map__type(m) == BPF_MAP_TYPE_ARRAY_OF_MAPS &&
		      bpf_map__value_size(m) == 4, "outer map missing");
		m = bpf_object__find_map_by_name(obj, "jumps");
		CHECK("elf: prog-array sized by key_size/value_size",
		      m && bpf_map__key_size(m) == 4 && bpf_map__value_size(m) == 4, "jumps");
		m = bpf_object__find_map_by_name(obj, "flows");
		CHECK("elf: hash keyed by a struct", m && bpf_map__key_size(m) == 8 &&
		      bpf_map__btf_key_type_id(m) > 0, "flows");
		m = bpf_object__find_map_by_name(obj, "events");
		CHECK("elf: ringbuf without key or value", m && bpf_map__max_entries(m) == 4096 &&
		      bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF, "events");

		char pin[256];
		struct stat st;
		snprintf(pin, sizeof(pin), "%s/%s", pin_root, pinned_name);
		m = bpf_object__find_map_by_name(obj, pinned_name);
		CHECK("elf: map with pinning 1 is pinned by name under pin_root_path",
		      m && !stat(pin, &st) && bpf_map__map_flags(m) == BPF_F_NO_PREALLOC,
		      "%s: %s", pin, strerror(errno));
		if (m)
			bpf_map__unpin(m, NULL);
	}
	bpf_object__close(obj);
	rm_dir(pin_root);
}

static void test_btf_dump(const char *path)
{
	static const char *const want[] = {
		"] STRUCT '(anon)' size=32 vlen=4\n\t'type' type_id=",
		"\t'key' type_id=", "\t'value' type_id=", "\t'max_entries' type_id=",
		"] VAR 'counts' type_id=", ", linkage=global\n",
		"] DATASEC '.maps' size=0 vlen=7\n\ttype_id=",
		"offset=0 size=32 (VAR 'counts')",
		"] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
		"] INT '__ARRAY_SIZE_TYPE__' size=4 bits_offset=0 nr_bits=32 encoding=(none)",
		"] STRUCT 'xdp_md' size=24 vlen=6\n\t'data' type_id=",
		"\t'egress_ifindex' type_id=",
		"] FUNC 'count_packets' type_id=", "linkage=global",
		"] FUNC 'add_one' type_id=", "linkage=static",
		"] STRUCT 'flow_key' size=8 vlen=2\n\t'src_ip' type_id=",
		"\t'port' type_id=", "bits_offset=32",
		"] STRUCT 'exec_event' size=20 vlen=2",
		"] INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=SIGNED",
		"] VAR '_license' type_id=",
		"] DATASEC 'license' size=0 vlen=1\n\ttype_id=",
		"offset=0 size=4 (VAR '_license')",
		"\t'key_size' type_id=", "\t'value_size' type_id=", "\t'map_flags' type_id=",
		"\t'pinning' type_id=", "\t'values' type_id=", "nr_elems=0",
		"] STRUCT '(anon)' size=16 vlen=2\n\t'type' type_id=",   /* the ringbuf */
	};
	char cmd[512];
	int status;
	snprintf(cmd, sizeof(cmd), "bpftool btf dump file '%s' 2>&1", path);
	char *out = run(cmd, &status);
	if (!out)
		return;
	CHECK("elf: bpftool btf dump file succeeds", status == 0, "status %d: %.300s", status, out);
	for (size_t i = 0; i < N(want); i++) {
		char name[160];
		snprintf(name, sizeof(name), "elf: btf dump has \"%.40s\"", want[i]);
		for (char *c = name; *c; c++)
			if (*c == '\n' || *c == '\t')
				*c = ' ';
		CHECK(name, strstr(out, want[i]) != NULL, "not in:\n%s", out);
	}
	free(out);
}

static void test_bpftool_loadall(const char *path)
{
	char dir[128], cmd[512], pin[256];
	int status;
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/kl_test_loadall_%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "bpftool prog loadall '%s' '%s' 2>&1", path, dir);
	char *out = run(cmd, &status);
	CHECK("elf: bpftool prog loadall accepts the object", status == 0,
	      "status %d: %.2000s", status, out ? out : "");
	struct stat st;
	snprintf(pin, sizeof(pin), "%s/count_packets", dir);
	CHECK("elf: bpftool pinned count_packets", !stat(pin, &st), "%s missing", pin);
	free(out);
	rm_dir(dir);
	/* bpftool pins pinning-by-name maps under its default root */
	snprintf(pin, sizeof(pin), "/sys/fs/bpf/%s", pinned_name);
	unlink(pin);
}

/* What clang's layout promises: section per program, .rel sections, static subprograms. */
static void test_elf_shape(const char *path)
{
	int fd = open(path, O_RDONLY);
	elf_version(EV_CURRENT);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	GElf_Ehdr eh;
	size_t shstrndx = 0;
	bool ok = elf && gelf_getehdr(elf, &eh) && !elf_getshdrstrndx(elf, &shstrndx);
	CHECK("elf: readable by libelf", ok, "cannot read %s", path);
	if (!ok)
		goto out;
	CHECK("elf: EM_BPF ET_REL ELFCLASS64 little-endian",
	      eh.e_machine == 247 && eh.e_type == ET_REL && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	      eh.e_ident[EI_DATA] == ELFDATA2LSB, "machine %u type %u", eh.e_machine, eh.e_type);

	static const char *const secs[] = { ".text", ".rel.text", "xdp", ".relxdp", "tc",
		"tracepoint/syscalls/sys_enter_openat", ".maps", "license", ".BTF", ".BTF.ext",
		".symtab", ".strtab" };
	unsigned found = 0, nxdp = 0;
	uint64_t xdp_size = 0;
	Elf_Scn *scn = NULL, *symscn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		for (unsigned i = 0; name && i < N(secs); i++)
			if (!strcmp(name, secs[i]))
				found |= 1u << i;
		if (name && !strcmp(name, "xdp")) {
			nxdp++;
			xdp_size = sh.sh_size;
		}
		if (sh.sh_type == SHT_SYMTAB)
			symscn = scn;
	}
	CHECK("elf: has the sections clang would make", found == (1u << N(secs)) - 1,
	      "section mask %#x", found);
	CHECK("elf: both xdp programs share one section", nxdp == 1 &&
	      xdp_size == 8 * (N(count_insns) + N(pass_insns)), "%u xdp sections, size %llu",
	      nxdp, (unsigned long long)xdp_size);

	int add_one_bind = -1, count_bind = -1, map_type = -1;
	uint64_t pass_value = 0, count_size = 0;
	if (symscn) {
		GElf_Shdr sh;
		gelf_getshdr(symscn, &sh);
		Elf_Data *d = elf_getdata(symscn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			gelf_getsym(d, (int)i, &s);
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name)
				continue;
			if (!strcmp(name, "add_one") && GELF_ST_TYPE(s.st_info) == STT_FUNC)
				add_one_bind = GELF_ST_BIND(s.st_info);
			if (!strcmp(name, "count_packets")) {
				count_bind = GELF_ST_BIND(s.st_info);
				count_size = s.st_size;
			}
			if (!strcmp(name, "pass_all"))
				pass_value = s.st_value;
			if (!strcmp(name, "flows"))
				map_type = GELF_ST_TYPE(s.st_info) == STT_OBJECT ?
					   GELF_ST_BIND(s.st_info) : -1;
		}
	}
	CHECK("elf: subprogram symbols are LOCAL FUNCs", add_one_bind == STB_LOCAL,
	      "bind %d", add_one_bind);
	CHECK("elf: program symbols are GLOBAL FUNCs sized in bytes",
	      count_bind == STB_GLOBAL && count_size == 8 * N(count_insns),
	      "bind %d size %llu", count_bind, (unsigned long long)count_size);
	CHECK("elf: second program of a section starts after the first",
	      pass_value == 8 * N(count_insns) && funcs[F_PASS].text_off == pass_value,
	      "pass_all at %llu, text_off %u", (unsigned long long)pass_value,
	      funcs[F_PASS].text_off);
	CHECK("elf: maps are GLOBAL OBJECTs", map_type == STB_GLOBAL, "flows: %d", map_type);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* Nothing but one tracepoint program: no .text, no .maps. */
static void test_minimal(const char *dir)
{
	struct kl_func f = { .name = "only", .section = "tracepoint/syscalls/sys_enter_openat",
			     .ctx = KL_CTX_VOID, .line = 1, .col = 1, .insns = zero_insns,
			     .ninsns = N(zero_insns) };
	struct kl_obj o = { .source_path = "min.lisp", .source = "(defprog only 0)\n",
			    .license = "Dual BSD/GPL", .funcs = &f, .nfuncs = 1 };
	char path[256], err[256] = "";
	snprintf(path, sizeof(path), "%s/min.o", dir);
	int rc = kl_elf_write(&o, path, err, sizeof(err));
	CHECK("elf: minimal object written", rc == 0, "%d %s", rc, err);
	struct bpf_object *obj = rc ? NULL : bpf_object__open_file(path, NULL);
	rc = obj ? bpf_object__load(obj) : -1;
	CHECK("elf: minimal object (no maps, no subprograms) loads", rc == 0, "load %d", rc);
	bpf_object__close(obj);
	unlink(path);
}

static void test_errors(const char *dir)
{
	char path[256], err[256] = "";
	struct stat st;
	struct kl_reloc bad = { 0, KL_RELOC_CALL, 0 };   /* a call to itself, a program */
	struct kl_func f = { .name = "p", .section = "xdp", .ctx = KL_CTX_XDP_MD,
			     .insns = pass_insns, .ninsns = N(pass_insns),
			     .relocs = &bad, .nrelocs = 1 };
	struct kl_obj o = { .license = "GPL", .funcs = &f, .nfuncs = 1 };
	snprintf(path, sizeof(path), "%s/bad.o", dir);
	int rc = kl_elf_write(&o, path, err, sizeof(err));
	CHECK("elf: a call relocation to a program is refused", rc == -EINVAL && err[0] &&
	      stat(path, &st) != 0, "rc %d err \"%s\"", rc, err);
	bad = (struct kl_reloc){ 0, KL_RELOC_MAP, 0 };
	o.nmaps = 0;
	rc = kl_elf_write(&o, path, err, sizeof(err));
	CHECK("elf: a map relocation to a missing map is refused", rc == -EINVAL, "rc %d", rc);
	f.nrelocs = 0;
	f.name = "bad-name";
	rc = kl_elf_write(&o, path, err, sizeof(err));
	CHECK("elf: a name that is no C identifier is refused", rc == -EINVAL && strstr(err, "bad-name"),
	      "rc %d err \"%s\"", rc, err);
}

int main(void)
{
	char dir[] = "/tmp/kl_test_elf_XXXXXX", path[256], err[256] = "";
	if (!mkdtemp(dir)) {
		CHECK("elf: temp dir", 0, "%s", strerror(errno));
		return CHECK_DONE();
	}
	/* tests/run mounts bpffs; run alone, the test does it itself */
	int status;
	free(run("mount | grep -q ' /sys/fs/bpf type bpf' || mount -t bpf bpf /sys/fs/bpf", &status));
	snprintf(path, sizeof(path), "%s/count.o", dir);
	struct kl_obj obj = build_obj();
	int rc = kl_elf_write(&obj, path, err, sizeof(err));
	CHECK("elf: kl_elf_write", rc == 0, "rc %d: %s", rc, err);
	if (!rc) {
		test_elf_shape(path);
		test_load_and_run(path);
		test_btf_dump(path);
		test_bpftool_loadall(path);
	}
	test_minimal(dir);
	test_errors(dir);
	if (getenv("KL_KEEP_OBJ"))
		printf("kept %s\n", path);
	else
		unlink(path);
	rmdir(dir);
	return CHECK_DONE();
}
