;;; fmod-ret.lisp — an fmod_ret program on bpf_modify_return_test, the kernel function
;;; BPF_PROG_TEST_RUN of an fmod_ret program calls; it counts and returns 0, which leaves the
;;; function's own return (tests/suites/attach-calls.sh; a locked-down kernel refuses it).
(defmap attach-hits :type :array :key u32 :value u64 :max-entries 1)

(defprog attach-fmr (:type :fmod-ret :section "fmod_ret/bpf_modify_return_test")
  (incf (getmap attach-hits 0))
  0)
