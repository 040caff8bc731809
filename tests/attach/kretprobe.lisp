;;; kretprobe.lisp — a kretprobe counting returns of do_nanosleep (tests/suites/attach-calls.sh;
;;; a kernel without kprobe events cannot attach it).
(defmap attach-hits :type :array :key u32 :value u64 :max-entries 1)

(defprog attach-krp (:type :kretprobe :section "kretprobe/do_nanosleep")
  (incf (getmap attach-hits 0))
  0)
