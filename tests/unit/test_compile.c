/* test_compile.c — kiln_compile() (kiln/compile.h) called as any program linking libkiln
 * calls it, through the public header only: its opts checked by size (shorter, longer,
 * unset), a source from a file or from memory giving the same object, to memory, to a path
 * and to an fd alike; an error in the source returned as -EINVAL with the diagnostic in
 * kiln_errmsg()/kiln_errlog(); warnings returned as text, on failure too; unknown passes
 * refused; two threads compiling at once, each with its own object and its own error. */
#define _GNU_SOURCE
#include "check.h"
#include <kiln/kiln.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GOOD "examples/xdp-count.lisp"
#define WARN "tests/warnings/unused-let.lisp"
#define BAD "tests/errors/unknown-form.lisp"

struct image {
	void *elf;
	size_t size;
	int rc;
};

static struct image compile(const char *path, const struct kiln_compile_opts *o)
{
	struct image im = { 0 };
	im.rc = kiln_compile(path, &im.elf, &im.size, o);
	return im;
}

static bool same(const struct image *a, const struct image *b)
{
	return !a->rc && !b->rc && a->size == b->size && !memcmp(a->elf, b->elf, a->size);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	if (!f)
		return NULL;
	for (size_t n; (buf = realloc(buf, cap += 4096)) && (n = fread(buf + *len, 1, cap - *len - 1, f)) > 0;)
		*len += n;
	fclose(f);
	if (buf)
		buf[*len] = 0;
	return buf;
}

static void test_opts_size(const struct image *ref)
{
	struct kiln_compile_opts o = { 0 };
	struct image im = compile(GOOD, &o);
	CHECK("compile: opts with sz unset is refused", im.rc == -EINVAL && strstr(kiln_errmsg(), "sz"),
	      "%d '%s'", im.rc, kiln_errmsg());
	/* an older caller's struct: only sz and the text fields; the rest read as zero (-O2) */
	o.sz = offsetof(struct kiln_compile_opts, opt_level);
	o.opt_level = -1;   /* past sz: not read */
	im = compile(GOOD, &o);
	CHECK("compile: a shorter opts (older caller) reads its missing fields as defaults", same(&im, ref),
	      "%d %zu bytes, want %zu", im.rc, im.size, ref->size);
	free(im.elf);
	/* a newer caller's struct: longer, its extra fields zero (taken) or not (refused) */
	struct {
		struct kiln_compile_opts o;
		uint64_t extra;
	} longer = { .o = { .sz = sizeof(longer) } };
	im = compile(GOOD, &longer.o);
	CHECK("compile: a longer opts whose unknown fields are zero is taken", same(&im, ref), "%d '%s'", im.rc,
	      kiln_errmsg());
	free(im.elf);
	longer.extra = 1;
	im = compile(GOOD, &longer.o);
	CHECK("compile: a longer opts with an unknown field set is refused", im.rc == -EINVAL && !im.elf,
	      "%d", im.rc);
	struct kiln_compile_opts bad = { .sz = sizeof(bad), .opt_level = 3 };
	im = compile(GOOD, &bad);
	CHECK("compile: opt_level 3 is refused", im.rc == -EINVAL && strstr(kiln_errmsg(), "opt_level"), "%d '%s'",
	      im.rc, kiln_errmsg());
	im.rc = kiln_compile(GOOD, NULL, NULL, NULL);
	CHECK("compile: no output place (memory without elf/size) is refused", im.rc == -EINVAL, "%d", im.rc);
}

static void test_sources_and_outputs(const struct image *ref)
{
	size_t len;
	char *text = slurp(GOOD, &len);
	struct kiln_compile_opts o = { .sz = sizeof(o), .text = text, .text_len = len };
	struct image im = compile(GOOD, &o);
	CHECK("compile: source text in memory makes the file's object", text && same(&im, ref), "%d", im.rc);
	free(im.elf);
	free(text);

	char path[64];
	snprintf(path, sizeof(path), "/tmp/kiln-test-compile-%d.o", (int)getpid());
	o = (struct kiln_compile_opts){ .sz = sizeof(o), .out_path = path };
	int rc = kiln_compile(GOOD, NULL, NULL, &o);
	struct image f = { .rc = rc };
	f.elf = rc ? NULL : slurp(path, &f.size);
	unlink(path);
	CHECK("compile: to a path writes the same object", f.elf && same(&f, ref), "%d %zu", rc, f.size);
	free(f.elf);

	int fd = memfd_create("kiln-test-compile", MFD_CLOEXEC);
	o = (struct kiln_compile_opts){ .sz = sizeof(o), .out_fd = fd };
	rc = kiln_compile(GOOD, NULL, NULL, &o);
	struct image m = { .rc = rc, .size = fd >= 0 ? (size_t)lseek(fd, 0, SEEK_END) : 0 };
	m.elf = m.size ? malloc(m.size) : NULL;
	bool read_ok = m.elf && pread(fd, m.elf, m.size, 0) == (ssize_t)m.size;
	CHECK("compile: to an fd writes the same object", read_ok && same(&m, ref), "%d %zu", rc, m.size);
	free(m.elf);
	if (fd >= 0)
		close(fd);

	o = (struct kiln_compile_opts){ .sz = sizeof(o), .opt_level = -1 };
	im = compile(GOOD, &o);
	CHECK("compile: -O0 (opt_level -1) compiles, and not to the -O2 object", !im.rc && !same(&im, ref),
	      "%d %zu", im.rc, im.size);
	free(im.elf);
}

