;; form-values — the values of forms used as expressions, where the reference implies a
;; value without spelling it out; this test writes down the reading kiln's docs suggest:
;;   - a comparison used as a value is 0 or 1 (like and/or/not, which the reference says
;;     yield 0/1);
;;   - when/unless whose body is skipped, and if without an else whose test fails, are 0
;;     (Whistler: "Return 0 when the body is skipped");
;;   - setf's value is not used, incf/decf are statements.
;; It also checks the values of let, let*, progn and cond used as operands.
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog form-values (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let ((a (load u32 data 0))
          (b (load u32 data 4))
          (c (load u8 data 13)))
      (incf (getmap results 0) (< a b))
      (incf (getmap results 1) (+ (= c 0) (* (/= c 0) 2) (* (s< a b) 4) (* (>= a b) 8)))
      (incf (getmap results 2) (when (> c 100) (+ c 1000)))
      (incf (getmap results 3) (unless (> c 100) (+ c 2000)))
      (incf (getmap results 4) (if (> a b) a))
      (incf (getmap results 5) (+ (let ((t2 (* c 2))) t2) (let* ((x 1) (y (+ x c))) y)
                                  (progn 7 c)))
      (incf (getmap results 6) (* (cond ((> c 200) 3) ((> c 100) 2) (t 1)) c))
      (incf (getmap results 7) (+ (and a b c) (or (= a 0) (= b 0)) (not c)))
      (incf (getmap results 8) (logxor (< a b) (> a b)))
      (cast u32 (+ (< c 50) (* (= a b) 2) (* (> b a) 4))))))
