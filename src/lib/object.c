/* object.c — BPF objects on libbpf 1.1: open (kiln sources compiled in memory), load with the
 * verifier's log kept, programs and maps by name, and attaching programs by their section. */
#define _GNU_SOURCE
#include "kiln/object.h"
#include "kiln/error.h"
#include "compiler/diag.h"
#include "fail.h"
#include "map_internal.h"
#include "verifier_internal.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	bool tc_legacy, hook_created, detached;
	struct bpf_tc_hook hook;
	uint32_t tc_handle, tc_priority;
	char *pin_path;
	char desc[PATH_MAX + 64];
};

/* ---- sections ---------------------------------------------------------------------------- */

/* One row per section prefix, matched as libbpf matches its own: "name" exactly, "name/" with
 * a target after the slash, "name+" either. The first matching row wins, so the specific ones
 * come first. type/expected are set on programs libbpf 1.1 leaves without a type (the
 * sections kiln's compiler accepts beyond libbpf 1.1's: Whistler's "xdp/NAME", tc/ and tcx/
 * with a direction); for the others libbpf's own choice stands. tc_dir -1: from the options. */
static const struct section_row {
	const char *prefix;
	enum kiln_attach_kind kind;
	enum bpf_prog_type type;
	enum bpf_attach_type expected;
	int tc_dir;
	bool tcx_only;
} sections[] = {
	{ "xdp/devmap", KILN_ATTACH_NONE, 0, 0, -1, false },
	{ "xdp/cpumap", KILN_ATTACH_NONE, 0, 0, -1, false },
	{ "xdp.frags/devmap", KILN_ATTACH_NONE, 0, 0, -1, false },
	{ "xdp.frags/cpumap", KILN_ATTACH_NONE, 0, 0, -1, false },
	{ "xdp", KILN_ATTACH_XDP, 0, 0, -1, false },
	{ "xdp.frags", KILN_ATTACH_XDP, 0, 0, -1, false },
	{ "xdp/", KILN_ATTACH_XDP, BPF_PROG_TYPE_XDP, BPF_XDP, -1, false },
	{ "tc", KILN_ATTACH_TC, 0, 0, -1, false },
	{ "classifier", KILN_ATTACH_TC, 0, 0, -1, false },
	{ "tc/ingress", KILN_ATTACH_TC, BPF_PROG_TYPE_SCHED_CLS, 0, KILN_TC_INGRESS, false },
	{ "tc/egress", KILN_ATTACH_TC, BPF_PROG_TYPE_SCHED_CLS, 0, KILN_TC_EGRESS, false },
	{ "tcx/ingress", KILN_ATTACH_TC, BPF_PROG_TYPE_SCHED_CLS, 0, KILN_TC_INGRESS, true },
	{ "tcx/egress", KILN_ATTACH_TC, BPF_PROG_TYPE_SCHED_CLS, 0, KILN_TC_EGRESS, true },
	{ "tracepoint/", KILN_ATTACH_TRACEPOINT, 0, 0, -1, false },
	{ "tp/", KILN_ATTACH_TRACEPOINT, 0, 0, -1, false },
	{ "raw_tracepoint/", KILN_ATTACH_RAW_TRACEPOINT, 0, 0, -1, false },
	{ "raw_tp/", KILN_ATTACH_RAW_TRACEPOINT, 0, 0, -1, false },
	{ "raw_tracepoint.w/", KILN_ATTACH_RAW_TRACEPOINT, 0, 0, -1, false },
	{ "raw_tp.w/", KILN_ATTACH_RAW_TRACEPOINT, 0, 0, -1, false },
	{ "tp_btf/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fentry/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fexit/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fmod_ret/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fentry.s/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fexit.s/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "fmod_ret.s/", KILN_ATTACH_TRACING, 0, 0, -1, false },
	{ "lsm/", KILN_ATTACH_LSM, 0, 0, -1, false },
	{ "lsm.s/", KILN_ATTACH_LSM, 0, 0, -1, false },
	{ "uprobe+", KILN_ATTACH_UPROBE, 0, 0, -1, false },
	{ "uretprobe+", KILN_ATTACH_UPROBE, 0, 0, -1, false },
	{ "uprobe.s+", KILN_ATTACH_UPROBE, 0, 0, -1, false },
	{ "uretprobe.s+", KILN_ATTACH_UPROBE, 0, 0, -1, false },
	{ "kprobe/", KILN_ATTACH_KPROBE, 0, 0, -1, false },
	{ "kretprobe/", KILN_ATTACH_KPROBE, 0, 0, -1, false },
	{ "cgroup_skb/ingress", KILN_ATTACH_CGROUP, 0, 0, -1, false },
	{ "cgroup_skb/egress", KILN_ATTACH_CGROUP, 0, 0, -1, false },
	{ "cgroup/", KILN_ATTACH_CGROUP, 0, 0, -1, false },
	{ "sockops", KILN_ATTACH_CGROUP, 0, 0, -1, false },
	{ "perf_event", KILN_ATTACH_PERF_EVENT, 0, 0, -1, false },
};

static const char *const kind_names[] = {
	[KILN_ATTACH_NONE] = "none",
	[KILN_ATTACH_XDP] = "xdp",
	[KILN_ATTACH_TC] = "tc",
	[KILN_ATTACH_TRACEPOINT] = "tracepoint",
	[KILN_ATTACH_RAW_TRACEPOINT] = "raw_tracepoint",
	[KILN_ATTACH_TRACING] = "tracing",
	[KILN_ATTACH_LSM] = "lsm",
	[KILN_ATTACH_UPROBE] = "uprobe",
	[KILN_ATTACH_KPROBE] = "kprobe",
	[KILN_ATTACH_CGROUP] = "cgroup",
	[KILN_ATTACH_PERF_EVENT] = "perf_event",
};

static bool section_matches(const char *prefix, const char *sec)
{
	size_t n = strlen(prefix);
	if (prefix[n - 1] == '/')
		return !strncmp(sec, prefix, n) && sec[n];
	if (prefix[n - 1] == '+')
		return !strncmp(sec, prefix, n - 1) && (!sec[n - 1] || (sec[n - 1] == '/' && sec[n]));
	return !strcmp(sec, prefix);
}

static const struct section_row *section_row(const char *sec)
{
	for (size_t i = 0; sec && i < sizeof(sections) / sizeof(sections[0]); i++)
		if (section_matches(sections[i].prefix, sec))
			return &sections[i];
	return NULL;
}

const char *kiln_attach_kind_name(enum kiln_attach_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]) || !kind_names[kind])
		return "unknown";
	return kind_names[kind];
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* Copy the caller's options, however old its struct: fields past opts->sz stay zero. */
static int copy_opts(void *dst, size_t dst_size, const void *src, const char *what)
{
	memset(dst, 0, dst_size);
	if (!src)
		return 0;
	size_t sz = *(const size_t *)src;
	if (sz < sizeof(size_t))
		return kl_fail_msg(EINVAL, "%s: sz is not set (sizeof the struct)", what);
	memcpy(dst, src, sz < dst_size ? sz : dst_size);
	return 0;
}

