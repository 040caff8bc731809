/* kiln/ktime.h — the kernel's clocks as BPF programs read them, and their timestamps as wall
 * time. bpf_ktime_get_ns() is CLOCK_MONOTONIC (it stops while the machine is suspended);
 * bpf_ktime_get_boot_ns() is CLOCK_BOOTTIME (it does not). pkg/bpf's GetMtime is
 * kiln_clock_monotonic_ns(): a "now" to compare a program's stamps with, e.g. for timeouts. */
#ifndef KILN_KTIME_H
#define KILN_KTIME_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Now, in ns, on the clock bpf_ktime_get_ns() (monotonic) or bpf_ktime_get_boot_ns()
 * (boottime) reads. */
uint64_t kiln_clock_monotonic_ns(void);
uint64_t kiln_clock_boottime_ns(void);

/* A stamp from bpf_ktime_get_ns() (monotonic) or bpf_ktime_get_boot_ns() (boottime) as ns
 * since the Unix epoch (CLOCK_REALTIME), by the clocks' offset now: exact to the
 * microsecond or so, but a wall clock stepped since the stamp (NTP, settimeofday) moves the
 * answer with it, and a monotonic stamp taken before a suspend comes out late by the time
 * suspended (use boottime stamps where that matters). */
int64_t kiln_ktime_to_realtime(uint64_t mono_ns);
int64_t kiln_boottime_to_realtime(uint64_t boot_ns);

#ifdef __cplusplus
}
#endif
#endif
