;; a kiln form: refused by load
(defmap m :type :array :key u32 :value u32 :max-entries 1)
