;; wh-fixes — regressions found by the Whistler twins.
;; Proves: stack-addr pointers stay valid while other temporaries are made (two at once as a
;; key and a value, and one kept across a map update); memset/memcpy through a field pointer
;; at offset 4 use accesses aligned for it (the verifier rejected 8-byte ones); setf/incf of a
;; typed variable give the truncated value; (if c a b) of two struct keys is still a pointer.
(defstruct ev (pid u32) (comm (array u8 16)) (x u32))
(defstruct k8 (a u32) (b u32))
(defmap m :type :hash :key u32 :value u64 :max-entries 4)
(defmap m8 :type :hash :key k8 :value u64 :max-entries 4)
(defmap r :type :array :key u32 :value u64 :max-entries 8)

(defprog wh-fixes (:type :xdp)
  (let ((k 1) (v 2))
    (map-update-ptr m (stack-addr k) (stack-addr v) 0))
  (let* ((k 7) (p (stack-addr k)))
    (setf (getmap r 1) 99)
    (setf (getmap r 0) (load u64 p 0)))
  (let ((e (make-ev)) (f (make-ev)))
    (memset (ev-comm-ptr e) 0 #x41 16)
    (memcpy (ev-comm-ptr f) 0 e 0 8)
    (setf (getmap r 2) (+ (ev-comm e 15) (load u32 (ev-comm-ptr f) 0))))
  (let ((b u8 54))
    (setf (getmap r 3) (setf b (+ b 250)))
    (setf (getmap r 4) (incf b 250)))
  (let ((ka (make-k8)) (kb (make-k8)))
    (setf (k8-a ka) 1 (k8-a kb) 2)
    (incf (getmap m8 (if (> (ctx data-end) (+ (ctx data) 40)) ka kb))))
  XDP_PASS)
