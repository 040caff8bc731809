/* repl_load.c — (load "FILE") at kiln repl's prompt: the file's forms run in the session as if
 * they were typed. The file is read alone first (a read error is the file's, at FILE:line:col,
 * and nothing of it runs), then its text goes at the end of the session's, where its kiln forms
 * are gathered and compiled with the session's; its lines are remembered, so that an error in
 * them (the host's or the compiler's) is reported at FILE:line:col. */
#include "hv.h"
#include "repl.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* (load FILE) inside a file loaded, at most this deep (a file that loads itself stops) */
#define REPL_LOAD_DEPTH 16

/* text (a stream's, malloc'd) raised whole as the error at at: the host prints it as it is */
static struct lv *raise_text(struct lisp *h, const struct kl_node *at, char *text, size_t len)
{
	while (len && text[len - 1] == '\n')
		text[--len] = 0;
	lv_raise(h, at, "compiled", text);
	free(text);
	return NULL;
}

/* The file read alone as its own source (named by its path), its forms counted in *n; NULL
 * with h's error (the file unreadable, or a read error in it, at FILE:line:col). */
static struct kl_source *read_alone(struct lisp *h, const struct kl_node *at, const char *path, uint32_t *n)
{
	size_t len;
	char *text = kl_read_file(path, &len);
	if (!text)
		return lv_err(h, at, "load: %s: %s", path, kl_read_strerror(errno)), NULL;
	struct kl_source *s = kl_arena_new(&h->a, struct kl_source);
	*s = (struct kl_source){ kl_arena_strdup(&h->a, path), kl_arena_strndup(&h->a, text, len), len };
	free(text);
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	char *msg = NULL;
	size_t ml = 0;
	if (!kl_read(&h->a, &d, s, &forms, n))
		return s;
	FILE *f = open_memstream(&msg, &ml);
	if (!f)
		return lv_err(h, at, "%s", d.msg), NULL;
	kl_diag_print(&d, f);
	fclose(f);
	return raise_text(h, at, msg, ml), NULL;
}

/* fs's text put at the end of the session's (after a newline), its lines remembered; the
 * session read again, *forms the last n forms (the file's). -1 with h's error. */
static int append(struct lisp *h, const struct kl_node *at, struct kl_source *fs, uint32_t n,
		  struct kl_node ***forms)
{
	size_t old = h->src.len;
	bool nl = old && h->src.text[old - 1] != '\n';
	char *all = malloc(old + nl + fs->len + 2);
	if (!all)
		return lv_err(h, at, "out of memory"), -1;
	memcpy(all, h->src.text, old);
	if (nl)
		all[old++] = '\n';
	memcpy(all + old, fs->text, fs->len);
	size_t len = old + fs->len;
	if (!fs->len || fs->text[fs->len - 1] != '\n')
		all[len++] = '\n';
	uint32_t first = H(h)->nlines + nl;          /* the session's line where the file starts */
	host_set_text(h, h->src.path, all, len);
	free(all);
	struct repl_file rf = { first, H(h)->nlines - first, fs };
	kl_vec_push(&h->a, &H(h)->repl->files, rf);
	struct kl_diag d = { 0 };
	uint32_t total;
	if (kl_read(&h->a, &d, &h->src, forms, &total) || total < n)   /* read alone, it reads */
		return lv_err(h, at, "load: %s does not read in the session: %s", fs->path, d.msg), -1;
	*forms += total - n;
	return 0;
}

struct lv *repl_load(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	struct host_repl *rp = H(h)->repl;
	if (n->nitems != 2)
		return lv_err(h, n, "load needs a file's name");
	struct lv *path = lv_eval(h, n->items[1], env);
	if (!path)
		return NULL;
	if (path->k != LV_STR)
		return lv_err(h, n->items[1], "load: %s is not a file's name", lv_brief(h, path));
	if (rp->loading >= REPL_LOAD_DEPTH)
		return lv_err(h, n, "load: files loaded more than %d deep", REPL_LOAD_DEPTH);
	uint32_t count;
	struct kl_node **forms;
	struct kl_source *fs = read_alone(h, n, path->u.str.s, &count);
	if (!fs || append(h, n, fs, count, &forms))
		return NULL;
	rp->loaded += count;       /* in the session's text now: the prompt does not run them again */
	rp->loading++;
	struct lv *v = LT;
	for (uint32_t i = 0; i < count && v; i++) {
		host_prepare(h, forms[i]);
		v = lv_eval(h, forms[i], NULL);
	}
	rp->loading--;
	return v ? LT : NULL;
}

/* The file loaded whose lines hold the session's line, or NULL */
static const struct repl_file *file_at(const struct host_repl *rp, unsigned long line)
{
	for (size_t i = 0; i < rp->files.len; i++)
		if (line >= rp->files.items[i].first && line < rp->files.items[i].first + rp->files.items[i].nlines)
			return &rp->files.items[i];
	return NULL;
}

/* The compiler's message with each "SESSION:LINE:" in a loaded file's lines made
 * "FILE:LINE:"; msg itself when it has none, or when out of memory. */
static const char *relocate_text(struct lisp *h, const char *msg)
{
	const char *sp = h->src.path, *p = msg, *q;
	size_t pl = strlen(sp), len = 0;
	char *out = NULL, *end;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return msg;
	for (; (q = strstr(p, sp)); p = q) {
		fwrite(p, 1, (size_t)(q - p), f);
		q += pl;
		unsigned long line = *q == ':' && q[1] >= '0' && q[1] <= '9' ? strtoul(q + 1, &end, 10) : 0;
		const struct repl_file *rf = line && *end == ':' ? file_at(H(h)->repl, line) : NULL;
		if (rf) {
			fprintf(f, "%s:%lu", rf->src->path, line - rf->first + 1);
			q = end;
		} else {
			fputs(sp, f);
		}
	}
	fputs(p, f);
	fclose(f);
	const char *r = kl_arena_strdup(&h->a, out);
	free(out);
	return r;
}

void repl_report(struct lisp *h, FILE *out)
{
	const struct repl_file *rf;
	if (h->exc == LV_EXC_CONDITION && !strcmp(h->cond->u.cond.type, "compiled"))
		h->cond->u.cond.msg = relocate_text(h, h->cond->u.cond.msg);
	else if (h->exc_span.src == &h->src && (rf = file_at(H(h)->repl, h->exc_span.line)))
		h->exc_span = (struct kl_span){ rf->src, h->exc_span.line - rf->first + 1, h->exc_span.col };
	host_report(h, out);
}
