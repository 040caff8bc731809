/* metrics.h — `kiln run --metrics ADDR:PORT`: the maps as Prometheus text exposition (format
 * 0.0.4). metrics.c works out once, before serving, what each map is served as (a plan with
 * the exporter's own handles on the maps) and writes the exposition from it, reading the maps
 * at each scrape; metrics_http.c serves it with libmicrohttpd from threads of its own, so that
 * no client can hold up kiln run's event loop. */
#ifndef KL_CLI_METRICS_H
#define KL_CLI_METRICS_H
#include "cli.h"

struct kiln_events;
struct cli_metrics_plan;

/* The maps of obj that skip() does not refuse and that are counters, gauges or histograms,
 * each with a handle of the plan's own (its fd dup'ed), their key layouts found in evs. Built
 * in the thread that owns obj and evs; afterwards writing reads only the plan and the kernel.
 * NULL after printing why. */
struct cli_metrics_plan *cli_metrics_plan(struct kiln_object *obj, struct kiln_events *evs,
					  bool (*skip)(struct kiln_map *, void *), void *arg);
void cli_metrics_plan_free(struct cli_metrics_plan *p);
/* Every map of the plan read now, as exposition text: 0, or -errno when a map could not be
 * read (kiln_errmsg() says which and why; out holds part of the text). One thread at a time. */
int cli_metrics_write(FILE *out, struct cli_metrics_plan *p);

/* ADDR:PORT ([V6]:PORT; :PORT for every address, IPv6 and IPv4) bound and listening: the
 * socket, or -1 after printing why. Done before anything is loaded. */
int cli_metrics_listen(const char *spec);
/* The server on lfd (which it takes) for the plan (which it takes too), running in its own
 * thread; NULL after printing why (both freed). */
struct cli_metrics_server;
struct cli_metrics_server *cli_metrics_start(int lfd, struct cli_metrics_plan *plan);
/* Stop accepting, close every connection, join the threads, free everything. Bounded: no
 * client can hold it up (a scrape being written finishes first). NULL is fine. */
void cli_metrics_stop(struct cli_metrics_server *s);

#endif
