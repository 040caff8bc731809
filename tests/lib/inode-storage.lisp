;; inode-storage.lisp — inode storage used from a program, for tests/suites/storage.sh: the helpers
;; are the LSM hooks' only, so an lsm program counts opens per inode. A kernel in lockdown refuses
;; it at load (the suite then says SKIP with the reason).
(defmap opens :type :inode-storage :value u64)
(defprog count-open (:type :lsm :section "lsm/file_open")
  (let ((p (inode-storage-get opens (-> file f_inode) 0 BPF_LOCAL_STORAGE_GET_F_CREATE)))
    (when p (atomic-add p 0 1)))
  0)
