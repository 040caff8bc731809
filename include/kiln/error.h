/* kiln/error.h — how libkiln reports failure. Every call returns 0 (or a count, or an fd)
 * on success and a negative errno on failure; the library never prints and never exits. */
#ifndef KILN_ERROR_H
#define KILN_ERROR_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last failed libkiln call in this thread, one line, naming what failed,
 * on which object, and the kernel's errno text, e.g.
 *   "bpf(BPF_MAP_CREATE) for map 'counts': Operation not permitted"
 * It is kept per thread (like errno) until the next failure; "" when nothing failed yet. */
const char *kiln_errmsg(void);

/* The verifier's log (or libbpf's) that goes with the last failure, if there was one:
 * several lines, "" otherwise. Valid until the next failure in this thread. */
const char *kiln_errlog(void);

/* 0 when this process may use bpf() to load programs and make maps: CAP_BPF or CAP_SYS_ADMIN
 * effective, or unprivileged BPF enabled (kernel.unprivileged_bpf_disabled = 0), or the
 * capabilities cannot be read; otherwise -EPERM, and kiln_errmsg() says the user lacks the
 * privilege and what to grant. libkiln's loads say so too when bpf() refuses them. */
int kiln_bpf_privileged(void);
/* The process's effective capabilities into *set (bit n: capability n, as CAP_BPF = 39):
 * 0, or a negative errno when the kernel will not say. */
int kiln_capabilities(uint64_t *set);

#ifdef __cplusplus
}
#endif
#endif
