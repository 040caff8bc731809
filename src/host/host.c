/* host.c — the host interpreter's entry points, values, errors and Ctrl-C. */
#include "host.h"
#include "hv.h"
#include "cli/cli.h"
#include <errno.h>
#include <linux/bpf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct hv hv_nil_v = { .k = HV_NIL }, hv_t_v = { .k = HV_T };

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

bool host_interrupt_pending(struct host *h, const struct kl_node *n)
{
	if (sigint_count <= sigint_delivered)
		return false;
	sigint_delivered = sigint_count;
	hv_raise(h, n, "interactive-interrupt", "Interactive interrupt (Ctrl-C)");
	return true;
}

bool host_stop(struct host *h, const struct kl_node *n)
{
	if (h->max_steps && ++h->steps > h->max_steps) {
		hv_raise(h, n, "step-budget", "the step budget is spent");
		return true;
	}
	return host_interrupt_pending(h, n);
}

bool host_stack_ok(struct host *h, const struct kl_node *n, const char *what)
{
	char *here = __builtin_frame_address(0);
	if (!h->stack_top || here > h->stack_top || (size_t)(h->stack_top - here) < h->stack_max)
		return true;
	hv_err(h, n, "stack overflow: %s nested %d deep fill the C stack (%zu KiB)", what, h->depth, h->stack_max >> 10);
	return false;
}

/* 3/4 of the stack's rlimit (at most 256 MiB), for host_stack_ok */
static size_t stack_share(void)
{
	struct rlimit rl;
	size_t cap = (size_t)256 << 20, lim = 8 << 20;
	if (!getrlimit(RLIMIT_STACK, &rl))
		lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > cap ? cap : (size_t)rl.rlim_cur;
	return lim / 4 * 3;
}

