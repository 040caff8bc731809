/* prog.c — loaded programs from C: info by fd or id (tag, instruction counts, map ids, load
 * time), the kernel's programs by id, and BPF_PROG_TEST_RUN. */
#include "kiln/prog.h"
#include "kiln/ktime.h"
#include "fail.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int kiln_prog_info_fd(int fd, struct kiln_prog_info *info)
{
	if (!info)
		return kl_fail_msg(EINVAL, "kiln_prog_info_fd: no info to fill");
	struct bpf_prog_info pi;
	uint32_t len = sizeof(pi);
	memset(&pi, 0, sizeof(pi));
	int err = bpf_obj_get_info_by_fd(fd, &pi, &len);
	if (err)
		return kl_fail(err, "bpf(BPF_OBJ_GET_INFO_BY_FD) for program fd %d", fd);
	memset(info, 0, sizeof(*info));
	if (pi.nr_map_ids) {
		/* a second call for the ids: the kernel fills only the arrays it is given */
		struct bpf_prog_info mi;
		memset(&mi, 0, sizeof(mi));
		mi.nr_map_ids = pi.nr_map_ids < KILN_PROG_MAX_MAP_IDS ? pi.nr_map_ids : KILN_PROG_MAX_MAP_IDS;
		mi.map_ids = (uint64_t)(uintptr_t)info->map_ids;
		len = sizeof(mi);
		if ((err = bpf_obj_get_info_by_fd(fd, &mi, &len)))
			return kl_fail(err, "bpf(BPF_OBJ_GET_INFO_BY_FD) for the map ids of program '%.16s' (id %u)",
				       pi.name, pi.id);
		/* maps may have come or gone between the calls: the second answer counts */
		pi.nr_map_ids = mi.nr_map_ids;
	}
	info->id = pi.id;
	info->type = (enum bpf_prog_type)pi.type;
	memcpy(info->name, pi.name, sizeof(info->name) - 1);
	for (int i = 0; i < 8; i++)
		snprintf(info->tag + 2 * i, 3, "%02x", pi.tag[i]);
	info->xlated_insns = pi.xlated_prog_len / sizeof(struct bpf_insn);
	info->jited_bytes = pi.jited_prog_len;
	info->verified_insns = pi.verified_insns;
	info->nr_map_ids = pi.nr_map_ids;
	info->load_time_ns = pi.load_time;
	info->load_time_unix = pi.load_time ? kiln_boottime_to_realtime(pi.load_time) / 1000000000 : 0;
	info->created_by_uid = pi.created_by_uid;
	info->btf_id = pi.btf_id;
	info->run_time_ns = pi.run_time_ns;
	info->run_cnt = pi.run_cnt;
	return 0;
}

int kiln_prog_info_id(uint32_t id, struct kiln_prog_info *info)
{
	int fd = kiln_prog_fd_by_id(id);
	if (fd < 0)
		return fd;
	int err = kiln_prog_info_fd(fd, info);
	close(fd);
	return err;
}

int kiln_prog_next_id(uint32_t id, uint32_t *next)
{
	if (!next)
		return kl_fail_msg(EINVAL, "kiln_prog_next_id: no place for the id");
	int err = bpf_prog_get_next_id(id, next);
	if (err == -ENOENT)
		return kl_fail_msg(ENOENT, "no program after id %u", id);
	if (err)
		return kl_fail(err, "bpf(BPF_PROG_GET_NEXT_ID) after id %u", id);
	return 0;
}

int kiln_prog_fd_by_id(uint32_t id)
{
	int fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return kl_fail(fd, "bpf(BPF_PROG_GET_FD_BY_ID) for program id %u", id);
	return fd;
}

const char *kiln_prog_type_name(enum bpf_prog_type type)
{
	const char *s = libbpf_bpf_prog_type_str(type);
	return s ? s : "unknown";
}

int kiln_prog_test_run(int prog_fd, struct kiln_test_run *run)
{
	if (!run || run->sz < sizeof(*run))
		return kl_fail_msg(EINVAL, "kiln_prog_test_run: %s", run ? "run->sz is not sizeof(struct kiln_test_run)"
									  : "no struct kiln_test_run");
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = run->data_in, .data_size_in = run->data_size_in,
		.data_out = run->data_out, .data_size_out = run->data_size_out,
		.ctx_in = run->ctx_in, .ctx_size_in = run->ctx_size_in,
		.ctx_out = run->ctx_out, .ctx_size_out = run->ctx_size_out,
		.repeat = run->repeat ? run->repeat : 1, .flags = run->flags, .cpu = run->cpu);
	int err = bpf_prog_test_run_opts(prog_fd, &o);
	/* the kernel reports the sizes even when they did not fit (-ENOSPC) */
	run->retval = o.retval;
	run->duration = o.duration;
	run->data_size_out = o.data_size_out;
	run->ctx_size_out = o.ctx_size_out;
	if (!err)
		return 0;
	struct bpf_prog_info pi;
	uint32_t len = sizeof(pi);
	memset(&pi, 0, sizeof(pi));
	char who[48];
	if (!bpf_obj_get_info_by_fd(prog_fd, &pi, &len))
		snprintf(who, sizeof(who), "program '%.16s' (id %u)", pi.name, pi.id);
	else
		snprintf(who, sizeof(who), "program fd %d", prog_fd);
	if (err == -ENOSPC)
		return kl_fail(err, "bpf(BPF_PROG_TEST_RUN) for %s: the output needs %u bytes of data and %u of ctx",
			       who, o.data_size_out, o.ctx_size_out);
	return kl_fail(err, "bpf(BPF_PROG_TEST_RUN) for %s", who);
}
