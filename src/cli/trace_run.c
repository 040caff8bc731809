/* trace_run.c — `kiln trace` running a compiled script: the object loaded, BEGIN run, every
 * probe attached (in the order the kernel then runs them as written), -c's command released,
 * records read from the ring buffer and printed per CPU batch (compiled printf formats,
 * trace_fmt.c), lost records reported, the stop (exit(), a signal, the command's or -p's
 * process's end) with a bounded drain, END run, the maps printed; SIGUSR1 prints them
 * meanwhile. BEGIN and END are raw-tracepoint programs run once with BPF_PROG_TEST_RUN. */
#define _GNU_SOURCE
#include "cli.h"
#include "trace.h"
#include "trace_fmt.h"
#include "cli/trace_run.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wordexp.h>

static volatile sig_atomic_t stop_signal;

static volatile sig_atomic_t first_signal_s;   /* CLOCK_MONOTONIC seconds of the first */

/* The first SIGINT/SIGTERM stops the trace (END runs, maps print); another one at least a
 * second later exits at once (the kernel detaches). One sooner is the same request again:
 * GNU timeout sends its signal to the command and then to its whole process group, and
 * bpftrace ignores the repeat too. */
static void on_signal(int sig)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);   /* async-signal-safe */
	if (stop_signal && ts.tv_sec - first_signal_s >= 1)
		_exit(128 + sig);
	if (!stop_signal)
		first_signal_s = ts.tv_sec;
	stop_signal = sig;
	cli_stop_notify(sig);   /* output nobody reads cannot hold the stop up (stop.c) */
}

/* SIGUSR1 prints every map as it stands, as bpftrace does (the trace goes on). */
static volatile sig_atomic_t maps_asked;
static void on_usr1(int sig)
{
	(void)sig;
	maps_asked = 1;
}

/* ---- running ---- */

/* -c CMD: the command is forked at once but held on a pipe until every probe is attached,
 * then run; its exit ends the trace, as in bpftrace. It is split into words as a shell would
 * (quotes, no substitutions) and executed itself, not through a shell, so that cpid is its
 * pid. */
struct child {
	pid_t pid;
	int go;                     /* write end of the pipe the child waits on; -1 when released */
};

static int child_start(const char *cmd, struct child *c)
{
	wordexp_t w;
	if (wordexp(cmd, &w, WRDE_NOCMD) || !w.we_wordc) {
		fprintf(stderr, "kiln trace: -c '%s' is not a command (quotes unbalanced, or $(...))\n", cmd);
		return -2;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC)) {
		wordfree(&w);
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		close(p[0]);
		close(p[1]);
		wordfree(&w);
		return -1;
	}
	if (c->pid == 0) {
		char b;
		close(p[1]);
		if (read(p[0], &b, 1) != 1)   /* the tracer went away before attaching: do not run */
			_exit(127);
		execvp(w.we_wordv[0], w.we_wordv);
		fprintf(stderr, "kiln trace: cannot run %s: %s\n", w.we_wordv[0], strerror(errno));
		_exit(127);
	}
	wordfree(&w);
	close(p[0]);
	c->go = p[1];
	return 0;
}

static void child_release(struct child *c)
{
	if (c->go >= 0) {
		if (write(c->go, "g", 1) != 1)
			perror("kiln trace: starting the command");
		close(c->go);
		c->go = -1;
	}
}

static bool child_exited(struct child *c)
{
	int st;
	if (c->pid <= 0)
		return false;
	if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
		c->pid = 0;
		return true;
	}
	return false;
}

struct run {
	struct child *child;
	pid_t pid;                  /* -p */
	int pidfd;                  /* ... readable once it exits (-1: none) */
	const struct kt_sema *s;
	const struct kt_gen *g;
	struct kiln_object *obj;
	struct kiln_map **maps;     /* by map index */
	FILE *out;
	struct trace_out o;         /* how values are printed: -f json, a terminal, stacks (trace.h) */
	bool exited;
	int exit_code;              /* exit(code)'s, the record id's low byte */
	bool quiet;                 /* -q: no `Attaching N probes...` */
	struct pending *pend;       /* by CPU: this batch's text */
	uint32_t npend;
	uint32_t *order, norder;    /* the CPUs with text this batch, in order of their first */
	uint64_t drops;             /* the ring buffer's failed reserves reported so far */
	double drops_at;            /* when they were last read */
	struct trace_fmt **fmts;    /* by site: printf's compiled format, or NULL (trace_fmt.h) */
	bool counting;              /* the end's drain is over: records are counted, not printed */
	uint64_t unread;            /* ...so many, reported lost with the ring buffer's drops */
	struct trace_watch *watch;  /* watchpoint:FUNCTION+argN's breakpoints (trace_watch.c) */
};

