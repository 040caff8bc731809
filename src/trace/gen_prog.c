/* gen_prog.c — the top of kiln trace's code generator (gen.h's kt_gen): the printf sites'
 * record layouts collected before any code, the maps' definitions, and one defprog per
 * probe target with its section and program type; the probes' bodies are gen.c's. */
#define _GNU_SOURCE
#include "trace/gen_priv.h"
#include "trace/funcs.h"
#include "trace/gen_check.h"
#include "trace/gen_watch.h"
#include "trace/usdt.h"
#include "trace/limits.h"
#include <kiln/stack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printf sites: their record layouts, collected before the code ---- */

static void collect_sites(struct g *g, const struct kt_node *n)
{
	if (!n)
		return;
	if (n->kind == KT_CALL) {
		const struct kt_fn *fn = kt_fn_find(n->name);
		if (fn && fn->site)
			fn->site(g, n);
	}
	collect_sites(g, n->a);
	collect_sites(g, n->b);
	collect_sites(g, n->c);
	for (uint32_t i = 0; i < n->nkids; i++)
		collect_sites(g, n->kids[i]);
}

static const char *const map_kind_names[] = {
	[KM_INT] = "int", [KM_STR] = "string", [KM_TUPLE] = "tuple", [KM_COUNT] = "count", [KM_SUM] = "sum", [KM_MIN] = "min",
	[KM_MAX] = "max", [KM_AVG] = "avg", [KM_STATS] = "stats", [KM_HIST] = "hist", [KM_LHIST] = "lhist",
};

/* Whether n (an expression or statement, at depth) calls a function that sends a record. */
static bool sends(const struct kt_node *n, unsigned depth)
{
	if (!n || depth > 2 * KT_MAX_NEST)   /* (the parser bounds nesting: this is a guard) */
		return n != NULL;
	if (n->kind == KT_CALL) {
		const struct kt_fn *fn = kt_fn_find(n->name);
		if (fn && fn->site)
			return true;
	}
	if (sends(n->a, depth + 1) || sends(n->b, depth + 1) || sends(n->c, depth + 1))
		return true;
	for (uint32_t i = 0; i < n->nkids; i++)
		if (sends(n->kids[i], depth + 1))
			return true;
	return false;
}

/* Whether a probe other than BEGIN and END sends records (printf, print, system, ...): then
 * the ring buffer may see a flood. */
static bool event_probes_send(const struct kt_program *prog)
{
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		const struct kt_probe *p = &prog->probes[i];
		bool special = true;
		for (uint32_t k = 0; k < p->nattach; k++)
			special = special && (!strcmp(p->attach[k].provider, "BEGIN") || !strcmp(p->attach[k].provider, "END"));
		if (!special && sends(p->block, 0))
			return true;
	}
	return false;
}

static void gen_defs(struct g *g, const struct kt_program *prog)
{
	const struct kt_sema *s = g->s;
	/* a ring buffer's size is a power of two pages */
	uint64_t rb = 4096, pages = s->rb_pages;
	if (s->rb_flood_pages > pages && event_probes_send(prog))
		pages = s->rb_flood_pages;
	while (rb < pages * 4096)
		rb <<= 1;
	kt_emit(&g->b, "(defmap " KT_RINGBUF " :type :ringbuf :max-entries %llu)", (unsigned long long)rb);
	kt_emit(&g->b, "(defmap " KT_START_MAP " :type :array :max-entries 2 :key-size 4 :value-size 8)");
	if (s->has_stacks)
		kt_emit(&g->b, "(defmap " KT_STACKS " :type :stack-trace :key u32 :value-size %d :max-entries 4096)",
			8 * KILN_STACK_MAX_DEPTH);
	for (uint32_t i = 0; i < s->nmaps; i++) {
		kt_gen_enter(g, s->maps[i].span);   /* the map's first use */
		const struct kt_map *mp = &s->maps[i];   /* declared: `let @m = lruhash(N)` */
		kt_emit(&g->b, "(defmap m%u :type :%s :max-entries %u :key-size %u :value-size %u)", i,
			mp->bpf_type ? mp->bpf_type : "hash", mp->max_entries ? mp->max_entries : s->map_keys_max,
			mp->key_size, mp->value_size);
		kt_gen_note(g, kl_arena_printf(g->a, "@%s %s", s->maps[i].name, map_kind_names[s->maps[i].kind]));
	}
	kt_emit(&g->b, "(defevent kt-ctl [:id :u64])");
	kt_fn_defuns(g);   /* len's callback, syscall_name's table (fn_v026.c) */
	kt_check_defs(g);
	kt_watch_defs(g);
	for (uint32_t i = 0; i < g->sites.len; i++) {
		const struct kt_site *site = &g->sites.items[i];
		if (site->kind == KT_EV_PRINT || site->kind == KT_EV_TIME)   /* control records (kt-ctl) */
			continue;
		kt_emit(&g->b, "(defevent ev%u [:id :u64]", i);
		for (uint32_t k = 0; k < site->nargs; k++) {
			uint32_t sz = kt_round8(kt_type_size(&site->args[k].type));
			if (kt_is_bytes(&site->args[k].type) || site->args[k].type.kind == KTT_TUPLE)
				kt_emit(&g->b, " [:a%u :u8 %u]", k + 1, sz);
			else
				kt_emit(&g->b, " [:a%u :u64]", k + 1);
		}
		kt_emit(&g->b, ")");
	}
	(void)prog;
}

