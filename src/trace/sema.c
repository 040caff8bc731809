/* sema.c — kiln trace's type pass (see sema.h): attach points to targets, then each probe's
 * statements in order, so that a $variable's or a map's type is fixed by its first
 * assignment, as bpftrace fixes it. */
#define _GNU_SOURCE
#include "trace/sema_priv.h"
#include "trace/funcs.h"
#include "compiler/mounts.h"
#include "trace/ktypes.h"
#include "trace/cdefine.h"
#include "trace/cstruct.h"
#include "trace/limits.h"
#include "trace/probes.h"
#include "trace/usdt.h"
#include <ctype.h>
#include <errno.h>
#include <kiln/stack.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char kt_refused[] = "not supported yet by kiln trace";
static const char *const refused = kt_refused;

static int err_at(struct sm *m, struct kl_span at, const char *fmt, const char *what)
{
	return kl_error(m->d, at, fmt, what);
}

static struct kt_type t_int(uint32_t size, bool sign)
{
	return (struct kt_type){ .kind = KTT_INT, .size = size, .is_signed = sign };
}

static struct kt_type t_str(uint32_t size)
{
	return (struct kt_type){ .kind = KTT_STR, .size = size };
}

uint32_t kt_type_size(const struct kt_type *t)
{
	if (t->kind == KTT_TUPLE) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < t->nelems; i++)
			n += (kt_type_size(&t->elems[i]) + 7) & ~7u;   /* kt_elem_off */
		return n;
	}
	if (t->kind == KTT_INT || t->kind == KTT_PROBE || t->kind == KTT_PTR || kt_is_symbolic(t))
		return 8;   /* integers travel as 8 bytes in records and keys */
	return t->size;
}

/* ---- tracepoint formats, cached ---- */

struct kt_tpcache {
	const char *event;
	struct kl_tp_field *f;
	uint32_t n;
	struct kt_tpcache *next;
};

int kt_tp_field(const struct kt_sema *s, struct kl_arena *a, const char *event, const char *name,
		struct kl_tp_field *out, char *msg, size_t msgsz)
{
	struct kt_tpcache *c = *s->tp_cache;
	while (c && strcmp(c->event, event))
		c = c->next;
	if (!c) {
		c = kl_arena_new(a, struct kt_tpcache);
		c->event = kl_arena_strdup(a, event);
		if (kl_tracepoint_format(a, event, &c->f, &c->n, msg, msgsz))
			return -1;
		c->next = *s->tp_cache;
		*s->tp_cache = c;
	}
	const struct kl_tp_field *f = kl_tracepoint_field(c->f, c->n, event, name, 0, msg, msgsz);
	if (!f)
		return -1;
	*out = *f;
	return 0;
}

/* ---- expressions ---- */

static int expr(struct sm *m, struct kt_node *n);

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in the maps' hash table: its index + 1, or 0 where it would go. */
static uint32_t *map_slot(struct sm *m, const char *name)
{
	uint32_t mask = m->map_tab_size - 1;
	for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask)
		if (!m->map_tab[i] || !strcmp(m->maps.items[m->map_tab[i] - 1].name, name))
			return &m->map_tab[i];
}

static struct kt_map *map_of(struct sm *m, struct kt_node *n)
{
	if (2 * (m->maps.len + 1) > m->map_tab_size) {   /* rehash at half full */
		uint32_t size = m->map_tab_size ? m->map_tab_size * 2 : 64;
		m->map_tab = kl_arena_array(m->a, uint32_t, size);
		m->map_tab_size = size;
		for (size_t i = 0; i < m->maps.len; i++)
			*map_slot(m, m->maps.items[i].name) = (uint32_t)i + 1;
	}
	uint32_t *slot = map_slot(m, n->name);
	if (!*slot) {
		struct kt_map mp = { .name = n->name, .span = n->span };
		kl_vec_push(m->a, &m->maps, mp);
		*slot = (uint32_t)m->maps.len;
	}
	n->map_id = (int)*slot - 1;
	return &m->maps.items[n->map_id];
}

/* A key's type (one expression, or several as a tuple), merged into the map's: strings
 * grow to the longest used, anything else must agree. */
static int map_key(struct sm *m, struct kt_node *n, struct kt_map *mp)
{
	struct kt_type k = { .kind = KTT_NONE };
	if (n->a) {
		if (expr(m, n->a))
			return -1;
		k = n->a->type;
		bool nested = k.kind == KTT_TUPLE && !(n->a->kind == KT_TUPLE && n->a->op == 1);   /* not @[a, b] */
		for (uint32_t i = 0; k.kind == KTT_TUPLE && i < k.nelems; i++)
			nested = nested || k.elems[i].kind == KTT_TUPLE;
		if (nested)   /* bpftrace's words */
			return err_at(m, n->a->span, "%s", "tuple cannot be used as a map key. Try a multi-key associative array instead (eg `@map[$1, $2] = ...)`.");
	}
	mp = &m->maps.items[n->map_id];   /* expr may have grown the vector */
	if (mp->key.kind == KTT_NONE && mp->kind == KM_NONE) {
		if (k.kind == KTT_TUPLE) {   /* own copy: it grows */
			struct kt_type *e = kl_arena_array(m->a, struct kt_type, k.nelems);
			memcpy(e, k.elems, sizeof(*e) * k.nelems);
			k.elems = e;
		}
		mp->key = k;
		return 0;
	}
	struct kt_type *mk = &mp->key;
	bool same = mk->kind == k.kind && (k.kind != KTT_TUPLE || mk->nelems == k.nelems);
	for (uint32_t i = 0; same && k.kind == KTT_TUPLE && i < k.nelems; i++)
		same = mk->elems[i].kind == k.elems[i].kind;
	if (!same)
		return kl_error(m->d, n->span, "argument mismatch for @%s: the key's type differs from its first use", n->name);
	if (kt_is_bytes(&k) && k.size > mk->size)
		mk->size = k.size;
	for (uint32_t i = 0; k.kind == KTT_TUPLE && i < k.nelems; i++)
		if (kt_is_bytes(&k.elems[i]) && k.elems[i].size > mk->elems[i].size)
			mk->elems[i].size = k.elems[i].size;
	return 0;
}

