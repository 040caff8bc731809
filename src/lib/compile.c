/* compile.c — the compiler inside libkiln: a kiln source compiled to an ELF image in memory
 * (a memfd), so kiln_object_open() takes .lisp files as well as objects. */
#define _GNU_SOURCE
#include "compiler/compile.h"
#include "fail.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int kl_is_source_path(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".lisp")) || (n > 4 && !strcmp(path + n - 4, ".lsp")) ||
	       (n > 3 && !strcmp(path + n - 3, ".kl"));
}

int kl_compile_to_mem(const char *path, int opt_level, void **elf, size_t *size)
{
	return kl_compile_to_mem_warn(path, opt_level, elf, size, NULL);
}

int kl_compile_to_mem_warn(const char *path, int opt_level, void **elf, size_t *size, char **warnings)
{
	return kl_compile_to_mem_btf(path, opt_level, NULL, elf, size, warnings);
}

int kl_compile_to_mem_btf(const char *path, int opt_level, const char *btf_path, void **elf, size_t *size,
			  char **warnings)
{
	if (warnings)
		*warnings = NULL;
	size_t len;
	char *text = kl_read_file(path, &len);
	if (!text)
		return kl_fail_msg(errno, "cannot read %s: %s", path, kl_read_strerror(errno));
	int rc = kl_compile_text_to_mem(path, text, len, opt_level, btf_path, elf, size, warnings);
	free(text);
	return rc;
}

int kl_compile_text_to_mem(const char *path, const char *text, size_t len, int opt_level, const char *btf_path,
			   void **elf, size_t *size, char **warnings)
{
	if (warnings)
		*warnings = NULL;
	int fd = memfd_create("kiln-object", MFD_CLOEXEC);
	if (fd < 0)
		return kl_fail(errno, "memfd_create for compiling %s", path);
	struct kl_source src = { path, text, len };
	struct kl_arena arena = { 0 };
	struct kl_diag diag = { 0 };
	struct kl_comp c = { .a = &arena, .d = &diag, .src = &src };
	c.opts.opt_level = opt_level;
	c.opts.btf_path = btf_path;
	c.opts.write_fd = true;
	c.opts.out_fd = fd;
	int rc = 0;
	/* the BTF writer's libbpf calls: any warning of theirs is kept, not printed */
	if (KL_LIBBPF(kl_compile(&c, NULL))) {
		/* The compiler's diagnostic (file:line:col, the line, a caret) as the message. */
		char *msg = NULL;
		size_t mlen = 0;
		FILE *m = open_memstream(&msg, &mlen);
		if (m) {
			kl_diag_print(&diag, m);
			fclose(m);
		}
		while (mlen && msg[mlen - 1] == '\n')
			msg[--mlen] = 0;
		char *nl = msg ? strchr(msg, '\n') : NULL;
		if (nl)
			*nl = 0;
		/* not the source's fault (out of memory): the errno, not EINVAL */
		rc = diag.err ? kl_fail_msg(diag.err, "compiling %s: %s", path, diag.msg)
			      : kl_fail_msg(EINVAL, "%s", msg ? msg : "compile error");
		if (nl && msg) {
			*nl = '\n';
			kl_fail_log(msg, mlen);
		}
		free(msg);
	} else if (lseek(fd, 0, SEEK_SET) < 0 || !(*elf = kl_read_fd(fd, size))) {
		rc = kl_fail(errno ? errno : ENOMEM, "reading back the object compiled from %s", path);
	}
	if (!rc && warnings && diag.nwarnings) {
		size_t wlen = 0;
		FILE *w = open_memstream(warnings, &wlen);
		if (w) {
			kl_diag_print_warnings(&diag, w);
			fclose(w);
		}
	}
	kl_arena_free(&arena);
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
