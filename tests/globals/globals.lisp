;;; globals.lisp — global data for tests/suites/globals.sh: settings (defparameter, .rodata)
;;; and variables (defvar, .data, or .bss when they start at 0) of several widths, an array,
;;; read by name, changed with setf, incf and decf. tests/lib/globals-twin.bpf.c declares the
;;; same variables in the same order with clang, and its program computes the same things.

(defparameter limit 100 :type u32)
(defparameter mode 0 :type u8)
(defparameter offset -5 :type i32)
(defvar counter 0 :type u64)
(defvar last 7 :type u32)
(defvar tiny 0 :type i16)
(defvar seen 0 :type (array u32 4))

;; a defun reads a setting by name too
(defun over-limit (len)
  (> len limit))

;; every run: counter + 1, tiny - 1, last = the packet's length, seen[len % 4] = len; returns
;; mode 1: limit + offset; else XDP_DROP (1) for a packet longer than limit, XDP_PASS (2)
(defprog globals-xdp (:type :xdp)
  (let ((len (- (xdp-data-end) (xdp-data))))
    (incf counter)
    (decf tiny)
    (setf last len)
    (store u32 seen (* 4 (logand len 3)) len)
    (if (= mode 1)
        (+ limit offset)
        (if (over-limit len) 1 2))))

;; a setting that turns work off: with mode 2 the loop runs, with any other the verifier knows
;; the branch is dead and does not walk it (tests/suites/globals.sh compares the counts)
(defprog globals-prune (:type :xdp)
  (let ((acc 0))
    (when (= mode 2)
      (dotimes (i 16)
        (setf acc (+ acc (* i (+ limit i))))
        (when (> acc (* limit 1000))
          (setf acc (- acc limit)))))
    (logand acc 3)))
