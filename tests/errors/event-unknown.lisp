;; expect: tests/errors/event-unknown.lisp:2:56: error: :event must name a defevent or defstruct defined before: nosuch
(defmap events :type :ringbuf :max-entries 4096 :event nosuch)
