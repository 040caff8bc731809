;; Whistler's loader API on an object file, in a sandbox (tests/harness/sandbox_ns.sh: eth0, a
;; cgroup as /sys/fs/cgroup), run by whistler-sessions.sh, which sends 7 frames into eth0 and 5
;; UDP datagrams from the cgroup once this has said "attached", and looks at eth0 once it has
;; said "detached" (then writes the file "checked"): the object's lifecycle, attach-* by fd, by
;; program and by name, the counts, detach, and a kprobe's error
(defmap pkts :type :array :key-size 4 :value-size 8 :max-entries 3)
(defprog count-xdp (:type :xdp :section "xdp" :license "GPL")
  (incf (getmap pkts 0))
  XDP_PASS)
(defprog count-tc (:type :tc)
  (incf (getmap pkts 1))
  0)
(defprog count-egress (:type :cgroup-skb :section "cgroup_skb/egress" :license "GPL")
  (incf (getmap pkts 2))
  1)
(defprog on-probe (:type :kprobe :section "kprobe/do_nanosleep" :license "GPL")
  0)
(compile-to-elf "attach.bpf.o")
(let ((obj (open-bpf-object "attach.bpf.o")))
  (load-bpf-object obj)
  (let* ((m (bpf-object-map obj "pkts"))
         (xdp (attach-xdp (prog-info-fd (bpf-object-prog obj "count_xdp")) "eth0" :mode "xdpgeneric"))
         (tc (attach-obj-tc obj "count_tc" "eth0" :direction "ingress"))
         (cg (attach-cgroup (bpf-object-prog obj "count_egress") "/sys/fs/cgroup" +bpf-cgroup-inet-egress+)))
    (format t "~a~%~a~%~a~%attached~%" xdp tc cg)
    (finish-output)
    (loop repeat 20
          until (and (= (map-lookup-int m 0) 7) (= (map-lookup-int m 1) 7) (= (map-lookup-int m 2) 5))
          do (sleep 1))
    (format t "xdp ~d, tc ~d, cgroup egress ~d~%" (map-lookup-int m 0) (map-lookup-int m 1) (map-lookup-int m 2))
    (detach xdp)
    (detach tc)
    (format t "detached~%")
    (finish-output)
    (loop repeat 10 until (probe-file "checked") do (sleep 1))   ; the suite looks at eth0 meanwhile
    (format t "kprobe: ~a~%"
            (handler-case (attach-obj-kprobe obj "on_probe" "do_nanosleep") (bpf-error () "bpf-error")))
    (format t "a kretprobe of a kprobe section: ~a~%"
            (handler-case (attach-kprobe (bpf-object-prog obj "on_probe") "do_nanosleep" :retprobe t)
              (error () "refused"))))
  (close-bpf-object obj)
  (format t "closed: ~a~%" (handler-case (bpf-object-map obj "pkts") (error () "no object"))))
