;; tests/asm/asm.lisp — the asm form (tests/suites/asm.sh runs each program under
;; BPF_PROG_TEST_RUN and checks its return value; one instruction a line, so that the suite
;; can match each disassembled instruction with the line it was written on).
(defmap counts :type :array :key u32 :value u64 :max-entries 4)

;; a value computed in asm: 40 + 2
(defprog asm-value (:type :xdp)
  (let ((x 40))
    (asm ((r1 x)) :out r0
      (mov64 r0 r1)
      (add64 r0 2))))

;; a loop with labels: 10 + 9 + ... + 1
(defprog sum-loop (:type :xdp)
  (asm ((r1 10)) :out r0
    (mov64 r0 0)
    :loop
    (jeq r1 0 :done)
    (add64 r0 r1)
    (sub64 r1 1)
    (ja :loop)
    :done))

;; a helper call inside asm, the map and a key's address its inputs: the value stored, 5
(defprog asm-lookup (:type :xdp)
  (let ((key 2))
    (setf (getmap counts 2) 5)
    (asm ((r1 counts) (r2 (stack-addr key))) :out r0
      (call map_lookup_elem)
      (jeq r0 0 :none)
      (ldxdw r0 r0 0)
      (ja :end)
      :none
      (mov64 r0 0)
      :end)))

;; values live across an asm that calls a helper and writes r6-r9 survive it: 9
(defprog live-across (:type :xdp)
  (let* ((a (+ (ctx ingress-ifindex) 1))
         (b (+ (ctx rx-queue-index) 2))
         (c (+ a b))
         (z (asm ((r6 a) (r7 b)) :out r9
              (call get_prandom_u32)
              (mov64 r8 r6)
              (add64 r8 r7)
              (mov64 r6 0)
              (mov64 r7 0)
              (mov64 r9 r8))))
    (+ (- (* 2 c) z a b) 9)))

;; a 64-bit constant, and 32-bit operations: (0x11223344 << 1) | 1
(defprog wide-narrow (:type :xdp)
  (let ((hi (asm () :out r0
              (lddw r0 0x1122334455667788)
              (rsh64 r0 32)))
        (ok (asm ((r1 -1)) :out r0
              (mov32 r0 r1)
              (jeq32 r0 -1 :yes)
              (mov64 r0 0)
              (ja :end)
              :yes
              (mov64 r0 1)
              :end)))
    (logior (ash hi 1) ok)))

;; in a defun, inputs that arrive in each other's registers: (6 << 8 | 3) + (7 << 8 | 6)
(defun pack (a b)
  (asm ((r2 a) (r1 b)) :out r0
    (mov64 r0 r2)
    (lsh64 r0 8)
    (or64 r0 r1)))

(defprog in-defun (:type :xdp)
  (let ((x (+ (ctx ingress-ifindex) 5)))
    (+ (pack x 3) (pack 7 x))))

;; Whistler's spelling: one encoded instruction, r0 = ktime_get_ns()
(defprog whistler-asm (:type :xdp)
  (let ((t (asm #x85 0 0 0 5)))
    (if (> t 0) 3 4)))

;; exit inside asm, with a way on to the end: returns 7 from the program
(defprog early-exit (:type :xdp)
  (asm ((r1 1))
    (jne r1 1 :on)
    (mov64 r0 7)
    (exit)
    :on)
  2)

;; names read without regard to case, a helper by number: 11
(DEFPROG UPPER-CASE (:TYPE :XDP)
  (ASM () :OUT R3
    (CALL 7)
    (MOV64 R3 R0)
    (AND64 R3 0)
    (ADD64 R3 11)))

;; asm in an unrolled loop, and in a bpf_loop callback: 190 and 42052
(defprog in-loop (:type :xdp)
  (let ((s 0))
    (dotimes (i 20)
      (setf s (asm ((r3 s) (r4 i)) :out r3 (add64 r3 r4) (xor64 r3 1))))
    s))

(defprog in-callback (:type :xdp)
  (let ((s 0))
    (dotimes (i 3000)
      (setf s (asm ((r1 s) (r2 i)) :out r1 (add64 r1 r2) (and64 r1 65535))))
    s))