/* libbpf's own error codes (4000 and up) are no errnos: what they stand for, as an errno. */
static int plain_errno(int err)
{
	err = err < 0 ? -err : err;
	return err >= __LIBBPF_ERRNO__START ? EINVAL : err;
}

/* The line of libbpf's captured warnings that says what failed (the first with "failed" in
 * it, else the first), without its "libbpf: " prefix and the errno text libbpf appended (the
 * message adds its own). "" if libbpf said nothing. */
static void libbpf_reason(char *out, size_t len, int err)
{
	const char *all = kl_libbpf_captured(), *s = NULL;
	for (const char *l = all; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		size_t n = strcspn(l, "\n");
		const char *f = memmem(l, n, "failed", 6);
		if (f && !memmem(l, n, "failed to load object", 21)) {
			s = l;
			break;
		}
	}
	for (s = s ? s : all; *s == '\n'; s++)
		;
	if (!strncmp(s, "libbpf: ", 8))
		s += 8;
	size_t n = strcspn(s, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = 0;
	char errtext[128];
	snprintf(errtext, sizeof(errtext), "%s", strerror(plain_errno(err)));
	char *e = err ? strstr(out, errtext) : NULL;
	if (!e && err && !libbpf_strerror(err < 0 ? err : -err, errtext, sizeof(errtext)))
		e = strstr(out, errtext);
	if (e)
		*e = 0;
	n = strlen(out);
	while (n && (out[n - 1] == ' ' || out[n - 1] == ':' || out[n - 1] == '\t'))
		out[--n] = 0;
}

/* Record a failure of a libbpf step: "<what>[: libbpf's reason]: <errno text>", with all of
 * libbpf's warnings as the log. */
static int fail_libbpf(int err, const char *what)
{
	char reason[512];
	libbpf_reason(reason, sizeof(reason), err);
	char captured[8192];
	snprintf(captured, sizeof(captured), "%s", kl_libbpf_captured());
	int r;
	if (plain_errno(err) != (err < 0 ? -err : err)) {
		char text[128];
		libbpf_strerror(err < 0 ? err : -err, text, sizeof(text));
		r = kl_fail_msg(EINVAL, "%s%s%s: %s", what, reason[0] ? ": " : "", reason, text);
	} else {
		r = reason[0] ? kl_fail(err, "%s: %s", what, reason) : kl_fail(err, "%s", what);
	}
	if (captured[0])
		kl_fail_log(captured, strlen(captured));
	return r;
}

/* Names as the object spells them, or with a kiln name's dashes (kiln turns them into _). */
static bool name_eq(const char *have, const char *want)
{
	for (; *have && *want; have++, want++)
		if (*have != *want && !(*have == '_' && *want == '-'))
			return false;
	return !*have && !*want;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static int read_file(const char *path, void **data, size_t *size)
{
	*data = kl_read_file(path, size);
	return *data ? 0 : -errno;
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[n] = 0;
	return 0;
}

/* ---- open, load, close -------------------------------------------------------------------- */

static int open_image(const void *elf, size_t size, const struct kiln_object_opts *o, const char *name,
		      struct kiln_object **out)
{
	/* libbpf 1.1 puts the object name in front of .rodata/.data/.bss map names and does not
	 * sanitise it, so "my-prog" would give the kernel an invalid map name: give it a clean
	 * name (the file's up to its first dot, as libbpf itself takes it). */
	char lname[64];
	snprintf(lname, sizeof(lname), "%s", base_name(name));
	lname[strcspn(lname, ".")] = 0;
	for (char *c = lname; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	if (!lname[0])
		snprintf(lname, sizeof(lname), "object");

	struct kiln_object *obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->name = strdup(name)) || !(obj->image = malloc(size))) {
		if (obj)
			free(obj->name);
		free(obj);
		return kl_fail(ENOMEM, "open %s", name);
	}
	memcpy(obj->image, elf, size);
	obj->image_size = size;
	obj->log_level = o->log_level;
	obj->log_size = o->log_size ? o->log_size : DEFAULT_LOG_SIZE;
	if (obj->log_size > UINT32_MAX >> 2)
		obj->log_size = UINT32_MAX >> 2;

	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = lname, .pin_root_path = o->pin_root);
	int err = 0;
	obj->bo = KL_LIBBPF(bpf_object__open_mem(elf, size, &oo));
	if (!obj->bo) {
		char what[PATH_MAX + 32];
		snprintf(what, sizeof(what), "open %s", name);
		err = fail_libbpf(errno ? -errno : -EINVAL, what);
		goto fail;
	}

	struct bpf_program *bp;
	struct bpf_map *bm;
	bpf_object__for_each_program(bp, obj->bo)
		obj->nprogs++;
	bpf_object__for_each_map(bm, obj->bo)
		obj->nmaps++;
	obj->progs = calloc(obj->nprogs + 1, sizeof(*obj->progs));
	obj->maps = calloc(obj->nmaps + 1, sizeof(*obj->maps));
	if (!obj->progs || !obj->maps) {
		err = kl_fail(ENOMEM, "open %s", name);
		goto fail;
	}
	size_t i = 0;
	bpf_object__for_each_program(bp, obj->bo) {
		obj->progs[i++] = (struct kiln_prog){ .obj = obj, .bp = bp };
		/* libbpf 1.1 leaves the sections it does not know without a type */
		const struct section_row *row = section_row(bpf_program__section_name(bp));
		if (bpf_program__type(bp) == BPF_PROG_TYPE_UNSPEC && row && row->type) {
			bpf_program__set_type(bp, row->type);
			bpf_program__set_expected_attach_type(bp, row->expected);
		}
	}
	i = 0;
	bpf_object__for_each_map(bm, obj->bo) {
		if (!(obj->maps[i++] = kl_map_wrap(-1, bpf_map__name(bm), false))) {
			err = kl_fail(ENOMEM, "open %s", name);
			goto fail;
		}
	}
	*out = obj;
	return 0;
fail:
	kiln_object_close(obj);
	return err;
}

