/* events.h — clj-ebpf's event definitions on the host (seed 002): make-event-def, and the
 * introspection forms (event-size, event-fields, ...) over a defevent's definition. */
#ifndef KL_HOST_EVENTS_H
#define KL_HOST_EVENTS_H
#include "lisp/lisp.h"

/* make-event-def and the event-* functions, or NULL for another name */
lv_builtin_fn host_event_builtin(const char *name, int *min, int *max);
/* (defevent NAME SPEC...) met at the top level: NAME bound to its definition */
void host_define_event(struct lisp *h, const struct kl_node *form);
#endif
