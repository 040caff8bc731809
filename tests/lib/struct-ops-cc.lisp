;; struct-ops-cc.lisp — a Reno-like TCP congestion control in kiln Lisp, registered as
;; @CC@ (tests/suites/struct-ops.sh puts a name of its own there, and in @OPS@).
;; calls[0] counts cong_avoid's calls, calls[1] ssthresh's; acked-total the segments
;; cong_avoid was told of (its argument acked).
(defmap calls :type :array :key u32 :value u64 :max-entries 2)
(defvar acked-total 0 :type u64)

(defun at-most (a b) (if (< a b) a b))
(defun at-least (a b) (if (> a b) a b))

;; on loss: half the window, at least 2 segments
(defprog kcc-ssthresh (:type :struct-ops)
  (incf (getmap calls 1))
  (at-least (>> (-> sk snd_cwnd) 1) 2))

;; per ACK: slow start below ssthresh, then one segment a window (acked: segments ACKed)
(defprog kcc-cong-avoid (:type :struct-ops)
  (incf (getmap calls 0))
  (incf acked-total acked)
  (let ((cwnd (-> sk snd_cwnd)))
    (if (< cwnd (-> sk snd_ssthresh))
        (setf (-> sk snd_cwnd) (at-most (+ cwnd acked) (-> sk snd_cwnd_clamp)))
        (progn
          (incf (-> sk snd_cwnd_cnt) acked)
          (when (>= (-> sk snd_cwnd_cnt) cwnd)
            (setf (-> sk snd_cwnd_cnt) 0
                  (-> sk snd_cwnd) (at-most (+ cwnd 1) (-> sk snd_cwnd_clamp)))))))
  0)

;; a loss that was not one: the window before it
(defprog kcc-undo-cwnd (:type :struct-ops)
  (at-least (-> sk snd_cwnd) (-> sk prior_cwnd)))

(defstruct-ops @OPS@ :type tcp_congestion_ops :name "@CC@"
  (ssthresh kcc-ssthresh)
  (cong_avoid kcc-cong-avoid)
  (undo_cwnd kcc-undo-cwnd))
