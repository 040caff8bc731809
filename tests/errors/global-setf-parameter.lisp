;; expect: tests/errors/global-setf-parameter.lisp:4:9: error: cannot assign 'limit': a defparameter is read-only in programs (set it before load: kiln run --set limit=VALUE; or make it a defvar)
(defparameter limit 10 :type u32)
(defprog p (:type :xdp)
  (setf limit 3) (incf limit) 2)