/* One ring buffer serves every CPU: the records of two events at once interleave (one's
 * time(), the other's, one's printf(), ...). bpftrace 0.17 has a perf buffer per CPU and
 * drains one CPU's at a time; likewise, the text of each batch of records read at once is
 * written CPU by CPU (in the order of each CPU's first record), then the batch's end writes
 * it all. */
struct pending {
	char *buf;
	size_t len, cap;
	bool queued;                /* in order[] this batch */
};

/* Room for n more bytes of cpu's text this batch (its buffer grown by doubling), or NULL: no
 * pending text for it (an unknown CPU, out of memory). */
static char *pend_room(struct run *r, uint32_t cpu, size_t n)
{
	struct pending *p = cpu < r->npend ? &r->pend[cpu] : NULL;
	if (!p)
		return NULL;
	if (p->cap - p->len < n) {
		size_t cap = p->cap ? p->cap : 64 * 1024;
		while (cap - p->len < n)
			cap *= 2;
		char *grown = realloc(p->buf, cap);
		if (!grown)
			return NULL;
		p->buf = grown;
		p->cap = cap;
	}
	return p->buf + p->len;
}

/* n bytes written at pend_room's pointer are cpu's text. */
static void pend_commit(struct run *r, uint32_t cpu, size_t n)
{
	struct pending *p = &r->pend[cpu];
	p->len += n;
	if (!p->queued) {
		p->queued = true;
		r->order[r->norder++] = cpu;
	}
}

static void put_text(struct run *r, uint32_t cpu, const char *text, size_t n)
{
	char *room = pend_room(r, cpu, n);
	if (!room) {   /* no pending text for it: as it comes */
		fwrite(text, 1, n, r->out);
		return;
	}
	memcpy(room, text, n);
	pend_commit(r, cpu, n);
}

/* A printf record through its site's compiled format (trace_fmt.h): true when done. */
static bool fast_printf(struct run *r, uint32_t cpu, uint32_t index, const struct kiln_record *rec)
{
	const struct trace_fmt *f = r->fmts ? r->fmts[index] : NULL;
	if (!f)
		return false;
	size_t bound = trace_fmt_bound(f), n;
	if (r->o.json) {
		char text[4096];
		if (bound > sizeof(text) || (n = trace_fmt_put(f, rec->data, rec->size, text)) == (size_t)-1)
			return false;
		trace_json_message(r->out, "printf", text, n);
		return true;
	}
	char *room = pend_room(r, cpu, bound);
	if (!room || (n = trace_fmt_put(f, rec->data, rec->size, room)) == (size_t)-1)
		return false;
	pend_commit(r, cpu, n);
	return true;
}

/* The batch's text, CPU by CPU. */
static void flush_pending(struct run *r)
{
	for (uint32_t i = 0; i < r->norder; i++) {
		struct pending *p = &r->pend[r->order[i]];
		fwrite(p->buf, 1, p->len, r->out);
		p->len = 0;
		p->queued = false;
	}
	r->norder = 0;
	fflush(r->out);
}

