(defstruct big (a u8) (b (array u64 4000000000)))
(let () (decode-big (make-array 16)))
