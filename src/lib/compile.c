/* compile.c — kiln_compile(), the compiler as a libkiln call (kiln/compile.h): the caller's
 * kiln_compile_opts checked and turned into the compiler's own options, the source read
 * (or taken from memory), the object written to a path, an fd, or a memfd read back into
 * memory, and the compiler's diagnostic turned into kiln_errmsg()/kiln_errlog() (libkiln's
 * error style) with its warnings as text. kl_compile_forms_to_mem (lib/compile.h) is the entry
 * for kiln trace, a front end in the same process that hands the compiler nodes, not text. */
#define _GNU_SOURCE
#include "compiler/compile.h"
#include "compiler/opt.h"
#include "compiler/prelude.h"
#include "fail.h"
#include "compile.h"
#include <kiln/compile.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

bool kiln_compile_is_source(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return (n > 5 && !strcmp(path + n - 5, ".lisp")) || (n > 4 && !strcmp(path + n - 4, ".lsp")) ||
	       (n > 3 && !strcmp(path + n - 3, ".kl"));
}

bool kiln_compile_has_pass(const char *name)
{
	return name && kl_opt_pass_find(name) >= 0;
}

const char *kiln_compile_passes(void)
{
	return kl_opt_pass_help();
}

const char *kiln_compile_prelude(void)
{
	return kl_prelude_text;
}

/* The caller's opts into o, however old its struct: fields past opts->sz read as zero; a
 * newer, longer struct is taken only if what this libkiln does not know of it is zero. */
static int copy_opts(struct kiln_compile_opts *o, const struct kiln_compile_opts *opts)
{
	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if (opts->sz < sizeof(size_t))
		return kl_fail_msg(EINVAL, "kiln_compile: opts->sz is not set (sizeof(struct kiln_compile_opts))");
	for (size_t i = sizeof(*o); i < opts->sz; i++)
		if (((const char *)opts)[i])
			return kl_fail_msg(EINVAL, "kiln_compile: opts has fields this libkiln does not know (sz %zu, "
				       "not %zu)", opts->sz, sizeof(*o));
	memcpy(o, opts, opts->sz < sizeof(*o) ? opts->sz : sizeof(*o));
	return 0;
}

/* The compiler's options from the caller's. */
static int compiler_options(const struct kiln_compile_opts *o, struct kl_options *ko)
{
	if (o->opt_level < -1 || o->opt_level > 2)
		return kl_fail_msg(EINVAL, "kiln_compile: opt_level %d: 0 (the default, -O2), -1 (-O0), 1 or 2",
				   o->opt_level);
	*ko = (struct kl_options){ .opt_level = o->opt_level == 0 ? 2 : o->opt_level < 0 ? 0 : o->opt_level,
				   .btf_path = o->btf_path, .dump_ir = o->dump_ir, .verify_ir = o->verify_ir };
	for (size_t i = 0; i <= o->no_passes_cnt; i++) {
		const char *name = i < o->no_passes_cnt ? o->no_passes[i] : o->print_after;
		if (!name)
			continue;
		int p = kl_opt_pass_find(name);
		if (p < 0)
			return kl_fail_msg(EINVAL, "kiln_compile: no optimizer pass '%s'", name);
		if (i < o->no_passes_cnt)
			ko->no_passes |= 1ull << p;
		else
			ko->print_after = p + 1;
	}
	return 0;
}

/* The compiler's diagnostic as this thread's error: its first line the message, all of it
 * (the line, a caret) the log; a failure not the source's (out of memory, the object not
 * written) with its errno, the message naming the source, and the diagnostic as the log. */
static int diag_error(const struct kl_diag *diag, const char *path)
{
	char *msg = NULL;
	size_t mlen = 0;
	FILE *m = open_memstream(&msg, &mlen);
	if (m) {
		kl_diag_print(diag, m);
		fclose(m);
	}
	while (mlen && msg[mlen - 1] == '\n')
		msg[--mlen] = 0;
	char *nl = msg ? strchr(msg, '\n') : NULL;
	if (nl)
		*nl = 0;
	int rc = diag->err ? kl_fail_msg(diag->err, "compiling %s: %s", path, diag->msg)
			   : kl_fail_msg(EINVAL, "%s", msg ? msg : "compile error");
	if (nl)
		*nl = '\n';
	if (msg && (nl || diag->err))
		kl_fail_log(msg, mlen);
	free(msg);
	return rc;
}

