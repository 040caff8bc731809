(bpf:attach trace "tracepoint/sched/sched_process_fork")
