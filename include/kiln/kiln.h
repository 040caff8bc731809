/* kiln/kiln.h — all of libkiln: the compiler, maps, pinning, objects and attachment,
 * program info and test runs, event layouts and readers, stack traces, probes of what the
 * kernel supports.
 * Link with `pkg-config --libs kiln` (-lkiln). */
#ifndef KILN_KILN_H
#define KILN_KILN_H
#include "compile.h"
#include "error.h"
#include "event.h"
#include "ktime.h"
#include "map.h"
#include "perf.h"
#include "object.h"
#include "paths.h"
#include "pin.h"
#include "probe.h"
#include "prog.h"
#include "ringbuf.h"
#include "stack.h"
#include "value.h"
#include "verifier.h"
#endif