int kiln_object_open_mem(const void *elf, size_t size, const struct kiln_object_opts *opts,
			 struct kiln_object **out)
{
	struct kiln_object_opts o;
	if (!out || !elf || !size)
		return kl_fail_msg(EINVAL, "kiln_object_open_mem: no image or no place for the object");
	*out = NULL;
	int err = copy_opts(&o, sizeof(o), opts, "struct kiln_object_opts");
	if (err)
		return err;
	kl_libbpf_capture_install();
	return open_image(elf, size, &o, o.name ? o.name : "object", out);
}

int kiln_object_open(const char *path, const struct kiln_object_opts *opts, struct kiln_object **out)
{
	struct kiln_object_opts o;
	if (!out || !path)
		return kl_fail_msg(EINVAL, "kiln_object_open: no path or no place for the object");
	*out = NULL;
	int err = copy_opts(&o, sizeof(o), opts, "struct kiln_object_opts");
	if (err)
		return err;
	kl_libbpf_capture_install();
	void *elf = NULL;
	size_t size = 0;
	char *warnings = NULL;
	if (kl_is_source_path(path)) {
		int level = o.opt_level == 0 ? 2 : o.opt_level < 0 ? 0 : o.opt_level;
		if ((err = kl_compile_to_mem_warn(path, level, &elf, &size, &warnings)))
			return err;
	} else if ((err = read_file(path, &elf, &size))) {
		return kl_fail(err, "open %s", path);
	}
	err = open_image(elf, size, &o, o.name ? o.name : base_name(path), out);
	free(elf);
	if (!err)
		(*out)->warnings = warnings;
	else
		free(warnings);
	return err;
}

/* A locked-down kernel refuses some program types to root too: say so with the EPERM. */
static const char *lockdown_hint(void)
{
	static _Thread_local char hint[64];
	char buf[128];
	hint[0] = 0;
	if (read_sysfs("/sys/kernel/security/lockdown", buf, sizeof(buf)) || strstr(buf, "[none]"))
		return hint;
	char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
	if (close)
		snprintf(hint, sizeof(hint), " (the kernel is locked down: %.*s)", (int)(close - open - 1), open + 1);
	return hint;
}

/* The program libbpf blames in its warnings of a failed load ("prog 'NAME': ..."). */
static struct kiln_prog *blamed_prog(struct kiln_object *obj)
{
	for (const char *s = kl_libbpf_captured(); (s = strstr(s, "prog '"));) {
		s += 6;
		const char *e = strchr(s, '\'');
		if (!e)
			break;
		for (size_t i = 0; i < obj->nprogs; i++) {
			const char *n = bpf_program__name(obj->progs[i].bp);
			if (strlen(n) == (size_t)(e - s) && !strncmp(n, s, (size_t)(e - s)))
				return &obj->progs[i];
		}
		s = e;
	}
	return NULL;
}

static int load_failed(struct kiln_object *obj, int err, const char *shared_log)
{
	if (err == -EPERM && kiln_bpf_privileged()) {   /* not libbpf's RLIMIT_MEMLOCK guess */
		char why[512];
		snprintf(why, sizeof(why), "%s", kiln_errmsg());
		return kl_fail_msg(err, "load %s: %s", obj->name, why);
	}
	struct kiln_prog *p = blamed_prog(obj);
	const char *log = p ? (p->log ? p->log : shared_log) : NULL;
	if (p && log && log[0]) {
		obj->log = strdup(log);
		int r;
		if (err == -ENOSPC)
			r = kl_fail(err, "load program '%s' of %s: its verifier log outgrew log_size (%zu bytes)",
				    bpf_program__name(p->bp), obj->name, obj->log_size);
		else
			r = kl_fail(err, "load program '%s' of %s: the verifier rejected it", bpf_program__name(p->bp),
				    obj->name);
		kl_fail_log(log, strlen(log));
		/* the rejection in the source's terms; without it only the log is there */
		kl_verifier_analyze(log, p->bp, obj->image, obj->image_size, &obj->verr);
		return r;
	}
	if (!p) {
		char what[PATH_MAX + 64];
		snprintf(what, sizeof(what), "load %s", obj->name);
		return fail_libbpf(err, what);
	}
	/* libbpf's line names the program again: keep what follows, or say which syscall */
	char reason[512], pfx[160], captured[8192];
	libbpf_reason(reason, sizeof(reason), err);
	snprintf(captured, sizeof(captured), "%s", kl_libbpf_captured());
	int n = snprintf(pfx, sizeof(pfx), "prog '%s': ", bpf_program__name(p->bp));
	const char *why = !strncmp(reason, pfx, (size_t)n) ? reason + n : reason;
	if (!strncmp(why, "BPF program load failed", 23))
		why = "bpf(BPF_PROG_LOAD)";
	int r = kl_fail(err, "load program '%s' of %s: %s%s", bpf_program__name(p->bp), obj->name, why,
			err == -EPERM ? lockdown_hint() : "");
	if (captured[0])
		kl_fail_log(captured, strlen(captured));
	return r;
}

