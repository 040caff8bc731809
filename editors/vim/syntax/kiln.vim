" Vim syntax file
" Language:	kiln, a Lisp that compiles to eBPF
" Files:	*.lisp holding kiln programs (see ftdetect/kiln.vim)
" On top of Vim's lisp syntax: kiln's top-level forms and the names they define, its
" special forms, map and program type keywords, and UPPER_CASE constants.

if exists("b:current_syntax")
  finish
endif

runtime! syntax/lisp.vim
unlet! b:current_syntax
setlocal iskeyword+=-,*,?,!,<,>,=,/

syn keyword kilnDefine defmap defprog defstruct defevent defunion defun defmacro
      \ defconstant defheader deftracepoint
      \ defksym containedin=lispList contained
      \ nextgroup=kilnDefName skipwhite
syn match kilnDefName "[^ \t()]\+" contained
syn keyword kilnForm with-event with-ringbuf when-let if-let dotimes dolist case
      \ getmap map-lookup map-update map-delete core-read incf decf setf
      \ import-kernel-struct asm containedin=lispList contained
syn match kilnType ":\%(hash\|array\|percpu-hash\|percpu-array\|ringbuf\|prog-array\|lpm-trie\|lru-hash\|lru-percpu-hash\|stack-trace\|perf-event-array\|array-of-maps\|hash-of-maps\|cgroup-array\|devmap\|devmap-hash\|cpumap\|xskmap\|sockmap\|sockhash\|reuseport-sockarray\|user-ringbuf\|queue\|stack\|bloom-filter\|task-storage\|sk-storage\|inode-storage\|cgrp-storage\|cgroup-storage\|percpu-cgroup-storage\)\>" containedin=lispList
syn match kilnType ":\%(xdp\|tc\|socket-filter\|cgroup-skb\|tracepoint\|raw-tracepoint\|tp-btf\|fentry\|fexit\|fmod-ret\|lsm\|kprobe\|kretprobe\|uprobe\|uretprobe\|perf-event\|sk-lookup\|cgroup-sock\|cgroup-sock-addr\|sock-ops\|sk-reuseport\)\>" containedin=lispList
syn match kilnType ":\%([ui]\%(8\|16\|32\|64\)\|ipv4\)\>" containedin=lispList
syn match kilnConstant "\<[A-Z][A-Z0-9_]\+\>" containedin=lispList

hi def link kilnDefine Define
hi def link kilnDefName Function
hi def link kilnForm Statement
hi def link kilnType Type
hi def link kilnConstant Constant

let b:current_syntax = "kiln"
