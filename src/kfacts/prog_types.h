/* prog_types.h — the facts about each kernel program type that more than one layer needs
 * (loading it bare, probing its helpers, its pass action, attaching it), one row per type
 * in prog_types.def, which also holds the compiler's defprog :type rows (compiler/tables.h).
 * Below the compiler, libkiln and the CLI: it includes only the uapi. */
#ifndef KL_KFACTS_PROG_TYPES_H
#define KL_KFACTS_PROG_TYPES_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/bpf.h>
#include "kiln/object.h"

/* Numbers newer than linux 6.1's <linux/bpf.h>, the build's (Debian 12). */
#define KL_PROG_TYPE_NETFILTER 32
#define KL_ATTACH_NETFILTER 45

struct kl_prog_kind {
	uint32_t prog_type;          /* enum bpf_prog_type */
	uint32_t load_attach;        /* the expected attach type it needs to load at all */
	uint32_t load_flags;         /* the program flags it needs to load (BPF_F_SLEEPABLE) */
	bool kern_version;           /* loads only with the kernel's version (before 5.0) */
	bool helpers_unprobeable;    /* loads only against a kernel function or struct */
	bool has_pass;               /* a packet program: pass is what lets a packet through */
	int32_t pass;
	bool attach_opts;            /* attaches only with what kiln_attach_opts names */
};

/* How a program attaches by its section (ATTACH_SECTION rows). */
struct kl_attach_section {
	const char *pattern;         /* "xdp", "kprobe/", "uprobe+" */
	enum kiln_attach_kind kind;
	enum bpf_prog_type type;     /* set on a program libbpf left without one (0: none) */
	enum bpf_attach_type expected;
	bool tc_fixed;               /* the section names the tc direction: tc_dir */
	enum kiln_tc_dir tc_dir;
	bool tcx_only;               /* only a tcx link will do */
	const char *hint;            /* KILN_ATTACH_NONE: what does attach it, for messages */
};

/* Whether section is one that pattern stands for, as libbpf matches its section_defs:
 * "name" exactly, "name/" with a non-empty target after the slash, "name+" either. */
bool kl_section_matches(const char *pattern, const char *section);
/* The first row whose pattern takes section (NULL for a NULL section), or NULL. */
const struct kl_attach_section *kl_attach_section_find(const char *section);

/* The row of a kernel program type, or a row of zeroes for one the list has nothing on. */
const struct kl_prog_kind *kl_prog_kind_facts(uint32_t prog_type);
/* Every row, in the list's order: n of them. */
const struct kl_prog_kind *kl_prog_kinds(size_t *n);

#endif
