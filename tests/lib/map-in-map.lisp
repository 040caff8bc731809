;; map-in-map.lisp — inner maps used from a program, for tests/unit/test_mapinmap.c: a lookup
;; in an :array-of-maps or a :hash-of-maps gives the inner map, and getmap, incf, setf and
;; map-update work on it. User space puts the inner maps in (their fds) and reads them back.
(defmap counts :type :array :key u32 :value u64 :max-entries 4)
(defmap by-slot :type :array-of-maps :key u32 :max-entries 2 :inner-map counts)
(defmap by-port :type :hash-of-maps :key u16 :max-entries 8 :inner-map counts)

(defprog use-inner (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data))))
    (when-let ((m (map-lookup by-slot 1)))
      (incf (getmap m 0))
      (incf (getmap m 1) len)
      (setf (getmap m 2) (+ (getmap m 1) 1)))
    (when-let ((h (map-lookup by-port 80)))
      (map-update h 3 (* len 2))))
  XDP_PASS)
