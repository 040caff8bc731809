;; cgroup-storage.lisp — both kinds of cgroup local storage, used by tests/unit/test_cgstorage.c.
;; :cgrp-storage (linux 6.2) holds a value per cgroup, reached from a struct cgroup pointer:
;; the watched process's syscalls count into its own cgroup's value, and its getppid() deletes
;; it; user space reads it with the cgroup directory's fd as the key. :cgroup-storage and
;; :percpu-cgroup-storage, the first kind, hold a value per cgroup the program is attached to,
;; which get-local-storage gives: packets a cgroup's sockets send count there, keyed by the
;; cgroup's id.
(defmap cg-calls :type :cgrp-storage :value u64)
(defmap watch :type :array :key u32 :value u32 :max-entries 1)
(defmap cg-pkts :type :cgroup-storage :value u64)
(defmap cg-bytes :type :percpu-cgroup-storage :value u64)

(defprog count-calls (:type :tp-btf :section "tp_btf/sys_enter")
  (let ((task (get-current-task-btf)))
    (when (= (-> task tgid) (getmap watch 0))
      (let ((p (cgrp-storage-get cg-calls (-> task cgroups dfl_cgrp) 0 BPF_LOCAL_STORAGE_GET_F_CREATE)))
        (when p
          (atomic-add p 0 1)))))
  0)

(defprog forget-calls (:type :tp-btf :section "tp_btf/sys_enter")
  (let ((task (get-current-task-btf)))
    (when (and (= id 110) (= (-> task tgid) (getmap watch 0)))   ; x86-64 getppid
      (cgrp-storage-delete cg-calls (-> task cgroups dfl_cgrp))))
  0)

(defprog count-egress (:type :cgroup-skb :section "cgroup_skb/egress")
  (atomic-add (get-local-storage cg-pkts 0) 0 1)
  (let ((b (get-local-storage cg-bytes 0)))
    (store u64 b 0 (+ (load u64 b 0) (ctx len))))
  1)
