/* elf.h — elf.c: a compiled object (obj.h) written as a BPF ELF relocatable. */
#ifndef KL_ELF_H
#define KL_ELF_H
#include <stddef.h>

struct kl_obj;

/* Write obj as an ELF relocatable for EM_BPF at path. Returns 0, or -errno with a message
 * in err (size errlen). */
int kl_elf_write(const struct kl_obj *obj, const char *path, char *err, size_t errlen);
/* The same object written to an open file (a memfd, for compiling in memory). */
int kl_elf_write_fd(const struct kl_obj *obj, int fd, char *err, size_t errlen);

#endif
