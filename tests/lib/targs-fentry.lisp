;;; targs-fentry.lisp — fentry, fexit, fmod_ret and lsm programs typed by the traced function's
;;; prototype (tests/suites/targs.sh): do_nanosleep(struct hrtimer_sleeper *t, enum
;;; hrtimer_mode mode) returns int, bpf_modify_return_test(int a, int *b) too. A kernel in lockdown refuses to load these; the suite
;;; checks them as far as libbpf's open and CO-RE relocation, and in the ELF.
(defmap out :type :array :key u32 :value u64 :max-entries 8)

(defprog sleep-entry (:type :fentry :section "fentry/do_nanosleep")
  (setf (getmap out 0) (-> (arg 0) task pid))
  (setf (getmap out 1) mode)
  0)

(defprog sleep-exit (:type :fexit :section "fexit/do_nanosleep")
  (setf (getmap out 2) (retval))
  (setf (getmap out 3) (+ ret (-> (arg 0) timer _softexpires)))
  0)

(defprog modify (:type :fmod-ret :section "fmod_ret/bpf_modify_return_test")
  (setf (getmap out 4) (+ a (retval)))
  0)

;; an LSM hook's arguments: bpf_lsm_file_open(struct file *file)
(defprog opened (:type :lsm :section "lsm/file_open")
  (setf (getmap out 5) (-> file f_flags))
  0)
