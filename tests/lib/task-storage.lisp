;; task-storage.lisp — local storage per task, used by tests/unit/test_storage.c: every time a
;; task of the watched process is switched in, its own counter (created on first use) grows;
;; its getppid() deletes the counter again. User space reads a task's counter with a pidfd as
;; the key.
(defmap switches :type :task-storage :value u64)
(defmap watch :type :array :key u32 :value u32 :max-entries 1)

(defprog count-in (:type :tp-btf :section "tp_btf/sched_switch")
  (when (= (-> next tgid) (getmap watch 0))
    (let ((p (task-storage-get switches next 0 BPF_LOCAL_STORAGE_GET_F_CREATE)))
      (when p
        (atomic-add p 0 1))))
  0)

(defprog forget (:type :tp-btf :section "tp_btf/sys_enter")
  (let ((task (get-current-task-btf)))
    (when (and (= id 110) (= (-> task tgid) (getmap watch 0)))   ; x86-64 getppid
      (task-storage-delete switches task)))
  0)
