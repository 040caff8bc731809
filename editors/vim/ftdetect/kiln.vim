" kiln sources are .lisp files: a .lisp file is kiln when a modeline says so
" (`; vim: ft=kiln`) or when one of its first 200 lines starts a top-level (defprog.
autocmd BufRead,BufNewFile *.lisp
      \ if match(getline(1, 200), '^(defprog\>') >= 0 | set filetype=kiln | endif