/* "+8" after a uprobe's or kprobe's function when the attach point gives an offset */
static const char *offset_text(struct g *g, const struct kt_target *t)
{
	return t->offset ? kl_arena_printf(g->a, "+%llu", (unsigned long long)t->offset) : "";
}

/* The program's :type for each kind of probe: a uprobe's and a kprobe's library finds the
 * function in the file at attach; kfuncs are trampolines typed by the function's BTF; a USDT
 * probe is a uprobe at its file offset; interval, profile, software and hardware probes are
 * perf events the runtime opens. */
static const char *const prog_types[] = {
	[KP_BEGIN] = "raw-tracepoint", [KP_END] = "raw-tracepoint", [KP_TRACEPOINT] = "tracepoint",
	[KP_INTERVAL] = "perf-event", [KP_PROFILE] = "perf-event", [KP_UPROBE] = "uprobe", [KP_URETPROBE] = "uretprobe",
	[KP_KPROBE] = "kprobe", [KP_KRETPROBE] = "kretprobe", [KP_KFUNC] = "fentry", [KP_KRETFUNC] = "fexit",
	[KP_RAWTRACEPOINT] = "raw-tracepoint", [KP_USDT] = "uprobe", [KP_SOFTWARE] = "perf-event", [KP_HARDWARE] = "perf-event",
	[KP_WATCHPOINT] = "perf-event",
};

/* The program's section, or NULL for a perf event's (which has none). */
static const char *prog_section(struct g *g, const struct kt_target *t)
{
	const char *k = prog_types[t->kind];
	switch (t->kind) {
	case KP_BEGIN: case KP_END:
		return t->kind == KP_BEGIN ? "raw_tracepoint/kiln_trace_begin" : "raw_tracepoint/kiln_trace_end";
	case KP_TRACEPOINT: case KP_KFUNC: case KP_KRETFUNC:
		return kl_arena_printf(g->a, "%s/%s", t->kind == KP_TRACEPOINT ? "tracepoint" : k, t->event);
	case KP_RAWTRACEPOINT:
		return kl_arena_printf(g->a, "raw_tracepoint/%s", t->event);
	case KP_UPROBE: case KP_URETPROBE:
		return kl_arena_printf(g->a, "%s/%s:%s%s", k, t->binary, t->event, offset_text(g, t));
	case KP_KPROBE: case KP_KRETPROBE:
		return kl_arena_printf(g->a, "%s/%s%s", k, t->event, offset_text(g, t));
	case KP_USDT:
		return kl_arena_printf(g->a, "uprobe/%s:%#llx", t->binary, (unsigned long long)t->offset);
	default:
		return NULL;
	}
}