/* With log_level > 0: every program's log, each under its name when there are several. */
static char *join_logs(struct kiln_object *obj)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	size_t with_log = 0;
	for (size_t i = 0; i < obj->nprogs; i++)
		with_log += obj->progs[i].log && obj->progs[i].log[0];
	for (size_t i = 0; i < obj->nprogs; i++) {
		const char *log = obj->progs[i].log;
		if (!log || !log[0])
			continue;
		if (with_log > 1)
			fprintf(f, "prog %s:\n", bpf_program__name(obj->progs[i].bp));
		fputs(log, f);
		if (log[strlen(log) - 1] != '\n')
			fputc('\n', f);
	}
	fclose(f);
	return out;
}

int kiln_object_load(struct kiln_object *obj)
{
	if (!obj)
		return kl_fail_msg(EINVAL, "kiln_object_load: no object");
	if (obj->load_tried)
		return kl_fail_msg(EINVAL, "load %s: an object loads once (open it again)", obj->name);
	free(obj->log);
	obj->log = NULL;

	/* Logs go to our buffers: with log_level 0 libbpf asks for one only when a program fails
	 * (and stops there), so one buffer serves all; otherwise each program keeps its own. */
	int err = 0;
	char *shared = NULL;
	if (!obj->log_level && !(shared = malloc(obj->log_size)))
		return kl_fail(ENOMEM, "load %s: log buffer", obj->name);
	if (shared)
		shared[0] = 0;
	for (size_t i = 0; i < obj->nprogs; i++) {
		struct kiln_prog *p = &obj->progs[i];
		char *buf = shared;
		if (obj->log_level) {
			if (!(buf = p->log = malloc(obj->log_size))) {
				err = kl_fail(ENOMEM, "load %s: log buffer", obj->name);
				goto out;
			}
			buf[0] = 0;
			bpf_program__set_log_level(p->bp, obj->log_level);
		}
		bpf_program__set_log_buf(p->bp, buf, obj->log_size);
	}

	obj->load_tried = true;
	err = KL_LIBBPF(bpf_object__load(obj->bo));
	if (err) {
		err = load_failed(obj, err, shared);
		goto out;
	}
	if (obj->log_level)
		obj->log = join_logs(obj);
	size_t i = 0;
	struct bpf_map *bm;
	bpf_object__for_each_map(bm, obj->bo) {
		int fd = bpf_map__fd(bm);
		if (i < obj->nmaps && fd >= 0)
			kl_map_set_fd(obj->maps[i], fd);
		i++;
	}
out:
	/* libbpf keeps the pointers but never writes after the one load it allows */
	for (size_t k = 0; k < obj->nprogs; k++) {
		free(obj->progs[k].log);
		obj->progs[k].log = NULL;
	}
	free(shared);
	return err;
}

const char *kiln_object_log(const struct kiln_object *obj)
{
	return obj && obj->log ? obj->log : "";
}

const struct kiln_verifier_error *kiln_object_verifier_error(const struct kiln_object *obj)
{
	return obj ? obj->verr : NULL;
}

const char *kiln_object_warnings(const struct kiln_object *obj)
{
	return obj && obj->warnings ? obj->warnings : "";
}

void kiln_object_close(struct kiln_object *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; obj->maps && i < obj->nmaps; i++)
		kiln_map_close(obj->maps[i]);
	bpf_object__close(obj->bo);
	free(obj->maps);
	free(obj->progs);
	free(obj->log);
	free(obj->image);
	free(obj->warnings);
	kiln_verifier_error_free(obj->verr);
	free(obj->name);
	free(obj);
}

/* ---- accessors ---------------------------------------------------------------------------- */

const char *kiln_object_name(const struct kiln_object *obj)
{
	return obj->name;
}

size_t kiln_object_prog_count(const struct kiln_object *obj)
{
	return obj->nprogs;
}

struct kiln_prog *kiln_object_prog(const struct kiln_object *obj, size_t i)
{
	return i < obj->nprogs ? &obj->progs[i] : NULL;
}

struct kiln_prog *kiln_object_find_prog(const struct kiln_object *obj, const char *name)
{
	for (size_t i = 0; name && i < obj->nprogs; i++)
		if (name_eq(bpf_program__name(obj->progs[i].bp), name))
			return &obj->progs[i];
	return NULL;
}

size_t kiln_object_map_count(const struct kiln_object *obj)
{
	return obj->nmaps;
}

struct kiln_map *kiln_object_map(const struct kiln_object *obj, size_t i)
{
	return i < obj->nmaps ? obj->maps[i] : NULL;
}

struct kiln_map *kiln_object_find_map(const struct kiln_object *obj, const char *name)
{
	for (size_t i = 0; name && i < obj->nmaps; i++)
		if (name_eq(kiln_map_name(obj->maps[i]), name))
			return obj->maps[i];
	return NULL;
}

struct bpf_object *kiln_object_libbpf(const struct kiln_object *obj)
{
	return obj->bo;
}

const char *kiln_prog_name(const struct kiln_prog *p)
{
	return bpf_program__name(p->bp);
}