struct builtin {
	const char *name;
	struct kt_type type;
	bool supported;
};
static const struct builtin builtins[] = {
	{ "pid", { .kind = KTT_INT, .size = 8 }, true }, { "tid", { .kind = KTT_INT, .size = 8 }, true },
	{ "uid", { .kind = KTT_INT, .size = 8 }, true }, { "gid", { .kind = KTT_INT, .size = 8 }, true },
	{ "nsecs", { .kind = KTT_INT, .size = 8 }, true }, { "elapsed", { .kind = KTT_INT, .size = 8 }, true },
	{ "cpu", { .kind = KTT_INT, .size = 8 }, true }, { "comm", { .kind = KTT_STR, .size = 16 }, true },
	{ "probe", { .kind = KTT_PROBE, .size = 8 }, true }, { "args", { .kind = KTT_NONE }, true },
	{ "retval", { .kind = KTT_INT, .size = 8 }, true },
	{ "kstack", { .kind = KTT_KSTACK, .size = KILN_STACK_MAX_DEPTH }, true },
	{ "ustack", { .kind = KTT_USTACK, .size = KILN_STACK_MAX_DEPTH }, true }, 
	{ "curtask", { .kind = KTT_INT, .size = 8, .tname = "task_struct" }, true }, { "rand", { .kind = KTT_INT, .size = 8 }, true }, { "cgroup", { .kind = KTT_INT, .size = 8 }, true },
	{ "func", { .kind = KTT_STR }, true }, { "username", { .kind = KTT_USERNAME, .size = 8 }, true }, { "cpid", { .kind = KTT_INT, .size = 8 }, true },
	{ "ctx", { .kind = KTT_INT, .size = 8 }, true }, { "numaid", { .kind = KTT_INT, .size = 8 }, true },
};

/* arg0..arg5 of a u/kprobe (x86-64's argument registers in pt_regs); arg0..arg9 of a raw
 * tracepoint (its u64 arguments, as many as its BTF prototype has). */
static int raw_arg(struct sm *m, struct kt_node *n)
{
	uint32_t i = (uint32_t)(n->name[3] - '0');
	if (m->is_usdt) {
		for (uint32_t t = 0; t < m->s->ntargets; t++) {
			const struct kt_target *tg = &m->s->targets[t];
			struct kt_usdt_arg ua;
			char msg[512];
			if (tg->probe_index == m->first->probe_index && kt_usdt_arg(tg->usdt_args, i, &ua, msg, sizeof(msg)))
				return kl_error(m->d, n->span, "%s of %s: %s", n->name, tg->probe, msg);
		}
		n->kind = KT_BUILTIN;
		n->type = t_int(8, true);
		return 0;
	}
	if (m->is_raw) {
		for (uint32_t t = 0; t < m->s->ntargets; t++) {
			const struct kt_target *tg = &m->s->targets[t];
			if (tg->probe_index == m->first->probe_index && tg->nargs && i >= tg->nargs)
				return kl_error(m->d, n->span, "%s: raw tracepoint %s has %u arguments (arg0 to arg%u)", n->name,
						tg->event, tg->nargs, tg->nargs - 1);
		}
	} else if (!m->has_args || i > 5) {
		return err_at(m, n->span, m->has_args ? "%s: a uprobe or kprobe reads arg0 to arg5" :
				"%s is only in uprobe, kprobe, usdt and rawtracepoint probes (kfunc: args->NAME)", n->name);
	}
	n->kind = KT_BUILTIN;
	n->type = t_int(8, false);
	n->type.user = m->first->kind == KP_UPROBE;   /* what they point at: *(T *)arg0 */
	return 0;
}

/* A kfunc's args->NAME (ret NULL) or a kretfunc's retval (name NULL), typed from the BTF
 * prototype of every function of the probe (they must agree); its index in n->num. */
static int kfunc_arg(struct sm *m, struct kt_node *n, const char *name)
{
	bool first = true;
	for (uint32_t t = 0; t < m->s->ntargets; t++) {
		const struct kt_target *tg = &m->s->targets[t];
		if (tg->probe_index != m->first->probe_index)
			continue;
		struct kt_karg *args, ret, *g = NULL;
		uint32_t na;
		char msg[1024];
		if (kt_kfunc_args(m->a, tg->event, &args, &na, &ret, msg, sizeof(msg)))
			return err_at(m, n->span, "%s", msg);
		for (uint32_t i = 0; name && i < na && !g; i++)
			if (args[i].name && !strcmp(args[i].name, name)) {
				g = &args[i];
				if (!first && n->num != i)   /* the node, shared by every target, holds one index */
					return kl_error(m->d, n->span, "args->%s is not the same argument in every function of the probe (%s: the %uth)",
							name, tg->event, i + 1);
				n->num = i;
			}
		if (!name && ret.type.kind != KTT_NONE)
			g = &ret;
		if (!g && name)
			return kl_error(m->d, n->span, "function %s has no argument '%s'", tg->event, name);
		if (!g)
			return kl_error(m->d, n->span, "function %s returns void: no retval", tg->event);
		if (!g->ok)
			return kl_error(m->d, n->span, "%s of %s is a struct or array passed by value: not supported yet by kiln trace",
					name ? name : "retval", tg->event);
		if (first)
			n->type = g->type;
		else if (n->type.size != g->type.size || n->type.is_signed != g->type.is_signed)
			return kl_error(m->d, n->span, "%s has different types in the probe's functions", name ? name : "retval");
		first = false;
	}
	return 0;
}

