;; expect: tests/errors/mismatched-bracket.lisp:2:21: error: ')' closes the '[' opened at line 2, column 13
(defevent e [:a :u32) [:b :u8])