const char *kiln_prog_section(const struct kiln_prog *p)
{
	return bpf_program__section_name(p->bp);
}

enum bpf_prog_type kiln_prog_type(const struct kiln_prog *p)
{
	return bpf_program__type(p->bp);
}

enum bpf_attach_type kiln_prog_expected_attach_type(const struct kiln_prog *p)
{
	return bpf_program__expected_attach_type(p->bp);
}

int kiln_prog_fd(const struct kiln_prog *p)
{
	int fd = bpf_program__fd(p->bp);
	return fd < 0 ? -1 : fd;
}

size_t kiln_prog_insn_count(const struct kiln_prog *p)
{
	return bpf_program__insn_cnt(p->bp);
}

struct bpf_program *kiln_prog_libbpf(const struct kiln_prog *p)
{
	return p->bp;
}

enum kiln_attach_kind kiln_prog_attach_kind(const struct kiln_prog *p)
{
	const struct section_row *row = section_row(kiln_prog_section(p));
	return row ? row->kind : KILN_ATTACH_NONE;
}

/* ---- attaching ---------------------------------------------------------------------------- */

struct attach_ctx {
	struct kiln_prog *p;
	const struct section_row *row;
	struct kiln_attach_opts o;
	struct kiln_link *l;
	int prog_fd;
};

static int attach_fail(struct attach_ctx *c, int err, bool with_libbpf, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int attach_fail(struct attach_ctx *c, int err, bool with_libbpf, const char *fmt, ...)
{
	char step[PATH_MAX + 128], what[PATH_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(step, sizeof(step), fmt, ap);
	va_end(ap);
	snprintf(what, sizeof(what), "attach program '%s' of %s: %s", kiln_prog_name(c->p), c->p->obj->name, step);
	return with_libbpf ? fail_libbpf(err, what) : kl_fail(err, "%s", what);
}

/* The section after its first '/', or "" */
static const char *section_target(const struct attach_ctx *c)
{
	const char *s = strchr(kiln_prog_section(c->p), '/');
	return s ? s + 1 : "";
}

static int resolve_iface(struct attach_ctx *c, int *ifindex, char *name)
{
	if (c->o.iface) {
		unsigned idx = if_nametoindex(c->o.iface);
		if (!idx)
			return attach_fail(c, errno ? errno : ENODEV, false, "interface %s", c->o.iface);
		*ifindex = (int)idx;
		snprintf(name, IF_NAMESIZE, "%s", c->o.iface);
		return 0;
	}
	if (c->o.ifindex > 0) {
		*ifindex = c->o.ifindex;
		if (!if_indextoname((unsigned)c->o.ifindex, name))
			return attach_fail(c, errno ? errno : ENODEV, false, "interface index %d", c->o.ifindex);
		return 0;
	}
	return attach_fail(c, EINVAL, false, "%s programs need an interface (iface or ifindex)",
			   kiln_attach_kind_name(c->row->kind));
}

static int attach_xdp(struct attach_ctx *c)
{
	int ifindex;
	char ifname[IF_NAMESIZE];
	int err = resolve_iface(c, &ifindex, ifname);
	if (err)
		return err;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = c->o.xdp_flags);
	int fd = bpf_link_create(c->prog_fd, ifindex, BPF_XDP, &lo);
	if (fd < 0)
		return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for xdp on %s", ifname);
	c->l->fd = fd;
	snprintf(c->l->desc, sizeof(c->l->desc), "xdp on %s", ifname);
	return 0;
}

/* How many tc filters hang under parent on ifindex (a netlink dump), or a negative errno. */
static int tc_filter_count(int ifindex, uint32_t parent)
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -errno;
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETTFILTER,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent },
	};
	int count = 0;
	if (send(s, &req, req.n.nlmsg_len, 0) < 0) {
		count = -errno;
		goto out;
	}
	static _Thread_local char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			count = n < 0 ? -errno : -EIO;
			goto out;
		}
		unsigned int left = (unsigned int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				count = e ? e : count;
				goto out;
			}
			count += h->nlmsg_type == RTM_NEWTFILTER;
		}
	}
out:
	close(s);
	return count;
}

/* The clsact qdiscs this process added, with how many of our filters hang in each: the last
 * of them to go removes the qdisc, if no one else's filter went in meanwhile. */
static struct clsact_added {
	int ifindex, filters;
} *clsacts;
static size_t nclsacts;
static pthread_mutex_t clsact_lock = PTHREAD_MUTEX_INITIALIZER;

static struct clsact_added *clsact_find(int ifindex)
{
	for (size_t i = 0; i < nclsacts; i++)
		if (clsacts[i].ifindex == ifindex)
			return &clsacts[i];
	return NULL;
}

/* A filter of ours goes into the clsact qdisc of ifindex; created: we just added the qdisc.
 * Whether the link shares in removing it. */
static bool clsact_hold(int ifindex, bool created)
{
	pthread_mutex_lock(&clsact_lock);
	struct clsact_added *c = clsact_find(ifindex);
	if (c && created)
		c->filters = 0;         /* the qdisc we added went, and this is a new one */
	if (!c && created) {
		struct clsact_added *n = realloc(clsacts, (nclsacts + 1) * sizeof(*n));
		if (n) {
			clsacts = n;
			c = &clsacts[nclsacts++];
			*c = (struct clsact_added){ ifindex, 0 };
		}
	}
	if (c)
		c->filters++;
	pthread_mutex_unlock(&clsact_lock);
	return c != NULL;
}

static void clsact_release(struct kiln_link *l)
{
	if (!l->hook_created)
		return;
	l->hook_created = false;
	pthread_mutex_lock(&clsact_lock);
	struct clsact_added *c = clsact_find(l->hook.ifindex);
	bool last = c && --c->filters <= 0;
	if (last)
		*c = clsacts[--nclsacts];
	if (last && !nclsacts) {
		free(clsacts);
		clsacts = NULL;
	}
	pthread_mutex_unlock(&clsact_lock);
	if (!last)
		return;
	int in = tc_filter_count(l->hook.ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS));
	int eg = tc_filter_count(l->hook.ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS));
	if (in == 0 && eg == 0) {
		struct bpf_tc_hook h = l->hook;
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
}

