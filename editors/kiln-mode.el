;;; kiln-mode.el --- major mode for kiln, a Lisp that compiles to eBPF  -*- lexical-binding: t -*-

;; Keywords: languages, lisp
;; Package-Requires: ((emacs "25.1"))

;;; Commentary:

;; kiln sources are ordinary .lisp files, so this mode is not tied to the
;; extension.  It turns on by itself for a .lisp file whose first line carries
;; the modeline `-*- mode: kiln -*-', or whose text has a top-level `(defprog'
;; (see `kiln-mode-detect').  Load it with
;;   (add-to-list 'load-path "/path/to/kiln/editors")
;;   (require 'kiln-mode)
;; It derives from `lisp-mode': it adds highlighting for kiln's top-level
;; forms (defmap, defprog, defstruct, defevent, ...) and the names they
;; define, the map and program type keywords, and indentation for its forms.
;; `M-x compile' runs `kiln check' on the file by default.

;;; Code:

(require 'lisp-mode)

(defgroup kiln nil
  "Editing kiln sources."
  :group 'languages)

(defcustom kiln-program "kiln"
  "The kiln command `compile-command' runs."
  :type 'string
  :group 'kiln)

(defconst kiln-definers
  '("defmap" "defprog" "defstruct" "defevent" "defunion" "defun" "defmacro"
    "defconstant" "defheader" "deftracepoint"
    "defksym")
  "Top-level forms that define a name.")

(defconst kiln-forms
  '("with-event" "with-ringbuf" "when-let" "if-let" "dotimes" "dolist" "case"
    "getmap" "map-lookup" "map-update" "map-delete" "core-read" "incf" "decf" "setf"
    "import-kernel-struct" "asm")
  "kiln's own special forms and common macros.")

(defconst kiln-types
  '(;; map types
    ":hash" ":array" ":percpu-hash" ":percpu-array" ":ringbuf" ":prog-array"
    ":lpm-trie" ":lru-hash" ":lru-percpu-hash" ":stack-trace" ":perf-event-array"
    ":array-of-maps" ":hash-of-maps" ":cgroup-array" ":devmap" ":devmap-hash"
    ":cpumap" ":xskmap" ":sockmap" ":sockhash" ":reuseport-sockarray"
    ":user-ringbuf" ":queue" ":stack" ":bloom-filter" ":task-storage"
    ":sk-storage" ":inode-storage" ":cgrp-storage" ":cgroup-storage"
    ":percpu-cgroup-storage"
    ;; program types
    ":xdp" ":tc" ":socket-filter" ":cgroup-skb" ":tracepoint" ":raw-tracepoint"
    ":tp-btf" ":fentry" ":fexit" ":fmod-ret" ":lsm" ":kprobe" ":kretprobe"
    ":uprobe" ":uretprobe" ":perf-event" ":sk-lookup" ":cgroup-sock"
    ":cgroup-sock-addr" ":sock-ops" ":sk-reuseport"
    ;; scalar types
    ":u8" ":u16" ":u32" ":u64" ":i8" ":i16" ":i32" ":i64" ":ipv4")
  "Keywords naming map, program and value types.")

(defconst kiln-font-lock-keywords
  `((,(concat "(" (regexp-opt kiln-definers t) "\\_>[ \t]*\\(\\(?:\\sw\\|\\s_\\)+\\)?")
     (1 font-lock-keyword-face)
     (2 font-lock-function-name-face nil t))
    (,(concat "(" (regexp-opt kiln-forms t) "\\_>")
     (1 font-lock-keyword-face))
    (,(concat (regexp-opt kiln-types t) "\\_>")
     (1 font-lock-type-face))
    ("\\_<[A-Z][A-Z0-9_]+\\_>" . font-lock-constant-face))
  "Highlighting for `kiln-mode', on top of `lisp-mode''s.")

;; How many arguments come before the body, as `lisp-indent-function' reads it.
;; The def* forms need no rule: `lisp-indent-function' indents every def* as a
;; definition.  The property is global, so a symbol that already has one (Emacs's
;; own `when-let', `dolist', ...) keeps it.
(defconst kiln-indent-rules
  '((with-event . 1) (with-ringbuf . 1) (when-let . 1) (if-let . 2)
    (dotimes . 1) (dolist . 1) (case . 1))
  "Indentation of kiln's forms: the number of distinguished arguments.")

(defvar compile-command)

(defun kiln-compile-command ()
  "The command `compile' offers for the current buffer."
  (when buffer-file-name
    (concat kiln-program " check " (shell-quote-argument buffer-file-name))))

;;;###autoload
(define-derived-mode kiln-mode lisp-mode "kiln"
  "Major mode for kiln sources, a Lisp that compiles to eBPF."
  (font-lock-add-keywords nil kiln-font-lock-keywords)
  (setq-local lisp-indent-function #'lisp-indent-function)
  (dolist (rule kiln-indent-rules)
    (unless (get (car rule) 'lisp-indent-function)
      (put (car rule) 'lisp-indent-function (cdr rule))))
  (setq-local compile-command (kiln-compile-command)))

;;;###autoload
(defun kiln-mode-detect ()
  "Non-nil when the buffer holds a kiln program: a top-level `(defprog'."
  (save-excursion
    (goto-char (point-min))
    (re-search-forward "^(defprog[ \t\n]" 20000 t)))

;;;###autoload
(add-to-list 'magic-mode-alist '(kiln-mode-detect . kiln-mode))

(provide 'kiln-mode)
;;; kiln-mode.el ends here
