/* run.c — `kiln run`: compile if needed, load, attach every program by its section, stream
 * what the programs send through ring and perf buffers decoded by their layouts (libkiln's
 * reader and event.h), and on Ctrl-C, SIGTERM or the end of --duration detach everything and
 * print the maps and the buffers' counts. Nothing stays unless --pin says so. */
#include "cli.h"
#include "metrics.h"
#include "kfacts/map_types.h"
#include "host/host.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char run_help[] =
	"usage: kiln run FILE.lisp|OBJ.o [--duration S] [--json] [--pin DIR] [--iface IF]\n"
	"                [--cgroup PATH] [--egress] [-q|--quiet] [-w|--no-warnings]\n"
	"                [--sockmap NAME] [--netns PATH]\n"
	"                [--freq HZ | --period NS] [--btf FILE] [--set NAME=VALUE]...\n"
	"                [--interval DURATION [--clear]] [--top N] [--sort key|value] [--per-cpu]\n"
	"                [--metrics ADDR:PORT]\n"
	"\n"
	"Load the object, attach every program by its section (xdp and tc to --iface, cgroup\n"
	"programs to --cgroup; tc programs whose section does not say attach on ingress, or egress\n"
	"with --egress; sk_skb and sk_msg programs to the object's sockmap or sockhash --sockmap,\n"
	"by default its only one; flow_dissector and sk_lookup programs to the network namespace\n"
	"--netns, a file such as /proc/PID/ns/net or /run/netns/NAME, by default kiln's own;\n"
	"struct_ops maps, a defstruct-ops, registered), and stream the records its ring buffers\n"
	"and perf buffers carry, decoded\n"
	"by the map's event layout (defevent/defstruct; `exec_event pid=1 comm=sh ...`, stack ids\n"
	"symbolized; hex for records without one). At the end (Ctrl-C, SIGTERM, or after\n"
	"--duration seconds: 10, 1.5, 500ms) detach everything, print the maps and, for each\n"
	"buffer, its records, perf's lost records and the ring buffer's drops. With --pin DIR the\n"
	"maps, programs and links are pinned there and stay attached after kiln exits (`kiln\n"
	"unload DIR` removes them). --json prints JSON lines: {\"event\":NAME,\"pid\":1,...}.\n"
	"Ctrl-C stops within a fraction of a second however fast records arrive; a second\n"
	"Ctrl-C exits at once, skipping the final report (the links go with the process).\n"
	"Output nobody reads does not hold a stop up: after Ctrl-C or SIGTERM a write to a pipe or\n"
	"socket that makes no progress for a quarter of a second is dropped (the rest goes to\n"
	"/dev/null, a line on stderr says so) and the exit status is 130 (SIGTERM: 143).\n"
	"-q (--quiet) leaves out kiln's own lines on stderr: what it attached, running, detaching.\n"
	"A kiln source's compile warnings go to stderr unless -w. A program the verifier refuses\n"
	"is shown at its source file:line:col with the verifier's message and a hint.\n"
	"perf_event programs sample every online CPU by the cpu-clock event, --freq times a\n"
	"second (default 99) or every --period nanoseconds of CPU time. A hash of u64 counts\n"
	"keyed by a struct with :kstack/:ustack fields (a profiler's) prints as its top 10\n"
	"stacks by count, symbolized (examples/profile.lisp).\n"
	"--interval DURATION (1s, 500ms, 2) prints the maps every DURATION as well, each time\n"
	"under a line `--- interval N, HH:MM:SS ---` ({\"interval\":N,\"time\":\"HH:MM:SS\"} with\n"
	"--json); --clear empties them after each printing (arrays are zeroed). --top N prints\n"
	"only the N entries with the biggest values (u64, per-CPU values summed), --sort key|value\n"
	"orders the entries (ascending, the biggest value last; --top alone sorts by value).\n"
	"Per-CPU maps of integers show each value summed over the CPUs; --per-cpu lists one a CPU.\n"
	"A map declared with :display :log2-hist or (:linear-hist LO HI STEP) is drawn as\n"
	"bpftrace draws hist() and lhist(): `[4K, 8K)  7 |@@@@...|`; JSON {\"map\":NAME,\"hist\":\n"
	"[{\"min\":4096,\"max\":8191,\"count\":7},...]}.\n"
	"--metrics ADDR:PORT (127.0.0.1:9435, [::1]:9435, :9435 for every address, IPv6 and IPv4)\n"
	"serves the maps at http://ADDR:PORT/metrics as Prometheus text (version 0.0.4), read at\n"
	"each scrape: a map of u64 values (per-CPU ones summed) is the counter kiln_NAME (signed\n"
	"or narrower integer values: the gauge kiln_NAME), one series a key, labelled by the key's\n"
	"fields (integers in decimal, ipv4/ipv6 fields as addresses, char arrays as strings; an\n"
	"integer key is label key); a map with :display is the histogram kiln_NAME with\n"
	"cumulative le buckets (upper bounds, inclusive), _count, and a _sum that is approximate:\n"
	"each bucket counted at its lower bound. Other paths get 404. Bytes of a label that are\n"
	"not UTF-8 (a comm may hold any) are written as the text \\xHH. The server\n"
	"(libmicrohttpd) runs in threads of its own, apart from the events: each request has 10 s\n"
	"to be answered, connections are limited (1,024), and Ctrl-C closes them all at once.\n"
	"--set NAME=VALUE (repeatable) sets a global variable before load: a defparameter (a\n"
	"setting in .rodata, which the verifier then knows) or a defvar, named with dashes or\n"
	"underscores, the value parsed by its BTF type as map values are (12, 0x1f, -3, an address,\n"
	"a string); an error names the setting.\n"
	"A Whistler session file (host forms at its top level: with-bpf-session, eval-when,\n"
	"defparameter without :type, format, ...) runs as `kiln run FILE [ARG...]`: kiln interprets its forms,\n"
	"compiles and loads its kiln forms for each session, and the file reads the ARGs as\n"
	"sb-ext:*posix-argv* (docs/whistler.md, \"Sessions\").\n";

