/* The clang twin of tests/lib/ksyms.lisp (tests/suites/ksyms.sh compares their .ksyms). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct rq {
	unsigned int nr_running;
} __attribute__((preserve_access_index));

extern const struct rq runqueues __ksym;
extern const int bpf_prog_active __ksym;
extern const void schedule __ksym;
unsigned long long nr, nr0, active, addr;

SEC("raw_tp/sys_enter")
int probe(void *ctx)
{
	const struct rq *rq = bpf_this_cpu_ptr(&runqueues);
	nr = rq->nr_running;
	rq = bpf_per_cpu_ptr(&runqueues, 0);
	if (rq)
		nr0 = rq->nr_running;
	active = *(const int *)bpf_this_cpu_ptr(&bpf_prog_active);
	addr = (unsigned long long)&schedule;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
