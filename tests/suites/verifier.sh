#!/usr/bin/env bash
# verifier.sh — verifier rejections in the source's terms. Every tests/verifier/NAME.lisp is a
# program the kernel's verifier refuses; its header says what kiln must make of it:
#   ;; expect: CAUSE LINE:COL MESSAGE      (the cause's name, the position, the verifier's message)
#   ;; hint: TEXT                          (a piece of the hint kiln must give)
# `kiln check` must exit 1 and print "FILE:LINE:COL: the verifier refused this: MESSAGE", the
# source line with a caret under the column, the failing instruction and the hint; `check
# --json` must carry the same fields; `kiln load` and `kiln run` print the same report.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
tmo=(); command -v timeout >/dev/null && tmo=(timeout 30)

pass() { echo "PASS verifier/$1"; }
fail() { echo "FAIL verifier/$1: $2"; }

# The two lines under the message: the source line indented by two spaces, then a caret under
# the column (tabs kept so the caret lines up), as compile errors show them.
caret_ok() {   # report, file, line, col
	local rep=$1 file=$2 line=$3 col=$4 src pad
	src=$(sed -n "${line}p" "$file")
	pad=${src:0:$((col - 1))}
	pad=${pad//[^$'\t']/ }
	grep -qxF -- "  $src" <<<"$rep" && grep -A1 -xF -- "  $src" <<<"$rep" | sed -n 2p | grep -qxF -- "  $pad^"
}

n=0
for src in tests/verifier/*.lisp; do
	name=$(basename "$src" .lisp)
	exp=$(sed -n 's/^;; expect: //p' "$src")
	hint=$(sed -n 's/^;; hint: //p' "$src")
	cause=${exp%% *}; rest=${exp#* }; pos=${rest%% *}; msg=${rest#* }
	line=${pos%%:*}; col=${pos#*:}
	if [ -z "$exp" ] || [ -z "$hint" ] || [ "$pos" = "$rest" ]; then
		fail "$name" "the header needs ';; expect: CAUSE LINE:COL MESSAGE' and ';; hint: TEXT'"
		continue
	fi
	n=$((n + 1))
	out=$("${tmo[@]}" "$KILN" check "$src" 2>&1); rc=$?
	head="$src:$line:$col: the verifier refused this: $msg"
	if [ $rc -ne 1 ]; then
		fail "$name" "expected exit status 1, got $rc: $(head -3 <<<"$out" | tr '\n' '|')"
	elif ! grep -qxF -- "$head" <<<"$out"; then
		fail "$name" "expected '$head', got '$(sed -n 2p <<<"$out")'"
	elif ! caret_ok "$out" "$src" "$line" "$col"; then
		fail "$name" "expected source line $line and a caret under column $col, got '$(sed -n 3,4p <<<"$out" | tr '\n' '|')'"
	elif ! grep -qE '^  at instruction [0-9]+: \([0-9a-f]{2}\) ' <<<"$out"; then
		fail "$name" "expected the failing instruction, got '$(sed -n 5p <<<"$out")'"
	elif ! grep -F -- "  hint: " <<<"$out" | grep -qF -- "$hint"; then
		fail "$name" "expected a hint with '$hint', got '$(grep -F 'hint:' <<<"$out")'"
	elif ! grep -qF "the verifier's last steps:" <<<"$out"; then
		fail "$name" "expected the verifier's last steps"
	else
		pass "$name"
	fi
	# the same fields in --json
	js=$("${tmo[@]}" "$KILN" check --json "$src" 2>&1)
	if grep -qF "\"verifier\":{\"insn\":" <<<"$js" && grep -qF "\"line\":$line,\"col\":$col," <<<"$js" &&
		grep -qF "\"cause\":\"$cause\"" <<<"$js" && grep -qF "\"file\":\"$src\"" <<<"$js" &&
		grep -qE '"hint":"[^"]+' <<<"$js" && grep -qE '"insn_text":"\([0-9a-f]{2}\) ' <<<"$js"; then
		pass "$name-json"
	else
		fail "$name-json" "expected cause $cause at line $line col $col with a hint and the instruction, got $(head -c 400 <<<"$js")"
	fi
done
[ $n -ge 10 ] || fail count "expected at least 10 programs in tests/verifier, found $n"

# load and run go through the same report (on stderr), and exit 1
src=tests/verifier/packet-bounds.lisp
for cmd in "load $src --pin /sys/fs/bpf/kiln-verifier-$$" "run $src --duration 1"; do
	# shellcheck disable=SC2086
	out=$("${tmo[@]}" "$KILN" $cmd 2>&1 >/dev/null); rc=$?
	what=${cmd%% *}
	if [ $rc -eq 1 ] && grep -qxF "$src:6:12: the verifier refused this: R1 offset is outside of the packet" <<<"$out" &&
		grep -qF "  hint: " <<<"$out"; then
		pass "$what-reports"
	else
		fail "$what-reports" "status $rc: $(head -4 <<<"$out" | tr '\n' '|')"
	fi
done
[ -e /sys/fs/bpf/kiln-verifier-$$ ] && { fail load-no-pins "a refused load left /sys/fs/bpf/kiln-verifier-$$"; rm -rf "/sys/fs/bpf/kiln-verifier-$$"; }

# --log: the whole log, then the report without the excerpt
out=$("${tmo[@]}" "$KILN" check --log "$src" 2>&1)
if grep -q '^processed [0-9]* insns' <<<"$out" && grep -qF "$src:6:12: the verifier refused this:" <<<"$out"; then
	pass check-full-log
else
	fail check-full-log "$(head -c 300 <<<"$out")"
fi
