;;; cgsockopt.lisp — a getsockopt cgroup program that answers getsockopt(SOL_SOCKET, SO_MARK)
;;; with #x4b494c4e ("KILN") for the processes of its cgroup, whatever the socket's mark.

(defconstant SOL-SOCKET 1)
(defconstant SO-MARK 36)
(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog fake-mark (:type :cgroup-sockopt :section "cgroup/getsockopt")
  (incf (getmap runs 0))
  (when (and (= (ctx level) SOL-SOCKET) (= (ctx optname) SO-MARK))
    (let ((p (ctx optval)))
      (when (<= (+ p 4) (ctx optval-end))
        (store u32 p 0 #x4b494c4e)
        (setf (ctx optlen) 4)
        (setf (ctx retval) 0))))
  1)