static void gen_prog(struct g *g, const struct kt_program *prog, uint32_t ti)
{
	const struct kt_target *t = &g->s->targets[ti];
	const struct kt_probe *pr = &prog->probes[t->probe_index];
	g->t = t;
	g->target = ti;
	kt_gen_enter(g, pr->span);   /* the program: its probe */
	const char *section = prog_section(g, t);
	if (section)
		kt_emit(&g->b, "(defprog p%u (:type :%s :section \"%s\") ", ti, prog_types[t->kind], section);
	else
		kt_emit(&g->b, "(defprog p%u (:type :%s) ", ti, prog_types[t->kind]);
	kt_gen_note(g, t->probe);
	if (t->watch_setup) {   /* watchpoint:FUNCTION+argN's uprobe */
		kt_watch_setup_body(g, t);
		return;
	}
	uint32_t nv = g->s->nvars[t->probe_index];
	const struct kt_var *vars = g->s->vars[t->probe_index];
	/* One buffer for every string stored into a map: it is filled and stored at once, and
	 * kiln gives each stack-buffer its own stack (capable.bt stores 40 strings in BEGIN). */
	uint32_t sv = 0;
	for (uint32_t i = 0; i < g->s->nmaps; i++)
		if ((g->s->maps[i].kind == KM_STR || g->s->maps[i].kind == KM_TUPLE) && g->s->maps[i].value_size > sv)
			sv = g->s->maps[i].value_size;
	/* a let binds at most LET_BINDINGS names (kiln's limit is 64): more nest */
	enum { LET_BINDINGS = 32 };
	uint32_t lets = 1, bound = sv ? 1 : 0;
	kt_emit(&g->b, "(let (");
	if (sv)
		kt_emit(&g->b, "(" KT_STR_VALUE " (stack-buffer %u))", kt_round8(sv));
	for (uint32_t i = 0; i < nv; i++, bound++) {
		if (bound == LET_BINDINGS) {
			kt_emit(&g->b, ") (let (");
			lets++;
			bound = 0;
		}
		if (kt_is_bytes(&vars[i].type) || vars[i].type.kind == KTT_TUPLE)
			kt_emit(&g->b, "(v%u (stack-buffer %u))", i, kt_round8(kt_type_size(&vars[i].type)));
		else
			kt_emit(&g->b, "(v%u 0)", i);
	}
	kt_emit(&g->b, ") ");
	if (pr->pred) {
		kt_emit(&g->b, "(when ");
		kt_gen_int(g, pr->pred);
	}
	kt_gen_block(g, pr->block);
	if (pr->pred)
		kt_emit(&g->b, ")");
	while (lets--)
		kt_emit(&g->b, ")");
	kt_emit(&g->b, " 0)");
}

int kt_gen(const struct kt_program *prog, const struct kt_sema *s, struct kl_arena *a, struct kl_diag *d,
	   struct kt_gen *out)
{
	struct g g = { .s = s, .a = a, .d = d, .loop = -1 };
	*out = (struct kt_gen){ 0 };
	/* sites are per probe in the tree; a probe with several targets shares them */
	uint32_t *first_site = kl_arena_array(a, uint32_t, prog->nprobes + 1);
	for (uint32_t p = 0; p < prog->nprobes; p++) {
		first_site[p] = (uint32_t)g.sites.len;
		collect_sites(&g, prog->probes[p].pred);
		collect_sites(&g, prog->probes[p].block);
	}
	/* before the first probe's code, the script's start */
	g.b = (struct kt_build){ .a = a, .d = d, .cur = { prog->nprobes ? prog->probes[0].span.src : NULL, 1, 1 } };
	gen_defs(&g, prog);
	for (uint32_t i = 0; i < s->ntargets && !g.err && !g.b.err; i++) {
		g.site = first_site[s->targets[i].probe_index];
		gen_prog(&g, prog, i);
	}
	out->sites = g.sites.items;
	out->nsites = (uint32_t)g.sites.len;
	if (g.err || kt_build_end(&g.b, &out->forms, &out->nforms))
		return -1;
	out->notes = kl_arena_array(a, const char *, out->nforms + 1);
	memset(out->notes, 0, sizeof(*out->notes) * (out->nforms + 1));
	for (size_t i = 0; i < g.notes.len; i++)
		out->notes[g.notes.items[i].form] = g.notes.items[i].text;
	return 0;
}