static int attach_tc_legacy(struct attach_ctx *c, int ifindex, const char *ifname, int dir)
{
	struct kiln_link *l = c->l;
	const char *dname = dir == KILN_TC_EGRESS ? "egress" : "ingress";
	l->hook = (struct bpf_tc_hook){ .sz = sizeof(struct bpf_tc_hook), .ifindex = ifindex,
					.attach_point = dir == KILN_TC_EGRESS ? BPF_TC_EGRESS : BPF_TC_INGRESS };
	int err = KL_LIBBPF(bpf_tc_hook_create(&l->hook));
	if (err && err != -EEXIST)
		return attach_fail(c, err, true, "add a clsact qdisc to %s", ifname);
	l->hook_created = clsact_hold(ifindex, !err);
	LIBBPF_OPTS(bpf_tc_opts, to, .prog_fd = c->prog_fd);
	if ((err = bpf_tc_attach(&l->hook, &to))) {
		clsact_release(l);
		return attach_fail(c, err, true, "add a tc %s filter on %s", dname, ifname);
	}
	l->tc_legacy = true;
	l->tc_handle = to.handle;
	l->tc_priority = to.priority;
	snprintf(l->desc, sizeof(l->desc), "tc %s on %s (clsact filter)", dname, ifname);
	return 0;
}

static int attach_tc(struct attach_ctx *c)
{
	int ifindex;
	char ifname[IF_NAMESIZE];
	int err = resolve_iface(c, &ifindex, ifname);
	if (err)
		return err;
	int dir = c->row->tc_dir >= 0 ? c->row->tc_dir : c->o.tc_dir;
	if (dir != KILN_TC_INGRESS && dir != KILN_TC_EGRESS)
		return attach_fail(c, EINVAL, false, "tc_dir %d is neither KILN_TC_INGRESS nor KILN_TC_EGRESS", dir);
	const char *dname = dir == KILN_TC_EGRESS ? "egress" : "ingress";
	if (c->o.tc_legacy && c->row->tcx_only)
		return attach_fail(c, EINVAL, false, "section %s asks for a tcx link, not a legacy filter",
				   kiln_prog_section(c->p));
	if (!c->o.tc_legacy) {
		int fd = bpf_link_create(c->prog_fd, ifindex, dir == KILN_TC_EGRESS ? KL_TCX_EGRESS : KL_TCX_INGRESS,
					 NULL);
		if (fd >= 0) {
			c->l->fd = fd;
			snprintf(c->l->desc, sizeof(c->l->desc), "tc %s on %s (tcx)", dname, ifname);
			return 0;
		}
		/* a kernel before 6.6 does not know the attach type: EINVAL */
		if (fd != -EINVAL || c->row->tcx_only)
			return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for tcx %s on %s%s", dname, ifname,
					   fd == -EINVAL ? " (tcx links need kernel 6.6)" : "");
	}
	return attach_tc_legacy(c, ifindex, ifname, dir);
}

/* A perf event made into a BPF link. The link keeps the event, so our perf fd goes at once
 * and the link fd alone stands for the attachment: closing it detaches, pinning it keeps it
 * (libbpf 1.1's perf links would leak the perf fd when disconnected for a pin). */
static int perf_link(struct attach_ctx *c, struct perf_event_attr *attr, int pid, const char *what)
{
	int pfd = (int)syscall(__NR_perf_event_open, attr, pid, pid == -1 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return attach_fail(c, errno, false, "perf_event_open for %s", what);
	int fd = bpf_link_create(c->prog_fd, pfd, BPF_PERF_EVENT, NULL);
	close(pfd);
	if (fd < 0)
		return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for %s", what);
	c->l->fd = fd;
	snprintf(c->l->desc, sizeof(c->l->desc), "%s", what);
	return 0;
}

static int attach_tracepoint(struct attach_ctx *c)
{
	const char *t = section_target(c), *slash = strchr(t, '/');
	char what[512], path[PATH_MAX], buf[32];
	snprintf(what, sizeof(what), "tracepoint %s", t);
	if (!slash || slash == t || !slash[1])
		return attach_fail(c, EINVAL, false, "section %s is not tracepoint/CATEGORY/NAME", kiln_prog_section(c->p));
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	int err = -ENOENT;
	for (size_t i = 0; err && i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], t);
		err = read_sysfs(path, buf, sizeof(buf));
	}
	if (err)
		return attach_fail(c, err, false, "no tracepoint %s in tracefs (/sys/kernel/tracing/events/%s/id)", t, t);
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = strtoull(buf, NULL, 10) };
	return perf_link(c, &a, -1, what);
}

/* The PMU of dynamic probes ("uprobe", "kprobe"): its type and the config bit for a return
 * probe. */
static int probe_pmu(struct attach_ctx *c, const char *pmu, uint32_t *type, int *ret_bit)
{
	char path[128], buf[64];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	int err = read_sysfs(path, buf, sizeof(buf));
	if (err)
		return attach_fail(c, err, false, "no %s PMU in %s (a kernel without %s events?)", pmu, path, pmu);
	*type = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	*ret_bit = 0;
	if (!read_sysfs(path, buf, sizeof(buf)))
		sscanf(buf, "config:%d", ret_bit);
	return 0;
}

