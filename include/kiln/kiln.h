/* kiln/kiln.h — all of libkiln: maps, pinning, objects and attachment, program info and
 * test runs. Link with `pkg-config --libs kiln` (-lkiln). */
#ifndef KILN_KILN_H
#define KILN_KILN_H
#include "error.h"
#include "map.h"
#include "object.h"
#include "pin.h"
#include "prog.h"
#include "stack.h"
#endif
