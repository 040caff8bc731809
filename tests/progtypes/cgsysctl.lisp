;;; cgsysctl.lisp — a sysctl cgroup program denying reads of kernel.ostype, by its name
;;; (sysctl-get-name), to the processes of its cgroup; other sysctls stay readable.

(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog deny-ostype (:type :cgroup-sysctl)
  (incf (getmap runs 0))
  (let ((name (stack-buffer 8)))
    (if (and (= (ctx write) 0)
             (= (sysctl-get-name ctx name 8 BPF_F_SYSCTL_BASE_NAME) 6)
             (= (load u32 name 0) #x7974736f)    ; "osty"
             (= (load u16 name 4) #x6570))       ; "pe"
        0
        1)))
