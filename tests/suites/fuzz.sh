#!/usr/bin/env bash
# fuzz.sh — bad input never crashes kiln: 400 seeded mutations of the examples, the corpus
# and the bad-input programs (byte ranges cut, duplicated or replaced by junk tokens, parens
# swapped) must each end with exit status 0 or 1 within 5 seconds. A failing input is kept
# under $BUILD/fuzz-fail/.
set -u
cd "$ROOT"
work="$BUILD/fuzz"; keep="$BUILD/fuzz-fail"
mkdir -p "$work"
files=(tests/corpus/*.lisp tests/errors/*.lisp examples/*.lisp)
RANDOM=42
bad=0
for i in $(seq 1 400); do
	f=${files[$((RANDOM % ${#files[@]}))]}
	sz=$(wc -c <"$f"); a=$((RANDOM % sz)); l=$((RANDOM % 40)); x="$work/x.lisp"
	case $((RANDOM % 4)) in
	0) { head -c "$a" "$f"; tail -c +$((a + l + 1)) "$f"; } >"$x" ;;
	1) { head -c "$a" "$f"; printf ' ( #x 99999999999999999999 :key ") #\\ #| '; tail -c +$((a + 1)) "$f"; } >"$x" ;;
	2) { head -c "$a" "$f"; head -c $((a + l)) "$f" | tail -c "$l"; tail -c +$((a + 1)) "$f"; } >"$x" ;;
	3) tr '()' ')(' <"$f" | head -c $((a + l)) >"$x" ;;
	esac
	timeout 5 "$KILN" compile "$x" -o "$work/x.o" >/dev/null 2>&1
	rc=$?
	if [ $rc -gt 1 ]; then
		bad=$((bad + 1))
		mkdir -p "$keep"
		cp "$x" "$keep/variant-$i.lisp"
		echo "FAIL fuzz/variant-$i: exit status $rc (from $f), input kept at $keep/variant-$i.lisp"
	fi
done
[ $bad -eq 0 ] && echo "PASS fuzz/400-mutated-inputs-exit-0-or-1"