static volatile sig_atomic_t stop_signal;
static struct kiln_reader *volatile signal_reader;

/* The first Ctrl-C or SIGTERM stops the reader at once (its poll returns after the record in
 * hand) and lets cleanup run; a second one exits at once: the kernel closes the links' fds, so
 * nothing unpinned stays attached either way. */
static void on_signal(int sig)
{
	if (stop_signal)
		_exit(128 + sig);
	stop_signal = sig;
	cli_stop_notify(sig);   /* output nobody reads cannot hold the stop up (stop.c) */
	if (signal_reader)
		kiln_reader_stop(signal_reader);
}

/* One ring or perf buffer map being streamed: its records decode by the layout the map names
 * (BTF decl tag kiln.event:NAME), else by the only struct of the record's size, else print as
 * hex. */
struct stream {
	struct kiln_map *map;
	const struct kiln_event *ev;
	bool tagged;
	size_t guessed_size;            /* untagged: the last record size guessed for, and its */
	const struct kiln_event *guess; /* layout (NULL: none), so BTF is searched once per size */
};

struct streams {
	struct stream *s;
	size_t n;
	struct kiln_events *evs;
	struct kiln_event_fmt fmt;
};

/* ---- counts by stack: a map keyed by a struct with stack ids, valued by a u64 count ---- */

#define TOP_STACKS 10

struct counted {
	uint64_t count;
	uint8_t *key;
};

struct collect {
	struct counted *items;
	size_t n, cap, key_size;
	bool nomem;
};

static int collect_one(const void *key, const void *value, void *arg)
{
	struct collect *c = arg;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct counted *p = realloc(c->items, cap * sizeof(*p));
		if (!p) {
			c->nomem = true;
			return -ENOMEM;
		}
		c->items = p;
		c->cap = cap;
	}
	uint8_t *k = malloc(c->key_size);
	if (!k) {
		c->nomem = true;
		return -ENOMEM;
	}
	memcpy(k, key, c->key_size);
	memcpy(&c->items[c->n].count, value, 8);
	c->items[c->n++].key = k;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	uint64_t x = ((const struct counted *)a)->count, y = ((const struct counted *)b)->count;
	return (x < y) - (x > y);
}

