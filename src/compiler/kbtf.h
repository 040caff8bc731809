/* kbtf.h — the kernel's BTF at compile time: read the first time a program names a kernel
 * type, once per process and path (a mutex guards the cache, so compilations in threads share
 * it), and indexed by name so that each lookup is a hash probe, not a walk of 100,000 types. */
#ifndef KL_KBTF_H
#define KL_KBTF_H
#include <stddef.h>
#include <stdint.h>

struct btf;
struct kl_kbtf;
struct kl_nearest;

#define KL_KBTF_DEFAULT "/sys/kernel/btf/vmlinux"

/* Families of kinds to look a name up in. */
enum {
	KL_KB_STRUCT = 1,      /* STRUCT and UNION */
	KL_KB_ENUM = 2,        /* ENUM and ENUM64 */
	KL_KB_TYPEDEF = 4,
	KL_KB_FUNC = 8,
	KL_KB_INT = 16,
	KL_KB_FWD = 32,
	KL_KB_ANY = 63,        /* the types (not VAR) */
	KL_KB_VAR = 64,        /* VAR: the kernel's variables it types (per-CPU ones) */
};

/* The kernel BTF at path (NULL: KL_KBTF_DEFAULT), parsed and indexed on first use and kept
 * for the life of the process. NULL with a message in err. */
const struct kl_kbtf *kl_kbtf_open(const char *path, char *err, size_t errlen);
const struct btf *kl_kbtf_btf(const struct kl_kbtf *k);
const char *kl_kbtf_path(const struct kl_kbtf *k);
/* The id of the type called name in one of the kind families, 0 if none. */
uint32_t kl_kbtf_find(const struct kl_kbtf *k, const char *name, int kinds);
/* Feed the names of one kind family within a few edits of nb->want to nb, for "did you mean". */
void kl_kbtf_nearest(const struct kl_kbtf *k, struct kl_nearest *nb, int kinds);
/* The kind family of a BTF kind (0 for kinds that are not indexed). */
int kl_kbtf_family(unsigned btf_kind);

#endif