/* The file offset of function sym in the ELF file at path: what a uprobe takes. */
static int elf_func_offset(const char *path, const char *sym, uint64_t *off)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = e && elf_kind(e) == ELF_K_ELF ? -ENOENT : -ENOEXEC;
	for (Elf_Scn *scn = NULL; err == -ENOENT && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr ss;
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || strcmp(name, sym) || !gelf_getshdr(elf_getscn(e, s.st_shndx), &ss))
				continue;
			*off = s.st_value - ss.sh_addr + ss.sh_offset;
			err = 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* "NAME+OFF" or "NAME" or "0xADDR" into name (maybe "") and offset. */
static void split_func(const char *s, char *name, size_t len, uint64_t *off)
{
	const char *plus = strchr(s, '+');
	size_t n = plus ? (size_t)(plus - s) : strlen(s);
	snprintf(name, len, "%.*s", (int)n, s);
	*off = plus ? strtoull(plus + 1, NULL, 0) : 0;
	char *end;
	if (isdigit((unsigned char)name[0])) {
		*off += strtoull(name, &end, 0);
		if (!*end)
			name[0] = 0;
	}
}

static int attach_uprobe(struct attach_ctx *c)
{
	const char *sec = kiln_prog_section(c->p), *t = section_target(c);
	bool ret = !strncmp(sec, "uretprobe", 9);
	char bin[PATH_MAX] = "", func[256] = "", what[PATH_MAX + 320];
	uint64_t off = 0, sym_off = 0;
	const char *colon = strrchr(t, ':');
	if (colon) {
		snprintf(bin, sizeof(bin), "%.*s", (int)(colon - t), t);
		split_func(colon + 1, func, sizeof(func), &off);
	}
	const char *binary = c->o.binary ? c->o.binary : bin[0] ? bin : NULL;
	const char *symbol = c->o.symbol ? c->o.symbol : func[0] ? func : NULL;
	off += c->o.offset;
	if (!binary)
		return attach_fail(c, EINVAL, false, "%s needs a binary and a symbol (options, or section %s/BINARY:FUNC)",
				   ret ? "uretprobe" : "uprobe", ret ? "uretprobe" : "uprobe");
	if (symbol) {
		int err = elf_func_offset(binary, symbol, &sym_off);
		if (err)
			return attach_fail(c, err, false, "function %s in %s", symbol, binary);
		snprintf(what, sizeof(what), "%s %s:%s", ret ? "uretprobe" : "uprobe", binary, symbol);
		if (off)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "+%#llx", (unsigned long long)off);
	} else {
		snprintf(what, sizeof(what), "%s %s:%#llx", ret ? "uretprobe" : "uprobe", binary, (unsigned long long)off);
	}
	uint32_t type;
	int bit, err = probe_pmu(c, "uprobe", &type, &bit);
	if (err)
		return err;
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = ret ? 1ull << bit : 0,
				     .config1 = (uint64_t)(uintptr_t)binary, .config2 = sym_off + off };
	return perf_link(c, &a, c->o.pid > 0 ? c->o.pid : -1, what);
}

static int attach_kprobe(struct attach_ctx *c)
{
	bool ret = !strncmp(kiln_prog_section(c->p), "kretprobe", 9);
	char func[256], what[320];
	uint64_t off;
	split_func(section_target(c), func, sizeof(func), &off);
	const char *symbol = c->o.symbol ? c->o.symbol : func;
	off += c->o.offset;
	if (!symbol[0])
		return attach_fail(c, EINVAL, false, "a kprobe needs a function (section kprobe/FUNC or symbol)");
	snprintf(what, sizeof(what), "%s %s", ret ? "kretprobe" : "kprobe", symbol);
	if (off)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "+%#llx", (unsigned long long)off);
	uint32_t type;
	int bit, err = probe_pmu(c, "kprobe", &type, &bit);
	if (err)
		return err;
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = ret ? 1ull << bit : 0,
				     .config1 = (uint64_t)(uintptr_t)symbol, .config2 = off };
	return perf_link(c, &a, -1, what);
}

static int attach_libbpf_done(struct attach_ctx *c, struct bpf_link *bl, const char *step)
{
	if (!bl)
		return attach_fail(c, errno ? -errno : -EINVAL, true, "%s", step);
	c->l->bl = bl;
	c->l->fd = bpf_link__fd(bl);
	return 0;
}

static int attach_raw_tracepoint(struct attach_ctx *c)
{
	const char *t = section_target(c);
	snprintf(c->l->desc, sizeof(c->l->desc), "raw_tracepoint %s", t);
	return attach_libbpf_done(c, bpf_program__attach_raw_tracepoint(c->p->bp, t), c->l->desc);
}

/* fentry/F, fexit/F, tp_btf/T, lsm/H: the target went into the program at load. */
static int attach_trampoline(struct attach_ctx *c)
{
	const char *sec = kiln_prog_section(c->p);
	snprintf(c->l->desc, sizeof(c->l->desc), "%.*s %s", (int)strcspn(sec, "/"), sec, section_target(c));
	struct bpf_link *bl = c->row->kind == KILN_ATTACH_LSM ? bpf_program__attach_lsm(c->p->bp)
							      : bpf_program__attach_trace(c->p->bp);
	return attach_libbpf_done(c, bl, c->l->desc);
}

static int attach_cgroup(struct attach_ctx *c)
{
	if (!c->o.cgroup)
		return attach_fail(c, EINVAL, false, "cgroup programs need a cgroup (a cgroup v2 directory)");
	int cg = open(c->o.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0)
		return attach_fail(c, errno, false, "open cgroup %s", c->o.cgroup);
	snprintf(c->l->desc, sizeof(c->l->desc), "%s on %s", kiln_prog_section(c->p), c->o.cgroup);
	struct bpf_link *bl = bpf_program__attach_cgroup(c->p->bp, cg);
	int err = bl ? 0 : -errno;
	close(cg);
	errno = -err;
	return attach_libbpf_done(c, bl, c->l->desc);
}

