;; macros — defmacro as in Common Lisp, used the way kiln's own conveniences are written.
;; Proves: backquote with , and ,@; &optional with a default, &rest, &body, &key and
;; destructuring of a nested lambda list; gensym for a hygienic temporary; compile-time
;; arithmetic in a macro body; a macro expanding into another macro; and macros expanding
;; into top-level forms: a defprog (two programs are defined by one macro each call).
(defmap results :type :array :key u32 :value u64 :max-entries 16)

(defmacro bump (slot &optional (by 1))
  `(incf (getmap results ,slot) ,by))

(defmacro with-ipv4 ((ip data data-end) &body body)
  `(when (and (<= (+ ,data 34) ,data-end)
              (= (load u16 ,data 12) (htons #x0800)))
     (let ((,ip (+ ,data 14)))
       ,@body)))

(defmacro swap (a b)
  (let ((tmp (gensym)))
    `(let ((,tmp ,a))
       (setf ,a ,b
             ,b ,tmp))))

(defmacro sum-of (&rest xs)
  `(+ ,@xs))

(defmacro field (ptr &key (offset 0) (type 'u8))
  `(load ,type ,ptr ,offset))

(defmacro slot-of (n)
  (* n 2))

(defmacro def-counter (name slot)
  `(defprog ,name (:type :xdp)
     (bump ,slot)
     (bump (+ ,slot 1) (let ((data (ctx data)) (data-end (ctx data-end)))
                         (if (> (+ data 1) data-end) 0 (load u8 data 0))))
     XDP_PASS))

(def-counter count-a 10)
(def-counter count-b 12)

(defprog macros (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (with-ipv4 (ip data data-end)
      (let ((a (field ip :offset 12 :type u32))
            (b (field ip :offset 16 :type u32))
            (tmp 5))
        (swap a b)
        (bump 0)
        (bump 1 (- a b))
        (bump (slot-of 1) (sum-of a tmp (field ip) (field ip :offset 9)))
        (bump 3 tmp)))
    (bump 4 (sum-of))
    (bump 5 (sum-of 1 2 3))
    XDP_PASS))
