;; fdmaps.lisp — maps that hold fds (and a devmap, a cpumap), for tests/suites/fdmaps.sh:
;; kiln map set fills them by what they hold and kiln map dump lists what the kernel gives
;; back. The socket filter tail-calls through jumps (a prog-array holds programs of its own
;; type); the tracepoint program asks whether the caller is under groups[0]'s cgroup.
(defmap jumps :type :prog-array :key-size 4 :value-size 4 :max-entries 4)
(defmap inner :type :array :key u32 :value u64 :max-entries 2)
(defmap tables :type :array-of-maps :key u32 :max-entries 2 :inner-map inner)
(defmap groups :type :cgroup-array :key-size 4 :value-size 4 :max-entries 2)
(defmap ports :type :devmap :key-size 4 :value-size 4 :max-entries 4)
(defmap cpus :type :cpumap :key-size 4 :value-size 4 :max-entries 2)

(defprog entry (:type :socket-filter)
  (tail-call jumps 0)
  (when-let ((m (map-lookup tables 0)))
    (incf (getmap m 0)))
  0)

(defmap under-result :type :array :key u32 :value u64 :max-entries 1)

;; 101 when the task calling getppid is under the cgroup in groups[0], 100 when not, below
;; 100 (the helper's -errno) while the slot is empty
(defprog under (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (setf (getmap under-result 0) (+ 100 (current-task-under-cgroup groups 0)))
  0)