/* A hash of u64 counts keyed by a named struct with a kstack or ustack field (a profiler's
 * map): its top entries by count, the keys decoded with their stacks symbolized. false when
 * the map is not one (it is printed as any other). */
static bool print_top_stacks(struct streams *ss, struct kiln_object *obj, struct kiln_map *m, bool json)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	struct btf *btf = bpf_object__btf(kiln_object_libbpf(obj));
	const struct btf_type *t = btf && info->btf_key_type_id ? btf__type_by_id(btf, info->btf_key_type_id) : NULL;
	const char *name = t && t->name_off ? btf__name_by_offset(btf, t->name_off) : NULL;
	const struct kiln_event *ev = name && ss->evs && ss->fmt.stacks ? kiln_events_find(ss->evs, name) : NULL;
	if (!ev || info->value_size != 8 || kiln_map_is_percpu(m) || kiln_event_size(ev) != info->key_size)
		return false;
	bool stacks = false;
	for (size_t i = 0; i < kiln_event_field_count(ev); i++) {
		enum kiln_field_kind k = kiln_event_field(ev, i)->kind;
		stacks = stacks || k == KILN_FIELD_KSTACK || k == KILN_FIELD_USTACK;
	}
	if (!stacks)
		return false;
	struct collect c = { .key_size = info->key_size };
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
	int err = kiln_map_dump(m, collect_one, &c, &o, NULL);
	if (err < 0 && !c.nomem)
		cli_fail("run");
	if (c.n)
		qsort(c.items, c.n, sizeof(*c.items), by_count);
	uint64_t total = 0;
	for (size_t i = 0; i < c.n; i++)
		total += c.items[i].count;
	if (!json)
		printf("map %s: the top %zu of %zu stacks by count (%llu in all):\n", kiln_map_name(m),
		       c.n < TOP_STACKS ? c.n : TOP_STACKS, c.n, (unsigned long long)total);
	struct kiln_event_fmt fmt = ss->fmt;
	fmt.json = json;
	fmt.cpu = -1;
	for (size_t i = 0; i < c.n && i < TOP_STACKS; i++) {
		if (json) {
			printf("{\"map\":");
			cli_json_str(stdout, kiln_map_name(m), 256);
			printf(",\"count\":%llu,\"key\":", (unsigned long long)c.items[i].count);
		} else {
			printf("  %llu  ", (unsigned long long)c.items[i].count);
		}
		char small[2048], *buf = small;
		int n = kiln_event_format(ev, c.items[i].key, info->key_size, &fmt, buf, sizeof(small));
		if (n >= (int)sizeof(small) && (buf = malloc((size_t)n + 1)))
			n = kiln_event_format(ev, c.items[i].key, info->key_size, &fmt, buf, (size_t)n + 1);
		printf("%s%s\n", n >= 0 && buf ? buf : "?", json ? "}" : "");
		if (buf != small)
			free(buf);
	}
	for (size_t i = 0; i < c.n; i++)
		free(c.items[i].key);
	free(c.items);
	return true;
}

static void print_raw(const struct kiln_record *rec, bool json)
{
	const uint8_t *p = rec->data;
	if (json) {
		printf("{\"map\":");
		cli_json_str(stdout, kiln_map_name(rec->map), 256);
		if (rec->cpu >= 0)
			printf(",\"cpu\":%d", rec->cpu);
		printf(",\"size\":%zu,\"data\":\"0x", rec->size);
		for (size_t i = 0; i < rec->size; i++)
			printf("%02x", p[i]);
		printf("\"}\n");
	} else {
		printf("%s", kiln_map_name(rec->map));
		if (rec->cpu >= 0)
			printf(" cpu %d", rec->cpu);
		printf(": %zu bytes:", rec->size);
		for (size_t i = 0; i < rec->size; i++)
			printf("%s%02x", i % 4 ? "" : " ", p[i]);
		printf("\n");
	}
}