static int ident(struct sm *m, struct kt_node *n)
{
	int v026 = kt_fn_ident(m, n);   /* ppid, ncpus (fn_v026.c) */
	if (v026 <= 0)
		return v026;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, n->name)) {
			if (!builtins[i].supported)
				return err_at(m, n->span, "the builtin %s is not supported yet by kiln trace", n->name);
			if (!strcmp(n->name, "args"))
				return err_at(m, n->span, "%s", "args is only read as args->FIELD");
			if (!strcmp(n->name, "func") && !m->has_func)
				return err_at(m, n->span, "%s", "func is only in uprobe, uretprobe, kprobe and kretprobe probes");
			if (!strcmp(n->name, "func")) {   /* a string: each target's program writes its own name */
				n->kind = KT_BUILTIN;
				n->type = t_str(1);
				for (uint32_t i = 0; i < m->s->ntargets; i++)
					if (m->s->targets[i].probe_index == m->first->probe_index &&
					    strlen(m->s->targets[i].event) + 1 > n->type.size)
						n->type.size = (uint32_t)strlen(m->s->targets[i].event) + 1;
				return 0;
			}
			if (!strcmp(n->name, "retval") && !m->has_retval)
				return err_at(m, n->span, "%s", "retval is only in uretprobe, kretprobe and kretfunc probes");
			if (!strcmp(n->name, "retval") && m->is_kfunc) {
				n->kind = KT_BUILTIN;
				return kfunc_arg(m, n, NULL);
			}
			if (!strcmp(n->name, "cpid") && !m->s->has_child)
				return err_at(m, n->span, "%s", "cpid is the pid of the command -c runs: use it with -c");
			n->kind = KT_BUILTIN;
			n->type = builtins[i].type;
			n->type.user = !strcmp(n->name, "retval") && m->first->kind == KP_URETPROBE;
			kt_dialect_builtin(m, n);   /* pid's type (fn_v026.c) */
			if (kt_is_stack(&n->type))
				m->s->has_stacks = true;
			return 0;
		}
	if (!strncmp(n->name, "arg", 3) && isdigit((unsigned char)n->name[3]) && !n->name[4])
		return raw_arg(m, n);
	if (!strncmp(n->name, "sarg", 4) && n->name[4] >= '0' && n->name[4] <= '9' && !n->name[5]) {
		if (!m->has_args)
			return err_at(m, n->span, "The %s builtin can only be used with 'kprobes' and 'uprobes' probes", n->name);
		n->kind = KT_BUILTIN;   /* the stack above the return address (x86-64) */
		n->type = t_int(8, false);
		return 0;
	}
	if ((n->name[0] == 'a' || n->name[0] == 's') && !strncmp(n->name + (n->name[0] == 's'), "arg", 3))
		return err_at(m, n->span, "the builtin %s is not supported yet by kiln trace", n->name);
	int64_t v;
	/* a #define of the script or of a header it includes (AF_INET), then an enumerator of
	 * the kernel's (TCP_FIN_WAIT1) */
	if (kt_cdef_value(m->cdefs, n->name, &v) == 0 || kt_kenum(n->name, &v) == 0 || kt_task_state(n->name, &v) == 0) {
		n->kind = KT_INT;
		n->num = v;
		n->type = t_int(8, true);
		return 0;
	}
	return err_at(m, n->span, "unknown identifier '%s'", n->name);
}

/* n->name of the kernel struct n->a points at (->) or is (.), typed from BTF. */
static int struct_field(struct sm *m, struct kt_node *n)
{
	char msg[1024];
	if (kt_struct_field(m->cdefs, n->a->type.tname, n->name, &n->type, msg, sizeof(msg)))
		return err_at(m, n->span, "%s", msg);
	n->type.user = n->a->type.user;   /* gen reads it from there, at its CO-RE offset */
	return 0;
}

