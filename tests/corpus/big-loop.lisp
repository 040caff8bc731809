;; big-loop — (bench) loops too long for the verifier to walk one iteration at a time: an
;; FNV-1a mix of 4,000 rounds, a scan of up to 1,500 packet bytes into a byte histogram, a
;; 40 x 300 nested pair and a 5,000-round recurrence in a defun. kiln lowers each as a
;; bpf_loop callback (the pass bpf-loop); the twin calls bpf_loop by hand.
;; Proves: a dotimes as a callback reads the variables around it (scalars, the packet
;; pointer, the context) from its context and gives back those it assigns; its index is
;; known below the count; a map lookup, a defun call and a dotimes inside the callback; a
;; callback in a defun; a dotimes whose body returns stays a loop (2,000 rounds, walked).
;; twin-args: --input 020000000002020000000001080045000036123440004006148c0a0000010a0000029c40005000000001000000005018ffff3a9f0000474554202f20485454502f312e30
;; twin-args: --input 0200000000020200000000010800450000281234400040115ce2c0a801050a00000214e9003500147650717171717171717171717171
;; results: 0 hash, 1 rounds with low bits 3, 2 byte mix, 3 bytes, 4 nested sum,
;; 5 rounds before the return, 6 recurrence
(defmap results :type :array :key u32 :value u64 :max-entries 8)
(defmap bytes :type :hash :key u32 :value u64 :max-entries 64)

(defun mix (a b) (logxor (* a 31) b))

(defun recur (x)
  (let ((s 0))
    (dotimes (i 5000)
      (setf s (+ (* s 3) x i)))
    s))

(defprog big-loop (:type :xdp)
  (let ((data (ctx data))
        (len (- (ctx data-end) (ctx data)))
        (h 14695981039346656037)
        (n 0) (sum 0) (cnt 0))
    (dotimes (i 4000)
      (setf h (* (logxor h (+ i len)) 1099511628211))
      (when (= (logand h 7) 3)
        (incf n))
      (when (= (logand h 255) 17)
        (incf n 100)))
    (incf (getmap results 0) h)
    (incf (getmap results 1) n)
    (dotimes (i 1500)
      (when (<= (+ data i 1) (ctx data-end))
        (let ((b (load u8 data i)))
          (incf sum (mix b i))
          (incf cnt)
          (incf (getmap bytes (logand b 63))))))
    (incf (getmap results 2) sum)
    (incf (getmap results 3) cnt)
    (dotimes (j 40)
      (dotimes (k 300)
        (incf (getmap results 4) (* j k len))))
    (incf (getmap results 6) (recur len))
    (dotimes (j 2000)
      (when (= j (+ 1700 len))
        (return (if (> len 60) XDP_DROP XDP_PASS)))
      (incf (getmap results 5)))
    XDP_TX))
