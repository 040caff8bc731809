/* sema.c — kiln trace's type pass (see sema.h): attach points to targets, then each probe's
 * statements in order, so that a $variable's or a map's type is fixed by its first
 * assignment, as bpftrace fixes it. */
#define _GNU_SOURCE
#include "trace/sema_priv.h"
#include "trace/funcs.h"
#include "compiler/nearest.h"
#include "trace/ktypes.h"
#include "trace/cdefine.h"
#include "trace/binpath.h"
#include <ctype.h>
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
			n += kt_type_size(&t->elems[i]);
		return n;
	}
	if (t->kind == KTT_INT || t->kind == KTT_PROBE || t->kind == KTT_PTR || kt_is_symbolic(t))
		return 8;   /* integers travel as 8 bytes in records and keys */
	return t->size;
}

const char *kt_tracefs(void)
{
	return access("/sys/kernel/tracing/available_events", R_OK) == 0 ? "/sys/kernel/tracing"
									 : "/sys/kernel/debug/tracing";
}

/* ---- tracepoint formats, cached ---- */

struct tpcache {
	const char *event;
	struct kl_tp_field *f;
	uint32_t n;
	struct tpcache *next;
};
static __thread struct tpcache *cache;
static __thread struct kl_arena *cache_arena;

int kt_tp_field(struct kl_arena *a, const char *event, const char *name, struct kl_tp_field *out, char *msg,
		size_t msgsz)
{
	if (cache_arena != a) {
		cache = NULL;
		cache_arena = a;
	}
	struct tpcache *c = cache;
	while (c && strcmp(c->event, event))
		c = c->next;
	if (!c) {
		c = kl_arena_new(a, struct tpcache);
		c->event = kl_arena_strdup(a, event);
		if (kl_tracepoint_format(a, event, &c->f, &c->n, msg, msgsz))
			return -1;
		c->next = cache;
		cache = c;
	}
	for (uint32_t i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].name, name) && strncmp(name, "common_", 7)) {
			*out = c->f[i];
			return 0;
		}
	size_t k = (size_t)snprintf(msg, msgsz, "tracepoint %s has no field '%s'; its fields:", event, name);
	for (uint32_t i = 0; i < c->n && k < msgsz; i++)
		if (strncmp(c->f[i].name, "common_", 7))
			k += (size_t)snprintf(msg + k, msgsz - k, " %s", c->f[i].name);
	return -1;
}

/* ---- attach points ---- */

