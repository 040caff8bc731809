;; expect: tests/errors/storage-max-entries.lisp:2:60: error: a :task-storage map has no :max-entries (it holds one value per task, as long as that lives): remove it
(defmap starts :type :task-storage :value u64 :max-entries 1024)
