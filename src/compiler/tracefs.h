/* tracefs.h — a tracepoint's record layout, read from its format file in tracefs at compile
 * time: (ctx FIELD) in a tracepoint program and deftracepoint both use it. */
#ifndef KL_TRACEFS_H
#define KL_TRACEFS_H
#include "mounts.h"
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "arena.h"

struct kl_tp_field {
	const char *name;     /* C name as in the format: "prev_pid" */
	uint32_t offset, size;
	uint32_t count;       /* elements of an array field (char comm[16]: 16), 0 for a scalar */
	bool is_signed;
	bool data_loc;        /* __data_loc: a u32 of length << 16 | offset of the bytes in the record */
	const char *ctype;    /* the C type before the name: "struct __kernel_timespec *", "int" */
};

/* The one check of a tracepoint name, used by the compiler, `kiln trace` and libkiln's attach:
 * "CATEGORY/EVENT", both parts 1 to 255 letters, digits and '_' (so no '.', '%', '/', control
 * byte or empty part: nothing that could leave tracefs's events directory). */
bool kl_tracepoint_name_ok(const char *event);

/* kl_tracefs_events() (mounts.h): the events directory of the tracefs mounted, mounted now
 * if missing and we may, or NULL. */

/* The path of file ("id", "format") of tracepoint event under the events directory `events`
 * (NULL: kl_tracefs_events()), in path (file NULL: the event's directory): 0 when the name
 * passes kl_tracepoint_name_ok, no part of the path below `events` is a symlink, and it
 * resolves (realpath) to a path under `events` itself. Otherwise a negative errno with the
 * reason in msg: -EINVAL for a name no tracepoint has, -ELOOP for a symlink, -ENOENT when
 * tracefs has no such tracepoint, -EXDEV when the path resolves elsewhere, -ENODEV when no
 * tracefs is mounted. */
int kl_tracepoint_file(const char *events, const char *event, const char *file, char *path, size_t pathsz,
		       char *msg, size_t msgsz);

/* Check a tracepoint name "CATEGORY/EVENT" against tracefs: kl_tracepoint_name_ok, and each
 * part an existing directory (not a symlink) under events/. 0 if it exists; -1 if not, with
 * the reason (naming the nearest existing names) in msg; 1 if no tracefs is mounted to ask,
 * with that in msg. */
int kl_tracepoint_check(const char *event, char *msg, size_t msgsz);
/* The same against the events directory root (NULL: none mounted); tests give their own. */
int kl_tracepoint_check_in(const char *root, const char *event, char *msg, size_t msgsz);

/* The fields of tracepoint `event` ("sched/sched_switch"), common_* ones included, in
 * order. 0 on success, with the format file's path in `path`; -1 when the name is not a
 * tracepoint tracefs has, or its format cannot be read, with the whole reason in `path`. */
int kl_tracepoint_format(struct kl_arena *a, const char *event, struct kl_tp_field **fields, uint32_t *n,
			 char *path, size_t pathsz);

/* The one lookup of a tracepoint's field by name, for (ctx FIELD), %tracepoint-fields and
 * kiln trace's args->FIELD: among the n fields of tracepoint `event` (kl_tracepoint_format's),
 * the one spelled name, where any character of name but a letter, digit or '_' stands for '_'
 * (the source's prev-pid is prev_pid). flags: KL_TPF_COMMON finds the common_* fields too;
 * KL_TPF_ANY_CASE, failing an exact match, one spelled so in another case. NULL when none is,
 * with the one message in msg: "tracepoint EVENT has no field 'NAME'; did you mean ...? Its
 * fields: ..." (the fields a program may read, common_* left out). */
enum { KL_TPF_COMMON = 1, KL_TPF_ANY_CASE = 2 };
const struct kl_tp_field *kl_tracepoint_field(const struct kl_tp_field *fields, uint32_t n, const char *event,
					      const char *name, unsigned flags, char *msg, size_t msgsz);

#endif
