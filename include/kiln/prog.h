/* kiln/prog.h — loaded programs: info (type, id, tag, name, instruction counts, map ids,
 * load time), kernel-wide iteration by id, and BPF_PROG_TEST_RUN. */
#ifndef KILN_PROG_H
#define KILN_PROG_H
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PROG_MAX_MAP_IDS 64

struct kiln_prog_info {
	uint32_t id;
	enum bpf_prog_type type;
	char name[16];
	char tag[17];                  /* 16 hex digits */
	uint32_t xlated_insns;         /* instructions after the verifier's rewrites */
	uint32_t jited_bytes;
	uint32_t verified_insns;       /* the verifier's "processed" count (kernel >= 5.16) */
	uint32_t nr_map_ids;           /* may exceed KILN_PROG_MAX_MAP_IDS; map_ids holds the first */
	uint32_t map_ids[KILN_PROG_MAX_MAP_IDS];
	uint64_t load_time_ns;         /* since boot (CLOCK_BOOTTIME) */
	int64_t load_time_unix;        /* seconds since the epoch */
	uint32_t created_by_uid;
	uint32_t btf_id;
	uint64_t run_time_ns, run_cnt; /* with kernel.bpf_stats_enabled */
};

int kiln_prog_info_fd(int fd, struct kiln_prog_info *info);
int kiln_prog_info_id(uint32_t id, struct kiln_prog_info *info);
/* Kernel-wide iteration: *next after id (0 = first); -ENOENT after the last. */
int kiln_prog_next_id(uint32_t id, uint32_t *next);
/* An fd for a loaded program (the caller closes it), or a negative errno. */
int kiln_prog_fd_by_id(uint32_t id);
const char *kiln_prog_type_name(enum bpf_prog_type type);

/* BPF_PROG_TEST_RUN. In: data/ctx (either may be absent), repeat (0 = 1), flags, cpu. Out:
 * retval, duration (mean ns per run, from the kernel), data_size_out/ctx_size_out (bytes
 * written; the buffers' capacities on input). */
struct kiln_test_run {
	size_t sz;                     /* sizeof(struct kiln_test_run) */
	const void *data_in;
	uint32_t data_size_in;
	void *data_out;
	uint32_t data_size_out;
	const void *ctx_in;
	uint32_t ctx_size_in;
	void *ctx_out;
	uint32_t ctx_size_out;
	uint32_t repeat;
	uint32_t flags;                /* BPF_F_TEST_RUN_ON_CPU, BPF_F_TEST_XDP_LIVE_FRAMES */
	uint32_t cpu;
	uint32_t retval;
	uint32_t duration;
};
int kiln_prog_test_run(int prog_fd, struct kiln_test_run *run);

#ifdef __cplusplus
}
#endif
#endif