static void warnings_text(const struct kl_diag *diag, char **warnings)
{
	size_t wlen = 0;
	FILE *w = open_memstream(warnings, &wlen);
	if (w) {
		kl_diag_print_warnings(diag, w);
		fclose(w);
	}
}

/* Compile src with the options made so far to where o says. */
static int compile_source(const struct kl_source *src, struct kl_options *ko, const struct kiln_compile_opts *o,
			  void **elf, size_t *size)
{
	int fd = -1;
	if (!o->out_path) {
		ko->write_fd = true;
		ko->out_fd = o->out_fd > 0 ? o->out_fd : (fd = memfd_create("kiln-object", MFD_CLOEXEC));
		if (ko->out_fd < 0)
			return kl_fail(errno, "memfd_create for compiling %s", src->path);
	}
	struct kl_arena arena = { 0 };
	struct kl_diag diag = { 0 };
	struct kl_comp c = { .a = &arena, .d = &diag, .src = src, .opts = *ko };
	int rc = 0;
	/* the BTF writer's libbpf calls: any warning of theirs is kept, not printed */
	if (KL_LIBBPF(kl_compile(&c, o->out_path)))
		rc = diag_error(&diag, src->path);
	else if (fd >= 0 && (lseek(fd, 0, SEEK_SET) < 0 || !(*elf = kl_read_fd(fd, size))))
		rc = kl_fail(errno ? errno : ENOMEM, "reading back the object compiled from %s", src->path);
	if (o->warnings && diag.nwarnings)
		warnings_text(&diag, o->warnings);
	kl_arena_free(&arena);
	if (fd >= 0)
		close(fd);
	return rc;
}

int kl_compile_forms_to_mem(const struct kl_source *src, struct kl_node **forms, unsigned nforms, int opt_level,
			    struct kl_diag *d, void **elf, size_t *size)
{
	int fd = memfd_create("kiln-object", MFD_CLOEXEC);
	if (fd < 0) {
		d->err = errno;
		return kl_error(d, (struct kl_span){ 0 }, "memfd_create for compiling %s: %s", src->path, strerror(errno));
	}
	struct kl_arena arena = { 0 };
	struct kl_comp c = { .a = &arena, .d = d, .src = src };
	c.opts.opt_level = opt_level;
	c.opts.write_fd = true;
	c.opts.out_fd = fd;
	int rc = KL_LIBBPF(kl_compile_forms(&c, forms, nforms, NULL));
	if (!rc && (lseek(fd, 0, SEEK_SET) < 0 || !(*elf = kl_read_fd(fd, size)))) {
		d->err = errno ? errno : ENOMEM;
		rc = kl_error(d, (struct kl_span){ 0 }, "reading back the object compiled from %s: %s", src->path,
			      strerror(d->err));
	}
	kl_arena_free(&arena);
	close(fd);
	return rc;
}

int kiln_compile(const char *path, void **elf, size_t *size, const struct kiln_compile_opts *opts)
{
	struct kiln_compile_opts o;
	struct kl_options ko;
	int err = copy_opts(&o, opts);
	if (err)
		return err;
	if (o.warnings)
		*o.warnings = NULL;
	if (!path || (!o.out_path && o.out_fd <= 0 && (!elf || !size)))
		return kl_fail_msg(EINVAL, "kiln_compile: no source path, or no place for the object");
	if (elf)
		*elf = NULL;
	if (size)
		*size = 0;
	if ((err = compiler_options(&o, &ko)))
		return err;
	struct kl_source src = { path, o.text, o.text_len };
	char *text = NULL;
	if (!o.text && !(src.text = text = kl_read_file(path, &src.len)))
		return kl_fail_msg(errno, "cannot read %s: %s", path, kl_read_strerror(errno));
	err = compile_source(&src, &ko, &o, elf, size);
	free(text);
	return err;
}
