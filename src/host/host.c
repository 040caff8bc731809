/* host.c — the host interpreter's entry points (kiln run on a session file), its source text,
 * its globals and Ctrl-C. The Lisp itself is the core's (src/lisp/). */
#include "host.h"
#include "hv.h"
#include "cli/cli.h"
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* Ctrl-C: the first one becomes the condition sb-sys:interactive-interrupt, raised at the next
 * form evaluated (or ending a sleep at once), which handler-case may catch as in SBCL. A second
 * one exits at once: nothing a session makes is pinned, so the kernel destroys its links with
 * the process's fds. */
static volatile sig_atomic_t sigint_count;
static int sigint_delivered;

static void on_sigint(int sig)
{
	if (++sigint_count >= 2)
		_exit(130);
	cli_stop_notify(sig);   /* `kiln run`: output nobody reads cannot hold the stop up (stop.c) */
}

bool host_interrupt_pending(struct lisp *h, const struct kl_node *n)
{
	if (sigint_count <= sigint_delivered)
		return false;
	sigint_delivered = sigint_count;
	lv_raise(h, n, "interactive-interrupt", "Interactive interrupt (Ctrl-C)");
	return true;
}

void host_sleep(struct lisp *h, double s, const struct kl_node *n)
{
	fflush(stdout);
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (!host_interrupt_pending(h, n) && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Forms that make a file a host program: any of these at its top level. A file without them
 * is kiln code and keeps `kiln run`'s ordinary path. */
static const char *const host_markers[] = {
	"with-bpf-session", "eval-when", "require", "load-system", "defparameter", "defvar",
	"use-package", "defpackage", "compile-to-elf", "with-bpf-object", "format", "let", "let*",
	"dolist", "dotimes", "loop", "handler-case", "unwind-protect", "setf", "setq",
	"print", "princ", "sleep", "load",
};

static bool is_marker(const struct kl_node *f)
{
	if (!kl_head(f) || host_is_kiln_global(f))
		return false;
	const char *s = f->items[0]->str, *c = strrchr(s, ':');
	if (c && c != s)
		s = c + 1;
	for (size_t i = 0; i < sizeof(host_markers) / sizeof(host_markers[0]); i++)
		if (!strcmp(s, host_markers[i]))
			return true;
	return false;
}

/* h's source becomes text (an arena copy), its line starts indexed for host_offset */
void host_set_text(struct lisp *h, const char *path, const char *text, size_t len)
{
	h->src = (struct kl_source){ path, kl_arena_strndup(&h->a, text, len), len };
	uint32_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	H(h)->line_off = kl_arena_array(&h->a, uint32_t, n + 2);
	H(h)->nlines = n;
	H(h)->line_off[1] = 0;
	for (uint32_t i = 0, l = 1; i < len; i++)
		if (text[i] == '\n')
			H(h)->line_off[++l] = i + 1;
}

static int read_source(struct lisp *h, const char *path)
{
	size_t len;
	char *text = kl_read_file(path, &len);
	if (!text)
		return -1;
	host_set_text(h, path, text, len);
	free(text);
	return 0;
}

/* A call at the top level of a function the file defuns (fork-tracker's (run)), or of a
 * session form: kiln's own files have neither. */
static bool calls_own(struct kl_node **forms, uint32_t n, const struct kl_node *f)
{
	const char *hd = kl_head(f);
	if (!hd)
		return false;
	if (!strncmp(hd, "bpf:", 4))
		return true;
	for (uint32_t i = 0; i < n; i++)
		if (kl_head(forms[i]) && !strcmp(kl_head(forms[i]), "defun") && forms[i]->nitems > 1 &&
		    kl_is_sym(forms[i]->items[1], hd))
			return true;
	return false;
}

bool host_is_host_file(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot || (strcmp(dot, ".lisp") && strcmp(dot, ".lsp") && strcmp(dot, ".kl")))
		return false;
	struct host h = { 0 };
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	bool host = false;
	if (!read_source(&h.L, path) && !kl_read(&h.L.a, &d, &h.L.src, &forms, &n))
		for (uint32_t i = 0; i < n && !host; i++)
			host = is_marker(forms[i]) || calls_own(forms, n, forms[i]);
	kl_arena_free(&h.L.a);
	return host;
}

/* `#(a b c)` reads as the symbol # before a list: made (%vector a b c) here, a literal
 * vector (its elements are not evaluated). Also inside quoted data: lv_from_node does it. */
void host_prepare(struct lisp *h, struct kl_node *n)
{
	if (n->kind != KL_N_LIST)
		return;
	uint32_t out = 0;
	for (uint32_t i = 0; i < n->nitems; i++) {
		struct kl_node *x = n->items[i];
		if (kl_is_sym(x, "#") && i + 1 < n->nitems && n->items[i + 1]->kind == KL_N_LIST &&
		    !(i == 1 && kl_is_sym(n->items[0], "quote"))) {
			struct kl_node *l = n->items[++i], *v = kl_arena_new(&h->a, struct kl_node);
			*v = *l;
			v->span = x->span;
			v->items = kl_arena_array(&h->a, struct kl_node *, l->nitems + 1);
			v->items[0] = kl_arena_new(&h->a, struct kl_node);
			*v->items[0] = (struct kl_node){ .kind = KL_N_SYM, .span = x->span, .str = "%vector" };
			if (l->nitems)       /* () has no items array */
				memcpy(v->items + 1, l->items, sizeof(*l->items) * l->nitems);
			v->nitems = l->nitems + 1;
			x = v;
		} else {
			host_prepare(h, x);
		}
		n->items[out++] = x;
	}
	n->nitems = out;
}

void host_report(struct lisp *h, FILE *out)
{
	struct kl_diag d = { .nerrors = 1, .span = h->exc_span };
	if (h->exc == LV_EXC_RETURN)
		snprintf(d.msg, sizeof(d.msg), "return from %s outside of it", h->ret_block);
	else if (!strcmp(h->cond->u.cond.type, "compiled") ||   /* the compiler's own diagnostic */
		 (!strcmp(h->cond->u.cond.type, "bpf-verifier-error") && !*h->cond->u.cond.msg))   /* the load's */
		return (void)(*h->cond->u.cond.msg ? fprintf(out, "%s\n", h->cond->u.cond.msg) : 0);
	else
		snprintf(d.msg, sizeof(d.msg), "%s", h->cond->u.cond.msg);
	fflush(stdout);
	kl_diag_print(&d, out);
}

int host_eval_forms(struct lisp *h, struct kl_node *const *forms, uint32_t n, FILE *err)
{
	for (uint32_t i = 0; i < n; i++) {
		if (lisp_eval_top(h, forms[i]))
			continue;
		host_report(h, err);
		return h->exc == LV_EXC_CONDITION && !strcmp(h->cond->u.cond.type, "interactive-interrupt") ? 130 : 1;
	}
	return 0;
}

/* The globals a session file reads: the streams, the command line (sb-ext:*posix-argv*:
 * "kiln" and the arguments after the file) and the loader's cgroup attach types. */
static void define_globals(struct lisp *h)
{
	struct lv *argl = LNIL;
	for (int i = H(h)->argc - 1; i >= 0; i--)
		argl = lv_cons(h, lv_cstr(h, H(h)->argv[i]), argl);
	lv_global(h, "*posix-argv*", true)->val = lv_cons(h, lv_cstr(h, "kiln"), argl);
	static const struct { const char *name; int v; } consts[] = {
		{ "+bpf-cgroup-inet-ingress+", BPF_CGROUP_INET_INGRESS },
		{ "+bpf-cgroup-inet-egress+", BPF_CGROUP_INET_EGRESS },
		{ "+bpf-cgroup-inet-sock-create+", BPF_CGROUP_INET_SOCK_CREATE },
		{ "+bpf-cgroup-inet4-bind+", BPF_CGROUP_INET4_BIND },
		{ "+bpf-cgroup-inet6-bind+", BPF_CGROUP_INET6_BIND },
		{ "+bpf-cgroup-inet4-connect+", BPF_CGROUP_INET4_CONNECT },
		{ "+bpf-cgroup-inet6-connect+", BPF_CGROUP_INET6_CONNECT },
		{ "+bpf-cgroup-inet-sock-release+", BPF_CGROUP_INET_SOCK_RELEASE },
		{ "+bpf-cgroup-inet4-post-bind+", BPF_CGROUP_INET4_POST_BIND },
		{ "+bpf-cgroup-inet6-post-bind+", BPF_CGROUP_INET6_POST_BIND },
		{ "+bpf-cgroup-udp4-sendmsg+", BPF_CGROUP_UDP4_SENDMSG },
		{ "+bpf-cgroup-udp6-sendmsg+", BPF_CGROUP_UDP6_SENDMSG },
		{ "+bpf-prog-type-cgroup-skb+", BPF_PROG_TYPE_CGROUP_SKB },
		{ "+bpf-prog-type-cgroup-sock+", BPF_PROG_TYPE_CGROUP_SOCK },
		{ "+bpf-prog-type-cgroup-sock-addr+", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
		{ "+bpf-prog-type-lsm+", BPF_PROG_TYPE_LSM },
	};
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
		struct lv_global *g = lv_global(h, consts[i].name, true);
		g->val = lv_int(h, consts[i].v);
		g->constant = true;
	}
	lv_global(h, "*bpf-session*", true)->val = LNIL;
}

void host_setup(struct lisp *h, int argc, char **argv)
{
	lisp_init(h, &host_layer);
	h->strict_ints = true;          /* Common Lisp's integers: no silent wrap (num.c) */
	H(h)->argc = argc;
	H(h)->argv = argv;
	define_globals(h);
}

/* Ctrl-C as the condition (see on_sigint), or, off, ignored (the REPL's prompt); the count
 * starts again. */
void host_catch_sigint(bool on)
{
	sigint_count = sigint_delivered = 0;
	struct sigaction sa = { .sa_handler = on ? on_sigint : SIG_IGN };   /* no SA_RESTART: sleep returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

int host_run(const char *path, int argc, char **argv, void **elf, size_t *size)
{
	*elf = NULL;
	*size = 0;
	struct host *hs = calloc(1, sizeof(*hs));
	if (!hs || read_source(&hs->L, path)) {
		fprintf(stderr, "kiln run: %s: %s\n", path, kl_read_strerror(errno));
		free(hs);
		return 1;
	}
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	struct lisp *h = &hs->L;
	if (kl_read(&h->a, &d, &h->src, &forms, &n)) {
		kl_diag_print(&d, stderr);
		kl_arena_free(&h->a);
		free(hs);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++)
		host_prepare(h, forms[i]);
	cli_stop_watch("run");
	host_setup(h, argc, argv);
	host_catch_sigint(true);
	int rc = host_eval_forms(h, forms, n, stderr);
	fflush(stdout);
	if (!rc && !H(h)->ran_session && H(h)->segs.len) {
		/* kiln programs around host forms (runqlat's eval-when): run them as kiln run would */
		if (host_compile(h, forms[0], NULL, 0, elf, size)) {
			host_report(h, stderr);
			rc = 1;
		}
	}
	kl_arena_free(&h->a);
	free(hs);
	return rc;
}

