;;; sklookup.lisp — an sk_lookup program that steers TCP connections to port 7007 of its
;;; network namespace, where nothing listens, to the socket in slot 0 of `target` (ptlive.c
;;; puts a listener on another port there); a connection to port 7008 is refused outright.

(defmap target :type :sockmap :key u32 :value u64 :max-entries 1)
(defmap runs :type :array :key u32 :value u64 :max-entries 2)

(defprog steer (:type :sk-lookup)
  (cond ((/= (ctx protocol) IPPROTO_TCP) SK_PASS)
        ((= (ctx local-port) 7008) (incf (getmap runs 1)) SK_DROP)
        ((/= (ctx local-port) 7007) SK_PASS)
        (t (incf (getmap runs 0))
           (let ((sk (map-lookup target 0)))
             (if sk
                 (let ((err (sk-assign ctx sk 0)))
                   (sk-release sk)
                   (if (= err 0) SK_PASS SK_DROP))
                 SK_PASS)))))
