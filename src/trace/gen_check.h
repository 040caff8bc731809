/* gen_check.h — -k and -kk (gen_check.c): a helper's failure sent to user space as a record
 * (KT_EV_HELPER, its site naming the helper and the script's place), as bpftrace 0.17 reports
 * it. Nothing is generated without -k, so programs are as before. */
#ifndef KT_GEN_CHECK_H
#define KT_GEN_CHECK_H
#include "trace/gen_priv.h"

/* The error record's definition (defevent kt-herr), when -k asks for checks. */
void kt_check_defs(struct g *g);
/* Before a helper call whose value is its result: "(let ((RC " and RC's name, or NULL when
 * -k/-kk does not check this helper (reads and map lookups only with -kk, as bpftrace's -k
 * leaves them to the 0 they give). helper is bpftrace's name ("probe_read_kernel"); at is
 * the script's construct. */
const char *kt_check_open(struct g *g, const char *helper, bool read, struct kl_span at);
/* After the call: ")) (when (s< RC 0) <the record>))" — nothing when rc is NULL. */
void kt_check_close(struct g *g, const char *rc);
/* -kk's read of @m[key] (an integer): its value, or 0 and the record of map_lookup_elem's
 * failure (bpftrace reports its 0) when the key is not there. */
void kt_check_lookup(struct g *g, int map_id, const char *key, struct kl_span at);
/* The name of the read helper in the current probe: user memory, kernel memory, or, in the
 * probes bpftrace gives no address space (BEGIN, END, interval, ...), its "probe_read". */
const char *kt_check_read_name(const struct g *g, bool user);
#endif
