/* gen_watch.h — watchpoint:FUNCTION+argN's uprobe (gen_watch.c): argN's value sent to user
 * space (a KT_EV_WATCH record), which attaches the watchpoint there. */
#ifndef KT_GEN_WATCH_H
#define KT_GEN_WATCH_H
#include "trace/gen_priv.h"

/* The record's definition (defevent kt-watch), when a target needs it. */
void kt_watch_defs(struct g *g);
/* The body of setup target t: the record, and SIGSTOP to the process unless asynchronous. */
void kt_watch_setup_body(struct g *g, const struct kt_target *t);
#endif
