/* layer.c — what the host adds to the Lisp core (src/lisp/): the session forms
 * (with-bpf-session, with-bpf-object, bpf:attach, bpf:map-ref), the REPL's own forms, kiln's
 * top-level forms (collected for the next session's compilation), defconstant's kiln side,
 * sleep and probe-file, the session and map functions (session.c), and the decoders and
 * accessors of a defstruct. What touches the system is refused when no_system is set. */
#include "hv.h"
#include "events.h"
#include "loader.h"
#include <string.h>
#include <sys/stat.h>

#define B(name) static struct lv *name(struct lisp *h, const struct kl_node *c, struct lv **a, int n)

/* kiln's top-level forms: compiled with the next session (or by kiln run after the file) */
static struct lv *sf_kiln(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	host_collect(h, n);
	if (kl_is_sym(n->items[0], "defstruct") || !strcmp(n->items[0]->str, "whistler:defstruct"))
		host_define_struct(h, n);
	if (kl_is_sym(n->items[0], "defevent"))
		host_define_event(h, n);
	if (H(h)->repl && host_repl_kiln_form(h, n))   /* compiled and loaded as entered */
		return NULL;
	return n->nitems > 1 && n->items[1]->kind == KL_N_SYM ? lv_sym(h, lv_symname(h, n->items[1])) : LNIL;
}

/* kiln's own top-level forms: the compiler reads them (kiln's defstruct also gives the host a
 * decoder). defconstant is both: see sf_defconstant. */
static const char *const kiln_forms[] = {
	"defmap", "defprog", "defstruct", "defunion", "deftracepoint", "defheader", "defevent",
	"import-kernel-struct", "defmacro", "kernel-btf", "defksym", "defstruct-ops",
};

bool host_is_kiln_form(const char *head)
{
	for (size_t i = 0; i < sizeof(kiln_forms) / sizeof(kiln_forms[0]); i++)
		if (!strcmp(head, kiln_forms[i]))
			return true;
	return false;
}

/* What touches the system (BPF objects, files, the clock): refused when h->no_system */
static const char *const system_names[] = {
	"with-bpf-session", "with-bpf-object", "bpf:attach", "compile-to-elf", "probe-file", "sleep",
	"open-bpf-object", "load-bpf-object",
};

bool host_refused(struct lisp *h, const char *name)
{
	for (size_t i = 0; H(h)->no_system && i < sizeof(system_names) / sizeof(system_names[0]); i++)
		if (!strcmp(name, system_names[i]))
			return true;
	return false;
}

static struct lv *sf_refused(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	(void)env;
	return lv_err(h, n, "%s is refused here (no BPF, files or sleep)", kl_name(n->items[0]));
}

/* defconstant: the kiln programs use the constant too (and the REPL compiles it as entered) */
static struct lv *sf_defconstant(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	if (n->nitems >= 2 && n->items[1]->kind == KL_N_SYM) {
		host_collect(h, n);
		if (H(h)->repl && host_repl_kiln_form(h, n))
			return NULL;
	}
	struct lv *v = lv_defvar(h, n, env);
	if (!v && n->nitems > 2 && n->items[1]->kind == KL_N_SYM) {
		h->exc = LV_EXC_NONE;     /* a kiln-only expression: the programs still have it */
		return lv_sym(h, lv_symname(h, n->items[1]));
	}
	return v;
}

bool host_is_kiln_global(const struct kl_node *n)
{
	const char *h = kl_head(n);
	if (!h || (strcmp(h, "defvar") && strcmp(h, "defparameter")))
		return false;
	for (uint32_t i = 2; i < n->nitems; i++)
		if (n->items[i]->kind == KL_N_KEY && !strcmp(n->items[i]->str, "type"))
			return true;
	return false;
}

/* defvar, defparameter: a host variable, or with :type a kiln global variable (.data, .rodata) */
static struct lv *sf_defglobal(struct lisp *h, const struct kl_node *n, struct lv_frame *env)
{
	return host_is_kiln_global(n) ? sf_kiln(h, n, env) : lv_defvar(h, n, env);
}

static const struct { const char *name; lv_special_fn fn; } specials[] = {
	{ "defvar", sf_defglobal }, { "defparameter", sf_defglobal },
	{ "with-bpf-session", host_with_session }, { "with-bpf-object", host_with_object },
	{ "bpf:attach", host_attach }, { "bpf:map-ref", host_map_ref }, { "defconstant", sf_defconstant },
	{ "with-decoding-ring-consumer", host_with_decoding_ring_consumer },
};