/* The records available now (waiting up to timeout_ms for some), then their text. */
static int poll_batch(struct run *r, struct kiln_reader *rd, int timeout_ms)
{
	int n = kiln_reader_poll(rd, timeout_ms);
	flush_pending(r);
	return n;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Records the probes could not send (the ring buffer was full: its reserves failed, counted
 * by the program in kt-events_drops), as bpftrace reports its perf buffers' lost records:
 * "Lost N events", N the ones since the last report. Read at most every 100 ms. */
static void report_drops(struct run *r, struct kiln_reader *rd, bool now)
{
	double t = now_s();
	if (!now && t - r->drops_at < 0.1)
		return;
	r->drops_at = t;
	struct kiln_reader_stats st;
	if (kiln_reader_stats(rd, NULL, &st) || (st.drops <= r->drops && !r->unread))
		return;
	uint64_t n = st.drops - r->drops + r->unread;
	r->drops = st.drops;
	r->unread = 0;
	if (r->o.json)
		fprintf(r->out, "{\"type\": \"lost_events\", \"data\": {\"events\": %llu}}\n", (unsigned long long)n);
	else
		fprintf(r->out, "Lost %llu events\n", (unsigned long long)n);
	fflush(r->out);
}

/* bpftrace keeps a count map without a key in an array: it always has its one entry
 * (`@: 0` before any count), which clear() and delete() zero. */
static bool keyless_count(const struct kt_map *m)
{
	return m->kind == KM_COUNT && m->key.kind == KTT_NONE;
}

static int on_record(void *ctx, const struct kiln_record *rec)
{
	struct run *r = ctx;
	if (rec->size < 8)
		return 0;
	uint64_t id;
	memcpy(&id, rec->data, 8);
	/* kind << 32 | the CPU << 16 | index (gen.c's rec_id) */
	uint32_t kind = (uint32_t)(id >> 32), cpu = (uint32_t)(id >> 16) & 0xffff, index = (uint32_t)id & 0xffff;
	if (r->exited)   /* bpftrace stops handling output once exit() is seen */
		return 0;
	if (r->counting) {
		r->unread++;
		return 0;
	}
	const struct kt_site *site = index < r->g->nsites ? &r->g->sites[index] : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = NULL;
	switch (kind) {
	case KT_EV_PRINTF:
		if (site && fast_printf(r, cpu, index, rec))
			break;
		if (site && (f = open_memstream(&buf, &len))) {
			trace_printf(f, site, &r->o, rec->data, rec->size);
			fclose(f);
			if (r->o.json)
				trace_json_message(r->out, "printf", buf, len);
			else
				put_text(r, cpu, buf, len);
		}
		break;
	case KT_EV_JOIN:
		if (site && rec->size >= 8 + KT_JOIN_ARGS * KT_JOIN_SIZE && (f = open_memstream(&buf, &len))) {
			for (uint32_t i = 0; i < KT_JOIN_ARGS; i++) {
				const char *arg = (const char *)rec->data + 8 + i * KT_JOIN_SIZE;
				if (!arg[0])
					break;
				fprintf(f, "%s%.*s", i ? site->fmt : "", (int)strnlen(arg, KT_JOIN_SIZE), arg);
			}
			if (!r->o.json)
				fputc('\n', f);
			fclose(f);
			if (r->o.json)
				trace_json_message(r->out, "join", buf, len);
			else
				put_text(r, cpu, buf, len);
		}
		break;
	case KT_EV_EXIT:
		r->exited = true;
		r->exit_code = (int)(index & 0xff);
		break;
	case KT_EV_WATCH:   /* watchpoint:FUNCTION+argN: attach it at the address sent */
		if (rec->size >= 16) {
			uint64_t addr;
			memcpy(&addr, rec->data + 8, 8);
			trace_watch_attach(&r->watch, r->obj, r->s, index, addr, r->child ? r->child->pid : r->pid, r->out,
					   r->o.json);
		}
		break;
	case KT_EV_UNWATCH:
		if (rec->size >= 16) {
			uint64_t addr;
			memcpy(&addr, rec->data + 8, 8);
			trace_watch_unwatch(r->watch, addr);
		}
		break;
	case KT_EV_HELPER:   /* -k: a helper failed */
		if (site && (f = open_memstream(&buf, &len))) {
			trace_helper_error(f, site, r->o.json, rec->data, rec->size);
			fclose(f);
			put_text(r, cpu, buf, len);
		}
		break;
	case KT_EV_PRINT:
		if (site && site->map < r->s->nmaps) {
			if (r->o.json) {
				trace_print_map(r->out, &r->o, site->map, r->maps[site->map], site->top, site->div);
			} else if ((f = open_memstream(&buf, &len))) {
				trace_print_map(f, &r->o, site->map, r->maps[site->map], site->top, site->div);
				fclose(f);
				put_text(r, cpu, buf, len);
			}
		}
		break;
	case KT_EV_TIME:
		if (site) {
			char text[512];
			time_t t = time(NULL);
			struct tm tm;
			size_t n = strftime(text, sizeof(text), site->fmt, localtime_r(&t, &tm));
			if (r->o.json)
				trace_json_message(r->out, "time", text, n);
			else
				put_text(r, cpu, text, n);
		}
		break;
	case KT_EV_CLEAR: case KT_EV_ZERO:   /* a count map without a key is only zeroed, as in bpftrace */
		if (index < r->s->nmaps)
			trace_clear_map(r->maps[index], kind == KT_EV_ZERO || keyless_count(&r->s->maps[index]));
		break;
	case KT_EV_VALUE: case KT_EV_SYSTEM: case KT_EV_CAT:
		if (site && r->o.json) {
			trace_user_record(r->out, site, &r->o, rec->data, rec->size);
		} else if (site && (f = open_memstream(&buf, &len))) {
			trace_user_record(f, site, &r->o, rec->data, rec->size);
			fclose(f);
			put_text(r, cpu, buf, len);
		}
		break;
	}
	free(buf);   /* r->out is flushed once a batch (flush_pending) */
	return 0;
}

/* BEGIN or END: every such program once, then what it printed. */
/* BEGIN's records stay in the ring buffer for the main loop, as bpftrace prints them after
 * attaching every probe; END's are read at once. */
static int run_special(struct run *r, struct kiln_reader *rd, enum kt_pkind kind)
{
	for (uint32_t i = 0; i < r->s->ntargets; i++) {
		if (r->s->targets[i].kind != kind)
			continue;
		char name[32];
		snprintf(name, sizeof(name), "p%u", i);
		struct kiln_prog *p = kiln_object_find_prog(r->obj, name);
		LIBBPF_OPTS(bpf_test_run_opts, o);
		if (!p || bpf_prog_test_run_opts(kiln_prog_fd(p), &o)) {
			fprintf(stderr, "kiln trace: running %s: %s\n", r->s->targets[i].probe, strerror(errno));
			return 1;
		}
		while (kind == KP_END && poll_batch(r, rd, 0) > 0)
			;
	}
	return 0;
}

static int attach_all(struct run *r, struct kiln_link **links)
{
	uint32_t n = r->s->ntargets;
	for (uint32_t j = 0; j < 2 * n; j++) {   /* forward, then the kinds the kernel runs last-first backward */
		bool back = j >= n;
		uint32_t i = back ? 2 * n - 1 - j : j;
		const struct kt_target *t = &r->s->targets[i];
		if (kt_attach_reversed(t->kind) != back)
			continue;
		if (t->kind == KP_BEGIN || t->kind == KP_END || t->absent || t->watch_deferred)
			continue;   /* (a deferred watchpoint: when its uprobe says where) */
		char name[32];
		snprintf(name, sizeof(name), "p%u", i);
		struct kiln_prog *p = kiln_object_find_prog(r->obj, name);
		struct kiln_attach_opts o = { .sz = sizeof(o), .freq = t->freq, .period = t->period_ns };
		if (t->kind == KP_INTERVAL) {   /* one CPU: the interval fires once per period */
			o.on_one_cpu = true;
			o.cpu = 0;
		}
		if (t->kind == KP_SOFTWARE || t->kind == KP_HARDWARE) {   /* every CPU, every count events */
			o.event_name = t->event;
			o.event_type = t->perf_type;
			o.event_config = t->perf_config;
			o.period = t->count;
		}
		if (t->kind == KP_WATCHPOINT)
			trace_watch_opts(t, r->child ? r->child->pid : r->pid, &o);
		if (t->kind == KP_UPROBE || t->kind == KP_URETPROBE || t->kind == KP_USDT)
			o.pid = r->pid;   /* -p: that process only (0: all) */
		o.ref_ctr_offset = t->sema;   /* a USDT semaphore: the process's probe code runs */
		if (!p || kiln_prog_attach(p, &o, &links[i])) {
			fprintf(stderr, "kiln trace: attaching %s: %s\n", t->probe, kiln_errmsg());
			return 1;
		}
	}
	return 0;
}

/* What `Attaching N probes...` counts: every attach point but the uprobes whose function the
 * file lacks (bpftrace 0.17 drops those as it expands the program) and watchpoint:FUNC+argN's
 * uprobes (one probe with its watchpoint, as bpftrace counts it). */
static uint32_t probe_count(const struct kt_sema *s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->ntargets; i++)
		n += !s->targets[i].absent && !s->targets[i].watch_setup;   /* (watchpoint:FUNC+argN's uprobe: its part) */
	return n;
}

