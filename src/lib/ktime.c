/* ktime.c — the clocks BPF programs read (kiln/ktime.h) and their stamps as wall time. */
#include "kiln/ktime.h"
#include <time.h>

static int64_t ns_of(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t kiln_clock_monotonic_ns(void)
{
	return (uint64_t)ns_of(CLOCK_MONOTONIC);
}

uint64_t kiln_clock_boottime_ns(void)
{
	return (uint64_t)ns_of(CLOCK_BOOTTIME);
}

/* REALTIME - clock now. The realtime reading is bracketed by two of the other clock and
 * taken against their midpoint, so a preemption between the reads costs half of it at most;
 * the tightest of three tries is kept. */
static int64_t offset_to_real(clockid_t c)
{
	int64_t best = 0, best_gap = INT64_MAX;
	for (int i = 0; i < 3; i++) {
		int64_t a = ns_of(c), r = ns_of(CLOCK_REALTIME), b = ns_of(c);
		if (b - a < best_gap) {
			best_gap = b - a;
			best = r - (a + (b - a) / 2);
		}
	}
	return best;
}

int64_t kiln_ktime_to_realtime(uint64_t mono_ns)
{
	return (int64_t)mono_ns + offset_to_real(CLOCK_MONOTONIC);
}

int64_t kiln_boottime_to_realtime(uint64_t boot_ns)
{
	return (int64_t)boot_ns + offset_to_real(CLOCK_BOOTTIME);
}
