;; callbacks — defuns passed as values, #'NAME or (function NAME), to the helpers that call
;; back into the program: bpf-loop with a callback that adds its index times the packet
;; length into a stack context, and one that stops the loop by returning 1; for-each-map-elem
;; with a callback that sums an array map's values and counts them. Proves the ld_imm64
;; BPF_PSEUDO_FUNC relocation (libbpf resolves it as clang's), the callbacks' arguments, and
;; what the helpers return (iterations done, elements visited).
;; twin-args: --input 02000000000202000000000108004500002812344000c80600000a010203c0a80709115c270f01020304000000005002ffff00000000
;; twin-args: --input 02000000000202000000000108004500001412344000ff2f00000102030405060708
;; twin-args: --repeat 2
(defmap vals :type :array :key u32 :value u64 :max-entries 4)
(defmap results :type :array :key u32 :value u64 :max-entries 8)

(defun add-scaled (i ctx)
  (store u64 ctx 0 (+ (load u64 ctx 0) (* i (load u64 ctx 8))))
  0)

(defun stop-at-5 (i ctx)
  (if (>= i 5)
      1
      (progn (store u64 ctx 0 (+ (load u64 ctx 0) 1))
             0)))

(defun sum-values (m k v ctx)
  (store u64 ctx 0 (+ (load u64 ctx 0) (load u64 v 0)))
  (store u64 ctx 8 (+ (load u64 ctx 8) 1))
  0)

(defprog cb (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data)))
        (acc (stack-buffer 16)))
    (store u64 acc 8 len)
    (incf (getmap results 0) (bpf-loop 8 #'add-scaled acc 0))
    (incf (getmap results 1) (load u64 acc 0))
    (store u64 acc 0 0)
    (incf (getmap results 2) (bpf-loop 100 (function stop-at-5) acc 0))
    (incf (getmap results 3) (load u64 acc 0))
    (setf (getmap vals (logand len 3)) len)
    (store u64 acc 0 0)
    (store u64 acc 8 0)
    (incf (getmap results 4) (for-each-map-elem vals #'sum-values acc 0))
    (incf (getmap results 5) (load u64 acc 0))
    (incf (getmap results 6) (load u64 acc 8))
    (if (> len 60) XDP_PASS XDP_DROP)))