static int map_name_cmp(const void *a, const void *b, void *arg)
{
	const struct kt_sema *s = arg;
	return strcmp(s->maps[*(const uint32_t *)a].name, s->maps[*(const uint32_t *)b].name);
}

/* -p's process has exited (its pidfd is readable). */
static bool pid_exited(const struct run *r)
{
	struct pollfd p = { .fd = r->pidfd, .events = POLLIN };
	return r->pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/* The run's arrays: links by target, maps by index, pending text by CPU. 0, or 1 said. */
static int run_alloc(struct run *r, struct kiln_link ***links)
{
	*links = calloc(r->s->ntargets + 1, sizeof(**links));
	r->maps = calloc(r->s->nmaps + 1, sizeof(*r->maps));
	int ncpus = kiln_num_possible_cpus();
	r->npend = ncpus > 0 ? (uint32_t)ncpus : 1;
	r->pend = calloc(r->npend, sizeof(*r->pend));
	r->order = calloc(r->npend, sizeof(*r->order));
	r->fmts = calloc(r->g->nsites + 1, sizeof(*r->fmts));
	for (uint32_t i = 0; r->fmts && i < r->g->nsites; i++)
		if (r->g->sites[i].kind == KT_EV_PRINTF)
			r->fmts[i] = trace_fmt_compile(&r->g->sites[i]);
	if (!*links || !r->maps || !r->pend || !r->order || !r->fmts) {
		fprintf(stderr, "kiln trace: out of memory\n");
		return 1;
	}
	return 0;
}

/* The object loaded; a kfunc or kretfunc program that lockdown refused is explained. 0, or 1
 * said. */
static int run_load(const struct run *r)
{
	const struct kt_sema *s = r->s;
	if (!cli_object_load("trace", r->obj, "the generated program"))
		return 0;
	for (uint32_t i = 0; i < s->ntargets; i++)
		if ((s->targets[i].kind == KP_KFUNC || s->targets[i].kind == KP_KRETFUNC) &&
		    strstr(kiln_errmsg(), "locked down")) {
			fprintf(stderr, "kiln trace: kfunc and kretfunc probes are fentry and fexit programs, which "
					"a kernel in lockdown (/sys/kernel/security/lockdown) refuses to load\n");
			break;
		}
	return 1;
}

/* r->maps by index, found in the object; a count map without a key gets its one entry, 0.
 * 0, or 1 said. */
static int find_maps(struct run *r)
{
	const struct kt_sema *s = r->s;
	for (uint32_t i = 0; i < s->nmaps; i++) {
		char name[32];
		uint64_t key = 0, count = 0;
		snprintf(name, sizeof(name), "m%u", i);
		r->maps[i] = kiln_object_find_map(r->obj, name);
		if (r->maps[i] && keyless_count(&s->maps[i]) &&
		    bpf_map_update_elem(kiln_map_fd(r->maps[i]), &key, &count, BPF_NOEXIST)) {
			fprintf(stderr, "kiln trace: setting @%s to 0: %s\n", s->maps[i].name, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* The start map: entry 0 the monotonic time the trace starts at (elapsed), entry 1 -c's
 * command's pid (cpid). 0, or 1 said. */
static int set_start(const struct run *r)
{
	struct kiln_map *start = kiln_object_find_map(r->obj, KT_START_MAP);
	uint32_t zero = 0;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uint32_t one = 1;
	uint64_t cpid = r->child ? (uint64_t)r->child->pid : 0;
	if (!start || bpf_map_update_elem(kiln_map_fd(start), &zero, &t0, BPF_ANY) ||
	    bpf_map_update_elem(kiln_map_fd(start), &one, &cpid, BPF_ANY)) {
		fprintf(stderr, "kiln trace: cannot set the start time\n");
		return 1;
	}
	return 0;
}

/* Loaded, its maps found and set, and a reader on its buffers in *rd. 0, or 1 said. */
static int run_prepare(struct run *r, struct kiln_reader **rd)
{
	if (run_load(r) || find_maps(r))
		return 1;
	r->o.stacks = kiln_object_find_map(r->obj, KT_STACKS);
	if (set_start(r))
		return 1;
	if (kiln_reader_new(rd) || kiln_reader_add_object(*rd, r->obj, on_record, r, NULL)) {
		cli_fail("trace");
		return 1;
	}
	return 0;
}

/* `Attaching N probes...`, BEGIN run, every probe attached, then -c's command let go. 0, or
 * 1 said. */
static int run_attach(struct run *r, struct kiln_reader *rd, struct kiln_link **links)
{
	uint32_t nprobes = probe_count(r->s);
	if (!nprobes) {
		fprintf(stderr, "kiln trace: no probes to attach (no attach point's function is in its file)\n");
		return 1;
	}
	if (r->quiet)
		;
	else if (r->o.json)
		fprintf(r->out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %u}}\n", nprobes);
	else
		fprintf(r->out, "Attaching %u probe%s...\n", nprobes, nprobes == 1 ? "" : "s");
	fflush(r->out);
	if (run_special(r, rd, KP_BEGIN))
		return 1;
	if (attach_all(r, links))
		return 1;
	/* bpftrace's runtime tests wait for this line before they start their clock; on
	 * stderr, as bpftrace writes it (a test piping the output elsewhere does not see it) */
	if (getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED")) {
		fflush(r->out);
		fprintf(stderr, "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n");
	}
	if (r->child)
		child_release(r->child);
	return 0;
}

static int print_maps(struct run *r);

/* After a poll that found records, the reader sleeps this long before the next: a probe
 * firing a million times a second then finds the reader busy or asleep, not waiting, and the
 * kernel wakes it once a batch instead of once a record (a wakeup per record slowed the
 * workload of bench/flood.sh 2 to 3 times more). The ring buffer holds far more than a
 * millisecond of records (8 MiB by default: 250,000 printf records of two integers). */
#define LINGER_NS 1000000

/* Records printed as they come, until a signal, exit(), or the end of -c's command or -p's
 * process. 0, or 1 when the reader failed (said). */
static int run_stream(struct run *r, struct kiln_reader *rd)
{
	while (!stop_signal && !r->exited && !(r->child && child_exited(r->child)) && !pid_exited(r)) {
		int err = poll_batch(r, rd, 100);
		if (err < 0 && err != -EINTR) {
			cli_fail("trace");
			return 1;
		}
		if (err > 0)   /* let records gather: one wakeup a batch, not one a record */
			nanosleep(&(struct timespec){ 0, LINGER_NS }, NULL);
		report_drops(r, rd, false);
		if (maps_asked) {
			maps_asked = 0;
			if (print_maps(r))
				return 1;
		}
	}
	return 0;
}

static void detach_all(const struct run *r, struct kiln_link **links)
{
	for (uint32_t i = 0; i < r->s->ntargets; i++) {
		kiln_link_destroy(links[i]);
		links[i] = NULL;
	}
}

/* Every map, in the order of their names, as bpftrace prints them at the end. 0, or 1 out
 * of memory. */
static int print_maps(struct run *r)
{
	const struct kt_sema *s = r->s;
	uint32_t *order = calloc(s->nmaps + 1, sizeof(*order));
	if (!order)
		return 1;
	for (uint32_t i = 0; i < s->nmaps; i++)
		order[i] = i;
	qsort_r(order, s->nmaps, sizeof(*order), map_name_cmp, (void *)s);
	for (uint32_t i = 0; i < s->nmaps; i++)
		if (r->maps[order[i]] && trace_print_map(r->out, &r->o, order[i], r->maps[order[i]], 0, 0))
			fprintf(stderr, "kiln trace: reading @%s: %s\n", s->maps[order[i]].name, strerror(errno));
	free(order);
	fflush(r->out);
	return 0;
}

#define SIGNAL_DRAIN_S 0.25   /* the longest a stop by a signal prints what the probes sent before */

/* Once the probes are detached: what they sent before, the events lost, END, and the maps.
 * 0, or 1 said. */
static int run_end(struct run *r, struct kiln_reader *rd)
{
	/* What the probes sent before they were detached: all of it after a natural end (-c's
	 * command or -p's process gone); for a bounded time after a signal (none when nobody
	 * reads it: stop.c dropped the output); none after exit(), as bpftrace drops the rest
	 * unsaid. What a signal's drain leaves before END's own records is counted, not handled
	 * (each might run a command: system()), and reported lost with the ring buffer's drops,
	 * so a stop takes a bounded time however many are left. */
	bool signalled = stop_signal != 0, after_exit = r->exited;
	if (!after_exit && !cli_stop_dropped(fileno(r->out))) {
		double end = now_s() + SIGNAL_DRAIN_S;
		while ((!signalled || now_s() < end) && poll_batch(r, rd, 0) > 0)
			;
	}
	r->counting = !after_exit;
	while (poll_batch(r, rd, 0) > 0)   /* (after exit(): on_record drops them, r->exited) */
		;
	r->counting = false;
	r->exited = false;   /* END's own records are printed */
	report_drops(r, rd, true);
	if (run_special(r, rd, KP_END))
		return 1;
	fputs("\n\n", r->out);
	return print_maps(r);
}

/* What run_alloc and run_prepare made, the links still attached, and the object. */
static void run_free(struct run *r, struct kiln_reader *rd, struct kiln_link **links)
{
	kiln_reader_free(rd);
	trace_watch_free(r->watch);
	for (uint32_t i = 0; links && i < r->s->ntargets; i++)
		kiln_link_destroy(links[i]);
	free(links);
	free(r->maps);
	for (uint32_t i = 0; r->pend && i < r->npend; i++)
		free(r->pend[i].buf);
	free(r->pend);
	free(r->order);
	for (uint32_t i = 0; r->fmts && i < r->g->nsites; i++)
		trace_fmt_free(r->fmts[i]);
	free(r->fmts);
	trace_out_free(&r->o);
	kiln_object_close(r->obj);
	if (r->pidfd >= 0)
		close(r->pidfd);
}

/* The compiled program from load to the last map printed. 0, or 1 said. */
static int run_program(const struct kt_sema *s, const struct kt_gen *g, const void *elf, size_t size, FILE *out,
		       struct child *child, pid_t pid, bool json, bool quiet)
{
	struct kiln_object *obj;
	struct kiln_object_opts oo = { .sz = sizeof(oo), .name = "kiln_trace" };
	if (kiln_object_open_mem(elf, size, &oo, &obj)) {
		cli_fail("trace");
		return 1;
	}
	struct run r = { .child = child, .pid = pid, .pidfd = -1, .s = s, .g = g, .obj = obj, .out = out, .quiet = quiet };
	/* names from the system (comms, paths, str()) are escaped on a terminal (trace_val.c) */
	r.o = (struct trace_out){ .s = s, .json = json, .terminal = !json && isatty(fileno(out)) };
	if (pid > 0 && (r.pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0) {
		fprintf(stderr, "ERROR: pid %d: %s\n", (int)pid, strerror(errno));
		kiln_object_close(obj);
		return 1;
	}
	struct kiln_link **links = NULL;
	struct kiln_reader *rd = NULL;
	int rc = 1;
	if (!run_alloc(&r, &links) && !run_prepare(&r, &rd) && !run_attach(&r, rd, links) && !run_stream(&r, rd)) {
		detach_all(&r, links);
		rc = run_end(&r, rd);
	}
	if (!rc)
		rc = r.exit_code;
	run_free(&r, rd, links);
	return rc;
}

/* The compiled program run into out, signals caught, and command (-c) started, held until
 * the probes are attached. 0, or 1 said. */
int trace_run_compiled(const struct kt_sema *s, const struct kt_gen *g, const void *elf, size_t size, FILE *out,
		       const char *command, pid_t pid, bool json, bool quiet)
{
	cli_stop_catch("trace", on_signal);
	struct sigaction usr1 = { .sa_handler = on_usr1 };   /* (no SA_RESTART: the poll wakes) */
	sigemptyset(&usr1.sa_mask);
	sigaction(SIGUSR1, &usr1, NULL);
	struct child child = { .pid = 0, .go = -1 };
	int cr = command ? child_start(command, &child) : 0;
	if (cr) {
		if (cr == -1)
			fprintf(stderr, "kiln trace: cannot start the command: %s\n", strerror(errno));
		return 1;
	}
	int rc = run_program(s, g, elf, size, out, command ? &child : NULL, pid, json, quiet);
	if (child.go >= 0)
		close(child.go);   /* never released: it exits without running */
	if (child.pid > 0 && waitpid(child.pid, NULL, WNOHANG) == 0) {
		kill(child.pid, SIGTERM);   /* still running as the trace ends: bpftrace 0.17 ends it too */
		kill(child.pid, SIGCONT);   /* (stopped by a watchpoint's uprobe, it would not see it) */
	}
	if (child.pid > 0)
		waitpid(child.pid, NULL, 0);
	return rc;
}
