;; expect: no warnings
;;; none.lisp — what is not warned about: _names, (declare (ignore ...)), dotimes counters,
;; variables a macro binds (the prelude's or the program's own), a variable read only by a
;; later let* binding, and the maps of a program that uses them all.
(defmap counts :type :array :key u32 :value u64 :max-entries 4)
(defmacro with-twice ((var x) &body body)
  `(let ((,var (* 2 ,x)) (unused-inside 0)) ,@body))
(defprog p (:type :xdp)
  (let ((_scratch 1) (skip 2))
    (declare (ignore skip))
    (dotimes (i 4)
      (incf (getmap counts 0)))
    (with-twice (d 21)
      (let* ((a d) (b (+ a 1)))
        (if (= b 43) XDP_PASS XDP_DROP)))))