/* The layout of an untagged map's record: a struct of its size (perf records come padded so
 * that size + 4 is a multiple of 8). */
static const struct kiln_event *guess_layout(struct kiln_events *evs, const struct kiln_record *rec)
{
	const struct kiln_event *ev = NULL;
	for (size_t pad = 0; !ev && pad < (rec->cpu >= 0 ? 8 : 1) && pad <= rec->size; pad++)
		ev = kiln_events_for_size(evs, rec->size - pad);
	return ev;
}

static int on_record(void *ctx, const struct kiln_record *rec)
{
	struct streams *ss = ctx;
	struct stream *st = NULL;
	for (size_t i = 0; i < ss->n && !st; i++)
		if (ss->s[i].map == rec->map)
			st = &ss->s[i];
	const struct kiln_event *ev = st ? st->ev : NULL;
	if (!ev && st && !st->tagged && ss->evs) {
		if (st->guessed_size != rec->size) {
			st->guess = guess_layout(ss->evs, rec);
			st->guessed_size = rec->size;
		}
		ev = st->guess;
	}
	ss->fmt.cpu = rec->cpu;
	if (!ev || kiln_event_print(stdout, ev, rec->data, rec->size, &ss->fmt))
		print_raw(rec, ss->fmt.json);
	fflush(stdout);
	return 0;
}

static void on_lost(void *ctx, struct kiln_map *map, int cpu, uint64_t n)
{
	fprintf(stderr, "kiln run: %s lost %llu records on cpu %d\n", kiln_map_name(map), (unsigned long long)n, cpu);
}

/* Every ring and perf buffer of the object in one reader, with its layout and the stack map
 * and symbolizer its stack-id fields need. 0, or 1 after printing the error. */
static int streams_open(struct kiln_object *obj, bool json, struct streams *ss, struct kiln_reader **rd)
{
	size_t nmaps = kiln_object_map_count(obj);
	ss->fmt = (struct kiln_event_fmt){ .sz = sizeof(ss->fmt), .json = json, .cpu = -1 };
	if (!(ss->s = calloc(nmaps + 1, sizeof(*ss->s)))) {
		fprintf(stderr, "kiln run: out of memory\n");
		return 1;
	}
	if (kiln_events_from_object(obj, &ss->evs))
		ss->evs = NULL;   /* no BTF: records print as hex */
	for (size_t i = 0; i < nmaps; i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		enum bpf_map_type t = kiln_map_info(m)->type;
		if (t == BPF_MAP_TYPE_STACK_TRACE && !ss->fmt.stacks)
			ss->fmt.stacks = m;
		if (!kl_map_type_facts(t)->events)   /* ring buffers, perf-event arrays */
			continue;
		struct stream *st = &ss->s[ss->n++];
		st->map = m;
		st->ev = ss->evs ? kiln_events_for_map(ss->evs, kiln_map_name(m)) : NULL;
		st->tagged = st->ev != NULL;
	}
	if (ss->fmt.stacks && kiln_syms_new(&ss->fmt.syms)) {
		cli_fail("run");
		return 1;
	}
	if (!ss->n)
		return 0;
	struct kiln_perf_opts po = { .sz = sizeof(po), .lost = on_lost };
	if (kiln_reader_new(rd) || kiln_reader_add_object(*rd, obj, on_record, ss, &po)) {
		cli_fail("run");
		return 1;
	}
	return 0;
}

