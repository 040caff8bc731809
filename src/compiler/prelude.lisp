;;; prelude.lisp — kiln's library of surface forms, written in kiln itself.
;;;
;;; Every program sees this file as if read before it (built into kiln, `kiln prelude` prints
;;; it; only forms defining names the program uses are read, so each must define some). All
;;; are defmacro, defconstant or defheader: a program may define its own with the same name,
;;; the later definition winning. The forms follow Whistler's (docs/whistler.md lists them).
;;;
;;; The primitives these macros expand into are kiln's special forms: load, store, ctx,
;;; ctx-ptr, getmap, map-lookup, map-update, atomic-add, struct-alloc, dotimes, helpers...

;;; ---------------------------------------------------------------- control flow

;; (case KEY (VALUE BODY...) ((V1 V2) BODY...) (t BODY...)): KEY is computed once.
(defmacro case (key &rest clauses)
  (let ((k (gensym "case-key")))
    `(let ((,k ,key))
       (cond ,@(mapcar (lambda (clause)
                         (let ((test (first clause)))
                           (cond ((or (eq test 't) (eq test 'otherwise) (eq test 'else))
                                  `(t ,@(rest clause)))
                                 ((consp test)
                                  `((or ,@(mapcar (lambda (v) `(= ,k ,v)) test)) ,@(rest clause)))
                                 (t `((= ,k ,test) ,@(rest clause))))))
                       clauses)))))

;;; ---------------------------------------------------------------- maps

;; (incf-map MAP KEY [DELTA]): add DELTA to the value, creating it when a hash map lacks KEY.
(defmacro incf-map (map key &optional (delta 1))
  `(incf (getmap ,map ,key) ,delta))

;; (setmap MAP KEY VALUE [FLAGS]): map-update with the value stored at the map's value size.
(defmacro setmap (map key value &optional (flags 0))
  `(map-update ,map ,key ,value ,flags))

;;; ---------------------------------------------------------------- ring buffers

;; (with-ringbuf (VAR MAP SIZE [:flags F]) BODY...): reserve SIZE bytes, run BODY with VAR
;; pointing at them, then submit. When the buffer is full BODY does not run. A (return ...)
;; inside BODY leaves without submitting: discard first with (ringbuf-discard VAR 0).
(defmacro with-ringbuf ((var map size &key (flags 0)) &body body)
  `(let ((,var (ringbuf-reserve ,map ,size ,flags)))
     (when ,var
       ,@body
       (ringbuf-submit ,var 0))))

;;; ---------------------------------------------------------------- process metadata

;; (fill-process-info P :pid-field ACC :uid-field ACC :timestamp-field ACC :comm-field ACC-ptr
;;                      :comm-size N): each keyword names an accessor of P's struct.
(defmacro fill-process-info (p &key pid-field uid-field timestamp-field comm-field (comm-size 16))
  `(progn
     ,@(if pid-field `((setf (,pid-field ,p) (cast u32 (>> (get-current-pid-tgid) 32)))))
     ,@(if uid-field `((setf (,uid-field ,p) (cast u32 (get-current-uid-gid)))))
     ,@(if timestamp-field `((setf (,timestamp-field ,p) (ktime-get-ns))))
     ,@(if comm-field `((get-current-comm (,comm-field ,p) ,comm-size)))
     0))

;; (kernel-load TYPE PTR OFFSET): read a kernel address the verifier does not let the program
;; dereference, through probe-read-kernel and a stack buffer.
(defmacro kernel-load (type ptr offset)
  (let ((buf (gensym "kbuf")))
    `(let ((,buf (struct-alloc 8)))
       (probe-read-kernel ,buf (sizeof ,type) (+ ,ptr ,offset))
       (load ,type ,buf 0))))

;;; ---------------------------------------------------------------- user memory

