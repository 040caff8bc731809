/* trace_run.h — `kiln trace` running a compiled script (trace_run.c). */
#ifndef KL_CLI_TRACE_RUN_H
#define KL_CLI_TRACE_RUN_H
#include "trace/gen.h"
#include "trace/sema.h"
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The object elf (size bytes, compiled from s and g) loaded, attached and run until exit(), a
 * signal, or the end of command (-c, split into words, started once the probes are attached)
 * or of process pid (-p; 0: none), its output into out (bpftrace's JSON lines with json; no
 * `Attaching N probes...` with quiet), then END and the maps. SIGINT/SIGTERM stop it, SIGUSR1
 * prints the maps. 0, exit()'s code, or 1 said. */
int trace_run_compiled(const struct kt_sema *s, const struct kt_gen *g, const void *elf, size_t size, FILE *out,
		       const char *command, pid_t pid, bool json, bool quiet);

#endif
