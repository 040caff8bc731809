/* gen_lisp.h — `kiln gen lisp`: an object's structs and unions as Lisp for kiln's host
 * (gen_lisp.c). */
#ifndef KL_CLI_GEN_LISP_H
#define KL_CLI_GEN_LISP_H
#include <stdio.h>
#include "gen_c.h"

/* Record types, make-, accessors, decode-, encode- and +NAME-size+ for every struct and union
 * gen_roots gives and those they hold, and the lists of maps and events. 0 or -errno. */
int gen_lisp(FILE *out, const struct gen_input *in);

#endif
