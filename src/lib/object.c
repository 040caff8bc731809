/* object.c — BPF objects on libbpf 1.1: open (kiln sources compiled in memory), load with the
 * verifier's log kept (and a rejection explained), programs and maps by name; attach.c attaches. */
#define _GNU_SOURCE
#include "kiln/object.h"
#include "kiln/compile.h"
#include "kiln/error.h"
#include "kiln/pin.h"
#include "compiler/diag.h"
#include "fail.h"
#include "map_internal.h"
#include "object_internal.h"
#include "validate.h"
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

/* ---- sections ---------------------------------------------------------------------------- */

/* How a section attaches is a list of its own: the ATTACH_SECTION rows of
 * kfacts/prog_types.def. */

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
	[KILN_ATTACH_SOCKMAP] = "sockmap",
	[KILN_ATTACH_NETNS] = "netns",
	[KILN_ATTACH_STRUCT_OPS] = "struct_ops",
};

const char *kiln_attach_kind_name(enum kiln_attach_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]) || !kind_names[kind])
		return "unknown";
	return kind_names[kind];
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* Copy the caller's options, however old its struct: fields past opts->sz stay zero. */
int kl_copy_opts(void *dst, size_t dst_size, const void *src, const char *what)
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
int kl_fail_libbpf(int err, const char *what)
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

int kl_read_sysfs(const char *path, char *buf, size_t len)
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
	/* libbpf trusts much of an object's bytes: check them all before it reads any */
	int verr = kl_object_validate(elf, size, name);
	if (verr)
		return verr;
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
	/* libbpf reads ELF headers in place: it gets the copy, which malloc aligned */
	obj->bo = KL_LIBBPF(bpf_object__open_mem(obj->image, size, &oo));
	if (!obj->bo) {
		char what[PATH_MAX + 32];
		snprintf(what, sizeof(what), "open %s", name);
		err = kl_fail_libbpf(errno ? -errno : -EINVAL, what);
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
		const struct kl_attach_section *row = kl_attach_section_find(bpf_program__section_name(bp));
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
	int err = kl_copy_opts(&o, sizeof(o), opts, "struct kiln_object_opts");
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
	int err = kl_copy_opts(&o, sizeof(o), opts, "struct kiln_object_opts");
	if (err)
		return err;
	kl_libbpf_capture_install();
	void *elf = NULL;
	size_t size = 0;
	char *warnings = NULL;
	if (kiln_compile_is_source(path)) {
		struct kiln_compile_opts co = { .sz = sizeof(co), .opt_level = o.opt_level < 0 ? -1 : o.opt_level,
						.btf_path = o.btf_path, .warnings = &warnings };
		if ((err = kiln_compile(path, &elf, &size, &co))) {
			free(warnings);
			return err;
		}
	} else if ((err = read_file(path, &elf, &size))) {
		return kl_fail_msg(err, "open %s: %s", path, kl_read_strerror(-err));
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
	if (kl_read_sysfs("/sys/kernel/security/lockdown", buf, sizeof(buf)) || strstr(buf, "[none]"))
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
		/* the rejection in the source's terms; without it only the log is there */
		kl_verifier_analyze(log, p->bp, obj->image, obj->image_size, &obj->verr);
		const char *said = obj->verr && obj->verr->message[0] ? obj->verr->message : NULL;
		int r;
		if (err == -ENOSPC)
			r = kl_fail(err, "load program '%s' of %s: its verifier log outgrew log_size (%zu bytes)",
				    bpf_program__name(p->bp), obj->name, obj->log_size);
		else if (said)   /* its words, not EACCES's "Permission denied" */
			r = kl_fail_msg(err, "load program '%s' of %s: the verifier rejected it: %s",
					bpf_program__name(p->bp), obj->name, said);
		else
			r = kl_fail(err, "load program '%s' of %s: the verifier rejected it", bpf_program__name(p->bp),
				    obj->name);
		kl_fail_log(log, strlen(log));
		return r;
	}
	if (!p) {
		char what[PATH_MAX + 64];
		snprintf(what, sizeof(what), "load %s", obj->name);
		return kl_fail_libbpf(err, what);
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

/* A map pinned by name is reused only if the pin has its shape; libbpf says no more than
 * "parameter mismatch". Say which property differs, before libbpf tries. */
static int check_pins(struct kiln_object *obj)
{
	struct bpf_map *bm;
	bpf_object__for_each_map(bm, obj->bo) {
		const char *path = bpf_map__pin_path(bm);
		char pname[NAME_MAX + 1], why[512];
		if (path && kiln_pin_name(bpf_map__name(bm), pname, sizeof(pname))) {
			snprintf(why, sizeof(why), "%s", kiln_errmsg());
			return kl_fail_msg(EINVAL, "load %s: a map pinned by name: %s", obj->name, why);
		}
		if (!path || access(path, F_OK))
			continue;
		int fd = bpf_obj_get(path);
		if (fd < 0)
			continue;          /* libbpf's own attempt will say why */
		struct bpf_map_info in = { 0 };
		uint32_t len = sizeof(in);
		int err = bpf_obj_get_info_by_fd(fd, &in, &len);
		close(fd);
		if (err)
			continue;
		char diff[512] = "";
		size_t n = 0;
#define KL_PIN_DIFF(what, pinned, here)                                                           \
		if ((uint64_t)(pinned) != (uint64_t)(here) && n < sizeof(diff))                   \
			n += (size_t)snprintf(diff + n, sizeof(diff) - n, "%s%s %llu pinned, %llu here", \
					      n ? "; " : "", what, (unsigned long long)(pinned),   \
					      (unsigned long long)(here));
		KL_PIN_DIFF("type", in.type, bpf_map__type(bm))
		KL_PIN_DIFF("key size", in.key_size, bpf_map__key_size(bm))
		KL_PIN_DIFF("value size", in.value_size, bpf_map__value_size(bm))
		if (bpf_map__max_entries(bm))
			KL_PIN_DIFF("max entries", in.max_entries, bpf_map__max_entries(bm))
		KL_PIN_DIFF("flags", in.map_flags, bpf_map__map_flags(bm))
#undef KL_PIN_DIFF
		if (n)
			return kl_fail_msg(EINVAL, "load %s: map '%s' is pinned at %s with another shape (%s); remove "
					   "the pin, or give the map the pinned shape", obj->name, bpf_map__name(bm), path,
					   diff);
	}
	return 0;
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
	kl_struct_ops_prepare(obj->bo);
	if ((err = check_pins(obj)))
		goto out;
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
	const struct kl_attach_section *row = kl_attach_section_find(kiln_prog_section(p));
	return row ? row->kind : KILN_ATTACH_NONE;
}

