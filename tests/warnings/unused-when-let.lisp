;; expect: tests/warnings/unused-when-let.lisp:5:15: warning: 'v' is bound but never used (name it _v or declare it (declare (ignore v)) if that is meant)
;;; unused-when-let.lisp — a when-let whose variable is never read (an if on the lookup says it).
(defmap seen :type :hash :key u32 :value u64 :max-entries 8)
(defprog p (:type :xdp)
  (when-let ((v (map-lookup seen 1)))
    XDP_DROP))
