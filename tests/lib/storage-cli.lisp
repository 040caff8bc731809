;; storage-cli.lisp — one map of each local storage kind keyed by an fd, for
;; tests/suites/storage.sh, which reads and writes them with `kiln map` (a PID, PID:FD, a file,
;; a cgroup directory). The program only has to load; the sk and inode maps are unused.
(defmap per-task :type :task-storage :value u64)
(defmap per-sock :type :sk-storage :value u64)
(defmap per-inode :type :inode-storage :value u64)
(defmap per-cgroup :type :cgrp-storage :value u64)
(defprog touch (:type :tp-btf :section "tp_btf/sys_enter")
  (let ((task (get-current-task-btf)))
    (let ((p (task-storage-get per-task task 0 0)))
      (when p (atomic-add p 0 1)))
    (let ((q (cgrp-storage-get per-cgroup (-> task cgroups dfl_cgrp) 0 0)))
      (when q (atomic-add q 0 1))))
  0)