static int (*const attachers[])(struct attach_ctx *) = {
	[KILN_ATTACH_XDP] = attach_xdp,
	[KILN_ATTACH_TC] = attach_tc,
	[KILN_ATTACH_TRACEPOINT] = attach_tracepoint,
	[KILN_ATTACH_RAW_TRACEPOINT] = attach_raw_tracepoint,
	[KILN_ATTACH_TRACING] = attach_trampoline,
	[KILN_ATTACH_LSM] = attach_trampoline,
	[KILN_ATTACH_UPROBE] = attach_uprobe,
	[KILN_ATTACH_KPROBE] = attach_kprobe,
	[KILN_ATTACH_CGROUP] = attach_cgroup,
};

int kiln_prog_attach(struct kiln_prog *p, const struct kiln_attach_opts *opts, struct kiln_link **out)
{
	if (!p || !out)
		return kl_fail_msg(EINVAL, "kiln_prog_attach: no program or no place for the link");
	*out = NULL;
	struct attach_ctx c = { .p = p, .row = section_row(kiln_prog_section(p)), .prog_fd = kiln_prog_fd(p) };
	int err = copy_opts(&c.o, sizeof(c.o), opts, "struct kiln_attach_opts");
	if (err)
		return err;
	enum kiln_attach_kind kind = c.row ? c.row->kind : KILN_ATTACH_NONE;
	int (*attach)(struct attach_ctx *) =
		(size_t)kind < sizeof(attachers) / sizeof(attachers[0]) ? attachers[kind] : NULL;
	if (!attach)
		return kl_fail_msg(EOPNOTSUPP, "attach program '%s' of %s: section %s (%s) has no hook kiln attaches to",
				   kiln_prog_name(p), p->obj->name, kiln_prog_section(p), kiln_attach_kind_name(kind));
	if (c.prog_fd < 0)
		return kl_fail_msg(EINVAL, "attach program '%s' of %s: not loaded (kiln_object_load first)",
				   kiln_prog_name(p), p->obj->name);
	if (!(c.l = calloc(1, sizeof(*c.l))))
		return kl_fail(ENOMEM, "attach program '%s' of %s", kiln_prog_name(p), p->obj->name);
	c.l->kind = kind;
	c.l->fd = -1;
	if ((err = KL_LIBBPF(attach(&c)))) {
		free(c.l);
		return err;
	}
	*out = c.l;
	return 0;
}

/* ---- links -------------------------------------------------------------------------------- */

static void mkdir_parents(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(dir, 0700);
		*s = '/';
	}
}

int kiln_link_pin(struct kiln_link *l, const char *path)
{
	if (!l || !path)
		return kl_fail_msg(EINVAL, "kiln_link_pin: no link or no path");
	if (l->tc_legacy)
		return kl_fail_msg(EOPNOTSUPP, "pin %s at %s: a legacy tc filter is no link (it stays in the qdisc "
				   "until detached)", l->desc, path);
	if (l->detached)
		return kl_fail_msg(EINVAL, "pin %s at %s: the link was detached", l->desc, path);
	if (l->pin_path)
		return kl_fail_msg(EBUSY, "pin %s at %s: already pinned at %s", l->desc, path, l->pin_path);
	char *copy = strdup(path);
	if (!copy)
		return kl_fail(ENOMEM, "pin %s at %s", l->desc, path);
	mkdir_parents(path);
	int err = bpf_obj_pin(l->fd, path);
	if (err) {
		free(copy);
		return kl_fail(err, "bpf(BPF_OBJ_PIN) for %s at %s", l->desc, path);
	}
	l->pin_path = copy;
	return 0;
}

/* Let go of our fd: the attachment ends unless something else (a pin) holds the link. */
static void link_close(struct kiln_link *l)
{
	if (l->bl)
		bpf_link__destroy(l->bl);
	else if (l->fd >= 0)
		close(l->fd);
	l->bl = NULL;
	l->fd = -1;
}

int kiln_link_detach(struct kiln_link *l)
{
	if (!l)
		return kl_fail_msg(EINVAL, "kiln_link_detach: no link");
	if (l->detached)
		return 0;
	int err = 0;
	if (l->tc_legacy) {
		LIBBPF_OPTS(bpf_tc_opts, to, .handle = l->tc_handle, .priority = l->tc_priority);
		err = KL_LIBBPF(bpf_tc_detach(&l->hook, &to));
		/* gone already: the filter deleted by hand, or the interface */
		if (err == -ENOENT || err == -ENODEV)
			err = 0;
		if (err)
			return fail_libbpf(err, l->desc);
		clsact_release(l);
	} else {
		if (l->pin_path && unlink(l->pin_path) && errno != ENOENT)
			err = kl_fail(errno, "detach %s: unpin %s", l->desc, l->pin_path);
		free(l->pin_path);
		l->pin_path = NULL;
		/* ends it even where another process holds the link; perf links cannot, and
		 * closing the last fd ends those */
		bpf_link_detach(l->fd);
		link_close(l);
	}
	l->detached = true;
	return err;
}

void kiln_link_destroy(struct kiln_link *l)
{
	if (!l)
		return;
	if (l->pin_path && !l->detached) {
		/* the pin keeps it attached; libbpf 1.1's disconnect would leave its fd open */
		if (l->bl) {
			close(bpf_link__fd(l->bl));
			bpf_link__disconnect(l->bl);
			bpf_link__destroy(l->bl);
		} else {
			close(l->fd);
		}
	} else {
		kiln_link_detach(l);
	}
	free(l->pin_path);
	free(l);
}

enum kiln_attach_kind kiln_link_kind(const struct kiln_link *l)
{
	return l->kind;
}

const char *kiln_link_describe(const struct kiln_link *l)
{
	return l->desc;
}

int kiln_link_fd(const struct kiln_link *l)
{
	return l->tc_legacy || l->detached ? -1 : l->fd;
}
