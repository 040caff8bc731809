;;; cgdev.lisp — a device cgroup program denying /dev/null (char 1:3) and allowing every other
;;; device to the processes of the cgroup it is attached to (progtypes.sh, kiln run --cgroup,
;;; makes the device nodes with mknod).

(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog deny-null (:type :cgroup-device)
  (incf (getmap runs 0))
  (if (and (= (logand (ctx access-type) #xffff) BPF_DEVCG_DEV_CHAR)
           (= (ctx major) 1) (= (ctx minor) 3))
      0
      1))
