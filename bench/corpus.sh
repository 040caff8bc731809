#!/usr/bin/env bash
# corpus.sh — kiln against clang -O2 over the semantic corpus (tests/corpus): instruction
# counts and verifier "processed" counts per program, and the time to compile everything.
# Prints a table and ratios (kiln / clang: below 1 means kiln is smaller or faster); asserts
# nothing. Usage: bash bench/corpus.sh [ROUNDS]   (after `make kiln test-bins`)
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
TWIN=$BUILD/tests/twin
ROUNDS=${1:-${ROUNDS:-5}}
# shellcheck source=bench/clang.sh
. "$ROOT/bench/clang.sh"
OUT=$BUILD/bench/corpus
mkdir -p "$OUT"

for tool in "$KILN" "$TWIN"; do
	if [ ! -x "$tool" ]; then
		echo "bench/corpus: $tool is missing (make kiln test-bins)" >&2
		exit 1
	fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

files=("$ROOT"/tests/corpus/*.lisp)
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT

# -- code size and verifier work ----------------------------------------------------------
printf '%-14s %-16s %7s %7s %6s   %10s %10s %6s\n' test program kiln clang ratio \
	kiln-proc clang-proc ratio
skipped=()
for f in "${files[@]}"; do
	name=$(basename "$f" .lisp)
	kobj=$OUT/$name.kiln.o
	cobj=$OUT/$name.clang.o
	if ! clang_compile "${f%.lisp}.c" "$cobj" || ! kiln_compile "$f" "$kobj"; then
		skipped+=("$name (does not compile)")
		continue
	fi
	args=$(sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' "$f" | tr '\n' ' ')
	# shellcheck disable=SC2086
	lines=$("$TWIN" "$kobj" "$cobj" --stats $args 2>/dev/null | grep '^STATS ')
	if [ -z "$lines" ]; then
		skipped+=("$name (does not load)")
		continue
	fi
	while read -r _ prog ki ci kp cp; do
		ki=${ki#kiln_insns=}
		ci=${ci#clang_insns=}
		kp=${kp#kiln_processed=}
		cp=${cp#clang_processed=}
		printf '%-14s %-16s %7s %7s %6s   %10s %10s %6s\n' "$name" "$prog" "$ki" "$ci" \
			"$(ratio "$ki" "$ci")" "$kp" "$cp" "$(ratio "$kp" "$cp")"
		echo "$ki $ci $kp $cp" >>"$stats"
	done <<<"$lines"
done
read -r tki tci tkp tcp < <(awk '{ a += $1; b += $2; if ($3 > 0 && $4 > 0) { c += $3; d += $4 } }
	END { print a + 0, b + 0, c + 0, d + 0 }' "$stats")
nprogs=$(wc -l <"$stats")
printf '%-14s %-16s %7s %7s %6s   %10s %10s %6s\n' total "$nprogs programs" "$tki" "$tci" \
	"$(ratio "$tki" "$tci")" "$tkp" "$tcp" "$(ratio "$tkp" "$tcp")"
for s in "${skipped[@]+"${skipped[@]}"}"; do
	echo "skipped: $s"
done

# -- compile time ---------------------------------------------------------------------------
compile_all() {       # kiln|clang: every corpus file once
	local f name
	for f in "${files[@]}"; do
		name=$(basename "$f" .lisp)
		if [ "$1" = kiln ]; then
			kiln_compile "$f" "$OUT/$name.time.kiln.o"
		else
			clang_compile "${f%.lisp}.c" "$OUT/$name.time.clang.o"
		fi
	done
}

rounds() { for ((r = 0; r < ROUNDS; r++)); do compile_all "$1"; done; }

ns_of rounds kiln
kns=$ns
ns_of rounds clang
cns=$ns
echo
printf 'compile time, %d files x %d rounds: kiln %s ms (%s ms/file), clang -O2 %s ms (%s ms/file), ratio %s\n' \
	"${#files[@]}" "$ROUNDS" \
	"$(awk -v n="$kns" 'BEGIN { printf "%.1f", n / 1e6 }')" \
	"$(awk -v n="$kns" -v k="$((${#files[@]} * ROUNDS))" 'BEGIN { printf "%.2f", n / 1e6 / k }')" \
	"$(awk -v n="$cns" 'BEGIN { printf "%.1f", n / 1e6 }')" \
	"$(awk -v n="$cns" -v k="$((${#files[@]} * ROUNDS))" 'BEGIN { printf "%.2f", n / 1e6 / k }')" \
	"$(ratio "$kns" "$cns")"