static bool has_wild(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

struct tvec {
	struct kt_target *items;
	size_t len, cap;
};

static int add_target(struct sm *m, struct tvec *v, struct kt_target t)
{
	kl_vec_push(m->a, v, t);
	return 0;
}

/* tracepoint:CAT:NAME with wildcards: every CAT:NAME tracefs lists that matches. */
static int expand_tracepoint(struct sm *m, const struct kt_attach *ap, uint32_t pi, void *vv)
{
	struct tvec *v = vv;
	if (!ap->target || !ap->func || ap->extra)
		return err_at(m, ap->span, "%s: a tracepoint is tracepoint:CATEGORY:NAME", ap->text);
	if (!has_wild(ap->target) && !has_wild(ap->func)) {
		char event[512], msg[1024];
		snprintf(event, sizeof(event), "%s/%s", ap->target, ap->func);
		if (kl_tracepoint_check(event, msg, sizeof(msg)) < 0)
			return err_at(m, ap->span, "%s", msg);
		return add_target(m, v, (struct kt_target){ KP_TRACEPOINT, kl_arena_strdup(m->a, event),
			kl_arena_printf(m->a, "tracepoint:%s:%s", ap->target, ap->func), 0, 0, pi, NULL });
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/available_events", kt_tracefs());
	FILE *f = fopen(path, "r");
	if (!f)
		return err_at(m, ap->span, "cannot read %s to expand the wildcard", path);
	char line[512];
	size_t before = v->len;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (fnmatch(ap->target, line, 0) || fnmatch(ap->func, colon + 1, 0))
			continue;
		add_target(m, v, (struct kt_target){ KP_TRACEPOINT, kl_arena_printf(m->a, "%s/%s", line, colon + 1),
			kl_arena_printf(m->a, "tracepoint:%s:%s", line, colon + 1), 0, 0, pi, NULL });
	}
	fclose(f);
	if (v->len == before)
		return err_at(m, ap->span, "no tracepoint matches %s", ap->text);
	return 0;
}

/* interval:s:N, interval:ms:N, ... and profile:hz:N, ... */
static int timed(struct sm *m, const struct kt_attach *ap, uint32_t pi, void *vv, enum kt_pkind kind)
{
	struct tvec *v = vv;
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull }, { "hz", 0 },
	};
	const char *unit = ap->target, *num = ap->func;
	char *end = NULL;
	unsigned long long n = num ? strtoull(num, &end, 10) : 0;
	if (!unit || !num || *end || !n || ap->extra)
		return err_at(m, ap->span, "%s: expected PROVIDER:UNIT:COUNT (s, ms, us or hz, and a positive count)",
			      ap->text);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit)) {
			struct kt_target t = { kind, NULL, kl_arena_printf(m->a, "%s:%s:%llu", ap->provider, unit, n), 0, 0, pi, NULL };
			if (units[i].ns)
				t.period_ns = units[i].ns * n;
			else if (kind == KP_INTERVAL)
				t.period_ns = 1000000000ull / n;
			else
				t.freq = n;
			return add_target(m, v, t);
		}
	return err_at(m, ap->span, "%s: the unit must be s, ms, us or hz", ap->text);
}

/* uprobe:FILE:FUNC, uretprobe:...; kprobe:FUNC, kretprobe:FUNC. The file is found now; the
 * function's offset in it when attaching (libkiln). kprobes compile: a kernel without them
 * says so when they attach. */
static int dynamic_probe(struct sm *m, const struct kt_attach *ap, uint32_t pi, void *vv, enum kt_pkind kind)
{
	bool user = kind == KP_UPROBE || kind == KP_URETPROBE;
	const char *func = user ? ap->func : ap->target;
	if (!func || (user ? ap->extra != NULL : ap->func != NULL))
		return err_at(m, ap->span, user ? "%s: expected uprobe:FILE:FUNCTION" : "%s: expected kprobe:FUNCTION", ap->text);
	if (has_wild(func) || (user && has_wild(ap->target)))
		return err_at(m, ap->span, "%s: wildcards in uprobes and kprobes are not supported yet by kiln trace", ap->text);
	if (strchr(func, '+') || isdigit((unsigned char)func[0]))
		return err_at(m, ap->span, "%s: offsets and addresses are not supported yet by kiln trace", ap->text);
	struct kt_target t = { .kind = kind, .event = func, .probe_index = pi };
	if (user) {
		char msg[1024];
		if (kt_find_binary(m->a, ap->target, &t.binary, msg, sizeof(msg)))
			return err_at(m, ap->span, "%s", msg);
		t.probe = kl_arena_printf(m->a, "%s:%s:%s", ap->provider, t.binary, func);
	} else {
		t.probe = kl_arena_printf(m->a, "%s:%s", ap->provider, func);
	}
	return add_target(m, vv, t);
}

