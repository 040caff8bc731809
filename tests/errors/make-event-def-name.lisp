;; expect: tests/errors/make-event-def-name.lisp:3:1: error: in macro 'def-ev' (defined at tests/errors/make-event-def-name.lisp:2): make-event-def needs a name: (make-event-def 'NAME '([:field :type] ...)) (at tests/errors/make-event-def-name.lisp:2:37)
(defmacro def-ev () (make-event-def 42 '([:pid :u32])) nil)
(def-ev)
(defmap m :type :ringbuf :max-entries 4096)