static int arrow(struct sm *m, struct kt_node *n)
{
	if (!n->name)
		return err_at(m, n->span, "%s", "-> needs a field name");
	if ((n->a->kind != KT_IDENT && n->a->kind != KT_BUILTIN) || strcmp(n->a->name, "args")) {   /* a kernel struct through BTF */
		if (expr(m, n->a))
			return -1;
		if (n->a->type.kind != KTT_INT || !n->a->type.tname)
			return err_at(m, n->span, "%s", "-> needs a pointer to a kernel struct (curtask, a field of one, a cast to (struct NAME *))");
		return struct_field(m, n);
	}
	if (m->is_kfunc) {
		n->a->kind = KT_BUILTIN;
		return kfunc_arg(m, n, n->name);
	}
	if (!m->is_tracepoint)
		return err_at(m, n->span, "%s", "args->FIELD is only in tracepoint, kfunc and kretfunc probes");
	n->a->kind = KT_BUILTIN;
	struct kt_type ty = { 0 };
	for (uint32_t i = 0; i < m->s->ntargets; i++) {
		const struct kt_target *t = &m->s->targets[i];
		if (t->probe_index != m->first->probe_index)
			continue;
		struct kl_tp_field f;
		char msg[2048];
		if (kt_tp_field(m->s, m->a, t->event, n->name, &f, msg, sizeof(msg)))
			return err_at(m, n->span, "%s", msg);
		struct kt_type ft = f.data_loc ? t_str(m->s->strlen) : f.count && f.size / f.count == 1 ? t_str(f.size)
				   : f.count ? kt_tp_array(m, &f) : t_int(f.size, f.is_signed);
		if (ft.kind == KTT_NONE || (ft.kind == KTT_INT && !f.count && f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
			return err_at(m, n->span, "the array field args->%s is not supported yet by kiln trace", n->name);
		const char *ct = f.ctype ? f.ctype : "";
		if (!strncmp(ct, "const ", 6))
			ct += 6;
		if (ft.kind == KTT_INT && f.size == 8 && !strncmp(ct, "struct ", 7) && ct[strlen(ct) - 1] == '*') {
			size_t len = strcspn(ct + 7, " *");   /* args->rqtp->tv_sec */
			if (strspn(ct + 7 + len, " ") + 1 == strlen(ct + 7 + len)) {
				ft.tname = kl_arena_strndup(m->a, ct + 7, len);
				ft.user = !strncmp(t->event, "syscalls/", 9);   /* what the process passed */
			}
		} else if (ft.kind == KTT_INT && f.size == 8) {   /* args->argv[0]: a pointer to integers */
			kt_ctype_ptr(m->a, ct, !strncmp(t->event, "syscalls/", 9), &ft);
		}
		if (ty.kind == KTT_NONE)
			ty = ft;
		else if (ty.kind != ft.kind)
			return err_at(m, n->span, "args->%s has different types in the probe's tracepoints", n->name);
		else if (ft.size > ty.size)
			ty.size = ft.size;
	}
	n->type = ty;
	return 0;
}

static const char *const int_casts[][2] = {
	{ "int8", "1s" }, { "int16", "2s" }, { "int32", "4s" }, { "int64", "8s" }, { "uint8", "1u" },
	{ "uint16", "2u" }, { "uint32", "4u" }, { "uint64", "8u" },
};

static int cast(struct sm *m, struct kt_node *n)
{
	if (expr(m, n->a))
		return -1;
	if (!n->is_ptr_cast && !n->num)
		for (size_t i = 0; i < sizeof(int_casts) / sizeof(int_casts[0]); i++)
			if (!strcmp(n->name, int_casts[i][0])) {
				if (n->a->type.kind != KTT_INT)
					return err_at(m, n->span, "cannot cast to %s: the value is not an integer", n->name);
				n->type = t_int((uint32_t)(int_casts[i][1][0] - '0'), int_casts[i][1][1] == 's');
				return 0;
			}
	if (n->is_ptr_cast && !n->num) {
		int r = kt_sm_ptr_cast(m, n);
		if (r <= 0)
			return r;
	}
	if (n->is_ptr_cast && !n->num && !strncmp(n->name, "struct ", 7)) {
		char msg[1024];
		if (n->a->type.kind != KTT_INT)
			return err_at(m, n->span, "cannot cast to (%s *): the value is not an integer", n->name);
		if (kt_struct_exists(m->cdefs, n->name + 7, msg, sizeof(msg)))
			return err_at(m, n->span, "%s", msg);
		n->type = t_int(8, false);
		n->type.tname = n->name + 7;
		n->type.user = kt_sm_cast_user(m, n->a);
		kt_struct_ptr_levels(m, n);
		return 0;
	}
	return err_at(m, n->span, "the cast to (%s) is not supported yet by kiln trace", n->name);
}

static int call(struct sm *m, struct kt_node *n);

/* $N's text: the argument, NULL when it is missing. */
static const char *param_arg(const struct sm *m, long long i)
{
	return i >= 1 && i <= m->s->nparams ? m->s->params[i - 1] : NULL;
}

/* $N used as a number (bpftrace 0.17): a missing one is 0, a number (C's bases, as strtoll reads
 * it) that number, any other text an error: it is read with str($N). $# is the count. The node
 * becomes the literal. */
static int posparam(struct sm *m, struct kt_node *n)
{
	long long x = m->s->nparams;
	const char *v = param_arg(m, n->num);
	if (n->num > 0 && v) {
		char *end;
		errno = 0;
		x = strtoll(v, &end, 0);
		if ((!*v || *end || errno) && !kt_dialect_posparam(m, n, v))   /* 0.26: the text (fn_v026.c) */
			return 0;
		if (!*v || *end || errno)
			return kl_error(m->d, n->span, "$%lld used numerically but given \"%s\". Try using str($%lld).",
					(long long)n->num, v, (long long)n->num);
	} else if (n->num > 0) {
		x = 0;
	}
	n->kind = KT_INT;
	n->num = x;
	n->type = t_int(8, true);
	return 0;
}

/* Whether $N or $# is in the expression n (followed 64 deep, as far as a str() argument goes). */
static bool has_param(const struct kt_node *n, int depth)
{
	if (!n || depth > 64)
		return false;
	if (n->kind == KT_POSPARAM)
		return true;
	for (uint32_t i = 0; i < n->nkids; i++)
		if (has_param(n->kids[i], depth + 1))
			return true;
	return has_param(n->a, depth + 1) || has_param(n->b, depth + 1) || has_param(n->c, depth + 1);
}

/* str($N), str($N + k), str(k + $N), each with an optional length: $N's text ("" when it is
 * missing) from byte k (a constant, at most its length) as a string literal, at most the length
 * or BPFTRACE_STRLEN - 1 bytes, as bpftrace 0.17 reads it. n becomes the literal; 1 when n is
 * another str(). */
static int str_param(struct sm *m, struct kt_node *n)
{
	if (n->nkids < 1 || n->nkids > 2)
		return 1;
	struct kt_node *a = n->kids[0], *p = a, *k = NULL;
	if (a->kind == KT_BINOP && (a->a->kind == KT_POSPARAM || a->b->kind == KT_POSPARAM)) {
		p = a->a->kind == KT_POSPARAM ? a->a : a->b;
		k = p == a->a ? a->b : a->a;
	}
	if (p->kind != KT_POSPARAM && has_param(a, 0))
		return err_at(m, n->span, "%s", "str() only accepts positional parameters directly or with a "
			      "single constant offset added");
	if (p->kind != KT_POSPARAM)
		return 1;
	if (p->num == 0)
		return err_at(m, n->span, "%s", "use $#, not str($#)");
	const char *v = param_arg(m, p->num);
	size_t len = v ? strlen(v) : 0;
	if (k && (a->op != '+' || k->kind != KT_INT || k->num < 0 || (uint64_t)k->num > len))
		return kl_error(m->d, a->span, "only addition of a single constant less or equal to the length of "
				"$%lld (which is %zu) is allowed inside str()", (long long)p->num, len);
	size_t off = k ? (size_t)k->num : 0, max = m->s->strlen ? m->s->strlen - 1 : 0;
	if (n->nkids == 2) {
		struct kt_node *l = n->kids[1];
		if (expr(m, l))
			return -1;
		if (l->kind != KT_INT || l->num < 0)
			return err_at(m, l->span, "%s", "str()'s length must be a non-negative constant here (kiln trace)");
		if ((uint64_t)l->num < max)
			max = (size_t)l->num;
	}
	n->kind = KT_STR;
	n->strlen = (uint32_t)(len - off < max ? len - off : max);
	n->str = kl_arena_strndup(m->a, v ? v + off : "", n->strlen);
	n->type = t_str(n->strlen + 1);
	n->nkids = 0;
	return 0;
}

/* @name read in an expression: typed by what the map holds (after the pass that assigned it). */
static int map_read(struct sm *m, struct kt_node *n)
{
	struct kt_map *mp = map_of(m, n);
	if (map_key(m, n, mp))
		return -1;
	mp = &m->maps.items[n->map_id];
	switch (mp->kind) {
	case KM_INT: case KM_STR: case KM_TUPLE:
		n->type = mp->value;
		return 0;
	case KM_COUNT: case KM_SUM: case KM_MIN: case KM_MAX:
		n->type = t_int(8, mp->kind != KM_COUNT);
		return 0;
	case KM_NONE:
		if (m->passes_out)
			return kl_error(m->d, n->span, "@%s is not typed after %d passes over the script: a chain "
					"of maps assigned from maps assigned later is longer than kiln trace follows",
					n->name, KT_MAX_PASSES);
		return kl_error(m->d, n->span, "undefined map: @%s (it is never assigned)", n->name);
	default:
		return kl_error(m->d, n->span, "reading @%s (an avg, stats, hist or lhist map) in an expression is %s",
				n->name, refused);
	}
}

/* ---- expressions: one checker per node kind, found in expr_checks[] ---- */

/* A literal is signed; a constant sema made (kaddr()) keeps its type on the next pass. */
static int int_lit(struct sm *m, struct kt_node *n)
{
	if (n->type.kind != KTT_INT)
		n->type = t_int(8, true);
	return 0;
}

static int str_lit(struct sm *m, struct kt_node *n)
{
	n->type = t_str(n->strlen + 1);
	return 0;
}

/* A builtin (pid, comm, kstack, ...) was typed where it became one (ident(), a function's row). */
static int typed_builtin(struct sm *m, struct kt_node *n)
{
	return 0;
}

/* $name read: the slot and type of its first assignment. */
static int var_read(struct sm *m, struct kt_node *n)
{
	for (size_t i = 0; i < m->vars.len; i++)
		if (!strcmp(m->vars.items[i].name, n->name)) {
			n->var_id = (int)i;
			n->type = m->vars.items[i].type;
			return 0;
		}
	return err_at(m, n->span, "undefined variable: $%s", n->name);
}

/* a OP b: strings compare with == and != only; integers give a u64 unless both sides are
 * signed (a literal counts as signed); a pointer plus an integer stays the pointer. */
static int binop(struct sm *m, struct kt_node *n)
{
	if (expr(m, n->a) || expr(m, n->b))
		return -1;
	struct kt_type *l = &n->a->type, *r = &n->b->type;
	bool cmp = n->op == KT_OP_EQ || n->op == KT_OP_NE;
	if (l->kind == KTT_STR || r->kind == KTT_STR) {
		if (!cmp || l->kind != r->kind)
			return err_at(m, n->span, "%s", "strings can only be compared with == and != to strings");
		n->type = t_int(8, false);
		return 0;
	}
	if (l->kind == KTT_BUF && r->kind == KTT_BUF && cmp) {   /* buf() == buf(): fn_net.c */
		n->type = t_int(8, false);
		return 0;
	}
	if (l->kind != KTT_INT || r->kind != KTT_INT)
		return err_at(m, n->span, "%s", "operands must be integers");
	bool ls = l->is_signed || n->a->kind == KT_INT, rs = r->is_signed || n->b->kind == KT_INT;
	n->type = t_int(8, ls && rs);
	n->num = 0;
	int p = kt_sm_ptr_arith(m, n);   /* p + i: a pointer i elements on */
	if (p > 0)
		kt_dialect_binop(m, n);   /* what - gives, integer promotion (fn_v026.c) */
	return p < 0 ? -1 : 0;
}

/* *p (sema_mem.c), ! - ~ of an integer; & is refused. */
static int unop(struct sm *m, struct kt_node *n)
{
	if (n->op == '*')
		return kt_sm_deref(m, n);
	if (n->op == '&')
		return err_at(m, n->span, "the unary %s (pointers) is not supported yet by kiln trace", "&");
	if (expr(m, n->a))
		return -1;
	if (n->a->type.kind != KTT_INT)
		return err_at(m, n->span, "%s", "the operand must be an integer");
	n->type = n->op == '!' ? t_int(8, false) : n->a->type;
	if (n->op == '-')
		n->type.is_signed = true;
	return 0;
}

/* c ? a : b: an integer condition, and branches both integers or both strings (the wider). */
static int ternary(struct sm *m, struct kt_node *n)
{
	if (expr(m, n->a) || expr(m, n->b) || expr(m, n->c))
		return -1;
	if (n->a->type.kind != KTT_INT)
		return err_at(m, n->a->span, "%s", "the condition must be an integer");
	if (n->b->type.kind == KTT_NONE && n->c->type.kind == KTT_NONE && n->b->kind == KT_CALL && n->c->kind == KT_CALL) {
		n->type.kind = KTT_NONE;   /* c ? printf(..) : exit(): a statement (gen_stmt's) */
		return 0;
	}
	if (n->b->type.kind != n->c->type.kind || (n->b->type.kind != KTT_INT && !kt_is_bytes(&n->b->type)))
		return err_at(m, n->span, "%s", "both branches of the ternary must be integers, or both strings");
	n->type = n->b->type;
	if (kt_is_bytes(&n->type) && n->c->type.size > n->type.size)
		n->type.size = n->c->type.size;
	n->type.is_signed = n->b->type.is_signed && n->c->type.is_signed;
	return 0;
}

/* x.f: a tuple's element (.0), (*p).f as p->f, or a field of an embedded struct. */
static int dot_field(struct sm *m, struct kt_node *n)
{
	if (!n->name)
		return kt_sm_tuple_elem(m, n);
	if (n->a->kind == KT_UNOP && n->a->op == '*') {   /* (*p).f is p->f */
		if (expr(m, n->a))
			return -1;
		if (n->a->type.kind == KTT_STRUCT) {
			n->kind = KT_ARROW;
			n->a = n->a->a;
			return struct_field(m, n);
		}
	}
	if (expr(m, n->a))
		return -1;
	if (n->a->type.kind == KTT_STRUCT)   /* $task->se.cfs_rq */
		return struct_field(m, n);
	if (n->a->type.kind == KTT_INT && n->a->type.tname) {   /* 0.26: $task.pid is $task->pid */
		n->kind = KT_ARROW;
		return struct_field(m, n);
	}
	return err_at(m, n->span, "%s", "field access with '.' (tuple elements, structs) is not supported yet by kiln trace");
}

/* sizeof and offsetof: typed to a constant by their rows (fn_net.c). */
static int fn_row(struct sm *m, struct kt_node *n)
{
	return kt_fn_find(n->name)->check(m, n);
}

/* @m++ / $x-- and the prefix forms: an integer map (one never typed becomes one) or variable. */
static int incdec(struct sm *m, struct kt_node *n)
{
	if (n->a->kind == KT_MAP) {
		struct kt_map *mp = map_of(m, n->a);
		if (map_key(m, n->a, mp))
			return -1;
		mp = &m->maps.items[n->a->map_id];
		if (mp->kind == KM_NONE) {
			mp->kind = KM_INT;
			mp->value = t_int(8, true);
		}
		if (mp->kind != KM_INT || mp->value.kind != KTT_INT)
			return err_at(m, n->span, "++ and -- need an integer map, and @%s is not one", n->a->name);
		n->a->type = mp->value;
	} else if (expr(m, n->a)) {
		return -1;
	} else if (n->a->type.kind != KTT_INT) {
		return err_at(m, n->span, "%s", "++ and -- need an integer variable");
	}
	n->type = n->a->type;
	uint32_t size;   /* a pointer moves one element (n->num: its bytes; 0 is 1) */
	if (kt_sm_elem_size(m, n->span, &n->type, &size))
		return -1;
	n->num = size;
	return 0;
}

typedef int expr_check(struct sm *m, struct kt_node *n);

/* Each expression kind's checker; statement kinds have none. */
static expr_check *const expr_checks[] = {
	[KT_INT] = int_lit, [KT_STR] = str_lit, [KT_POSPARAM] = posparam, [KT_IDENT] = ident,
	[KT_BUILTIN] = typed_builtin, [KT_VAR] = var_read, [KT_MAP] = map_read, [KT_CALL] = call,
	[KT_BINOP] = binop, [KT_UNOP] = unop, [KT_TERNARY] = ternary, [KT_CAST] = cast,
	[KT_TUPLE] = kt_sm_tuple, [KT_ARROW] = arrow, [KT_FIELD] = dot_field, [KT_INDEX] = kt_sm_index,
	[KT_SIZEOF] = fn_row, [KT_OFFSETOF] = fn_row, [KT_INCDEC] = incdec,
};

/* Types the expression n (and what it holds); 0, or -1 with the error in m->d. */
static int expr(struct sm *m, struct kt_node *n)
{
	expr_check *check = (size_t)n->kind < sizeof(expr_checks) / sizeof(expr_checks[0]) ? expr_checks[n->kind] : NULL;
	if (!check)
		return err_at(m, n->span, "%s", "unexpected statement in an expression");
	return check(m, n);
}

/* The functions that write maps, with their value kind; they are statements in bpftrace
 * (`@x = count()`), and sema meets them from assign(). */
static const struct { const char *name; enum kt_mkind kind; int nargs; } aggs[] = {
	{ "count", KM_COUNT, 0 }, { "sum", KM_SUM, 1 }, { "min", KM_MIN, 1 }, { "max", KM_MAX, 1 },
	{ "avg", KM_AVG, 1 }, { "stats", KM_STATS, 1 }, { "hist", KM_HIST, 1 }, { "lhist", KM_LHIST, 4 },
};

static int call(struct sm *m, struct kt_node *n)
{
	const char *f = n->name;
	int r = !strcmp(f, "str") ? str_param(m, n) : 1;
	if (r < 1)
		return r;
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
		if (!strcmp(f, aggs[i].name))
			return kl_error(m->d, n->span, "%s() should be assigned to a map", f);
	const struct kt_fn *fn = kt_fn_find(f);
	if (!fn)
		return err_at(m, n->span, "Unknown function: %s", f);
	if (!fn->check)
		return kl_error(m->d, n->span, "the function %s() is %s", f, refused);
	for (size_t i = 0; fn->own_args && i < n->nkids; i++) {   /* kaddr(str($1)), kstack($1) */
		struct kt_node *k = n->kids[i];
		if (k->kind == KT_CALL && !strcmp(k->name, "str") ? str_param(m, k) < 0 :
		    k->kind == KT_POSPARAM && posparam(m, k))
			return -1;
	}
	for (size_t i = 0; !fn->own_args && i < n->nkids; i++)
		if (n->kids[i]->kind != KT_MAP && expr(m, n->kids[i]))
			return -1;
	return fn->check(m, n);
}

/* @m = f(...) / @m = expr: fixes the map's kind and value type at the first one. */
static int assign_map(struct sm *m, struct kt_node *s)
{
	struct kt_node *mn = s->a, *v = s->b;
	struct kt_map *mp = map_of(m, mn);
	int id = mn->map_id;
	enum kt_mkind kind = KM_NONE;
	if (v->kind == KT_BINOP && v->a == mn && mp->kind == KM_NONE && !m->lenient)
		kt_sm_compound_new(m, mn);   /* @a += x on a map not assigned yet: an integer from 0 */
	if (v->kind == KT_CALL)
		for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
			if (!strcmp(v->name, aggs[i].name)) {
				kind = aggs[i].kind;
				if ((int)v->nkids != aggs[i].nargs)
					return kl_error(m->d, v->span, "%s() takes %d argument%s", v->name, aggs[i].nargs,
							aggs[i].nargs == 1 ? "" : "s");
				for (uint32_t k = 0; k < v->nkids; k++) {
					if (expr(m, v->kids[k]))
						return -1;
					if (v->kids[k]->type.kind != KTT_INT)
						return kl_error(m->d, v->kids[k]->span, "%s() expects an integer", v->name);
				}
				if (kind == KM_LHIST) {
					for (int k = 1; k < 4; k++)
						if (v->kids[k]->kind != KT_INT)
							return kl_error(m->d, v->kids[k]->span, "%s", "lhist()'s min, max and step must be constants");
					int64_t lo = v->kids[1]->num, hi = v->kids[2]->num, st = v->kids[3]->num;
					if (lo < 0 || hi <= lo || st <= 0 || (hi - lo) / st > 1000)
						return kl_error(m->d, v->span, "%s", "lhist() needs 0 <= min < max, step > 0 and at most 1000 buckets");
					mp = &m->maps.items[id];
					if (mp->kind == KM_LHIST && (mp->lmin != lo || mp->lmax != hi || mp->lstep != st))
						return kl_error(m->d, v->span, "lhist() arguments differ from @%s's first use", mn->name);
					mp->lmin = lo;
					mp->lmax = hi;
					mp->lstep = st;
				}
			}
	if (kind == KM_NONE && expr(m, v))
		return -1;
	if (map_key(m, mn, mp))
		return -1;
	mp = &m->maps.items[id];
	if (kind == KM_NONE) {
		if (v->type.kind == KTT_INT)
			kind = KM_INT;
		else if (kt_is_bytes(&v->type))
			kind = KM_STR;
		else if (kt_is_symbolic(&v->type))
			kind = KM_INT;
		else if (v->type.kind == KTT_TUPLE)
			kind = KM_TUPLE;
		else
			return kl_error(m->d, v->span, "%s", "only integers and strings can be stored in maps by kiln trace yet");
	}
	if (mp->kind != KM_NONE && (mp->kind != kind || (kind == KM_STR && mp->value.kind != v->type.kind)))
		return kl_error(m->d, s->span, "type mismatch for @%s: it was assigned another kind of value before", mn->name);
	if (mp->kind == KM_NONE) {
		mp->kind = kind;
		mp->value = kt_type_own(m->a, &v->type);
		if (kind == KM_INT && !kt_is_symbolic(&v->type)) {
			mp->value = t_int(8, v->type.is_signed);
			mp->value.pointee = v->type.pointee;   /* a pointer stays one: @p += 1 */
			mp->value.tname = v->type.tname;
			if (v->type.pointee || v->type.tname)
				mp->value.user = v->type.user;
		}
	} else if ((kind == KM_STR || kind == KM_TUPLE) && !kt_type_merge(&mp->value, &v->type)) {
		return kl_error(m->d, s->span, "type mismatch for @%s: it holds tuples of another shape", mn->name);
	}
	return 0;
}

static int stmt(struct sm *m, struct kt_node *s);

static int block(struct sm *m, struct kt_node *b)
{
	size_t scope = m->vars.len;
	for (uint32_t i = 0; i < b->nkids; i++)
		if (stmt(m, b->kids[i]) && !m->lenient)
			return -1;
	kt_sm_scope_close(m, scope);
	return 0;
}

/* s's KT_EXPRSTMT of c ? x : y made `if (c) { x } else { y }`: its value is dropped, so the
 * branches may be calls with none (printf), as bpftrace takes them. */
static void ternary_stmt_as_if(struct sm *m, struct kt_node *s)
{
	struct kt_node *t = s->a, *arm[2] = { t->b, t->c };
	s->kind = KT_IF;
	s->a = t->a;
	for (int i = 0; i < 2; i++) {
		struct kt_node *blk = kt_node_new(m->a, KT_BLOCK, arm[i]->span), *st = kt_node_new(m->a, KT_EXPRSTMT, arm[i]->span);
		st->a = arm[i];
		blk->kids = kl_arena_array(m->a, struct kt_node *, 1);
		blk->kids[0] = st;
		blk->nkids = 1;
		*(i ? &s->c : &s->b) = blk;
	}
}

static int stmt(struct sm *m, struct kt_node *s)
{
	if (s->kind == KT_EXPRSTMT && s->a->kind == KT_TERNARY)
		ternary_stmt_as_if(m, s);
	int let = s->kind == KT_LET || s->kind == KT_ASSIGN ? kt_sm_let(m, s) : 1;   /* sema_scope.c: 0.26's `let` */
	if (let <= 0)
		return let;
	switch (s->kind) {
	case KT_EXPRSTMT:
		if (s->a->kind == KT_MAP)
			return kl_error(m->d, s->span, "%s", "a map alone is not a statement (did you mean print(@map)?)");
		return expr(m, s->a);
	case KT_ASSIGN:
		if (s->a->kind == KT_MAP)
			return assign_map(m, s);
		if (expr(m, s->b))
			return -1;
		if (s->b->type.kind != KTT_INT && !kt_is_bytes(&s->b->type) && s->b->type.kind != KTT_TUPLE &&
		    !kt_is_symbolic(&s->b->type))
			return kl_error(m->d, s->b->span, "%s", "only integers, strings, tuples and buffers can be kept in $variables by kiln trace yet");
		for (size_t i = 0; i < m->vars.len; i++)
			if (!strcmp(m->vars.items[i].name, s->a->name)) {
				struct kt_var *v = &m->vars.items[i];
				if (v->type.kind != s->b->type.kind)
					return kl_error(m->d, s->span, "type mismatch for $%s: it holds a%s, not a%s", s->a->name,
							v->type.kind == KTT_INT ? "n integer" : " string",
							s->b->type.kind == KTT_INT ? "n integer" : " string");
				if (v->type.kind == KTT_STR && s->b->type.size > v->type.size)
					v->type.size = s->b->type.size;   /* the longest, as bpftrace sizes it */
				else if (kt_is_bytes(&s->b->type) && s->b->type.size > v->type.size)
					return kl_error(m->d, s->span, "$%s holds strings of %u bytes; this one is %u", s->a->name,
							v->type.size, s->b->type.size);
				if (v->type.kind == KTT_TUPLE && !kt_type_merge(&v->type, &s->b->type))
					return kl_error(m->d, s->span, "type mismatch for $%s: it holds tuples of another shape", s->a->name);
				s->a->var_id = (int)i;
				s->a->type = v->type;
				return 0;
			}
		if (m->vars.len == KT_MAX_VARS)
			return kl_error(m->d, s->a->span, "too many $variables: kiln trace takes at most %d in a probe",
					KT_MAX_VARS);
		struct kt_var v = { s->a->name, kt_type_own(m->a, &s->b->type) };
		v.type.user = v.type.kind == KTT_STRUCT ? false : v.type.user;   /* a struct copied to the stack */
		if (v.type.kind == KTT_INT) {
			v.type = t_int(s->b->type.size ? s->b->type.size : 8, s->b->type.is_signed);   /* bswap, sizeof */
			v.type.tname = s->b->type.tname;   /* $t = curtask; $t->pid */
			v.type.pointee = s->b->type.pointee;
			v.type.user = s->b->type.user;
		}
		kt_sm_var_seed(m, &v);
		kl_vec_push(m->a, &m->vars, v);
		s->a->var_id = (int)m->vars.len - 1;
		s->a->type = v.type;
		return 0;
	case KT_IF: {
		/* a lenient pass types the blocks even when the condition reads a map not typed yet */
		int r = expr(m, s->a);
		if ((r && !m->lenient) || block(m, s->b) || (s->c && block(m, s->c)) || r)
			return -1;
		if (s->a->type.kind != KTT_INT)
			return kl_error(m->d, s->a->span, "%s", "the condition must be an integer");
		return 0;
	}
	case KT_UNROLL:
		if (expr(m, s->a))
			return -1;
		if (s->a->kind != KT_INT)
			return kl_error(m->d, s->a->span, "%s", "unroll needs a constant count from 1 to 100");
		if (s->a->num < 1 || s->a->num > 100)   /* bpftrace's words */
			return kl_error(m->d, s->a->span, "unroll %s value is %d", s->a->num < 1 ? "minimum" : "maximum",
					s->a->num < 1 ? 1 : 100);
		return block(m, s->b);
	case KT_WHILE: {
		if (expr(m, s->a) && !m->lenient)
			return -1;
		bool was = m->in_loop;
		m->in_loop = true;
		int r = block(m, s->b);
		m->in_loop = was;
		return r;
	}
	case KT_FOR:   /* sema_loop.c */
		return kt_sm_for(m, s);
	case KT_BLOCK:   /* a macro's body (macro.c) */
		return block(m, s);
	case KT_BREAK: case KT_CONTINUE:
		if (!m->in_loop)   /* bpftrace's words */
			return kl_error(m->d, s->span, "%s used outside of a loop", s->kind == KT_BREAK ? "break" : "continue");
		return 0;
	case KT_RETURN:
		return 0;
	default:
		return kl_error(m->d, s->span, "%s", "unexpected expression where a statement should be");
	}
}

/* Types every probe's predicate and block (one pass of kt_sema). */
static int probes(struct sm *m, struct kt_program *prog)
{
	uint32_t i = 0;   /* the targets are in the order of their probes */
	for (uint32_t p = 0; p < prog->nprobes; p++) {
		m->probe = &prog->probes[p];
		m->vars = (typeof(m->vars)){ 0 };
		m->first = NULL;
		m->is_tracepoint = m->has_args = m->has_retval = m->has_func = m->is_kfunc = m->is_raw = m->is_usdt = true;
		for (; i < m->s->ntargets && m->s->targets[i].probe_index == p; i++) {
			enum kt_pkind k = m->s->targets[i].kind;
			if (!m->first)
				m->first = &m->s->targets[i];
			m->is_tracepoint = m->is_tracepoint && k == KP_TRACEPOINT;
			m->has_args = m->has_args && (k == KP_UPROBE || k == KP_KPROBE);
			m->has_retval = m->has_retval && (k == KP_URETPROBE || k == KP_KRETPROBE || k == KP_KRETFUNC);
			m->has_func = m->has_func && k >= KP_UPROBE && k <= KP_KRETFUNC;
			m->is_kfunc = m->is_kfunc && (k == KP_KFUNC || k == KP_KRETFUNC);
			m->is_raw = m->is_raw && k == KP_RAWTRACEPOINT;
			m->is_usdt = m->is_usdt && k == KP_USDT;
		}
		if (!m->first) {   /* its wildcards matched nothing: bpftrace leaves it out too */
			m->s->vars[p] = NULL;
			m->s->nvars[p] = 0;
			continue;
		}
		m->scope_017 = kt_sm_reads_late(m, m->probe->block);   /* sema_scope.c */
		if (m->probe->pred && !(m->lenient && expr(m, m->probe->pred))) {
			if (!m->lenient && expr(m, m->probe->pred))
				return -1;
			if (m->probe->pred->type.kind != KTT_INT && !m->lenient)
				return kl_error(m->d, m->probe->pred->span, "%s", "a predicate must be an integer (or a comparison)");
		}
		if (block(m, m->probe->block) && !m->lenient)
			return -1;
		m->s->vars[p] = m->vars.items;
		m->s->nvars[p] = (uint32_t)m->vars.len;
	}
	return 0;
}

static int too_many_maps(struct sm *m, struct kl_diag *d)
{
	if (m->maps.len <= KT_MAX_MAPS)
		return 0;
	return kl_error(d, m->maps.items[KT_MAX_MAPS].span, "too many maps: kiln trace takes at most %d in a script",
			KT_MAX_MAPS);
}

int kt_sema(struct kt_program *prog, struct kt_sema *s, struct kl_arena *a, struct kl_diag *d)
{
	struct sm m = { .s = s, .cdefs = prog->cdefs, .a = a, .d = d };
	s->cdefs = prog->cdefs;
	struct kt_targets targets = { 0 };
	s->tp_cache = kl_arena_new(a, struct kt_tpcache *);   /* this script's, in its arena */
	for (uint32_t p = 0; p < prog->nprobes; p++)
		for (uint32_t i = 0; i < prog->probes[p].nattach; i++)
			if (kt_resolve_attach(a, d, &prog->probes[p].attach[i], p, s->params, s->nparams, s->proc,
					      &targets))
				return -1;
	s->targets = targets.items;
	s->ntargets = (uint32_t)targets.len;
	if (!s->ntargets)
		return kl_error(d, prog->nprobes ? prog->probes[0].span : (struct kl_span){ 0 }, "%s",
				"no probes to attach: the wildcards match nothing");
	if ((s->max_progs && s->ntargets > s->max_progs) || (s->max_probes && s->ntargets > s->max_probes))
		return 0;   /* typed no further: the caller's limit check (trace_limits) refuses them */
	s->vars = kl_arena_array(a, struct kt_var *, prog->nprobes);
	s->nvars = kl_arena_array(a, uint32_t, prog->nprobes);
	/* bpftrace types a map by its first assignment anywhere in the program (tcplife.bt
	 * reads @birth in a probe before the one that assigns it): lenient passes, whose errors
	 * are dropped with the statements that made them, learn the maps' types until no new
	 * one is found (at most KT_MAX_PASSES of them); then the pass that reports errors. */
	struct kl_diag scratch;
	size_t known = 0, was;
	int passes = 0;
	do {
		was = known;
		scratch = (struct kl_diag){ 0 };
		m.d = &scratch;
		m.lenient = true;
		if (probes(&m, prog))
			return -1;
		if (too_many_maps(&m, d))   /* before more passes over them */
			return -1;
		known = 0;
		for (size_t i = 0; i < m.maps.len; i++)
			known += m.maps.items[i].kind != KM_NONE;
	} while (known > was && ++passes < KT_MAX_PASSES);
	m.passes_out = known > was;
	m.d = d;
	m.lenient = false;
	if (probes(&m, prog))
		return -1;
	for (size_t i = 0; i < m.maps.len; i++) {
		struct kt_map *mp = &m.maps.items[i];
		if (mp->kind == KM_NONE)
			return kl_error(d, mp->span, "@%s is used but never assigned", mp->name);
		/* Strings in keys take whole u64 slots: an integer after one (or a hist's bucket) is
		 * stored with one 8-byte access, which the verifier refuses off its alignment. */
		if (mp->key.kind == KTT_STR)
			mp->key.size = (mp->key.size + 7) & ~7u;
		for (uint32_t k = 0; mp->key.kind == KTT_TUPLE && k < mp->key.nelems; k++)
			if (mp->key.elems[k].kind == KTT_STR)
				mp->key.elems[k].size = (mp->key.elems[k].size + 7) & ~7u;
		mp->key_size = mp->key.kind == KTT_NONE ? 8 : kt_type_size(&mp->key);
		if (mp->kind == KM_HIST || mp->kind == KM_LHIST)
			mp->key_size = (mp->key.kind == KTT_NONE ? 0 : mp->key_size) + 8;
		mp->value_size = mp->kind == KM_STR ? mp->value.size : mp->kind == KM_TUPLE ? kt_type_size(&mp->value) : mp->kind == KM_AVG || mp->kind == KM_STATS ? 16 : 8;
	}
	if (too_many_maps(&m, d) || kt_sm_mapdecls(&m, prog))   /* sema_decl.c: `let @m = lruhash(N)` */
		return -1;
	s->maps = m.maps.items;
	s->nmaps = (uint32_t)m.maps.len;
	return 0;
}

/* ---- for the files of functions (sema_priv.h) ---- */

int kt_sm_err(struct sm *m, struct kl_span at, const char *fmt, const char *what)
{
	return err_at(m, at, fmt, what);
}

struct kt_type kt_t_int(uint32_t size, bool sign)
{
	return t_int(size, sign);
}

struct kt_type kt_t_str(uint32_t size)
{
	return t_str(size);
}

int kt_sm_expr(struct sm *m, struct kt_node *n)
{
	return expr(m, n);
}

struct kt_map *kt_sm_map_of(struct sm *m, struct kt_node *n)
{
	return map_of(m, n);
}

int kt_sm_map_key(struct sm *m, struct kt_node *n, struct kt_map *mp)
{
	return map_key(m, n, mp);
}

int kt_sm_block(struct sm *m, struct kt_node *b)
{
	return block(m, b);
}