;; (do-user-ptrs (VAR BASE COUNT MAX [:index I]) BODY...): for each non-null pointer among the
;; first COUNT (at most the constant MAX) of a user-space array of pointers.
(defmacro do-user-ptrs ((var base count max-count &key (index (gensym "i"))) &body body)
  (let ((buf (gensym "buf")))
    `(let ((,buf (struct-alloc 8)))
       (dotimes (,index ,max-count)
         (when (> ,count ,index)
           (probe-read-user ,buf 8 (+ ,base (* ,index 8)))
           (when-let ((,var (load u64 ,buf 0)))
             ,@body))))))

;; (do-user-array (VAR TYPE BASE COUNT MAX [:index I]) BODY...): TYPE a scalar (VAR is each
;; value) or a defstruct (VAR points at a stack copy of each element).
(defmacro do-user-array ((var type base count max-count &key (index (gensym "i"))) &body body)
  (if (%integer-type-p type)
      (let ((buf (gensym "buf")))
        `(let ((,buf (struct-alloc 8)))
           (dotimes (,index ,max-count)
             (when (> ,count ,index)
               (probe-read-user ,buf (sizeof ,type) (+ ,base (* ,index (sizeof ,type))))
               (let ((,var (load ,type ,buf 0)))
                 ,@body)))))
      `(let ((,var (struct-alloc (sizeof ,type))))
         (dotimes (,index ,max-count)
           (when (> ,count ,index)
             (probe-read-user ,var (sizeof ,type) (+ ,base (* ,index (sizeof ,type))))
             ,@body)))))

;;; ---------------------------------------------------------------- kprobe / uprobe arguments

;; pt_regs of x86-64 (struct pt_regs in arch/x86/include/uapi/asm/ptrace.h): the System V
;; argument registers rdi rsi rdx rcx r8 r9, and rax for the return value.
(defmacro pt-regs-parm1 () '(ctx u64 112))
(defmacro pt-regs-parm2 () '(ctx u64 104))
(defmacro pt-regs-parm3 () '(ctx u64 96))
(defmacro pt-regs-parm4 () '(ctx u64 88))
(defmacro pt-regs-parm5 () '(ctx u64 72))
(defmacro pt-regs-parm6 () '(ctx u64 64))
(defmacro pt-regs-ret () '(ctx u64 80))

;;; ---------------------------------------------------------------- tracepoints

;; (deftracepoint CATEGORY/EVENT [FIELD...]): reads the tracepoint's format from tracefs now,
;; at compile time, and defines (tp-FIELD) for each field (all but the common_* ones when none
;; are named): the value of a scalar field, the address of an array field (and tp-FIELD-ptr).
(defmacro deftracepoint (event &rest names)
  `(progn
     ,@(mapcar (lambda (f)
                 (destructuring-bind (name offset size signed count) f
                   (let ((acc (intern (format nil "tp-~a" name))))
                     (if (= count 0)
                         `(defmacro ,acc ()
                            '(ctx ,(intern (format nil "~a~a" (if signed "i" "u") (* size 8))) ,offset))
                         `(progn
                            (defmacro ,acc () '(+ (ctx-ptr) ,offset))
                            (defmacro ,(intern (format nil "tp-~a-ptr" name)) () '(+ (ctx-ptr) ,offset)))))))
               (%tracepoint-fields event names))))

;;; ---------------------------------------------------------------- packet headers

;; (defheader NAME (FIELD :offset N :type T [:net-order t]) ...): for each field a macro
;; (NAME-FIELD p) reading a T at p + N, byte-swapped to host order when :net-order is given.
(defmacro defheader (name &rest fields)
  `(progn
     ,@(mapcar (lambda (field)
                 (destructuring-bind (fname &key offset type net-order) field
                   (let ((acc (intern (format nil "~a-~a" name fname)))
                         (swap (if net-order
                                   (cond ((member type '(u16 i16)) 'ntohs)
                                         ((member type '(u32 i32)) 'ntohl)
                                         ((member type '(u64 i64)) 'ntohll))
                                   nil)))
                     (if swap
                         `(defmacro ,acc (p) (list ',swap (list 'load ',type p ,offset)))
                         `(defmacro ,acc (p) (list 'load ',type p ,offset))))))
               fields)))

;; Ethernet, 14 bytes
(defheader eth
  (dst-mac-hi :offset 0 :type u32)
  (dst-mac-lo :offset 4 :type u16)
  (src-mac-hi :offset 6 :type u32)
  (src-mac-lo :offset 10 :type u16)
  (type :offset 12 :type u16 :net-order t))

(defconstant +eth-hdr-len+ 14)
(defconstant +ethertype-ipv4+ #x0800)
(defconstant +ethertype-ipv6+ #x86dd)
(defconstant +ethertype-arp+ #x0806)
(defconstant +ethertype-vlan+ #x8100)

;; IPv4 without options, 20 bytes. Addresses stay in network byte order.
(defheader ipv4
  (ver-ihl :offset 0 :type u8)
  (tos :offset 1 :type u8)
  (total-len :offset 2 :type u16 :net-order t)
  (id :offset 4 :type u16 :net-order t)
  (frag-off :offset 6 :type u16 :net-order t)
  (ttl :offset 8 :type u8)
  (protocol :offset 9 :type u8)
  (checksum :offset 10 :type u16)
  (src-addr :offset 12 :type u32)
  (dst-addr :offset 16 :type u32))

(defconstant +ipv4-hdr-len+ 20)
(defconstant +ip-proto-icmp+ 1)
(defconstant +ip-proto-tcp+ 6)
(defconstant +ip-proto-udp+ 17)
(defconstant +ip-proto-ipv6-icmp+ 58)

;; IPv6, 40 bytes; each address as two u64 halves in network byte order.
(defheader ipv6
  (ver-tc-flow :offset 0 :type u32 :net-order t)
  (payload-len :offset 4 :type u16 :net-order t)
  (nexthdr :offset 6 :type u8)
  (hop-limit :offset 7 :type u8)
  (src-addr-hi :offset 8 :type u64)
  (src-addr-lo :offset 16 :type u64)
  (dst-addr-hi :offset 24 :type u64)
  (dst-addr-lo :offset 32 :type u64))

(defconstant +ipv6-hdr-len+ 40)

;; ICMP, 8 bytes
(defheader icmp
  (type :offset 0 :type u8)
  (code :offset 1 :type u8)
  (checksum :offset 2 :type u16)
  (rest :offset 4 :type u32))

(defconstant +icmp-hdr-len+ 8)

;; TCP without options, 20 bytes; tcp-flags is the byte with FIN SYN RST PSH ACK URG.
(defheader tcp
  (src-port :offset 0 :type u16 :net-order t)
  (dst-port :offset 2 :type u16 :net-order t)
  (seq :offset 4 :type u32 :net-order t)
  (ack-seq :offset 8 :type u32 :net-order t)
  (data-off :offset 12 :type u8)
  (flags :offset 13 :type u8)
  (window :offset 14 :type u16 :net-order t)
  (checksum :offset 16 :type u16)
  (urgent :offset 18 :type u16 :net-order t))

(defconstant +tcp-hdr-len+ 20)
(defconstant +tcp-fin+ #x01)
(defconstant +tcp-syn+ #x02)
(defconstant +tcp-rst+ #x04)
(defconstant +tcp-psh+ #x08)
(defconstant +tcp-ack+ #x10)
(defconstant +tcp-urg+ #x20)

;; UDP, 8 bytes
(defheader udp
  (src-port :offset 0 :type u16 :net-order t)
  (dst-port :offset 2 :type u16 :net-order t)
  (length :offset 4 :type u16 :net-order t)
  (checksum :offset 6 :type u16))

(defconstant +udp-hdr-len+ 8)

;;; ---------------------------------------------------------------- packet parsing

;; The packet's bounds in an XDP or tc program.
(defmacro xdp-data () '(ctx data))
(defmacro xdp-data-end () '(ctx data-end))
(defmacro tc-data () '(ctx data))
(defmacro tc-data-end () '(ctx data-end))

;; (with-packet (DATA DATA-END :min-len N) BODY...): bind the packet bounds and return early,
;; letting the packet through (XDP_PASS, TC_ACT_OK: see pass-action), when it is shorter
;; than N bytes. Each check is a guard with an early return, the shape the verifier likes.
(defmacro with-packet ((data data-end &key (min-len 0)) &body body)
  `(let ((,data (ctx data))
         (,data-end (ctx data-end)))
     (when (> (+ ,data ,min-len) ,data-end)
       (return (pass-action)))
     ,@body))

;; (with-eth (DATA DATA-END) BODY...): an Ethernet header is there.
(defmacro with-eth ((data data-end) &body body)
  `(with-packet (,data ,data-end :min-len +eth-hdr-len+)
     ,@body))

;; (with-ipv4 (DATA DATA-END IP) BODY...): BODY runs for IPv4 packets, IP at the IP header.
(defmacro with-ipv4 ((data data-end ip) &body body)
  `(with-packet (,data ,data-end :min-len (+ +eth-hdr-len+ +ipv4-hdr-len+))
     (when (= (eth-type ,data) +ethertype-ipv4+)
       (let ((,ip (+ ,data +eth-hdr-len+)))
         ,@body))))

;; (with-tcp (DATA DATA-END TCP) BODY...) and with-udp: BODY runs for IPv4 TCP (UDP) packets
;; long enough for the transport header, TCP (UDP) at it. IP options are not skipped.
(defmacro with-l4 ((data data-end l4 proto hdr-len) &body body)
  (let ((ip (gensym "ip")))
    `(with-packet (,data ,data-end :min-len (+ +eth-hdr-len+ +ipv4-hdr-len+ ,hdr-len))
       (when (= (eth-type ,data) +ethertype-ipv4+)
         (let ((,ip (+ ,data +eth-hdr-len+)))
           (when (= (ipv4-protocol ,ip) ,proto)
             (let ((,l4 (+ ,ip +ipv4-hdr-len+)))
               ,@body)))))))

(defmacro with-tcp ((data data-end tcp) &body body)
  `(with-l4 (,data ,data-end ,tcp +ip-proto-tcp+ +tcp-hdr-len+) ,@body))

(defmacro with-udp ((data data-end udp) &body body)
  `(with-l4 (,data ,data-end ,udp +ip-proto-udp+ +udp-hdr-len+) ,@body))

;; Whistler's tc spellings: the same forms, since with-packet serves both program types.
(defmacro with-tc-packet (spec &body body) `(with-packet ,spec ,@body))
(defmacro with-tc-eth (spec &body body) `(with-eth ,spec ,@body))
(defmacro with-tc-ipv4 (spec &body body) `(with-ipv4 ,spec ,@body))
(defmacro with-tc-tcp (spec &body body) `(with-tcp ,spec ,@body))
(defmacro with-tc-udp (spec &body body) `(with-udp ,spec ,@body))

;; (parse-eth DATA DATA-END), parse-ipv4, parse-tcp, parse-udp: the header's address, or 0
;; when the packet is too short or of another protocol; for when-let pipelines.
(defmacro parse-eth (data data-end)
  (let ((d (gensym "d")))
    `(let ((,d ,data))
       (if (> (+ ,d +eth-hdr-len+) ,data-end) 0 ,d))))

(defmacro parse-ipv4 (data data-end)
  (let ((d (gensym "d")))
    `(let ((,d ,data))
       (cond ((> (+ ,d +eth-hdr-len+ +ipv4-hdr-len+) ,data-end) 0)
             ((/= (eth-type ,d) +ethertype-ipv4+) 0)
             (t (+ ,d +eth-hdr-len+))))))

(defmacro parse-l4 (data data-end proto hdr-len)
  (let ((d (gensym "d")))
    `(let ((,d ,data))
       (cond ((> (+ ,d +eth-hdr-len+ +ipv4-hdr-len+ ,hdr-len) ,data-end) 0)
             ((/= (eth-type ,d) +ethertype-ipv4+) 0)
             ((/= (ipv4-protocol (+ ,d +eth-hdr-len+)) ,proto) 0)
             (t (+ ,d +eth-hdr-len+ +ipv4-hdr-len+))))))

(defmacro parse-tcp (data data-end) `(parse-l4 ,data ,data-end +ip-proto-tcp+ +tcp-hdr-len+))
(defmacro parse-udp (data data-end) `(parse-l4 ,data ,data-end +ip-proto-udp+ +udp-hdr-len+))
