;;; xdp-count.lisp — count IPv4 packets per protocol and drop TCP to a blocked port.
;;; `make run` runs it on sample packets with BPF_PROG_TEST_RUN; attach it to an
;;; interface with `ip link set dev IF xdp obj xdp-count.o sec xdp`.

(defconstant blocked-port 23)            ; telnet

(defmap proto-count :type :percpu-array :key u32 :value u64 :max-entries 256)
(defmap verdicts :type :array :key u32 :value u64 :max-entries 5)

(defun ipv4-header-len (ip)
  (* 4 (logand (load u8 ip 0) #x0f)))

(defprog xdp-count (:type :xdp :license "GPL")
  (let* ((data (ctx data))
         (data-end (ctx data-end))
         (verdict XDP_PASS))
    (when (and (<= (+ data 34) data-end)
               (= (ntohs (load u16 data 12)) ETH_P_IP))
      (let* ((ip (+ data 14))
             (proto (load u8 ip 9)))
        (incf (getmap proto-count proto))
        (when (= proto IPPROTO_TCP)
          (let ((tcp (+ ip (ipv4-header-len ip))))
            (when (and (<= (+ tcp 20) data-end)
                       (= (ntohs (load u16 tcp 2)) blocked-port))
              (setf verdict XDP_DROP))))))
    (incf (getmap verdicts verdict))
    verdict))