static lv_special_fn host_special(struct lisp *h, const char *name)
{
	if (host_refused(h, name))
		return sf_refused;
	lv_special_fn r = H(h)->repl ? host_repl_special(h, name) : NULL;
	if (r)
		return r;
	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		if (!strcmp(name, specials[i].name))
			return specials[i].fn;
	return host_is_kiln_form(name) ? sf_kiln : NULL;
}

B(b_sleep)
{
	(void)n;
	if ((a[0]->k != LV_INT && a[0]->k != LV_FLOAT) || (a[0]->k == LV_INT ? a[0]->u.i < 0 : a[0]->u.fl.d < 0))
		return lv_err(h, c, "sleep: %s is not a non-negative number", lv_brief(h, a[0]));
	double s = a[0]->k == LV_INT ? (double)a[0]->u.i : a[0]->u.fl.d;
	host_sleep(h, s < 1e9 ? s : 1e9, c);        /* at most 31 years: time_t holds it */
	return h->exc ? NULL : LNIL;
}
B(b_probe_file)
{
	(void)n;
	if (a[0]->k != LV_STR)
		return lv_err(h, c, "probe-file needs a path string");
	struct stat st;
	return stat(a[0]->u.str.s, &st) ? LNIL : a[0];
}
B(b_refused)
{
	(void)a, (void)n;
	return lv_err(h, c, "%s is refused here (no BPF, files or sleep)", h->self->u.bi.name);
}

/* defstruct S gives the host decode-S (bytes to a record) and S-record-FIELD */
B(b_decode) { (void)n; return host_decode_struct(h, c, h->self->u.bi.data, a[0]); }
B(b_field)
{
	(void)n;
	const struct host_field *f = h->self->u.bi.data;
	struct lv *r = a[0], *v = host_record_field(r, f);
	return v ? v : lv_err(h, c, "%s: %s is not a record of its struct", h->self->u.bi.name, lv_brief(h, r));
}

static lv_builtin_fn struct_fn(struct lisp *h, const char *name, const void **data, int *min, int *max)
{
	*min = *max = 1;
	const struct host_struct *st;
	if (!strncmp(name, "decode-", 7) && (st = host_find_struct(h, name + 7))) {
		*data = st;
		return b_decode;
	}
	for (st = H(h)->structs; st; st = st->next) {
		size_t l = strlen(st->name);
		if (strncmp(name, st->name, l) || strncmp(name + l, "-record-", 8))
			continue;
		for (uint32_t i = 0; i < st->nfields; i++)
			if (!strcmp(name + l + 8, st->fields[i].name)) {
				*data = &st->fields[i];
				return b_field;
			}
	}
	return host_struct_builtin(h, name, data, min, max);   /* make-S-record, encode-S */
}

static const struct { const char *name; lv_builtin_fn fn; int min, max; } builtins[] = {
	{ "sleep", b_sleep, 1, 1 }, { "probe-file", b_probe_file, 1, 1 }, { "load", host_load, 1, 1 },
};

/* the host's functions: sleep, probe-file, the session's (refused without the system), then
 * a defstruct's decoder or accessor */
static lv_builtin_fn host_builtin(struct lisp *h, const char *name, int *min, int *max, const void **data)
{
	lv_builtin_fn fn = NULL;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]) && !fn; i++)
		if (!strcmp(name, builtins[i].name)) {
			*min = builtins[i].min;
			*max = builtins[i].max;
			fn = builtins[i].fn;
		}
	if (!fn)
		fn = host_session_builtin(name, min, max);
	if (!fn)
		fn = host_event_builtin(name, min, max);
	if (fn && host_refused(h, name))
		return b_refused;
	return fn ? fn : struct_fn(h, name, data, min, max);
}

void host_layer_names(lv_name_fn fn, void *ctx)
{
	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		fn(ctx, specials[i].name);
	for (size_t i = 0; i < sizeof(kiln_forms) / sizeof(kiln_forms[0]); i++)
		fn(ctx, kiln_forms[i]);
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		fn(ctx, builtins[i].name);
	host_session_names(fn, ctx);
	host_loader_names(fn, ctx);
}

/* eval of a kiln form built at run time: collected, printed, for the next session */
static struct lv *host_eval_built(struct lisp *h, struct lv *form, const struct kl_node *at)
{
	struct lv *head = form->u.cons.car;
	if (head->k == LV_SYM && host_is_kiln_form(head->u.name)) {
		host_collect_value(h, form);
		return LNIL;
	}
	return lv_err(h, at, "eval of a form built at run time is not supported by kiln's host side");
}

const struct lisp_layer host_layer = {
	.special = host_special,
	.builtin = host_builtin,
	.interrupt = host_interrupt_pending,
	.eval_built = host_eval_built,
	.undefined_note = " (kiln's host side has no such form)",
};