static void test_passes(void)
{
	const char *passes = kiln_compile_passes();
	CHECK("compile: the pass list names sccp, and sccp is a pass", strstr(passes, "sccp") &&
	      kiln_compile_has_pass("sccp") && !kiln_compile_has_pass("no-such-pass"), "'%.40s'", passes);
	const char *no[] = { "no-such-pass" };
	struct kiln_compile_opts o = { .sz = sizeof(o), .no_passes = no, .no_passes_cnt = 1 };
	struct image im = compile(GOOD, &o);
	CHECK("compile: -fno- an unknown pass is refused, naming it", im.rc == -EINVAL &&
	      strstr(kiln_errmsg(), "no-such-pass"), "%d '%s'", im.rc, kiln_errmsg());
	const char *inl[] = { "inline", "sccp" };
	o.no_passes = inl;
	o.no_passes_cnt = 2;
	im = compile(GOOD, &o);
	CHECK("compile: -fno-inline -fno-sccp compiles", !im.rc && im.size, "%d '%s'", im.rc, kiln_errmsg());
	free(im.elf);
	CHECK("compile: the prelude is kiln source with its macros", strstr(kiln_compile_prelude(), "defmacro") != NULL,
	      "no defmacro");
	CHECK("compile: .lisp .lsp .kl are sources, .o is not", kiln_compile_is_source("a.lisp") &&
	      kiln_compile_is_source("a.lsp") && kiln_compile_is_source("b/a.kl") && !kiln_compile_is_source("a.o") &&
	      !kiln_compile_is_source(".kl"), "wrong");
}

static void test_errors_and_warnings(void)
{
	char *warnings = (char *)"unset";
	struct kiln_compile_opts o = { .sz = sizeof(o), .warnings = &warnings };
	struct image im = compile(BAD, &o);
	CHECK("compile: an error in the source is -EINVAL with file:line:col first",
	      im.rc == -EINVAL && !im.elf && !strncmp(kiln_errmsg(), BAD ":3:4: error: unknown function", strlen(BAD ":3:4: error: unknown function")),
	      "%d '%s'", im.rc, kiln_errmsg());
	CHECK("compile: the log holds the source line and the caret", strstr(kiln_errlog(), "(frobnicate 1 2)") &&
	      strchr(kiln_errlog(), '^'), "'%s'", kiln_errlog());
	CHECK("compile: no warnings is NULL", warnings == NULL, "'%s'", warnings ? warnings : "");
	im = compile(WARN, &o);
	CHECK("compile: warnings come back as text, the compile succeeding", !im.rc && warnings &&
	      strstr(warnings, WARN ":4:10: warning: 'len' is bound but never used"), "%d '%s'", im.rc,
	      warnings ? warnings : "(null)");
	free(im.elf);
	free(warnings);
	im = compile("/nonexistent/kiln.lisp", &o);
	CHECK("compile: a missing file is its errno, named", im.rc == -ENOENT &&
	      strstr(kiln_errmsg(), "cannot read /nonexistent/kiln.lisp"), "%d '%s'", im.rc, kiln_errmsg());
}

/* ---- two threads at once ---- */
struct job {
	const char *path;
	struct image im;
	char msg[256];
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	for (int i = 0; i < 4 && !j->im.rc; i++) {
		free(j->im.elf);
		j->im = compile(j->path, NULL);
	}
	snprintf(j->msg, sizeof(j->msg), "%s", j->im.rc ? kiln_errmsg() : "");
	return NULL;
}

static void test_threads(const struct image *ref)
{
	struct job good = { .path = GOOD }, bad = { .path = BAD };
	pthread_t t1, t2;
	bool started = !pthread_create(&t1, NULL, run_job, &good);
	started = !pthread_create(&t2, NULL, run_job, &bad) && started;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	CHECK("compile: two threads at once: the good one gets the object", started && same(&good.im, ref),
	      "%d '%s'", good.im.rc, good.msg);
	CHECK("compile: two threads at once: the bad one its own error", bad.im.rc == -EINVAL &&
	      !strncmp(bad.msg, BAD ":3:4:", strlen(BAD) + 5), "%d '%s'", bad.im.rc, bad.msg);
	free(good.im.elf);
	free(bad.im.elf);
}

int main(void)
{
	struct image ref = compile(GOOD, NULL);
	CHECK("compile: opts NULL compiles (-O2)", !ref.rc && ref.size > 64 && !memcmp(ref.elf, "\177ELF", 4), "%d '%s'",
	      ref.rc, kiln_errmsg());
	struct kiln_compile_opts o2 = { .sz = sizeof(o2), .opt_level = 2 };
	struct image im = compile(GOOD, &o2);
	CHECK("compile: opt_level 2 is the default", same(&im, &ref), "%d", im.rc);
	free(im.elf);
	test_opts_size(&ref);
	test_sources_and_outputs(&ref);
	test_passes();
	test_errors_and_warnings();
	test_threads(&ref);
	free(ref.elf);
	return CHECK_DONE();
}
