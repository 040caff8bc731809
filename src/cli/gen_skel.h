/* gen_skel.h — `kiln gen skeleton` (gen_skel.c). */
#ifndef KL_CLI_GEN_SKEL_H
#define KL_CLI_GEN_SKEL_H
#include "gen_c.h"

/* The skeleton header: the object embedded, its maps, programs and links as members. */
int gen_skeleton(FILE *out, const struct gen_input *in);

#endif
