#!/usr/bin/env bash
# fuzz.sh — bad input never crashes kiln: seeded mutations of the examples, the corpus and
# the bad-input programs (byte ranges cut or duplicated, parens swapped, junk tokens put in)
# must each end with exit status 0 or 1 within 5 seconds (at -O2 and -O0 in turn); so must a
# few pathological inputs (very deep nesting, a macro that expands into itself). A failing
# input is kept under $BUILD/fuzz-fail/. The generator is plain bash with its own LCG, so
# every machine makes the same variants: FUZZ_N (default 300) of them from FUZZ_SEED (42).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
N=${FUZZ_N:-300}
work="$BUILD/fuzz-smoke"; keep="$BUILD/fuzz-fail"
mkdir -p "$work"
tmo=(); command -v timeout >/dev/null && tmo=(timeout 5)

files=()
for f in tests/errors/*.lisp examples/*.lisp tests/corpus/*.lisp; do
	[ -s "$f" ] && files+=("$f")
done
if [ ${#files[@]} -eq 0 ]; then
	echo "FAIL fuzz/compile-$N-variants: no .lisp inputs found"
	exit 0
fi

seed=${FUZZ_SEED:-42}
rnd() {        # r = a pseudo-random number in 0..$1-1 (the ANSI C rand LCG)
	seed=$(((seed * 1103515245 + 12345) & 0x7fffffff))
	r=$(((seed >> 8) % $1))
}

tokens=('(' ')' '[' ']' '#x' '#xZZ' '#b2' '#\' '"' '#|' '|#' ':key' ':type' '-1' '0x'
	'99999999999999999999' '-99999999999999999999' "'" '`' ',' ',@' '.' ';' $'\n' '()'
	'nil' 't' 'ctx' '(ctx)' '(getmap)' '(defmap)' '(defprog p (:type :xdp))' '(stack-buffer 513)'
	'(let ((x)) x)' '(setf)' '(cast u8)' '(load u8 0 0)' '(dotimes (i 1048576) i)' ':max-entries 0'
	'(defmacro m () (quote (m)))' '(incf (getmap m 1))' '(+ 1)' '(/ 1 0)' ':section ""')

mutate() {     # s = one mutation of s
	local len=${#s} a l b t
	rnd $((len + 1)); a=$r
	rnd 40; l=$((r + 1))
	rnd 6
	case $r in
	0) s=${s:0:a}${s:a+l} ;;                                    # cut a range
	1) rnd $((len + 1)); b=$r; s=${s:0:b}${s:a:l}${s:b} ;;      # copy a range elsewhere
	2) t=${s:a:l}; t=${t//(/$'\1'}; t=${t//)/(}; t=${t//$'\1'/)} # swap ( and ) in a range
	   s=${s:0:a}$t${s:a+l} ;;
	3) t=${s:a:l}; t=${t//(/[}; t=${t//)/]}; s=${s:0:a}$t${s:a+l} ;;  # lists become vectors
	4) rnd ${#tokens[@]}; s=${s:0:a}" ${tokens[r]} "${s:a} ;;   # put a junk token in
	5) rnd ${#tokens[@]}; s=${s:0:a}${tokens[r]}${s:a+l} ;;     # replace a range by one
	esac
}

bad=0
run() {        # name, input file, origin, -O level: fails unless kiln exits 0 or 1 in time
	local name=$1 x=$2 from=$3 opt=$4 rc
	# in a subshell, so that the shell's "Segmentation fault" notice goes to /dev/null too
	rc=$("${tmo[@]}" "$KILN" compile "$x" "$opt" -o "$work/out.o" >/dev/null 2>&1; echo $?) 2>/dev/null
	rm -f "$work/out.o"
	if [ $rc -gt 1 ]; then
		bad=$((bad + 1))
		mkdir -p "$keep"
		cp "$x" "$keep/$name.lisp"
		local what="exit status $rc"
		[ $rc -eq 124 ] && what="timeout after 5 s"
		[ $rc -ge 128 ] && what="crash (signal $((rc - 128)))"
		echo "FAIL fuzz/$name: $what on $from ($opt); file kept at $keep/$name.lisp"
	fi
}

for ((i = 1; i <= N; i++)); do
	rnd ${#files[@]}; f=${files[r]}
	s=$(<"$f")
	rnd 3
	for ((k = 0; k <= r; k++)); do mutate; done
	printf '%s\n' "$s" >"$work/variant.lisp"
	run "variant-$i" "$work/variant.lisp" "a mutation of $f" "-O$(( i % 2 ? 2 : 0 ))"
done
[ $bad -eq 0 ] && echo "PASS fuzz/compile-$N-variants"

# Pathological inputs a mutation never reaches: each gets its own PASS or FAIL line.
stress() {     # name, text
	local before=$bad
	printf '%s\n' "$2" >"$work/$1.lisp"
	run "$1" "$work/$1.lisp" "a generated input" -O2
	[ $bad -eq $before ] && echo "PASS fuzz/$1"
}
deep=100000
open=$(printf "%${deep}s" '' | tr ' ' '('); close=${open//(/)}
stress "deep-nesting-$deep" "(defmap m :type :hash :key u32 :value u64 :max-entries 1)
(in-package $open$close)"
stress "deep-unclosed-$deep" "(defprog p (:type :xdp) $open"
deep=20000
stress "deep-expression-$deep" "(defprog p (:type :xdp) $(printf "%${deep}s" '' | sed 's/ /(+ 1 /g')0${close:0:deep})"
stress "macro-expands-into-itself" "(defmacro again (x) \`(+ 1 (again ,x)))
(defprog p (:type :xdp) (again 1))"
stress "toplevel-macro-into-itself" "(defmacro forever () '(forever))
(forever)
(defmap m :type :hash :key u32 :value u64 :max-entries 1)"
stress "long-symbol" "(defprog p (:type :xdp) $(printf "%200000s" '' | tr ' ' 'x'))"
stress "long-string" "(defprog p (:type :xdp :section \"xdp$(printf "%200000s" '' | tr ' ' 's')\") 1)"
rm -f "$work/variant.lisp"
exit 0
