/* object_internal.h — what object.c (open, load, close, accessors) and attach.c (attaching
 * programs, links) share: the object, program and link structs, the section table's rows and
 * the libbpf failure reporter. */
#ifndef KL_OBJECT_INTERNAL_H
#define KL_OBJECT_INTERNAL_H
#include "kiln/object.h"
#include "kfacts/prog_types.h"
#include <bpf/libbpf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* tcx links (kernel 6.6) postdate the uapi headers libbpf 1.1 ships with. */
#define KL_TCX_INGRESS 46
#define KL_TCX_EGRESS 47

#define DEFAULT_LOG_SIZE (1u << 20)

struct kiln_prog {
	struct kiln_object *obj;
	struct bpf_program *bp;
	char *log;                 /* its own log buffer during a load with log_level > 0 */
};

struct kiln_object {
	struct bpf_object *bo;
	char *name;                /* for messages: the file's name, or opts->name */
	uint32_t log_level;
	size_t log_size;
	char *log;                 /* kiln_object_log() */
	char *warnings;            /* a kiln source's compile warnings: kiln_object_warnings() */
	void *image;               /* the ELF, for the source position of a verifier rejection */
	size_t image_size;
	struct kiln_verifier_error *verr;  /* kiln_object_verifier_error() */
	bool load_tried;
	size_t nprogs, nmaps;
	struct kiln_prog *progs;
	struct kiln_map **maps;
};

struct kiln_link {
	enum kiln_attach_kind kind;
	struct bpf_link *bl;       /* made by libbpf, or ... */
	int fd;                    /* ... a link fd of our own; -1 for a legacy tc filter */
	int *more;                 /* perf sampling: the links of the other CPUs */
	size_t nmore;
	bool tc_legacy, hook_created, detached;
	struct bpf_tc_hook hook;
	uint32_t tc_handle, tc_priority;
	bool prog_attached;        /* bpf_prog_attach to a map (sockmap): no link, fd is -1 */
	int att_prog_fd, att_target_fd;   /* ... its program and map, dup'd; att_type */
	uint32_t att_type;
	char *pin_path;
	char desc[PATH_MAX + 64];
};

/* struct_ops.c: before load, every struct_ops map asks for a link where the kernel has them. */
void kl_struct_ops_prepare(struct bpf_object *bo);
/* How a section attaches (object.c's table): see there. */
/* Record a failure of a libbpf step: "<what>[: libbpf's reason]: <errno text>". */
int kl_fail_libbpf(int err, const char *what);
/* Copy the caller's options, however old its struct: fields past opts->sz stay zero. */
int kl_copy_opts(void *dst, size_t dst_size, const void *src, const char *what);
/* A small sysfs/procfs file into buf, NUL-terminated. 0 or -errno. */
int kl_read_sysfs(const char *path, char *buf, size_t len);
#endif
