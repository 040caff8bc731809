/* gen_check.c — -k and -kk (gen_check.h): bpftrace 0.17 checks a helper's result where asked
 * and sends a record when it failed; user space prints "WARNING: Failed to HELPER: ERROR (N)"
 * at the script's place (src/cli/trace_herr.c). -k checks every helper but the reads and map
 * lookups, which give 0 on failure for the script to see; -kk checks those too, a lookup
 * failing when it finds nothing (its value 0). Each checked call gets a site (KT_EV_HELPER):
 * the helper's name and its span; the record is its id and the helper's return value. */
#define _GNU_SOURCE
#include "trace/gen_check.h"
#include <stdio.h>
#include <string.h>

static bool wanted(const struct g *g, bool read)
{
	return g->s->helper_checks >= (read ? 2 : 1);
}

void kt_check_defs(struct g *g)
{
	if (g->s->helper_checks)
		kt_emit(&g->b, "(defevent kt-herr [:id :u64] [:rc :u64])");
}

/* A new site for the helper at `at`: its index. */
static uint32_t site(struct g *g, const char *helper, struct kl_span at)
{
	kl_vec_push(g->a, &g->sites, ((struct kt_site){ .kind = KT_EV_HELPER, .fmt = helper, .span = at }));
	return (uint32_t)g->sites.len - 1;
}

static void record(struct g *g, uint32_t id, const char *rc)
{
	const char *e = kt_fresh(g, "e");
	kt_emit(&g->b, "(with-event (%s kt-herr " KT_RINGBUF ") (setf (kt-herr-id %s) %p) (setf (kt-herr-rc %s) %s))", e, e,
		kt_rec_id(g, KT_EV_HELPER, id), e, rc);
}

const char *kt_check_open(struct g *g, const char *helper, bool read, struct kl_span at)
{
	if (!wanted(g, read))
		return NULL;
	const char *rc = kt_fresh(g, "rc");
	kt_emit(&g->b, "(let ((%s ", rc);
	/* the site's number rides in the name's table: kept until the close */
	kl_vec_push(g->a, &g->checks, site(g, helper, at));
	return rc;
}

void kt_check_close(struct g *g, const char *rc)
{
	if (!rc)
		return;
	uint32_t id = g->checks.items[--g->checks.len];
	kt_emit(&g->b, ")) (when (s< %s 0) ", rc);
	record(g, id, rc);
	kt_emit(&g->b, "))");
}

void kt_check_lookup(struct g *g, int map_id, const char *key, struct kl_span at)
{
	const char *p = kt_fresh(g, "p");
	kt_emit(&g->b, "(let ((%s (map-lookup m%d %s))) (if %s (load u64 %s 0) (progn ", p, map_id, key, p, p);
	record(g, site(g, "map_lookup_elem", at), "0");
	kt_emit(&g->b, " 0)))");
}

const char *kt_check_read_name(const struct g *g, bool user)
{
	if (user)
		return "probe_read_user";
	switch (g->t->kind) {   /* bpftrace's probes without an address space */
	case KP_BEGIN: case KP_END: case KP_INTERVAL: case KP_PROFILE: case KP_SOFTWARE: case KP_HARDWARE: case KP_WATCHPOINT:
		return "probe_read";
	default:
		return "probe_read_kernel";
	}
}
