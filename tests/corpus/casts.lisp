;; casts — truncating and sign-extending casts.
;; Proves: (cast u8/u16/u32/u64 x) keep the low bits and clear the rest; (cast i8/i16/i32 x)
;; sign-extend from bit 7/15/31 to 64 bits and (cast i64 x) is the identity; casts of
;; intermediate results (wrap-around of (+ x 255) in 8 bits); a signed cast feeding >>> and
;; s<; and that a value loaded as u32 is still a 64-bit value once multiplied.
;; Crafted inputs: values whose bit 7, 15, 31 and 63 are set in every combination.
;; twin-args: --input 8080808080808080ff00000000000000 --input 7fff7fffffff7fff0000000000000000
;; twin-args: --input 0180ff7f00800080aa00000000000000 --input ffffffff7fffffff0100000000000000
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog casts (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 9) data-end)
      (return XDP_PASS))
    (let ((x (load u64 data 0))
          (w (load u32 data 0)))
      (incf (getmap results 0) (cast u8 x))
      (incf (getmap results 1) (cast u16 x))
      (incf (getmap results 2) (cast u32 x))
      (incf (getmap results 3) (cast u64 x))
      (incf (getmap results 4) (cast i8 x))
      (incf (getmap results 5) (cast i16 x))
      (incf (getmap results 6) (cast i32 x))
      (incf (getmap results 7) (cast i64 x))
      (incf (getmap results 8) (cast u8 (+ x 255)))
      (incf (getmap results 9) (>>> (cast i32 x) 4))
      (incf (getmap results 10) (if (s< (cast i16 x) 0) 1 0))
      (incf (getmap results 11) (cast u16 (* (cast i8 x) 3)))
      (incf (getmap results 12) (* w w))
      (incf (getmap results 13) (cast u32 (* w w)))
      (incf (getmap results 14) (cast i32 (cast u16 (- x))))
      (cast u32 (+ (cast u8 x) (cast i8 (load u8 data 8)))))))