static int resolve_attach(struct sm *m, const struct kt_attach *ap, uint32_t pi, void *vv)
{
	struct tvec *v = vv;
	const char *p = ap->provider;
	if (!strcmp(p, "BEGIN") || !strcmp(p, "END")) {
		if (ap->target)
			return err_at(m, ap->span, "%s takes no target", p);
		return add_target(m, v, (struct kt_target){ p[0] == 'B' ? KP_BEGIN : KP_END, NULL, p, 0, 0, pi, NULL });
	}
	if (!strcmp(p, "tracepoint"))
		return expand_tracepoint(m, ap, pi, vv);
	if (!strcmp(p, "interval"))
		return timed(m, ap, pi, vv, KP_INTERVAL);
	if (!strcmp(p, "profile"))
		return timed(m, ap, pi, vv, KP_PROFILE);
	if (!strcmp(p, "uprobe") || !strcmp(p, "uretprobe"))
		return dynamic_probe(m, ap, pi, vv, p[1] == 'r' ? KP_URETPROBE : KP_UPROBE);
	if (!strcmp(p, "kprobe") || !strcmp(p, "kretprobe"))
		return dynamic_probe(m, ap, pi, vv, p[1] == 'r' ? KP_KRETPROBE : KP_KPROBE);
	static const char *const known[] = { "usdt", "software",
		"hardware", "watchpoint", "asyncwatchpoint", "kfunc", "kretfunc", "rawtracepoint", "iter" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(p, known[i]))
			return kl_error(m->d, ap->span, "%s probes are %s", p, refused);
	return err_at(m, ap->span, "invalid probe type: %s", p);
}

/* ---- expressions ---- */

static int expr(struct sm *m, struct kt_node *n);

static struct kt_map *map_of(struct sm *m, struct kt_node *n)
{
	for (size_t i = 0; i < m->maps.len; i++)
		if (!strcmp(m->maps.items[i].name, n->name)) {
			n->map_id = (int)i;
			return &m->maps.items[i];
		}
	struct kt_map mp = { .name = n->name, .span = n->span };
	kl_vec_push(m->a, &m->maps, mp);
	n->map_id = (int)m->maps.len - 1;
	return &m->maps.items[m->maps.len - 1];
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
		if (k.kind == KTT_TUPLE)
			for (uint32_t i = 0; i < k.nelems; i++)
				if (k.elems[i].kind == KTT_TUPLE)
					return err_at(m, n->a->span, "a tuple inside a map key is %s", refused);
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
	if (k.kind == KTT_STR && k.size > mk->size)
		mk->size = k.size;
	for (uint32_t i = 0; k.kind == KTT_TUPLE && i < k.nelems; i++)
		if (k.elems[i].kind == KTT_STR && k.elems[i].size > mk->elems[i].size)
			mk->elems[i].size = k.elems[i].size;
	return 0;
}

struct builtin {
	const char *name;
	struct kt_type type;
	bool supported;
};
static const struct builtin builtins[] = {
	{ "pid", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true }, { "tid", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true },
	{ "uid", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true }, { "gid", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true },
	{ "nsecs", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true }, { "elapsed", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true },
	{ "cpu", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true }, { "comm", { KTT_STR, 16, false, 0, 0, NULL, false, NULL }, true },
	{ "probe", { KTT_PROBE, 8, false, 0, 0, NULL, false, NULL }, true }, { "args", { KTT_NONE, 0, false, 0, 0, NULL, false, NULL }, true },
	{ "retval", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true },
	{ "kstack", { KTT_KSTACK, KILN_STACK_MAX_DEPTH, false, 0, 0, NULL, false, NULL }, true },
	{ "ustack", { KTT_USTACK, KILN_STACK_MAX_DEPTH, false, 0, 0, NULL, false, NULL }, true }, 
	{ "curtask", { KTT_INT, 8, false, 0, 0, "task_struct", false, NULL }, true }, { "rand", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true }, { "cgroup", { 0 }, false },
	{ "func", { KTT_STR, 0, false, 0, 0, NULL, false, NULL }, true }, { "username", { KTT_USERNAME, 8, false, 0, 0, NULL, false, NULL }, true }, { "cpid", { KTT_INT, 8, false, 0, 0, NULL, false, NULL }, true },
	{ "ctx", { 0 }, false }, { "numaid", { 0 }, false },
};