/* Records, perf buffers' lost records and ring buffers' drops per map, at exit. */
static void streams_report(struct kiln_reader *rd, bool json)
{
	for (size_t i = 0; rd && i < kiln_reader_map_count(rd); i++) {
		struct kiln_map *m = kiln_reader_map(rd, i);
		struct kiln_reader_stats st;
		if (kiln_reader_stats(rd, m, &st))
			continue;
		if (json) {
			printf("{\"map\":");
			cli_json_str(stdout, kiln_map_name(m), 256);
			printf(",\"records\":%llu,\"lost\":%llu,\"drops\":%llu}\n", (unsigned long long)st.records,
			       (unsigned long long)st.lost, (unsigned long long)st.drops);
		} else {
			printf("%s: records=%llu lost=%llu drops=%llu\n", kiln_map_name(m),
			       (unsigned long long)st.records, (unsigned long long)st.lost, (unsigned long long)st.drops);
		}
	}
}

static void streams_close(struct streams *ss, struct kiln_reader *rd)
{
	kiln_reader_free(rd);
	kiln_syms_free(ss->fmt.syms);
	kiln_events_free(ss->evs);
	free(ss->s);
}

/* Whether m is the drop counter of a ring buffer in the reader (reported with it). */
static bool is_drop_counter(struct kiln_reader *rd, struct kiln_map *m)
{
	const char *name = kiln_map_name(m);
	size_t n = strlen(name);
	for (size_t i = 0; rd && i < kiln_reader_map_count(rd); i++) {
		const char *r = kiln_map_name(kiln_reader_map(rd, i));
		size_t k = strlen(r);
		if (n == k + 6 && !strncmp(name, r, k) && !strcmp(name + k, "_drops"))
			return true;
	}
	return false;
}

#define DRAIN_S 0.25

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- maps declared with :display, drawn as bpftrace's hist() and lhist() ---- */

/* A map declared with :display: "map NAME (log2 histogram):" over the bars, or one JSON line
 * {"map":NAME,"hist":[{"min","max","count"},...]}. false when the map is not one. */
static bool print_hist_map(struct kiln_object *obj, struct kiln_map *m, bool json, bool clear)
{
	struct cli_hist h;
	uint64_t *n;
	uint32_t count;
	if (!cli_hist_map_buckets(obj, m, &h, &n, &count))
		return false;
	if (!n)
		return true;
	bool any = false;
	for (uint32_t i = 0; i < count; i++)
		any = any || n[i];
	if (json) {
		printf("{\"map\":");
		cli_json_str(stdout, kiln_map_name(m), 256);
		printf(",\"hist\":");
		cli_hist_json(stdout, &h, n, count, 1);
		printf("}\n");
	} else {
		printf("map %s (%s histogram):\n", kiln_map_name(m), h.linear ? "linear" : "log2");
		if (any)
			cli_hist_print(stdout, &h, n, count, 1);
		else
			printf("  (empty)\n");
	}
	if (clear && kiln_map_delete_all(m, NULL))
		cli_fail("run");
	free(n);
	return true;
}

/* Maps that are not counts: buffers (their records are streamed), stack traces (printed
 * through the maps that count them), ring buffers' drop counters and struct_ops maps (the
 * kernel struct a defstruct-ops registered). */
static bool not_counts(struct kiln_map *m, void *rd)
{
	enum bpf_map_type t = kiln_map_info(m)->type;
	return kl_map_type_facts(t)->events || t == BPF_MAP_TYPE_STACK_TRACE || t == BPF_MAP_TYPE_STRUCT_OPS ||
	       is_drop_counter(rd, m);
}

/* Every map the programs fill, by the view asked: not the buffers (their records were
 * streamed), stack traces (printed through the maps that count them) or drop counters. */
static void print_maps(struct streams *ss, struct kiln_object *obj, struct kiln_reader *rd, bool json,
		       const struct cli_map_view *view)
{
	for (size_t i = 0; i < kiln_object_map_count(obj); i++) {
		struct kiln_map *m = kiln_object_map(obj, i);
		if (!not_counts(m, rd) && !print_top_stacks(ss, obj, m, json) &&
		    !print_hist_map(obj, m, json, view->clear) &&
		    cli_map_print_view(stdout, m, json, view))
			cli_fail("run");
	}
}

