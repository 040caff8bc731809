;; classify — a packet classifier whose verdict is the program's return value.
;; Proves: cond with several clauses and t, nested if/when/unless, returns from several
;; depths, progn as a value, every XDP action constant (XDP_ABORTED XDP_DROP XDP_PASS XDP_TX
;; XDP_REDIRECT) reached by some default input, and a tally of verdicts in a map.
(defmap verdicts :type :array :key u32 :value u64 :max-entries 8)

(defprog classify (:type :xdp)
  (let* ((data (ctx data))
         (data-end (ctx data-end))
         (len (- data-end data)))
    (when (> (+ data 14) data-end)
      (incf (getmap verdicts 7))
      (return XDP_ABORTED))
    (let ((verdict
            (cond ((= len 14) XDP_ABORTED)
                  ((= (load u16 data 12) (htons #x0806)) XDP_TX)
                  ((= (load u16 data 12) (htons #x86dd))
                   (if (> len 60) XDP_REDIRECT XDP_PASS))
                  ((/= (load u16 data 12) (htons #x0800)) XDP_DROP)
                  ((> (+ data 34) data-end) (return XDP_DROP))
                  (t
                   (let ((proto (load u8 data 23)))
                     (cond ((= proto 1)
                            (progn (incf (getmap verdicts 5)) XDP_TX))
                           ((= proto 17)
                            (unless (> len 100) (incf (getmap verdicts 6)))
                            XDP_PASS)
                           ((= proto 6)
                            (if (> len 1000)
                                (progn (incf (getmap verdicts 4) len) XDP_DROP)
                                XDP_PASS))
                           (t XDP_ABORTED)))))))
      (incf (getmap verdicts verdict))
      verdict)))
