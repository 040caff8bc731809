;; signed-fields — defstruct and defevent fields of signed types (i8 i16 i32 i64, :i8 :i16
;; :i32) as clang treats them: reading one sign-extends to 64 bits, writing one keeps the
;; low bits, and signed comparisons of field values behave as in C.
;; Proves: the accessor of a signed field yields the sign-extended value (so a stored -1 in
;; an i8 field reads back as #xffffffffffffffff, and adding it to a u64 subtracts 1); the
;; same for defevent's signed types; unsigned fields of the same bits read zero-extended.
(defstruct sample
  (s8 i8)
  (u8f u8)
  (s16 i16)
  (s32 i32)
  (u32f u32)
  (s64 i64))

(defevent ev
  [:a :i8]
  [:b :i16]
  [:c :i32]
  [:d :u16])

(defmap samples :type :array :key u32 :value sample :max-entries 1)
(defmap evs :type :array :key u32 :value-size (event-size ev) :max-entries 1)
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defprog signed-fields (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (let ((x (load u64 data 0))
          (y (load u64 data 8)))
      (when-let ((s (map-lookup samples 0)))
        (setf (sample-s8 s) x
              (sample-u8f s) x
              (sample-s16 s) y
              (sample-s32 s) (- 0 y)
              (sample-u32f s) (- 0 y)
              (sample-s64 s) (- x y))
        (incf (getmap results 0) (sample-s8 s))
        (incf (getmap results 1) (sample-u8f s))
        (incf (getmap results 2) (sample-s16 s))
        (incf (getmap results 3) (sample-s32 s))
        (incf (getmap results 4) (sample-u32f s))
        (incf (getmap results 5) (sample-s64 s))
        (incf (getmap results 6) (if (s< (sample-s8 s) 0) 1 0))
        (incf (getmap results 7) (if (< (sample-s16 s) 100) 1 0))
        (incf (getmap results 8) (+ 1000 (sample-s32 s))))
      (when-let ((e (map-lookup evs 0)))
        (setf (ev-a e) y
              (ev-b e) (- 0 x)
              (ev-c e) (* x 3)
              (ev-d e) (- 0 x))
        (incf (getmap results 9) (ev-a e))
        (incf (getmap results 10) (ev-b e))
        (incf (getmap results 11) (ev-c e))
        (incf (getmap results 12) (ev-d e)))
      (cast u32 (getmap results 0)))))