static void print_interval(struct streams *ss, struct kiln_object *obj, struct kiln_reader *rd, bool json,
			   const struct cli_map_view *view, unsigned n)
{
	time_t t = time(NULL);
	struct tm tm;
	char hms[16] = "?";
	if (localtime_r(&t, &tm))
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (json)
		printf("{\"interval\":%u,\"time\":\"%s\"}\n", n, hms);
	else
		printf("--- interval %u, %s ---\n", n, hms);
	print_maps(ss, obj, rd, json, view);
	fflush(stdout);
}

/* --duration, --interval, --top, --sort and --clear read and checked: 0, or -1 said on stderr. */
static int check_values(const char *dur, const char *ivl, const char *top, struct cli_map_view *view,
			double *duration, double *interval)
{
	if (dur && cli_parse_duration(dur, duration)) {
		fprintf(stderr, "kiln run: --duration '%s' is not a number of seconds\n", dur);
		return -1;
	}
	if (ivl && (cli_parse_duration(ivl, interval) || *interval < 0.001)) {
		fprintf(stderr, "kiln run: --interval '%s' is not a duration (1s, 500ms)\n", ivl);
		return -1;
	}
	char *end_top = NULL;
	unsigned long ntop = top ? strtoul(top, &end_top, 10) : 0;
	if (top && (!*top || *end_top || ntop == 0 || ntop > UINT32_MAX || *top == '-')) {
		fprintf(stderr, "kiln run: --top '%s' is not a positive number\n", top);
		return -1;
	}
	view->top = (uint32_t)ntop;
	if (view->sort && strcmp(view->sort, "key") && strcmp(view->sort, "value")) {
		fprintf(stderr, "kiln run: --sort '%s': key or value\n", view->sort);
		return -1;
	}
	if (view->clear && !ivl) {
		fprintf(stderr, "kiln run: --clear empties the maps after each --interval printing; it needs --interval\n");
		return -1;
	}
	return 0;
}

/* Until a signal or the end of --duration: records printed as they come, the maps every
 * --interval. 0, or -1 when the reader failed (said). */
static int run_loop(struct streams *ss, struct kiln_object *obj, struct kiln_reader *rd, bool json,
		    const struct cli_map_view *view, double duration, double interval)
{
	double end = duration >= 0 ? now() + duration : 0;
	double tick = interval > 0 ? now() + interval : 0;
	unsigned ticks = 0;
	while (!stop_signal && (duration < 0 || now() < end)) {
		/* the poll's timeout is the interval's clock: no timer to race the signal handler */
		if (interval > 0 && now() >= tick) {
			print_interval(ss, obj, rd, json, view, ++ticks);
			tick += interval;
			if (tick < now())       /* printing took longer than the interval: skip, not burst */
				tick = now() + interval;
		}
		int wait_ms = 100;
		if (duration >= 0 && (end - now()) * 1000 < wait_ms)
			wait_ms = (int)((end - now()) * 1000) + 1;
		if (interval > 0 && (tick - now()) * 1000 < wait_ms)
			wait_ms = (tick - now()) > 0 ? (int)((tick - now()) * 1000) + 1 : 0;
		int err = 0;
		if (rd)
			err = kiln_reader_poll(rd, wait_ms);
		else
			nanosleep(&(struct timespec){ 0, (long)wait_ms * 1000000L }, NULL);
		if (err < 0 && err != -EINTR) {
			cli_fail("run");
			return -1;
		}
	}
	return 0;
}

/* kiln run's command line. */
struct run_args {
	const char *file, *pin, *metrics;
	struct cli_attach attach;
	struct cli_map_view view;
	bool json, quiet;
	double duration;            /* seconds, -1: until a signal */
	double interval;            /* seconds between printings of the maps, 0: none */
};

