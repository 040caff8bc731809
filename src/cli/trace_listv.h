/* trace_listv.h — the arguments `kiln trace -lv` lists under a kfunc or a uprobe
 * (trace_listv.c), in bpftrace 0.17's "    TYPE NAME" lines. */
#ifndef KILN_TRACE_LISTV_H
#define KILN_TRACE_LISTV_H
#include "compiler/arena.h"
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Kernel function func's parameters and "retval" from the kernel's BTF; none without. */
void trace_kfunc_params(FILE *out, const char *func);

/* A user file's DWARF, its functions indexed by name; NULL when it has none. */
struct trace_dw;
struct trace_dw *trace_dw_open(const char *path);
void trace_dw_close(struct trace_dw *t);
/* Function func's parameters (none when t is NULL or DWARF does not have func). */
void trace_dw_params(struct trace_dw *t, FILE *out, const char *func);

/* -l -p PID: the process's files as bpftrace 0.17 lists them, seen through /proc/PID/root (a
 * process in another mount namespace has its own): its program alone, or with mapped every
 * file it maps (libraries too: their USDT probes). 0, or -1 with the reason in msg. */
int trace_pid_files(struct kl_arena *a, pid_t pid, bool mapped, const char ***files, size_t *n, char *msg, size_t len);
#endif
