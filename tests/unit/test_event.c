/* test_event.c — libkiln's events on the running kernel (as root): layouts read from BTF (the
 * seed's ConnectionEvent: size 44, pid at 8, comm 16 bytes), decoding to text and JSON, and a
 * child process this test spawns whose getppid() calls arrive through a ring buffer and a perf
 * buffer on one reader, decoded with its pid and comm and a symbolized kernel stack; drops and
 * lost records provoked by tiny buffers; a clang-built object with a bitfield and a nested
 * struct; stopping a reader from a signal handler; a flood (a record per system call, read by a
 * callback that makes one) that polls must still return from, and a stop from another thread
 * must end, losing nothing by returning early; no fd leaked. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <bpf/btf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *src_root = ".";
static char tmp[PATH_MAX];
static char *kallsyms;

#define CHILD_COMM "kiln-evchild"

/* ---- a child that makes getppid() calls when told -------------------------------------- */

struct child {
	pid_t pid;
	int go;           /* write a count: the child makes that many calls, then answers */
	int done;
};

static struct child child_start(int cpu)
{
	int to[2], from[2];
	struct child c = { -1, -1, -1 };
	if (pipe(to) || pipe(from))
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		close(to[1]);
		close(from[0]);
		prctl(PR_SET_NAME, CHILD_COMM);
		if (cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		int n;
		while (read(to[0], &n, sizeof(n)) == sizeof(n)) {
			for (int i = 0; i < n; i++)
				syscall(SYS_getppid);
			if (write(from[1], &n, sizeof(n)) != sizeof(n))
				break;
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	c.go = to[1];
	c.done = from[0];
	return c;
}

/* n calls, and back when they are made. */
static bool child_calls(struct child *c, int n)
{
	int back;
	return write(c->go, &n, sizeof(n)) == sizeof(n) && read(c->done, &back, sizeof(back)) == sizeof(back);
}

static void child_stop(struct child *c)
{
	if (c->pid <= 0)
		return;
	close(c->go);
	close(c->done);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

static int set_u32(struct kiln_object *obj, const char *map, uint32_t v)
{
	uint32_t k = 0;
	struct kiln_map *m = kiln_object_find_map(obj, map);
	return m ? kiln_map_update(m, &k, &v, BPF_ANY) : -ENOENT;
}

/* ---- layouts ----------------------------------------------------------------------------- */

static void test_seed_layout(struct kiln_events *evs)
{
	const struct kiln_event *ce = kiln_events_find(evs, "ConnectionEvent");
	CHECK("layout: ConnectionEvent found", ce != NULL, "%s", kiln_errmsg());
	if (!ce)
		return;
	const struct kiln_event_field *pid = kiln_event_field_by_name(ce, "pid");
	const struct kiln_event_field *comm = kiln_event_field_by_name(ce, "comm");
	const struct kiln_event_field *pad = kiln_event_field_by_name(ce, "padding");
	const struct kiln_event_field *sport = kiln_event_field_by_name(ce, "sport");
	CHECK("layout: seed size 44", kiln_event_size(ce) == 44, "%zu", kiln_event_size(ce));
	CHECK("layout: seed :pid at 8", pid && pid->offset == 8 && pid->size == 4 && pid->kind == KILN_FIELD_INT &&
	      !pid->is_signed, "%u", pid ? pid->offset : 0);
	CHECK("layout: seed :comm is 16 chars at 28", comm && comm->size == 16 && comm->offset == 28 &&
	      comm->kind == KILN_FIELD_CHARS && comm->count == 16, "%u@%u %s", comm ? comm->size : 0,
	      comm ? comm->offset : 0, comm ? kiln_field_kind_name(comm->kind) : "");
	CHECK("layout: seed :sport u16 at 20", sport && sport->offset == 20 && sport->size == 2, "%u",
	      sport ? sport->offset : 0);
	CHECK("layout: seed :padding is padding", pad && pad->is_padding && pad->offset == 26 && pad->size == 2 &&
	      pad->kind == KILN_FIELD_ARRAY && pad->count == 2, "%d", pad ? pad->is_padding : -1);
	CHECK("layout: ten fields in order", kiln_event_field_count(ce) == 10 &&
	      !strcmp(kiln_event_field(ce, 0)->name, "timestamp") && !strcmp(kiln_event_field(ce, 9)->name, "comm") &&
	      kiln_event_field(ce, 10) == NULL, "%zu", kiln_event_field_count(ce));

	/* a record built by hand, decoded */
	uint8_t rec[44] = { 0 };
	uint64_t ts = 123456789;
	uint32_t p = 4321, saddr = 0x0a000001;
	uint16_t sport_v = 443;
	memcpy(rec, &ts, 8);
	memcpy(rec + 8, &p, 4);
	memcpy(rec + 12, &saddr, 4);
	memcpy(rec + 20, &sport_v, 2);
	rec[24] = 6;
	rec[26] = 0xee;   /* padding: not printed */
	memcpy(rec + 28, "bash", 5);
	char buf[512];
	struct kiln_event_fmt text = { .sz = sizeof(text), .cpu = -1 };
	int n = kiln_event_format(ce, rec, sizeof(rec), &text, buf, sizeof(buf));
	const char *want = "ConnectionEvent timestamp=123456789 pid=4321 saddr=167772161 daddr=0 sport=443 dport=0 "
			   "protocol=6 direction=0 comm=bash";
	CHECK("decode: text", n == (int)strlen(want) && !strcmp(buf, want), "%d '%s'", n, buf);
	struct kiln_event_fmt json = { .sz = sizeof(json), .json = true, .cpu = 1 };
	n = kiln_event_format(ce, rec, sizeof(rec), &json, buf, sizeof(buf));
	want = "{\"event\":\"ConnectionEvent\",\"cpu\":1,\"timestamp\":123456789,\"pid\":4321,\"saddr\":167772161,"
	       "\"daddr\":0,\"sport\":443,\"dport\":0,\"protocol\":6,\"direction\":0,\"comm\":\"bash\"}";
	CHECK("decode: JSON", n == (int)strlen(want) && !strcmp(buf, want), "%d '%s'", n, buf);
	char small[20];
	n = kiln_event_format(ce, rec, sizeof(rec), &json, small, sizeof(small));
	CHECK("decode: cut at len, full length returned", n == (int)strlen(want) && strlen(small) == 19 &&
	      !strncmp(small, want, 19), "%d '%s'", n, small);
	n = kiln_event_format(ce, rec, 20, &text, buf, sizeof(buf));
	CHECK("decode: a short record says truncated", n > 0 && strstr(buf, "saddr=167772161 daddr=0 (truncated)") &&
	      !strstr(buf, "sport"), "'%s'", buf);
	/* strings that need quoting */
	memcpy(rec + 28, "a b\"c\n\xff", 8);
	kiln_event_format(ce, rec, sizeof(rec), &text, buf, sizeof(buf));
	CHECK("decode: text quotes and escapes", strstr(buf, "comm=\"a b\\\"c\\n\\xff\""), "'%s'", buf);
	kiln_event_format(ce, rec, sizeof(rec), &json, buf, sizeof(buf));
	CHECK("decode: JSON escapes, invalid UTF-8 as U+FFFD", strstr(buf, "\"comm\":\"a b\\\"c\\n\\ufffd\""), "'%s'", buf);
	memcpy(rec + 28, "caf\xc3\xa9\0", 6);
	kiln_event_format(ce, rec, sizeof(rec), &json, buf, sizeof(buf));
	CHECK("decode: JSON keeps valid UTF-8", strstr(buf, "\"comm\":\"caf\xc3\xa9\""), "'%s'", buf);
	memset(rec + 28, 'x', 16);   /* no NUL: all 16 */
	kiln_event_format(ce, rec, sizeof(rec), &text, buf, sizeof(buf));
	CHECK("decode: a full char array without NUL", strstr(buf, "comm=xxxxxxxxxxxxxxxx") && !strstr(buf, "xxxxxxxxxxxxxxxxx"),
	      "'%s'", buf);

	uint64_t v = 0;
	int err = kiln_event_get(ce, rec, sizeof(rec), "pid", &v);
	CHECK("accessor: kiln_event_get pid", !err && v == 4321, "%d %llu", err, (unsigned long long)v);
	err = kiln_event_get(ce, rec, sizeof(rec), "nope", &v);
	CHECK("accessor: no such field is -ENOENT", err == -ENOENT && strstr(kiln_errmsg(), "nope"), "%d", err);
	err = kiln_event_get(ce, rec, 10, "sport", &v);
	CHECK("accessor: short record is -ERANGE", err == -ERANGE, "%d", err);
	err = kiln_event_get(ce, rec, sizeof(rec), "comm", &v);
	CHECK("accessor: a string is not an integer", err == -EINVAL, "%d", err);
	char s[8];
	kiln_event_field_str(comm, rec, s, sizeof(s));
	CHECK("accessor: string cut to the buffer", !strcmp(s, "xxxxxxx"), "'%s'", s);

	const struct kiln_event *call = kiln_events_find(evs, "call-event");
	CHECK("layout: a dashed name finds call_event", call && !strcmp(kiln_event_name(call), "call_event") &&
	      kiln_event_size(call) == 40, "%s", kiln_errmsg());
	if (call) {
		const struct kiln_event_field *a = kiln_event_field_by_name(call, "addr");
		const struct kiln_event_field *k = kiln_event_field_by_name(call, "kstack");
		const struct kiln_event_field *d = kiln_event_field_by_name(call, "delta");
		CHECK("layout: :ipv4 :kstack :i64 kinds", a && a->kind == KILN_FIELD_IPV4 && k && k->kind == KILN_FIELD_KSTACK &&
		      k->is_signed && d && d->kind == KILN_FIELD_INT && d->is_signed && d->offset == 16,
		      "%s %s", a ? kiln_field_kind_name(a->kind) : "-", k ? kiln_field_kind_name(k->kind) : "-");
	}
	CHECK("layout: by map tag", kiln_events_for_map(evs, "calls") == call && kiln_events_for_map(evs, "perf-calls") == call &&
	      kiln_events_for_map(evs, "unused_ring") == ce, "%s", kiln_errmsg());
	CHECK("layout: an untagged map has none", !kiln_events_for_map(evs, "target") &&
	      strstr(kiln_errmsg(), "no event layout"), "%s", kiln_errmsg());
	CHECK("layout: by size", kiln_events_for_size(evs, 44) == ce && !kiln_events_for_size(evs, 45),
	      "%s", kiln_errmsg());
	CHECK("layout: no such struct", !kiln_events_find(evs, "nothing") && strstr(kiln_errmsg(), "'nothing'"),
	      "%s", kiln_errmsg());
}

/* ---- the kernel's records ---------------------------------------------------------------- */

struct got {
	const struct kiln_event *ev;
	struct kiln_event_fmt fmt;
	int ring, perf, bad_pid, bad_comm, last_cpu;
	int pid;
	uint32_t ring_seq_sum, perf_seq_sum;
	char ring_json[4096], perf_text[4096];
	int stop_after;                  /* the callback stops the reader after this many (0: never) */
};

static int on_record(void *ctx, const struct kiln_record *r)
{
	struct got *g = ctx;
	uint64_t pid = 0, seq = 0;
	char comm[32] = "";
	const struct kiln_event_field *cf = kiln_event_field_by_name(g->ev, "comm");
	kiln_event_get(g->ev, r->data, r->size, "pid", &pid);
	kiln_event_get(g->ev, r->data, r->size, "seq", &seq);
	if (cf && r->size >= kiln_event_size(g->ev))
		kiln_event_field_str(cf, r->data, comm, sizeof(comm));
	g->bad_pid += (int)pid != g->pid;
	g->bad_comm += strcmp(comm, CHILD_COMM) != 0;
	g->last_cpu = r->cpu;
	g->fmt.cpu = r->cpu;
	if (r->cpu < 0) {
		g->ring++;
		g->ring_seq_sum += (uint32_t)seq;
		g->fmt.json = true;
		kiln_event_format(g->ev, r->data, r->size, &g->fmt, g->ring_json, sizeof(g->ring_json));
	} else {
		g->perf++;
		g->perf_seq_sum += (uint32_t)seq;
		g->fmt.json = false;
		kiln_event_format(g->ev, r->data, r->size, &g->fmt, g->perf_text, sizeof(g->perf_text));
	}
	return g->stop_after && g->ring + g->perf >= g->stop_after ? 7 : 0;
}

/* Poll until want records or 2 s. */
static void poll_for(struct kiln_reader *rd, struct got *g, int want)
{
	for (int i = 0; i < 40 && g->ring + g->perf < want; i++)
		kiln_reader_poll(rd, 50);
}

/* The first frame of a JSON "kstack":["func+0x.. [kernel]",...] names a kallsyms function. */
static bool first_frame_in_kallsyms(const char *json, char *name, size_t len)
{
	const char *p = strstr(json, "\"kstack\":[\"");
	if (!p)
		return false;
	p += strlen("\"kstack\":[\"");
	size_t n = strcspn(p, "+\" ");
	if (!n || n >= len - 2)
		return false;
	snprintf(name, len, " %.*s\n", (int)n, p);
	bool found = kallsyms && strstr(kallsyms, name);
	snprintf(name, len, "%.*s", (int)n, p);
	return found;
}

static void test_live(struct kiln_object *obj, struct kiln_events *evs)
{
	struct got g = { .ev = kiln_events_find(evs, "call_event") };
	int err = kiln_syms_new(&g.fmt.syms);
	g.fmt.sz = sizeof(g.fmt);
	g.fmt.stacks = kiln_object_find_map(obj, "stacks");
	struct child c = child_start(0);
	CHECK("live: child started", c.pid > 0 && !err && g.ev, "%d", c.pid);
	if (c.pid <= 0 || !g.ev)
		return;
	g.pid = c.pid;
	struct kiln_reader *rd = NULL;
	struct kiln_perf_opts po = { .sz = sizeof(po), .pages = 1 };
	err = kiln_reader_new(&rd);
	if (!err)
		err = kiln_reader_add_object(rd, obj, on_record, &g, &po);
	CHECK("reader: every ring and perf map of the object on one reader", !err && kiln_reader_map_count(rd) == 3,
	      "%d %s (%zu maps)", err, kiln_errmsg(), rd ? kiln_reader_map_count(rd) : 0);
	err = set_u32(obj, "target", (uint32_t)c.pid);
	CHECK("live: target pid set", !err, "%s", kiln_errmsg());

	/* three calls: three records through each path */
	child_calls(&c, 3);
	poll_for(rd, &g, 6);
	CHECK("live: 3 ring records and 3 perf records", g.ring == 3 && g.perf == 3, "ring %d perf %d", g.ring, g.perf);
	CHECK("live: the child's pid and comm in each", g.bad_pid == 0 && g.bad_comm == 0, "%d bad pids, %d bad comms",
	      g.bad_pid, g.bad_comm);
	CHECK("live: sequence 0,1,2 on both paths", g.ring_seq_sum == 3 && g.perf_seq_sum == 3, "%u %u",
	      g.ring_seq_sum, g.perf_seq_sum);
	CHECK("live: perf records carry the cpu", g.last_cpu == 0, "cpu %d", g.last_cpu);
	char want[128];
	snprintf(want, sizeof(want), "{\"event\":\"call_event\",\"pid\":%d,\"seq\":2,\"addr\":\"127.0.0.1\",\"kstack\":[", c.pid);
	CHECK("live: ring record as JSON", !strncmp(g.ring_json, want, strlen(want)) &&
	      strstr(g.ring_json, "\"delta\":-2,\"comm\":\"" CHILD_COMM "\"}"), "'%.300s'", g.ring_json);
	char fn[128];
	CHECK("live: its kernel stack symbolized to a kallsyms function", first_frame_in_kallsyms(g.ring_json, fn, sizeof(fn)),
	      "'%s' in '%.300s'", fn, g.ring_json);
	snprintf(want, sizeof(want), "call_event cpu=0 pid=%d seq=2 addr=127.0.0.1 kstack=", c.pid);
	CHECK("live: perf record as text, with the stack on lines after", !strncmp(g.perf_text, want, strlen(want)) &&
	      strstr(g.perf_text, "comm=" CHILD_COMM "\n  kstack:\n    ") && strstr(g.perf_text, " [kernel]"),
	      "'%.300s'", g.perf_text);

	/* a burst with nobody reading: the 4 KiB ring buffer and the one-page perf buffer fill up */
	child_calls(&c, 300);
	int ring0 = g.ring, perf0 = g.perf;
	poll_for(rd, &g, 100000);    /* everything there is, 2 s */
	child_calls(&c, 1);          /* the kernel reports perf's lost records with the next one */
	for (int i = 0; i < 10; i++)
		kiln_reader_poll(rd, 50);
	struct kiln_reader_stats rs, ps, all;
	kiln_reader_stats(rd, kiln_object_find_map(obj, "calls"), &rs);
	kiln_reader_stats(rd, kiln_object_find_map(obj, "perf_calls"), &ps);
	kiln_reader_stats(rd, NULL, &all);
	CHECK("drops: the ring buffer filled and the program counted drops", rs.drops > 0 && g.ring > ring0,
	      "%llu drops, %d records", (unsigned long long)rs.drops, g.ring - ring0);
	CHECK("drops: records + drops = calls", rs.records + rs.drops == 304 && rs.records == (uint64_t)g.ring,
	      "%llu + %llu", (unsigned long long)rs.records, (unsigned long long)rs.drops);
	CHECK("lost: the perf buffer filled and lost records were counted", ps.lost > 0 && g.perf > perf0,
	      "%llu lost, %d records", (unsigned long long)ps.lost, g.perf - perf0);
	CHECK("lost: records + lost = calls", ps.records + ps.lost == 304, "%llu + %llu",
	      (unsigned long long)ps.records, (unsigned long long)ps.lost);
	CHECK("stats: sums over the maps", all.records == rs.records + ps.records && all.lost == ps.lost &&
	      all.drops == rs.drops && all.bytes == rs.bytes + ps.bytes && rs.bytes == rs.records * 40,
	      "%llu", (unsigned long long)all.records);
	CHECK("live: still the child's pid and comm", g.bad_pid == 0 && g.bad_comm == 0, "%d %d", g.bad_pid, g.bad_comm);

	/* a callback's nonzero return stops the reader */
	g.stop_after = g.ring + g.perf + 1;
	child_calls(&c, 5);
	int rc = 0;
	for (int i = 0; i < 40 && !rc; i++)
		rc = kiln_reader_poll(rd, 50);
	int total = g.ring + g.perf;
	CHECK("stop: the callback's return stops the poll", rc == -7 && kiln_reader_stopped(rd), "%d", rc);
	rc = kiln_reader_poll(rd, 100);
	CHECK("stop: later polls return 0 and deliver nothing", rc == 0 && g.ring + g.perf == total, "%d", rc);
	err = kiln_reader_stats(rd, kiln_object_find_map(obj, "target"), &rs);
	CHECK("stats: a map not in the reader", err == -ENOENT, "%d", err);
	kiln_reader_free(rd);
	kiln_syms_free(g.fmt.syms);
	child_stop(&c);
}

static struct kiln_reader *signal_reader;
static void on_alarm(int sig)
{
	(void)sig;
	kiln_reader_stop(signal_reader);
}

static void test_reader_stop_and_errors(struct kiln_object *obj)
{
	struct kiln_reader *rd;
	int err = kiln_reader_new(&rd);
	if (err)
		return;
	err = kiln_reader_add_ringbuf(rd, kiln_object_find_map(obj, "target"), NULL, NULL, NULL);
	CHECK("reader: an array is not a ring buffer", err == -EINVAL && strstr(kiln_errmsg(), "'target'"), "%d %s",
	      err, kiln_errmsg());
	err = kiln_reader_add_perf(rd, kiln_object_find_map(obj, "calls"), NULL, NULL, NULL);
	CHECK("reader: a ring buffer is not a perf buffer", err == -EINVAL, "%d", err);
	struct kiln_perf_opts po = { .sz = sizeof(po), .pages = 3 };
	err = kiln_reader_add_perf(rd, kiln_object_find_map(obj, "perf_calls"), NULL, NULL, &po);
	CHECK("reader: perf pages must be a power of 2", err == -EINVAL && strstr(kiln_errmsg(), "power of 2"), "%d", err);
	struct kiln_ringbuf_opts ro = { .sz = sizeof(ro), .drops = kiln_object_find_map(obj, "stacks") };
	err = kiln_reader_add_ringbuf(rd, kiln_object_find_map(obj, "calls"), NULL, NULL, &ro);
	CHECK("reader: a drop counter must be an array", err == -EINVAL, "%d", err);
	err = kiln_reader_add_ringbuf(rd, kiln_object_find_map(obj, "calls"), NULL, NULL, NULL);
	CHECK("reader: a ring buffer with no callback", !err, "%s", kiln_errmsg());
	/* a signal handler stops a poll that would wait forever */
	signal_reader = rd;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(1);
	int rc, polls = 0;
	do   /* records the stopped reader above left in the ring come first */
		rc = kiln_reader_poll(rd, -1);
	while ((rc > 0 || rc == -EINTR) && ++polls < 1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK("stop: from a signal handler, a poll with no timeout returns", rc == 0 && kiln_reader_stopped(rd) &&
	      t1.tv_sec - t0.tv_sec < 10, "%d", rc);
	signal(SIGALRM, SIG_DFL);
	kiln_reader_free(rd);
	kiln_reader_free(NULL);
}

/* ---- a clang-built producer ------------------------------------------------------------------ */

static void test_clang(const char *path)
{
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	if (!err)
		err = kiln_object_load(obj);
	CHECK("clang: open and load", !err, "%s", kiln_errmsg());
	if (err) {
		kiln_object_close(obj);
		return;
	}
	struct kiln_link *link = NULL;
	struct kiln_events *evs = NULL;
	err = kiln_prog_attach(kiln_object_find_prog(obj, "clang_on_getppid"), NULL, &link);
	if (!err)
		err = kiln_events_from_object(obj, &evs);
	CHECK("clang: attach, layouts", !err, "%s", kiln_errmsg());
	const struct kiln_event *ev = evs ? kiln_events_for_map(evs, "clang_events") : NULL;
	CHECK("clang: the decl tag names the layout", ev && !strcmp(kiln_event_name(ev), "clang_event") &&
	      kiln_event_size(ev) == 40, "%s", kiln_errmsg());
	if (!ev)
		goto out;
	const struct kiln_event_field *small = kiln_event_field_by_name(ev, "small");
	const struct kiln_event_field *rest = kiln_event_field_by_name(ev, "rest");
	const struct kiln_event_field *who = kiln_event_field_by_name(ev, "who");
	CHECK("clang: bitfields", small && small->bit_size == 3 && small->bit_offset == 96 && rest &&
	      rest->bit_size == 28 && rest->bit_offset == 100, "%u", small ? small->bit_size : 0);
	CHECK("clang: a nested struct", who && who->kind == KILN_FIELD_STRUCT && who->sub &&
	      kiln_event_field_count(who->sub) == 3 && who->offset == 16, "%s", who ? kiln_field_kind_name(who->kind) : "-");
	struct child c = child_start(-1);
	struct got g = { .ev = ev, .pid = c.pid, .fmt = { .sz = sizeof(g.fmt) } };
	struct kiln_reader *rd = NULL;
	err = kiln_reader_new(&rd);
	if (!err)
		err = kiln_reader_add_object(rd, obj, on_record, &g, NULL);
	if (!err)
		err = set_u32(obj, "clang_target", (uint32_t)c.pid);
	CHECK("clang: reader", !err, "%s", kiln_errmsg());
	child_calls(&c, 2);
	poll_for(rd, &g, 2);
	CHECK("clang: two records from the child", g.ring == 2 && !g.bad_pid && !g.bad_comm, "%d records, %d %d",
	      g.ring, g.bad_pid, g.bad_comm);
	char want[256];
	snprintf(want, sizeof(want), "{\"event\":\"clang_event\",\"pid\":%d,\"addr\":\"192.168.0.1\",\"kstack\":null,"
		 "\"small\":5,\"flag\":1,\"rest\":1000,\"who\":{\"uid\":7,\"port\":8080},\"comm\":\"" CHILD_COMM "\"}", c.pid);
	CHECK("clang: decoded: address, no stack, bitfields, nested struct", !strcmp(g.ring_json, want), "'%s'",
	      g.ring_json);
	kiln_reader_free(rd);
	child_stop(&c);
out:
	kiln_events_free(evs);
	kiln_link_destroy(link);
	kiln_object_close(obj);
}

/* ---- a flood: a record on every system call, read by a callback that makes one --------------- */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int devnull = -1;
static int on_flood_record(void *ctx, const struct kiln_record *r)
{
	(*(uint64_t *)ctx)++;
	return write(devnull, r->data, r->size) < 0;   /* as printing would: a system call per record */
}

/* A process that only makes system calls, until killed. */
static pid_t flooder(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlives the test */
		for (;;)
			syscall(SYS_getppid);
	}
	return pid;
}

struct stopper {
	struct kiln_reader *rd;
	double at;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	nanosleep(&(struct timespec){ 0, 300 * 1000000L }, NULL);
	s->at = mono();
	kiln_reader_stop(s->rd);
	return NULL;
}

static void flood_hung(int sig)
{
	static const char msg[] = "FAIL flood: the reader did not return for 20 s under a flood\n";
	ssize_t w = write(1, msg, sizeof(msg) - 1);
	(void)w;
	_exit(1);
}

static void test_flood(void)
{
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/tests/lib/ev-flood.lisp", src_root);
	struct kiln_object *obj = NULL;
	struct kiln_link *link = NULL;
	struct kiln_reader *rd = NULL;
	int err = kiln_object_open(src, NULL, &obj);
	if (!err)
		err = kiln_object_load(obj);
	if (!err)
		err = kiln_prog_attach(kiln_object_find_prog(obj, "on-sys-enter"), NULL, &link);
	uint64_t got = 0;
	if (!err)
		err = kiln_reader_new(&rd);
	if (!err)
		err = kiln_reader_add_object(rd, obj, on_flood_record, &got, NULL);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	CHECK("flood: ev-flood.lisp loaded, attached to raw_syscalls/sys_enter, read", !err && devnull >= 0, "%s",
	      kiln_errmsg());
	if (err || devnull < 0)
		goto out;
	pid_t child = flooder();
	signal(SIGALRM, flood_hung);   /* a reader that never returns fails rather than hangs the suite */
	alarm(20);

	/* polls that would wait forever return, each after a bounded time, with records */
	double longest = 0;
	int empty = 0;
	for (int i = 0; i < 10; i++) {
		double t0 = mono();
		int n = kiln_reader_poll(rd, -1);
		double t = mono() - t0;
		longest = t > longest ? t : longest;
		empty += n <= 0;
	}
	CHECK("flood: every poll returns, with records, within 0.5 s", longest < 0.5 && !empty,
	      "longest poll %.3f s, %d returned no records", longest, empty);
	printf("     flood: longest of 10 polls %.1f ms, %llu records\n", longest * 1000, (unsigned long long)got);

	/* another thread's stop ends the loop */
	struct stopper s = { rd, 0 };
	pthread_t th;
	int rc = 0, polls = 0;
	if (pthread_create(&th, NULL, stop_later, &s) == 0) {
		while (!kiln_reader_stopped(rd) && polls < 1000000)
			rc = kiln_reader_poll(rd, -1), polls++;
		double took = mono() - s.at;
		pthread_join(th, NULL);
		CHECK("flood: a stop from another thread ends the poll within 0.2 s", kiln_reader_stopped(rd) &&
		      rc >= 0 && took < 0.2, "rc %d, %.3f s after the stop", rc, took);
		printf("     flood: stopped %.1f ms after kiln_reader_stop\n", took * 1000);
	}
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	kiln_link_destroy(link);
	link = NULL;
	kiln_reader_free(rd);

	/* nothing lost by returning early: a fresh reader drains the rest; records + drops = sent */
	rd = NULL;
	uint64_t rest = 0;
	err = kiln_reader_new(&rd);
	if (!err)
		err = kiln_reader_add_object(rd, obj, on_flood_record, &rest, NULL);
	for (int i = 0; !err && i < 100000 && kiln_reader_poll(rd, 0) > 0; i++)
		;
	struct kiln_reader_stats st = { 0 };
	uint64_t sent = 0;
	uint32_t k = 0;
	if (!err)
		err = kiln_reader_stats(rd, NULL, &st);
	if (!err)
		err = kiln_map_lookup(kiln_object_find_map(obj, "sent"), &k, &sent);
	CHECK("flood: records read + drops = records sent", !err && got + rest + st.drops == sent && got > 1000,
	      "%llu + %llu read, %llu dropped, %llu sent (%s)", (unsigned long long)got, (unsigned long long)rest,
	      (unsigned long long)st.drops, (unsigned long long)sent, err ? kiln_errmsg() : "");
out:
	if (devnull >= 0)
		close(devnull);
	kiln_reader_free(rd);
	kiln_link_destroy(link);
	kiln_object_close(obj);
}

/* An event with a field named cpu, from a perf buffer (which knows the cpu too): one "cpu"
 * key, the field's. */
static void test_cpu_field(void)
{
	struct btf *b = btf__new_empty();
	int u32 = btf__add_int(b, "unsigned int", 4, 0);
	int st = btf__add_struct(b, "with_cpu", 8);
	btf__add_field(b, "cpu", u32, 0, 0);
	btf__add_field(b, "n", u32, 32, 0);
	struct kiln_events *evs = NULL;
	int err = st > 0 ? kiln_events_from_btf(b, &evs) : st;
	const struct kiln_event *ev = err ? NULL : kiln_events_find(evs, "with_cpu");
	uint32_t rec[2] = { 5, 9 };
	char buf[256] = "";
	struct kiln_event_fmt fmt = { .sz = sizeof(fmt), .json = true, .cpu = 1 };
	if (ev)
		kiln_event_format(ev, rec, sizeof(rec), &fmt, buf, sizeof(buf));
	CHECK("event: a cpu field and the buffer's cpu: one \"cpu\" key, the field's",
	      !strcmp(buf, "{\"event\":\"with_cpu\",\"cpu\":5,\"n\":9}"), "%s", buf);
	kiln_events_free(evs);
	btf__free(b);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("ROOT"))
		src_root = getenv("ROOT");
	if (geteuid() != 0) {
		printf("FAIL test_event: needs root (the tests load programs into the kernel)\n");
		return 1;
	}
	FILE *f = fopen("/proc/kallsyms", "r");
	if (f) {
		size_t cap = 1 << 24, n = 0;
		kallsyms = malloc(cap);
		for (size_t r; kallsyms && n < cap - 1 && (r = fread(kallsyms + n, 1, cap - 1 - n, f)) > 0;)
			n += r;
		if (kallsyms)
			kallsyms[n] = 0;
		fclose(f);
	}
	test_cpu_field();
	int fds_before = check_open_fds();
	snprintf(tmp, sizeof(tmp), "/tmp/kiln-test-event-%d-XXXXXX", getpid());
	if (!mkdtemp(tmp)) {
		printf("FAIL test_event: mkdtemp\n");
		return 1;
	}
	char src[PATH_MAX];
	snprintf(src, sizeof(src), "%s/tests/lib/ev-calls.lisp", src_root);

	/* layouts from the source alone, nothing loaded */
	struct kiln_events *evs = NULL;
	int err = kiln_events_from_file(src, &evs);
	CHECK("layout: from a kiln source", !err, "%s", kiln_errmsg());
	if (evs)
		test_seed_layout(evs);
	kiln_events_free(evs);
	err = kiln_events_from_file("/nonexistent.o", &evs);
	CHECK("layout: a missing file", err < 0 && !evs, "%d", err);

	struct kiln_object *obj = NULL;
	err = kiln_object_open(src, NULL, &obj);
	if (!err)
		err = kiln_object_load(obj);
	CHECK("live: load ev-calls.lisp", !err, "%s", kiln_errmsg());
	struct kiln_link *link = NULL;
	if (!err)
		err = kiln_prog_attach(kiln_object_find_prog(obj, "on-getppid"), NULL, &link);
	CHECK("live: attach to sys_enter_getppid", !err, "%s", kiln_errmsg());
	evs = NULL;
	if (!err)
		err = kiln_events_from_object(obj, &evs);
	if (!err) {
		test_live(obj, evs);
		test_reader_stop_and_errors(obj);
	}
	kiln_events_free(evs);
	kiln_link_destroy(link);
	kiln_object_close(obj);

	test_flood();

	char clang_obj[PATH_MAX + 32];
	snprintf(clang_obj, sizeof(clang_obj), "%s/ev-clang.o", tmp);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch 2>/dev/null || "
		 "echo \"$(uname -m)-linux-gnu\") -c '%s/tests/lib/ev-clang.bpf.c' -o '%s'", src_root, clang_obj);
	int rc = system(cmd);
	CHECK("build: clang -target bpf ev-clang.bpf.c", rc == 0, "exit %d", rc);
	if (rc == 0)
		test_clang(clang_obj);
	unlink(clang_obj);
	rmdir(tmp);

	int fds_after = check_open_fds();
	CHECK("no fd leaked", fds_after == fds_before, "%d open before, %d after", fds_before, fds_after);
	free(kallsyms);
	return CHECK_DONE();
}
