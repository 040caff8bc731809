/* probe_internal.h — what probe.c (probing) and probe_file.c (reading a saved probe) share. */
#ifndef KL_LIB_PROBE_INTERNAL_H
#define KL_LIB_PROBE_INTERNAL_H
#include "kiln/probe.h"

/* Record feature f as known, present or not. */
void kl_probe_feat_set(struct kiln_probe *p, enum kiln_probe_feature f, bool have);

#endif