/* The command line read and checked into ra: CLI_OK, or the exit status (said). */
static int parse_run_args(int argc, char **argv, struct run_args *ra)
{
	const char *dur = NULL, *ivl = NULL, *top = NULL;
	struct cli_attach *a = &ra->attach;
	const struct cli_opt opts[] = {
		{ "--duration", CLI_STR, &dur, "a number of seconds" }, { "--pin", CLI_STR, &ra->pin, "a directory" },
		{ "--iface", CLI_STR, &a->iface, "an interface" }, { "--cgroup", CLI_STR, &a->cgroup, "a cgroup directory" },
		{ "--egress", CLI_FLAG, &a->egress, NULL }, { "--json", CLI_FLAG, &ra->json, NULL },
		{ "--freq", CLI_STR, &a->freq, "samples a second" }, { "--period", CLI_STR, &a->period, "nanoseconds" },
		{ "--quiet|-q", CLI_FLAG, &ra->quiet, NULL }, { "--no-warnings|-w", CLI_FLAG, &cli_no_warnings, NULL },
		{ "--btf", CLI_STR, &cli_btf_path, "a BTF file" }, { "--set", CLI_LIST, &cli_sets, "NAME=VALUE" },
		{ "--interval", CLI_STR, &ivl, "a duration" }, { "--clear", CLI_FLAG, &ra->view.clear, NULL },
		{ "--top", CLI_STR, &top, "a number of entries" }, { "--sort", CLI_STR, &ra->view.sort, "key or value" },
		{ "--per-cpu", CLI_FLAG, &ra->view.per_cpu, NULL }, { "--metrics", CLI_STR, &ra->metrics, "ADDR:PORT" },
		{ "--sockmap", CLI_STR, &a->sockmap, "a map name" }, { "--netns", CLI_STR, &a->netns, "a network namespace file" },
		{ 0 },
	};
	int npos, r = cli_parse("run", run_help, argc, argv, opts, &ra->file, 1, &npos);
	if (r != CLI_OK)
		return r;
	if (!ra->file) {
		fputs(run_help, stderr);
		return 2;
	}
	if (check_values(dur, ivl, top, &ra->view, &ra->duration, &ra->interval))
		return 2;
	return CLI_OK;
}

/* What a run holds while the programs run; run_close releases it. */
struct running {
	struct kiln_object *obj;
	size_t nprogs;
	struct kiln_link **links;   /* by program */
	struct streams ss;
	struct kiln_reader *rd;
	int mfd;                    /* --metrics: the listening socket until the server has it */
	struct cli_metrics_server *msrv;
};

/* The object: the host's compiled session (host_elf), or ra->file compiled or read. 0, or 1
 * said. */
static int open_object(const struct run_args *ra, void *host_elf, size_t host_size, struct kiln_object **obj)
{
	struct kiln_object_opts o = { .sz = sizeof(o) };
	int oerr = host_elf ? kiln_object_open_mem(host_elf, host_size, &o, obj) : cli_object_open("run", ra->file, &o, obj);
	free(host_elf);
	if (host_elf && oerr)
		cli_fail("run");
	return oerr ? 1 : 0;
}

/* --metrics: the maps served from the exporter's own threads, off the run's loop
 * (metrics_http.c). 0, or 1 said. */
static int start_metrics(struct running *ru)
{
	struct cli_metrics_plan *plan = cli_metrics_plan(ru->obj, ru->ss.evs, not_counts, ru->rd);
	if (!plan)
		return 1;
	ru->msrv = cli_metrics_start(ru->mfd, plan);
	ru->mfd = -1;   /* the server's now, or closed */
	return ru->msrv ? 0 : 1;
}

/* Loaded, attached (and pinned with --pin), its buffers streamed and its maps served. 0, or
 * 1 said. */
static int run_start(const struct run_args *ra, struct running *ru)
{
	ru->nprogs = kiln_object_prog_count(ru->obj);
	ru->links = calloc(ru->nprogs + 1, sizeof(*ru->links));
	if (!ru->links) {
		fprintf(stderr, "kiln run: out of memory\n");
		return 1;
	}
	if (cli_object_load("run", ru->obj, ra->file) || cli_attach_all("run", ru->obj, &ra->attach, ru->links, ra->quiet))
		return 1;
	if (ra->pin && cli_pin_all("run", ru->obj, ra->pin, ru->links))
		return 1;
	if (streams_open(ru->obj, ra->json, &ru->ss, &ru->rd))
		return 1;
	if (ru->mfd >= 0 && start_metrics(ru))
		return 1;
	if (ra->metrics && !ra->quiet)
		fprintf(stderr, "kiln run: serving the maps at http://%s/metrics\n", ra->metrics);
	signal_reader = ru->rd;
	if (stop_signal && ru->rd)     /* a signal before the reader was there */
		kiln_reader_stop(ru->rd);
	if (!ra->quiet)
		fprintf(stderr, "kiln run: running%s; Ctrl-C to stop\n", ra->duration >= 0 ? " for the duration" : "");
	return 0;
}

