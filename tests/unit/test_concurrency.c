/* test_concurrency.c — libkiln used as a long-lived host uses it: many compilations in one
 * process (programs with macros and closures from the prelude and the source, a bad source
 * between good ones), several threads compiling and opening objects at once, every object
 * byte-identical to the one a fresh process compiles; each of the compiler's allocations
 * failing in turn gives -ENOMEM and frees what it had; and the host's libbpf print callback
 * keeps receiving libbpf's messages, set before libkiln's first call or after it. Built with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (see the Makefile) for the failing
 * allocations. Run under ASan (make test-asan) and TSan (make test-tsan). */
#define _GNU_SOURCE
#include "check.h"
#include "compiler/diag.h"
#include <kiln/kiln.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- allocations that fail on demand (this thread only) ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
static _Thread_local long fail_countdown = -1;   /* the allocation that fails; -1: none */
static _Thread_local long allocations;            /* counted in this thread */

static bool fail_now(void)
{
	allocations++;
	if (fail_countdown < 0 || fail_countdown-- != 0)
		return false;
	errno = ENOMEM;
	return true;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

/* ---- the programs ---- */
static const char *const good[] = {
	"tests/corpus/macros.lisp",      /* defmacro, gensym, mapcar over a lambda in a macro */
	"tests/corpus/wh-case.lisp",     /* the prelude's case: closures made by the prelude */
	"tests/corpus/wh-packet.lisp",   /* the packet library macros */
	"tests/corpus/arith.lisp",
	"examples/execsnoop.lisp",       /* a tracepoint's format read from tracefs */
	"examples/xdp-count.lisp",
	"examples/tc-bytes.lisp",
	"tests/corpus/wh-pkt-xdp.lisp",
};
#define NGOOD (sizeof(good) / sizeof(good[0]))
static const char *const bad[] = {
	"tests/errors/macro-arity.lisp",
	"tests/errors/unknown-form.lisp",
	"tests/errors/macro-recursive.lisp",
	"tests/errors/funcall-not-function.lisp",   /* looks through all the closures made */
};
#define NBAD (sizeof(bad) / sizeof(bad[0]))

struct image {
	void *elf;
	size_t size;
};
static struct image ref[NGOOD];           /* each compiled once in a fresh process */

/* Compile path in a child process (nothing compiled before it there) and read its image. */
static int fresh_compile(const char *path, struct image *out)
{
	int p[2];
	if (pipe(p))
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(p[0]);
		void *elf;
		size_t size;
		if (kiln_compile(path, &elf, &size, NULL))
			_exit(1);
		for (size_t off = 0; off < size;) {
			ssize_t w = write(p[1], (char *)elf + off, size - off);
			if (w <= 0)
				_exit(2);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	out->elf = kl_read_fd(p[0], &out->size);
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	return out->elf && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static bool same(const struct image *a, const void *elf, size_t size)
{
	return a->size == size && !memcmp(a->elf, elf, size);
}

/* Compile good[i] here and compare; "" if it matched, else why not. */
static const char *compile_and_compare(size_t i, char *why, size_t whylen)
{
	void *elf = NULL;
	size_t size = 0;
	int rc = kiln_compile(good[i], &elf, &size, NULL);
	if (rc)
		snprintf(why, whylen, "%s: %d %s", good[i], rc, kiln_errmsg());
	else if (!same(&ref[i], elf, size))
		snprintf(why, whylen, "%s: %zu bytes, not the fresh compile's %zu or not the same bytes", good[i],
			 size, ref[i].size);
	else
		why[0] = 0;
	free(elf);
	return why;
}

/* A bad source fails with its own file:line:col in this thread's kiln_errmsg. */
static const char *compile_bad(size_t i, char *why, size_t whylen)
{
	void *elf = NULL;
	size_t size = 0;
	int rc = kiln_compile(bad[i], &elf, &size, NULL);
	char want[128];
	snprintf(want, sizeof(want), "%s:", bad[i]);
	if (rc != -EINVAL || strncmp(kiln_errmsg(), want, strlen(want)))
		snprintf(why, whylen, "%s: %d, message '%s'", bad[i], rc, kiln_errmsg());
	else
		why[0] = 0;
	free(elf);
	return why;
}

/* ---- the host's libbpf print callbacks ---- */
#define MARKER "/nonexistent/kiln-host-marker"
static unsigned host_marked, host_other, host2_marked;   /* __atomic */

static int host_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	__atomic_add_fetch(strstr(buf, MARKER) ? &host_marked : &host_other, 1, __ATOMIC_RELAXED);
	return 0;
}

static int host_print2(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (strstr(buf, MARKER))
		__atomic_add_fetch(&host2_marked, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The host's own libbpf call, which libbpf complains about through the print callback. */
static void host_libbpf_call(void)
{
	struct bpf_object *o = bpf_object__open_file(MARKER ".o", NULL);
	if (o)
		bpf_object__close(o);
}

/* ---- threads ---- */
#define NTHREADS 4
#define ROUNDS 2
struct worker {
	int id;
	char why[640];
	unsigned compiled, opened;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char why[512];
	for (int r = 0; r < ROUNDS && !w->why[0]; r++)
		for (size_t k = 0; k < NGOOD && !w->why[0]; k++) {
			size_t i = (k * 3 + (size_t)w->id + (size_t)r) % NGOOD;   /* a different order each */
			if (compile_and_compare(i, why, sizeof(why))[0] ||
			    compile_bad((k + (size_t)w->id) % NBAD, why, sizeof(why))[0]) {
				snprintf(w->why, sizeof(w->why), "thread %d: %s", w->id, why);
				break;
			}
			w->compiled++;
			struct kiln_object *o = NULL;
			int rc = kiln_object_open(good[i], NULL, &o);
			if (rc || kiln_object_prog_count(o) == 0) {
				snprintf(w->why, sizeof(w->why), "thread %d: open %s: %d %s", w->id, good[i], rc,
					 kiln_errmsg());
				kiln_object_close(o);
				break;
			}
			kiln_object_close(o);
			w->opened++;
		}
	return NULL;
}

int main(void)
{
	char why[512];
	/* the host's callback, set before any libkiln call */
	libbpf_set_print(host_print);

	bool refs = true;
	for (size_t i = 0; i < NGOOD; i++)
		if (fresh_compile(good[i], &ref[i])) {
			CHECK("concurrency/fresh-compiles", false, "%s does not compile in a fresh process", good[i]);
			refs = false;
		}
	if (!refs)
		return CHECK_DONE();

	/* one process, many compilations: good ones with bad ones between, three times over */
	int fds = check_open_fds();
	const char *failed = "";
	for (int r = 0; r < 3 && !failed[0]; r++)
		for (size_t i = 0; i < NGOOD && !failed[0]; i++)
			if (!(failed = compile_and_compare(i, why, sizeof(why)))[0])
				failed = compile_bad((i + (size_t)r) % NBAD, why, sizeof(why));
	CHECK("concurrency/compile-many-identical", !failed[0], "%s", failed);
	CHECK("concurrency/compile-many-no-fd-leak", check_open_fds() == fds, "%d fds before, %d after", fds,
	      check_open_fds());

	/* the host's callback set before libkiln's first call still gets libbpf's messages */
	struct kiln_object *o = NULL;
	int rc = kiln_object_open(good[0], NULL, &o);
	kiln_object_close(o);
	unsigned before = __atomic_load_n(&host_marked, __ATOMIC_RELAXED);
	host_libbpf_call();
	unsigned per_call = __atomic_load_n(&host_marked, __ATOMIC_RELAXED) - before;
	CHECK("concurrency/host-print-before", rc == 0 && per_call > 0,
	      "open: %d; the host's callback got %u messages from its own failing libbpf call", rc, per_call);

	/* libbpf's complaints about kiln's own calls are kiln's (its error message), not the host's */
	char junk[] = "/tmp/kiln-junk-XXXXXX.o";
	int jfd = mkstemps(junk, 2);
	if (jfd >= 0) {
		(void)!write(jfd, "not an ELF object at all", 24);
		close(jfd);
	}
	unsigned other = __atomic_load_n(&host_other, __ATOMIC_RELAXED);
	o = NULL;
	rc = kiln_object_open(junk, NULL, &o);
	CHECK("concurrency/kiln-messages-kept", rc < 0 && !o && __atomic_load_n(&host_other, __ATOMIC_RELAXED) == other &&
	      kiln_errmsg()[0], "open of a junk object: %d, '%s'; the host's callback got %u of its messages", rc,
	      kiln_errmsg(), __atomic_load_n(&host_other, __ATOMIC_RELAXED) - other);
	kiln_object_close(o);
	unlink(junk);

	/* threads compiling and opening at once, while the host makes its own libbpf calls */
	struct worker ws[NTHREADS] = { 0 };
	pthread_t tids[NTHREADS];
	int started = 0;
	before = __atomic_load_n(&host_marked, __ATOMIC_RELAXED);
	for (int t = 0; t < NTHREADS; t++) {
		ws[t].id = t;
		if (pthread_create(&tids[t], NULL, work, &ws[t]))
			break;
		started++;
	}
	const unsigned host_calls = 20;
	for (unsigned k = 0; k < host_calls; k++)
		host_libbpf_call();
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	const char *twhy = started < NTHREADS ? "pthread_create failed" : "";
	unsigned compiled = 0, opened = 0;
	for (int t = 0; t < started; t++) {
		if (ws[t].why[0] && !twhy[0])
			twhy = ws[t].why;
		compiled += ws[t].compiled;
		opened += ws[t].opened;
	}
	CHECK("concurrency/threads-identical", !twhy[0] && compiled == NTHREADS * ROUNDS * NGOOD &&
	      opened == compiled, "%s (%u compiled, %u opened)", twhy, compiled, opened);
	unsigned got = __atomic_load_n(&host_marked, __ATOMIC_RELAXED) - before;
	CHECK("concurrency/host-print-during-threads", got == host_calls * per_call,
	      "the host's callback got %u of its %u messages while kiln's threads ran", got, host_calls * per_call);

	/* a callback the host sets after libkiln's is left in place and gets the messages */
	libbpf_print_fn_t kilns = libbpf_set_print(host_print2);
	rc = kiln_object_open(good[1], NULL, &o);
	kiln_object_close(o);
	libbpf_print_fn_t now = libbpf_set_print(host_print2);
	host_libbpf_call();
	CHECK("concurrency/host-print-after", rc == 0 && now == host_print2 &&
	      __atomic_load_n(&host2_marked, __ATOMIC_RELAXED) == per_call,
	      "open: %d; callback %s; the later callback got %u messages", rc,
	      now == host_print2 ? "kept" : "replaced", __atomic_load_n(&host2_marked, __ATOMIC_RELAXED));
	libbpf_set_print(kilns);

	/* every allocation of a compilation failing in turn: -ENOMEM, nothing leaked (LeakSanitizer
	 * under make test-asan; fds here), then the same object as ever */
	for (size_t s = 0; s < 2; s++) {
		size_t i = s ? 4 : 0;             /* macros.lisp (closures), execsnoop (tracefs) */
		void *elf = NULL;
		size_t size = 0;
		allocations = 0;
		rc = kiln_compile(good[i], &elf, &size, NULL);
		free(elf);
		long total = allocations;
		fds = check_open_fds();
		const char *oom = rc ? "the compile without failures failed" : "";
		char ob[512];
		for (long k = 0; k < total && !oom[0]; k++) {
			fail_countdown = k;
			elf = NULL;
			rc = kiln_compile(good[i], &elf, &size, NULL);
			bool hit = fail_countdown < 0;
			fail_countdown = -1;
			if (!hit || rc != -ENOMEM || !strstr(kiln_errmsg(), good[i]) || check_open_fds() != fds) {
				snprintf(ob, sizeof(ob), "allocation %ld of %ld failing: %s, rc %d, '%s', %d fds (%d before)",
					 k + 1, total, hit ? "failed" : "not reached", rc, kiln_errmsg(), check_open_fds(), fds);
				oom = ob;
			}
			free(elf);
		}
		char name[64];
		snprintf(name, sizeof(name), "concurrency/out-of-memory-%s", s ? "tracepoint" : "macros");
		CHECK(name, !oom[0] && total > 10, "%s", oom[0] ? oom : "too few allocations counted");
		char name2[80];
		snprintf(name2, sizeof(name2), "%s-then-identical", name);
		CHECK(name2, !compile_and_compare(i, why, sizeof(why))[0], "%s", why);
	}

	for (size_t i = 0; i < NGOOD; i++)
		free(ref[i].elf);
	return CHECK_DONE();
}