static int ident(struct sm *m, struct kt_node *n)
{
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
				return err_at(m, n->span, "%s", "retval is only in uretprobe and kretprobe probes");
			if (!strcmp(n->name, "cpid") && !m->s->has_child)
				return err_at(m, n->span, "%s", "cpid is the pid of the command -c runs: use it with -c");
			n->kind = KT_BUILTIN;
			n->type = builtins[i].type;
			if (kt_is_stack(&n->type))
				m->s->has_stacks = true;
			return 0;
		}
	if (!strncmp(n->name, "arg", 3) && n->name[3] >= '0' && n->name[3] <= '5' && !n->name[4]) {
		if (!m->has_args)
			return err_at(m, n->span, "%s is only in uprobe and kprobe probes", n->name);
		n->kind = KT_BUILTIN;   /* the argument registers of x86-64 (pt_regs) */
		n->type = t_int(8, false);
		return 0;
	}
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
	if (kt_cdef_value(n->name, &v) == 0 || kt_kenum(n->name, &v) == 0) {
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
	if (kt_kfield(n->a->type.tname, n->name, &n->type, msg, sizeof(msg)))
		return err_at(m, n->span, "%s", msg);
	n->type.user = n->a->type.user;
	if (n->type.user && (n->type.kind != KTT_INT || n->type.tname))
		return err_at(m, n->span, "%s", "only integer fields of a struct in user memory are read by kiln trace yet");
	return 0;
}

