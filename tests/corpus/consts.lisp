;; consts — the reader's number syntaxes, defconstant expressions and the uapi constants.
;; Proves: #x #b #o and #\a literals, negative literals, #| block comments |# (with parens
;; and quotes inside) and ; comments anywhere; defconstant values computed from other
;; constants, used in :max-entries and in code; the XDP_*, TC_ACT_OK/TC_ACT_SHOT, BPF_ANY/
;; BPF_NOEXIST/BPF_EXIST and BPF_F_CURRENT_CPU constants have their kernel values; a
;; constant mixed with packet data so nothing folds away entirely.
#| A block comment: (defmap not-a-map :type :hash) "not a string
   either" ; and not a line comment |#
(defconstant base 16)
(defconstant slots (* base 2))            ; 32
(defconstant mask (- (<< 1 12) 1))        ; 4095
(defconstant letter #\a)

(defmap results :type :array :key u32 :value u64 :max-entries (+ slots 8))

(defprog consts (:type :xdp)
  (setf (getmap results 0) #x1f
        (getmap results 1) #b1010
        (getmap results 2) #o17
        (getmap results 3) letter
        (getmap results 4) -7
        (getmap results 5) slots
        (getmap results 6) mask
        (getmap results 7) XDP_ABORTED
        (getmap results 8) XDP_DROP
        (getmap results 9) XDP_PASS
        (getmap results 10) XDP_TX
        (getmap results 11) XDP_REDIRECT
        (getmap results 12) TC_ACT_OK
        (getmap results 13) TC_ACT_SHOT
        (getmap results 14) BPF_ANY
        (getmap results 15) BPF_NOEXIST
        (getmap results 16) BPF_EXIST
        (getmap results 17) BPF_F_CURRENT_CPU
        (getmap results 18) #xFFFF
        (getmap results 19) #\Z)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 14) data-end) #| an early return |# (return XDP_PASS))
    (incf (getmap results 20) (logand (load u16 data 12) mask))
    (incf (getmap results 21) (+ (load u8 data 0) letter #b1 #o10 #x100))
    (incf (getmap results (- slots 1)) (* (load u8 data 13) base))
    (if (= (load u8 data 13) #o377) XDP_DROP XDP_PASS)))
