;; loop-return — leaving a program from inside loops, and longer loops.
;; Proves: (return ...) from inside a dotimes and from inside a loop :while (the rest of the
;; loop and the forms after it do not run: a counter shows it); nested dotimes with the
;; inner bound 8 and the outer 8 (64 iterations) accumulating across both indexes; a
;; dotimes of 64 over packet bytes under one bounds check; the loop variable's value after
;; an early return is the program's result.
;; twin-args: --input 00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defprog loop-return (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end))
        (acc 0))
    (dotimes (i 8)
      (dotimes (j 8)
        (setf acc (+ (* acc 3) (* i 8) j))))
    (incf (getmap results 0) acc)
    (when (<= (+ data 64) data-end)
      (let ((sum 0))
        (dotimes (i 64)
          (incf sum (* (load u8 data i) (+ i 1))))
        (incf (getmap results 1) sum)))
    (dotimes (i 24)
      (when (> (+ data (+ i 1)) data-end)
        (incf (getmap results 2))
        (return (+ 100 i)))
      (when (= (load u8 data i) #x88)
        (incf (getmap results 3) i)
        (return (+ 200 i))))
    (let ((n 0))
      (loop :while (< n 40)
        (when (> (+ data (+ n 1)) data-end)
          (return (+ 300 n)))
        (when (= (load u8 data n) #x45)
          (incf (getmap results 4) n)
          (return (+ 400 n)))
        (incf n))
      (incf (getmap results 5))
      n)))