void host_sleep(struct host *h, double s, const struct kl_node *n)
{
	fflush(stdout);
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (!host_interrupt_pending(h, n) && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

struct hv *hv_int(struct host *h, int64_t i)
{
	struct hv *v = kl_arena_new(&h->a, struct hv);
	v->k = HV_INT;
	v->u.i = i;
	return v;
}

struct hv *hv_str(struct host *h, const char *s, size_t len)
{
	struct hv *v = kl_arena_new(&h->a, struct hv);
	v->k = HV_STR;
	v->u.str.s = kl_arena_strndup(&h->a, s, len);
	v->u.str.len = len;
	return v;
}

struct hv *hv_cstr(struct host *h, const char *s)
{
	return hv_str(h, s, strlen(s));
}

struct hv *hv_sym(struct host *h, const char *name)
{
	if (!strcmp(name, "nil"))
		return HNIL;
	if (!strcmp(name, "t"))
		return HT;
	struct hv *v = kl_arena_new(&h->a, struct hv);
	v->k = HV_SYM;
	v->u.name = name;
	return v;
}

struct hv *hv_cons(struct host *h, struct hv *car, struct hv *cdr)
{
	struct hv *v = kl_arena_new(&h->a, struct hv);
	v->k = HV_CONS;
	v->u.cons.car = car;
	v->u.cons.cdr = cdr;
	return v;
}

struct hv *hv_vec(struct host *h, size_t n)
{
	h->steps += h->max_steps ? n >> 10 : 0;      /* a budget counts the elements made too */
	struct hv *v = kl_arena_new(&h->a, struct hv);
	v->k = HV_VEC;
	v->u.vec.items = kl_arena_array(&h->a, struct hv *, n ? n : 1);
	v->u.vec.len = n;
	for (size_t i = 0; i < n; i++)
		v->u.vec.items[i] = HNIL;
	return v;
}

struct hv *hv_bool(bool b)
{
	return b ? HT : HNIL;
}

bool hv_true(const struct hv *v)
{
	return v->k != HV_NIL;
}

int64_t hv_list_len(struct host *h, const struct kl_node *n, const struct hv *l, const char *fn)
{
	const struct hv *slow = l;      /* half as far: the two meet in a circle (Floyd) */
	int64_t len = 0;
	while (l->k == HV_CONS) {
		l = l->u.cons.cdr;
		if (!(++len & 1))
			slow = slow->u.cons.cdr;
		if (l == slow) {
			if (fn)
				hv_err(h, n, "%s: the list is circular", fn);
			return -1;
		}
	}
	h->steps += h->max_steps ? (uint64_t)len >> 6 : 0;   /* a budget counts the walk too */
	return len;
}

bool hv_eql(const struct hv *a, const struct hv *b)
{
	if (a == b)
		return true;
	if (a->k != b->k)
		return false;
	switch (a->k) {
	case HV_INT: return a->u.i == b->u.i;
	case HV_SYM:
	case HV_KEY: return !strcmp(a->u.name, b->u.name);
	default: return false;
	}
}

/* equal: the cdrs in a loop, the cars by recursion (depth bounded); every 64 conses compared
 * a step (Ctrl-C, the budget: shared structure can make the walk exponential) */
static int equal_at(struct host *h, const struct kl_node *n, const struct hv *a, const struct hv *b, int depth,
		    uint64_t *work)
{
	for (uint64_t i = 0;; i++) {
		if (a->k == HV_STR && b->k == HV_STR)
			return a->u.str.len == b->u.str.len && !memcmp(a->u.str.s, b->u.str.s, a->u.str.len);
		if (a->k != HV_CONS || b->k != HV_CONS || a == b)
			return hv_eql(a, b);
		if (depth >= HV_MAX_DEPTH || !host_stack_ok(h, n, "equal's lists")) {
			if (depth >= HV_MAX_DEPTH)
				hv_err(h, n, "equal: lists nested more than %d deep", HV_MAX_DEPTH);
			return -1;
		}
		if (i >= h->max_elems) {
			hv_err(h, n, "equal: lists longer than %zu elements (circular?)", h->max_elems);
			return -1;
		}
		if (!(++*work & 63) && host_stop(h, n))
			return -1;
		int r = equal_at(h, n, a->u.cons.car, b->u.cons.car, depth + 1, work);
		if (r <= 0)
			return r;
		a = a->u.cons.cdr;
		b = b->u.cons.cdr;
	}
}

int hv_equal(struct host *h, const struct kl_node *n, const struct hv *a, const struct hv *b)
{
	uint64_t work = 0;
	return equal_at(h, n, a, b, 0, &work);
}

/* Symbols are found by their folded name without a package prefix (cl:incf is incf,
 * sb-sys:interactive-interrupt is interactive-interrupt), except bpf:'s, which name the
 * session's forms and are not the Common Lisp functions of the same name (bpf:map, map). */
const char *hv_symname(struct host *h, const struct kl_node *n)
{
	if (n->kind != KL_N_SYM && n->kind != KL_N_KEY)
		return "";                 /* callers check the kind; a name no symbol has */
	const char *s = n->str, *c = strrchr(s, ':');
	if (!c || c == s)
		return s;
	if (!strncmp(s, "bpf:", 4) && c == s + 3)
		return s;
	(void)h;
	return c + 1;
}

/* A datum as quote gives it; a list keeps its node, so a kiln form passed to eval is
 * compiled from its place in the file. `#(...)` reads as the symbol # before a list. */
struct hv *hv_from_node(struct host *h, const struct kl_node *n)
{
	switch (n->kind) {
	case KL_N_INT: return hv_int(h, n->ival);
	case KL_N_STR: return hv_cstr(h, n->str);
	case KL_N_KEY: {
		struct hv *v = kl_arena_new(&h->a, struct hv);
		v->k = HV_KEY;
		v->u.name = n->str;
		return v;
	}
	case KL_N_SYM: return hv_sym(h, hv_symname(h, n));
	case KL_N_LIST: break;
	}
	if (kl_is_sym(n->nitems ? n->items[0] : NULL, "%vector")) {
		struct hv *v = hv_vec(h, n->nitems - 1);
		for (uint32_t j = 1; j < n->nitems; j++)
			v->u.vec.items[j - 1] = hv_from_node(h, n->items[j]);
		return v;
	}
	struct hv *head = HNIL, **tail = &head;
	for (uint32_t i = 0; i < n->nitems; i++) {
		struct hv *item;
		if (kl_is_sym(n->items[i], "#") && i + 1 < n->nitems && n->items[i + 1]->kind == KL_N_LIST) {
			const struct kl_node *l = n->items[++i];
			item = hv_vec(h, l->nitems);
			for (uint32_t j = 0; j < l->nitems; j++)
				item->u.vec.items[j] = hv_from_node(h, l->items[j]);
		} else {
			item = hv_from_node(h, n->items[i]);
		}
		*tail = hv_cons(h, item, HNIL);
		tail = &(*tail)->u.cons.cdr;
	}
	if (head->k == HV_CONS)
		head->u.cons.src = n;
	return head;
}

struct hv *hv_raise(struct host *h, const struct kl_node *n, const char *type, const char *msg)
{
	struct hv *c = kl_arena_new(&h->a, struct hv);
	c->k = HV_COND;
	c->u.cond.type = type;
	c->u.cond.msg = kl_arena_strdup(&h->a, msg);
	h->exc = EXC_CONDITION;
	h->cond = c;
	h->exc_span = n ? n->span : (struct kl_span){ &h->src, 1, 1 };
	return NULL;
}

struct hv *hv_err(struct host *h, const struct kl_node *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return hv_raise(h, n, "error", msg);
}

static unsigned name_hash(const char *s)
{
	unsigned x = 2166136261u;
	while (*s)
		x = (x ^ (unsigned char)*s++) * 16777619u;
	return x % HV_NGLOBAL;
}

struct hv_global *hv_global(struct host *h, const char *name, bool create)
{
	unsigned k = name_hash(name);
	for (struct hv_global *g = h->globals[k]; g; g = g->next)
		if (!strcmp(g->name, name))
			return g;
	if (!create)
		return NULL;
	struct hv_global *g = kl_arena_new(&h->a, struct hv_global);
	g->name = name;
	g->next = h->globals[k];
	h->globals[k] = g;
	return g;
}

uint32_t host_offset(const struct host *h, struct kl_span s)
{
	if (s.line < 1 || s.line > h->nlines)
		return (uint32_t)h->src.len;
	uint32_t off = h->line_off[s.line] + s.col - 1;
	return off > h->src.len ? (uint32_t)h->src.len : off;
}

/* Forms that make a file a host program: any of these at its top level. A file without them
 * is kiln code and keeps `kiln run`'s ordinary path. */
static const char *const host_markers[] = {
	"with-bpf-session", "eval-when", "require", "load-system", "defparameter", "defvar",
	"use-package", "defpackage", "compile-to-elf", "with-bpf-object", "format", "let", "let*",
	"dolist", "dotimes", "loop", "handler-case", "unwind-protect", "setf", "setq",
	"print", "princ", "sleep",
};

static bool is_marker(const struct kl_node *f)
{
	if (!kl_head(f))
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
void host_set_text(struct host *h, const char *path, const char *text, size_t len)
{
	h->src = (struct kl_source){ path, kl_arena_strndup(&h->a, text, len), len };
	uint32_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	h->line_off = kl_arena_array(&h->a, uint32_t, n + 2);
	h->nlines = n;
	h->line_off[1] = 0;
	for (uint32_t i = 0, l = 1; i < len; i++)
		if (text[i] == '\n')
			h->line_off[++l] = i + 1;
}

static int read_source(struct host *h, const char *path)
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
	if (!read_source(&h, path) && !kl_read(&h.a, &d, &h.src, &forms, &n))
		for (uint32_t i = 0; i < n && !host; i++)
			host = is_marker(forms[i]) || calls_own(forms, n, forms[i]);
	kl_arena_free(&h.a);
	return host;
}

/* `#(a b c)` reads as the symbol # before a list: made (%vector a b c) here, a literal
 * vector (its elements are not evaluated). Also inside quoted data: hv_from_node does it. */
void host_prepare(struct host *h, struct kl_node *n)
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

void host_report(struct host *h, FILE *out)
{
	struct kl_diag d = { .nerrors = 1, .span = h->exc_span };
	if (h->exc == EXC_RETURN)
		snprintf(d.msg, sizeof(d.msg), "return from %s outside of it", h->ret_block);
	else if (!strcmp(h->cond->u.cond.type, "compiled"))   /* the compiler's own diagnostic */
		return (void)(*h->cond->u.cond.msg ? fprintf(out, "%s\n", h->cond->u.cond.msg) : 0);
	else
		snprintf(d.msg, sizeof(d.msg), "%s", h->cond->u.cond.msg);
	fflush(stdout);
	kl_diag_print(&d, out);
}

/* out of memory: a condition made without allocating */
static struct hv hv_oom = { .k = HV_COND, .u.cond = { "error", "out of memory" } };

struct hv *host_eval_top(struct host *h, const struct kl_node *form)
{
	jmp_buf oom, *outer = h->a.oom;
	struct hv *v;
	char *top = h->stack_top;
	if (!top) {
		h->stack_top = __builtin_frame_address(0);
		h->stack_max = stack_share();
	}
	h->a.oom = &oom;
	if (!setjmp(oom)) {
		v = hv_eval(h, form, NULL);
	} else {
		h->depth = 0;
		h->exc = EXC_CONDITION;
		h->cond = &hv_oom;
		h->exc_span = form->span;
		v = NULL;
	}
	h->a.oom = outer;
	h->stack_top = top;
	return v;
}

int host_eval_forms(struct host *h, struct kl_node *const *forms, uint32_t n, FILE *err)
{
	for (uint32_t i = 0; i < n; i++) {
		if (host_eval_top(h, forms[i]))
			continue;
		host_report(h, err);
		return h->exc == EXC_CONDITION && !strcmp(h->cond->u.cond.type, "interactive-interrupt") ? 130 : 1;
	}
	return 0;
}

/* The globals a session file reads: the streams, the command line (sb-ext:*posix-argv*:
 * "kiln" and the arguments after the file) and the loader's cgroup attach types. */
static void define_globals(struct host *h)
{
	host_std_streams(h);
	struct hv *argl = HNIL;
	for (int i = h->argc - 1; i >= 0; i--)
		argl = hv_cons(h, hv_cstr(h, h->argv[i]), argl);
	hv_global(h, "*posix-argv*", true)->val = hv_cons(h, hv_cstr(h, "kiln"), argl);
	static const struct { const char *name; int v; } consts[] = {
		{ "+bpf-cgroup-inet-ingress+", BPF_CGROUP_INET_INGRESS },
		{ "+bpf-cgroup-inet-egress+", BPF_CGROUP_INET_EGRESS },
		{ "+bpf-cgroup-inet-sock-create+", BPF_CGROUP_INET_SOCK_CREATE },
		{ "+bpf-cgroup-inet4-bind+", BPF_CGROUP_INET4_BIND },
		{ "+bpf-cgroup-inet6-bind+", BPF_CGROUP_INET6_BIND },
		{ "+bpf-cgroup-inet4-connect+", BPF_CGROUP_INET4_CONNECT },
		{ "+bpf-cgroup-inet6-connect+", BPF_CGROUP_INET6_CONNECT },
	};
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
		struct hv_global *g = hv_global(h, consts[i].name, true);
		g->val = hv_int(h, consts[i].v);
		g->constant = true;
	}
	hv_global(h, "*bpf-session*", true)->val = HNIL;
}

void host_setup(struct host *h, int argc, char **argv)
{
	h->argc = argc;
	h->argv = argv;
	h->out_bol = h->err_bol = true;
	h->max_elems = HV_MAX_ELEMS;
	h->max_str = HV_MAX_STR;
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
	struct host *h = calloc(1, sizeof(*h));
	if (!h || read_source(h, path)) {
		fprintf(stderr, "kiln run: %s: %s\n", path, kl_read_strerror(errno));
		free(h);
		return 1;
	}
	struct kl_diag d = { 0 };
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(&h->a, &d, &h->src, &forms, &n)) {
		kl_diag_print(&d, stderr);
		kl_arena_free(&h->a);
		free(h);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++)
		host_prepare(h, forms[i]);
	cli_stop_watch("run");
	host_setup(h, argc, argv);
	host_catch_sigint(true);
	int rc = host_eval_forms(h, forms, n, stderr);
	fflush(stdout);
	if (!rc && !h->ran_session && h->segs.len) {
		/* kiln programs around host forms (runqlat's eval-when): run them as kiln run would */
		if (host_compile(h, forms[0], NULL, 0, elf, size)) {
			host_report(h, stderr);
			rc = 1;
		}
	}
	kl_arena_free(&h->a);
	free(h);
	return rc;
}