static int arrow(struct sm *m, struct kt_node *n)
{
	if (!n->name)
		return err_at(m, n->span, "%s", "-> needs a field name");
	if (n->a->kind != KT_IDENT || strcmp(n->a->name, "args")) {   /* a kernel struct through BTF */
		if (expr(m, n->a))
			return -1;
		if (n->a->type.kind != KTT_INT || !n->a->type.tname)
			return err_at(m, n->span, "%s", "-> needs a pointer to a kernel struct (curtask, a field of one, a cast to (struct NAME *))");
		return struct_field(m, n);
	}
	if (!m->is_tracepoint)
		return err_at(m, n->span, "%s", "args->FIELD is only supported in tracepoint probes by kiln trace yet");
	n->a->kind = KT_BUILTIN;
	struct kt_type ty = { 0 };
	for (uint32_t i = 0; i < m->s->ntargets; i++) {
		const struct kt_target *t = &m->s->targets[i];
		if (t->probe_index != m->first->probe_index)
			continue;
		struct kl_tp_field f;
		char msg[2048];
		if (kt_tp_field(m->a, t->event, n->name, &f, msg, sizeof(msg)))
			return err_at(m, n->span, "%s", msg);
		struct kt_type ft = f.data_loc ? t_str(m->s->strlen) : f.count && f.size / f.count == 1 ? t_str(f.size)
				   : f.count ? (struct kt_type){ .kind = KTT_NONE } : t_int(f.size, f.is_signed);
		if (ft.kind == KTT_NONE || (ft.kind == KTT_INT && f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
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
	if (n->is_ptr_cast && !n->num && !strncmp(n->name, "struct ", 7)) {
		char msg[1024];
		if (n->a->type.kind != KTT_INT)
			return err_at(m, n->span, "cannot cast to (%s *): the value is not an integer", n->name);
		if (kt_kstruct(n->name + 7, msg, sizeof(msg)))
			return err_at(m, n->span, "%s", msg);
		n->type = t_int(8, false);
		n->type.tname = n->name + 7;
		return 0;
	}
	return err_at(m, n->span, "the cast to (%s) is not supported yet by kiln trace", n->name);
}

static int call(struct sm *m, struct kt_node *n);

static int expr(struct sm *m, struct kt_node *n)
{
	switch (n->kind) {
	case KT_INT:
		n->type = t_int(8, true);
		return 0;
	case KT_STR:
		n->type = t_str(n->strlen + 1);
		return 0;
	case KT_POSPARAM: {
		if (n->num == 0) {   /* $# */
			n->kind = KT_INT;
			n->num = m->s->nparams;
			n->type = t_int(8, true);
			return 0;
		}
		const char *v = n->num <= m->s->nparams ? m->s->params[n->num - 1] : "";
		char *end;
		long long x = strtoll(v, &end, 0);
		if (*v && !*end) {
			n->kind = KT_INT;
			n->num = x;
			n->type = t_int(8, true);
		} else {   /* a string parameter; a missing one is "" (bpftrace: 0 in an integer context) */
			n->kind = KT_STR;
			n->str = v;
			n->strlen = (uint32_t)strlen(v);
			n->type = t_str(n->strlen + 1);
		}
		return 0;
	}
	case KT_IDENT:
		return ident(m, n);
	case KT_BUILTIN:
		return 0;
	case KT_VAR:
		for (size_t i = 0; i < m->vars.len; i++)
			if (!strcmp(m->vars.items[i].name, n->name)) {
				n->var_id = (int)i;
				n->type = m->vars.items[i].type;
				return 0;
			}
		return err_at(m, n->span, "undefined variable: $%s", n->name);
	case KT_MAP: {
		struct kt_map *mp = map_of(m, n);
		if (map_key(m, n, mp))
			return -1;
		mp = &m->maps.items[n->map_id];
		switch (mp->kind) {
		case KM_INT: case KM_STR:
			n->type = mp->value;
			return 0;
		case KM_COUNT: case KM_SUM: case KM_MIN: case KM_MAX:
			n->type = t_int(8, mp->kind != KM_COUNT);
			return 0;
		case KM_NONE:
			return kl_error(m->d, n->span, "undefined map: @%s (read before it is assigned)", n->name);
		default:
			return kl_error(m->d, n->span, "reading @%s (an avg, stats, hist or lhist map) in an expression is %s",
					n->name, refused);
		}
	}
	case KT_CALL:
		return call(m, n);
	case KT_BINOP: {
		if (expr(m, n->a) || expr(m, n->b))
			return -1;
		struct kt_type *l = &n->a->type, *r = &n->b->type;
		bool cmp = n->op == KT_OP_EQ || n->op == KT_OP_NE;
		if (l->kind == KTT_STR || r->kind == KTT_STR) {
			if (!cmp || l->kind != r->kind)
				return err_at(m, n->span, "%s", "strings can only be compared with == and != to strings");
			if (n->b->kind != KT_STR && n->a->kind != KT_STR)
				return err_at(m, n->span, "%s", "comparing two computed strings is not supported yet by kiln trace (compare with a literal)");
			n->type = t_int(8, false);
			return 0;
		}
		if (l->kind != KTT_INT || r->kind != KTT_INT)
			return err_at(m, n->span, "%s", "operands must be integers");
		bool ls = l->is_signed || n->a->kind == KT_INT, rs = r->is_signed || n->b->kind == KT_INT;
		n->type = t_int(8, ls && rs);
		return 0;
	}
	case KT_UNOP:
		if (n->op == '*' || n->op == '&')
			return err_at(m, n->span, "the unary %s (pointers) is not supported yet by kiln trace",
				      n->op == '*' ? "*" : "&");
		if (expr(m, n->a))
			return -1;
		if (n->a->type.kind != KTT_INT)
			return err_at(m, n->span, "%s", "the operand must be an integer");
		n->type = n->op == '!' ? t_int(8, false) : n->a->type;
		if (n->op == '-')
			n->type.is_signed = true;
		return 0;
	case KT_TERNARY:
		if (expr(m, n->a) || expr(m, n->b) || expr(m, n->c))
			return -1;
		if (n->a->type.kind != KTT_INT)
			return err_at(m, n->a->span, "%s", "the condition must be an integer");
		if (n->b->type.kind != n->c->type.kind || (n->b->type.kind != KTT_INT && n->b->type.kind != KTT_STR))
			return err_at(m, n->span, "%s", "both branches of the ternary must be integers, or both strings");
		n->type = n->b->type;
		if (n->type.kind == KTT_STR && n->c->type.size > n->type.size)
			n->type.size = n->c->type.size;
		n->type.is_signed = n->b->type.is_signed && n->c->type.is_signed;
		return 0;
	case KT_CAST:
		return cast(m, n);
	case KT_TUPLE: {
		struct kt_type *e = kl_arena_array(m->a, struct kt_type, n->nkids);
		for (uint32_t i = 0; i < n->nkids; i++) {
			if (expr(m, n->kids[i]))
				return -1;
			e[i] = n->kids[i]->type;
			if (e[i].kind != KTT_INT && !kt_in_memory(&e[i]) && e[i].kind != KTT_PROBE && !kt_is_symbolic(&e[i]))
				return err_at(m, n->kids[i]->span, "%s", "tuple elements other than integers and strings are not supported yet by kiln trace");
		}
		n->type = (struct kt_type){ .kind = KTT_TUPLE, .nelems = n->nkids, .elems = e };
		return 0;
	}
	case KT_ARROW:
		return arrow(m, n);
	case KT_FIELD:
		if (expr(m, n->a))
			return -1;
		if (n->a->type.kind == KTT_STRUCT)   /* $task->se.cfs_rq */
			return struct_field(m, n);
		return err_at(m, n->span, "%s", "field access with '.' (tuple elements, structs) is not supported yet by kiln trace");
	case KT_INDEX:
		return err_at(m, n->span, "%s", "indexing with [] is not supported yet by kiln trace");
	case KT_SIZEOF: case KT_OFFSETOF:
		return err_at(m, n->span, "%s() is not supported yet by kiln trace", n->name);
	case KT_INCDEC:
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
		return 0;
	default:
		return err_at(m, n->span, "%s", "unexpected statement in an expression");
	}
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
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
		if (!strcmp(f, aggs[i].name))
			return kl_error(m->d, n->span, "%s() should be assigned to a map", f);
	const struct kt_fn *fn = kt_fn_find(f);
	if (!fn)
		return err_at(m, n->span, "Unknown function: %s", f);
	if (!fn->check)
		return kl_error(m->d, n->span, "the function %s() is %s", f, refused);
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
		else if (kt_in_memory(&v->type))
			kind = KM_STR;
		else if (kt_is_symbolic(&v->type))
			kind = KM_INT;
		else
			return kl_error(m->d, v->span, "%s", "only integers and strings can be stored in maps by kiln trace yet");
	}
	if (mp->kind != KM_NONE && (mp->kind != kind || (kind == KM_STR && mp->value.kind != v->type.kind)))
		return kl_error(m->d, s->span, "type mismatch for @%s: it was assigned another kind of value before", mn->name);
	if (mp->kind == KM_NONE) {
		mp->kind = kind;
		mp->value = v->type;
		if (kind == KM_INT && !kt_is_symbolic(&v->type))
			mp->value = t_int(8, v->type.is_signed);
	} else if (kind == KM_STR && v->type.size > mp->value.size) {
		mp->value.size = v->type.size;
	}
	return 0;
}

static int stmt(struct sm *m, struct kt_node *s);

static int block(struct sm *m, struct kt_node *b)
{
	for (uint32_t i = 0; i < b->nkids; i++)
		if (stmt(m, b->kids[i]))
			return -1;
	return 0;
}

static int stmt(struct sm *m, struct kt_node *s)
{
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
		if (s->b->type.kind != KTT_INT && !kt_in_memory(&s->b->type) && !kt_is_symbolic(&s->b->type))
			return kl_error(m->d, s->b->span, "%s", "only integers and strings can be kept in $variables by kiln trace yet");
		for (size_t i = 0; i < m->vars.len; i++)
			if (!strcmp(m->vars.items[i].name, s->a->name)) {
				struct kt_var *v = &m->vars.items[i];
				if (v->type.kind != s->b->type.kind)
					return kl_error(m->d, s->span, "type mismatch for $%s: it holds a%s, not a%s", s->a->name,
							v->type.kind == KTT_INT ? "n integer" : " string",
							s->b->type.kind == KTT_INT ? "n integer" : " string");
				if (s->b->type.kind == KTT_STR && s->b->type.size > v->type.size)
					return kl_error(m->d, s->span, "$%s holds strings of %u bytes; this one is %u", s->a->name,
							v->type.size, s->b->type.size);
				s->a->var_id = (int)i;
				s->a->type = v->type;
				return 0;
			}
		struct kt_var v = { s->a->name, s->b->type };
		if (v.type.kind == KTT_INT) {
			v.type = t_int(8, s->b->type.is_signed);
			v.type.tname = s->b->type.tname;   /* $t = curtask; $t->pid */
		}
		kl_vec_push(m->a, &m->vars, v);
		s->a->var_id = (int)m->vars.len - 1;
		s->a->type = v.type;
		return 0;
	case KT_IF:
		if (expr(m, s->a) || block(m, s->b) || (s->c && block(m, s->c)))
			return -1;
		if (s->a->type.kind != KTT_INT)
			return kl_error(m->d, s->a->span, "%s", "the condition must be an integer");
		return 0;
	case KT_UNROLL:
		if (expr(m, s->a))
			return -1;
		if (s->a->kind != KT_INT || s->a->num < 1 || s->a->num > 100)
			return kl_error(m->d, s->a->span, "%s", "unroll needs a constant count from 1 to 100");
		return block(m, s->b);
	case KT_WHILE: {
		if (expr(m, s->a))
			return -1;
		bool was = m->in_loop;
		m->in_loop = true;
		int r = block(m, s->b);
		m->in_loop = was;
		return r;
	}
	case KT_BREAK: case KT_CONTINUE:
		return kl_error(m->d, s->span, "%s is %s", s->kind == KT_BREAK ? "break" : "continue", refused);
	case KT_RETURN:
		return 0;
	default:
		return kl_error(m->d, s->span, "%s", "unexpected expression where a statement should be");
	}
}

int kt_sema(struct kt_program *prog, struct kt_sema *s, struct kl_arena *a, struct kl_diag *d)
{
	struct sm m = { .s = s, .a = a, .d = d };
	struct tvec targets = { 0 };
	for (uint32_t p = 0; p < prog->nprobes; p++)
		for (uint32_t i = 0; i < prog->probes[p].nattach; i++)
			if (resolve_attach(&m, &prog->probes[p].attach[i], p, &targets))
				return -1;
	s->targets = targets.items;
	s->ntargets = (uint32_t)targets.len;
	s->vars = kl_arena_array(a, struct kt_var *, prog->nprobes);
	s->nvars = kl_arena_array(a, uint32_t, prog->nprobes);
	for (uint32_t p = 0; p < prog->nprobes; p++) {
		m.probe = &prog->probes[p];
		m.vars = (typeof(m.vars)){ 0 };
		m.first = NULL;
		m.is_tracepoint = m.has_args = m.has_retval = m.has_func = true;
		for (uint32_t i = 0; i < s->ntargets; i++)
			if (s->targets[i].probe_index == p) {
				enum kt_pkind k = s->targets[i].kind;
				if (!m.first)
					m.first = &s->targets[i];
				m.is_tracepoint = m.is_tracepoint && k == KP_TRACEPOINT;
				m.has_args = m.has_args && (k == KP_UPROBE || k == KP_KPROBE);
				m.has_retval = m.has_retval && (k == KP_URETPROBE || k == KP_KRETPROBE);
				m.has_func = m.has_func && k >= KP_UPROBE && k <= KP_KRETPROBE;
			}
		if (m.probe->pred) {
			if (expr(&m, m.probe->pred))
				return -1;
			if (m.probe->pred->type.kind != KTT_INT)
				return kl_error(d, m.probe->pred->span, "%s", "a predicate must be an integer (or a comparison)");
		}
		if (block(&m, m.probe->block))
			return -1;
		s->vars[p] = m.vars.items;
		s->nvars[p] = (uint32_t)m.vars.len;
	}
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
		mp->value_size = mp->kind == KM_STR ? mp->value.size : mp->kind == KM_AVG || mp->kind == KM_STATS ? 16 : 8;
	}
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
