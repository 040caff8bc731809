/* test_tracefs.c — the one tracepoint-name check (src/compiler/tracefs.h) that the compiler,
 * `kiln trace` and libkiln's attach share: names that could leave tracefs ("..", "%2e%2e",
 * extra '/', control bytes) are refused by name, and in an events tree of the test's own,
 * symlinks to a directory or an id file outside are refused although a real file waits
 * there; the real tracefs's ids are still found. */
#define _GNU_SOURCE
#include "check.h"
#include "compiler/tracefs.h"
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[64];       /* mkdtemp'd: events/ (the fake tracefs) and outside/ */
static char pathbuf[PATH_MAX];

static const char *at(const char *rel)
{
	snprintf(pathbuf, sizeof(pathbuf), "%s/%s", top, rel);
	return pathbuf;
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_names(void)
{
	static const char *const good[] = { "sched/sched_switch", "syscalls/sys_enter_getppid", "a/b", "X_1/y2" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK("tracefs/name-ok", kl_tracepoint_name_ok(good[i]), "'%s' refused", good[i]);
	char longpart[300];
	memset(longpart, 'a', sizeof(longpart) - 1);
	longpart[sizeof(longpart) - 1] = 0;
	longpart[5] = '/';
	static const char *const bad[] = {
		"", "sched", "sched/", "/sched_switch", "../x", "sched/..", "..", "../../../../tmp/x",
		"%2e%2e/x", "sched/%2e%2e", "sched/sched_switch/../sched_switch", "sched//sched_switch",
		"a.b/c", "sched/sched_switch\n", "sys\x1b[2Jcalls/x", "sch\xc3\xa9/x", "sched/a b",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK("tracefs/name-refused", !kl_tracepoint_name_ok(bad[i]), "'%s' accepted", bad[i]);
	CHECK("tracefs/name-refused-long", !kl_tracepoint_name_ok(longpart), "a 294-byte event name accepted");
	CHECK("tracefs/name-refused-null", !kl_tracepoint_name_ok(NULL), "NULL accepted");

	/* kl_tracepoint_check and kl_tracepoint_file refuse by the same check, whatever is mounted */
	char msg[1024], path[PATH_MAX];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK("tracefs/check-refuses", kl_tracepoint_check(bad[i], msg, sizeof(msg)) == -1 &&
		      strstr(msg, "is not a tracepoint name"), "'%s': %s", bad[i], msg);
		CHECK("tracefs/file-refuses", kl_tracepoint_file(NULL, bad[i], "id", path, sizeof(path), msg,
								 sizeof(msg)) == -EINVAL, "'%s': %s", bad[i], msg);
	}
	kl_tracepoint_check("sys\x1b[2Jcalls/x", msg, sizeof(msg));
	CHECK("tracefs/refusal-escapes-control-bytes", strstr(msg, "'sys\\x1b[2Jcalls/x'") && !strchr(msg, '\x1b'),
	      "%s", msg);
}

/* A tracefs of our own: events/cat/ev/id is real; outside/ holds an id file and a directory
 * that symlinks inside events/ point at. */
static void test_fake_tree(void)
{
	char events[PATH_MAX], msg[1024], path[PATH_MAX];
	snprintf(events, sizeof(events), "%s/events", top);
	int made = mkdir(at("events"), 0755) | mkdir(at("events/cat"), 0755) | mkdir(at("events/cat/ev"), 0755) |
		   mkdir(at("events/cat/ev2"), 0755) | mkdir(at("outside"), 0755) | mkdir(at("outside/x"), 0755);
	put("events/cat/ev/id", "42\n");
	put("outside/x/id", "7\n");
	made |= symlink("../../outside/x", at("events/cat/lnk")) | symlink("../outside", at("events/lcat")) |
		symlink("../../../outside/x/id", at("events/cat/ev2/id"));
	CHECK("tracefs/fake-tree", !made, "could not build the tree under %s: %s", top, strerror(errno));
	if (made)
		return;

	int err = kl_tracepoint_file(events, "cat/ev", "id", path, sizeof(path), msg, sizeof(msg));
	CHECK("tracefs/file-found", !err && !strcmp(path, at("events/cat/ev/id")), "%d %s (%s)", err, path, msg);
	err = kl_tracepoint_file(events, "cat/none", "id", path, sizeof(path), msg, sizeof(msg));
	CHECK("tracefs/file-missing", err == -ENOENT && strstr(msg, "no tracepoint cat/none"), "%d %s", err, msg);
	static const struct { const char *event, *label; } links[] = {
		{ "cat/lnk", "event-symlink" }, { "lcat/x", "category-symlink" }, { "cat/ev2", "id-symlink" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		char name[64];
		snprintf(name, sizeof(name), "tracefs/refuses-%s", links[i].label);
		path[0] = 0;
		err = kl_tracepoint_file(events, links[i].event, "id", path, sizeof(path), msg, sizeof(msg));
		CHECK(name, err == -ELOOP && strstr(msg, "is a symlink") && !path[0], "%s: %d %s", links[i].event,
		      err, msg);
	}
	/* the check the compiler and `kiln trace` make of a name: the directory symlinks refused
	 * (a file in it, format or id, is then read through kl_tracepoint_file, above) */
	CHECK("tracefs/check-in-found", kl_tracepoint_check_in(events, "cat/ev", msg, sizeof(msg)) == 0, "%s", msg);
	for (size_t i = 0; i < 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "tracefs/check-refuses-%s", links[i].label);
		err = kl_tracepoint_check_in(events, links[i].event, msg, sizeof(msg));
		CHECK(name, err == -1, "%s: %d %s", links[i].event, err, msg);
	}
	/* the name check comes first: a path that would reach outside/ by '..' is refused by name */
	err = kl_tracepoint_file(events, "../outside/x", "id", path, sizeof(path), msg, sizeof(msg));
	CHECK("tracefs/refuses-dotdot-in-tree", err == -EINVAL, "%d %s", err, msg);
}

static void test_real_tracefs(void)
{
	char msg[1024], path[PATH_MAX];
	if (!kl_tracefs_events()) {
		printf("SKIP tracefs/real: no tracefs mounted at /sys/kernel/tracing\n");
		return;
	}
	int err = kl_tracepoint_file(NULL, "syscalls/sys_enter_getppid", "id", path, sizeof(path), msg, sizeof(msg));
	CHECK("tracefs/real-id", !err && access(path, R_OK) == 0, "%d %s", err, msg);
	CHECK("tracefs/real-check", kl_tracepoint_check("syscalls/sys_enter_getppid", msg, sizeof(msg)) == 0, "%s", msg);
	CHECK("tracefs/real-check-missing", kl_tracepoint_check("syscalls/sys_enter_kiln_none", msg, sizeof(msg)) == -1,
	      "%s", msg);
}

/* The one lookup of a field by name (kl_tracepoint_field), which (ctx FIELD), deftracepoint's
 * %tracepoint-fields and kiln trace's args->FIELD all call: '-' for '_', the common fields
 * and another case only when asked, and one message naming the nearest and the fields. */
static void test_field_lookup(void)
{
	static const struct kl_tp_field fs[] = {
		{ .name = "common_pid", .offset = 4, .size = 4 }, { .name = "prev_pid", .offset = 24, .size = 4 },
		{ .name = "Next_Pid", .offset = 56, .size = 4 },
	};
	char msg[256];
	const struct kl_tp_field *f = kl_tracepoint_field(fs, 3, "sched/x", "prev-pid", 0, msg, sizeof(msg));
	CHECK("tracefs/field: '-' is '_'", f == &fs[1], "%p", (const void *)f);
	f = kl_tracepoint_field(fs, 3, "sched/x", "common_pid", KL_TPF_COMMON, msg, sizeof(msg));
	CHECK("tracefs/field: a common field when asked", f == &fs[0], "%p", (const void *)f);
	f = kl_tracepoint_field(fs, 3, "sched/x", "next_pid", KL_TPF_ANY_CASE, msg, sizeof(msg));
	CHECK("tracefs/field: another case when asked", f == &fs[2], "%p", (const void *)f);
	f = kl_tracepoint_field(fs, 3, "sched/x", "next_pid", 0, msg, sizeof(msg));
	CHECK("tracefs/field: another case is no field unless asked", !f &&
	      !strcmp(msg, "tracepoint sched/x has no field 'next_pid'; its fields: prev_pid Next_Pid"),
	      "%s", f ? "found" : msg);
	f = kl_tracepoint_field(fs, 3, "sched/x", "prev-pd", 0, msg, sizeof(msg));
	CHECK("tracefs/field: the message names the nearest", !f &&
	      !strcmp(msg, "tracepoint sched/x has no field 'prev-pd'; did you mean prev_pid? Its fields: prev_pid Next_Pid"),
	      "%s", f ? "found" : msg);
	f = kl_tracepoint_field(fs, 3, "sched/x", "common_pid", 0, msg, sizeof(msg));
	CHECK("tracefs/field: a common field is no field unless asked", !f &&
	      !strcmp(msg, "tracepoint sched/x has no field 'common_pid'; its fields: prev_pid Next_Pid"),
	      "%s", f ? "found" : msg);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(top, sizeof(top), "/tmp/kiln-test-tracefs-XXXXXX");
	if (!mkdtemp(top)) {
		printf("FAIL test_tracefs: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_names();
	test_fake_tree();
	test_real_tracefs();
	test_field_lookup();
	check_sh("rm -rf '%s'", top);
	return CHECK_DONE();
}
