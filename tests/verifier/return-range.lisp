;;; return-range.lisp — a cgroup-skb program must return 0 or 1; this one returns 7.
;; expect: return-range 4:1 At program exit the register R0 has smin=7 smax=7 should have been in [0, 1]
;; hint: cgroup programs return 0 or 1
(defprog allow (:type :cgroup-skb)
  7)
