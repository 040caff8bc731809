/* gen_cstruct.h — gen's reads through the structs a script defines (gen_cstruct.c). */
#ifndef KT_GEN_CSTRUCT_H
#define KT_GEN_CSTRUCT_H
#include "trace/gen_priv.h"

/* Is n (`p->f`, `x.f`) a member of one of the script's structs? */
bool kt_gen_cs_member(const struct g *g, const struct kt_node *n);
/* Such a member as an integer (an array: its first element's address); false if n is none. */
bool kt_gen_cs_int(struct g *g, const struct kt_node *n);
/* Such a member, a char array, as a string at d (size bytes); false if n is none. */
bool kt_gen_cs_str(struct g *g, const struct kt_node *n, const char *d, uint32_t size);
#endif