/* After the loop: everything detached, what the programs sent before printed, then the
 * maps and the buffers' counts. */
static void run_finish(const struct run_args *ra, struct running *ru)
{
	cli_metrics_stop(ru->msrv);   /* bounded: no client holds it up */
	ru->msrv = NULL;
	/* Detached before anything more is printed: a stdout or stderr nobody reads may hold
	 * the rest up (until stop.c drops it). */
	for (size_t i = 0; i < ru->nprogs; i++) {
		kiln_link_destroy(ru->links[i]);   /* detaches, except links pinned with --pin */
		ru->links[i] = NULL;
	}
	/* What the programs sent before the end of --duration is printed too: a consumer slowed
	 * by decoding (symbolizing a stack reads files) may be behind. For DRAIN_S at most, since
	 * programs may send faster than we print; after a signal the reader is stopped already. */
	double drain_end = now() + DRAIN_S;
	while (ru->rd && now() < drain_end && kiln_reader_poll(ru->rd, 0) > 0)
		;
	if (!ra->quiet && stop_signal)
		fprintf(stderr, "kiln run: %s, detaching\n", stop_signal == SIGINT ? "interrupted" : "terminated");
	struct cli_map_view last = ra->view;
	last.clear = false;      /* what is printed at exit goes with the process anyway */
	print_maps(&ru->ss, ru->obj, ru->rd, ra->json, &last);
	streams_report(ru->rd, ra->json);
}

static void run_close(struct running *ru)
{
	if (ru->mfd >= 0)
		close(ru->mfd);
	cli_metrics_stop(ru->msrv);
	signal_reader = NULL;
	streams_close(&ru->ss, ru->rd);
	for (size_t i = 0; ru->links && i < ru->nprogs; i++)
		kiln_link_destroy(ru->links[i]);   /* detaches, except links pinned with --pin */
	free(ru->links);
	kiln_object_close(ru->obj);
}

int cmd_run(int argc, char **argv)
{
	/* A Whistler session file (host forms: with-bpf-session, eval-when, ...) runs in kiln's
	 * host interpreter, `kiln run FILE [ARG...]`; one that only wraps kiln programs in host
	 * forms comes back compiled and runs as any kiln source (src/host/). */
	void *host_elf = NULL;
	size_t host_size = 0;
	if (argc > 1 && host_is_host_file(argv[1])) {
		int hr = host_run(argv[1], argc - 2, argv + 2, &host_elf, &host_size);
		if (!host_elf)
			return hr;
	}
	struct run_args ra = { .duration = -1 };
	int r = parse_run_args(argc, argv, &ra);
	if (r != CLI_OK)
		return r;
	cli_stop_catch("run", on_signal);
	/* listening first: a port in use fails before anything is loaded */
	struct running ru = { .mfd = ra.metrics ? cli_metrics_listen(ra.metrics) : -1 };
	if (ra.metrics && ru.mfd < 0)
		return 1;
	if (open_object(&ra, host_elf, host_size, &ru.obj)) {
		if (ru.mfd >= 0)
			close(ru.mfd);
		return 1;
	}
	int rc = 1;
	if (!run_start(&ra, &ru) && !run_loop(&ru.ss, ru.obj, ru.rd, ra.json, &ra.view, ra.duration, ra.interval)) {
		run_finish(&ra, &ru);
		rc = 0;
	}
	run_close(&ru);
	return rc;
}
