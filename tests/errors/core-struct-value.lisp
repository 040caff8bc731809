;; expect: tests/errors/core-struct-value.lisp:3:22: error: 'comm' is an array of 16 bytes, not a value: copy it with core-read-into, read a string with core-read-str, or name one of its elements by index
(defprog p (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (-> (current-task) comm))
