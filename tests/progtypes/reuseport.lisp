;;; reuseport.lisp — an sk_reuseport program that sends every UDP datagram of the group to
;;; the socket in slot 1 of `group`, whatever the kernel's hash would pick (ptlive.c).

(defmap group :type :reuseport-sockarray :key u32 :value u64 :max-entries 2)
(defmap runs :type :array :key u32 :value u64 :max-entries 1)

(defprog pick-second (:type :sk-reuseport)
  (incf (getmap runs 0))
  (let ((key (stack-buffer 4)))
    (store u32 key 0 1)
    (if (= (sk-select-reuseport ctx group key 0) 0) SK_PASS SK_DROP)))
