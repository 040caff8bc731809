/* lib/compile.h — libkiln's internal compile entry for a front end in the same process
 * (kiln trace) that hands the compiler nodes it built, each spanning its own script, instead
 * of text. Everyone else compiles through kiln_compile() (<kiln/compile.h>). */
#ifndef KL_LIB_COMPILE_H
#define KL_LIB_COMPILE_H

struct kl_source;
struct kl_node;
struct kl_diag;

/* Compile the top-level forms (src names the script they span) at opt_level into a malloc'd
 * ELF image; a compile error is left in d as a value, spanning the script (d->err set when
 * the failure is not the source's). */
int kl_compile_forms_to_mem(const struct kl_source *src, struct kl_node **forms, unsigned nforms, int opt_level,
			    struct kl_diag *d, void **elf, size_t *size);

#endif
