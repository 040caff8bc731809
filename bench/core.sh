#!/usr/bin/env bash
# core.sh — kiln's CO-RE reads against clang's BPF_CORE_READ for the same field chains: the
# twins of tests/core/ (NAME.lisp by kiln, NAME.bpf.c by clang -O2 against a vmlinux.h
# generated here from the running kernel's BTF), per program: instructions in the object
# (8-byte slots of its section), CO-RE records in .BTF.ext, and the kiln / clang ratio
# and instructions the verifier processed loading it (BPF_LOG_STATS; needs root), and the
# kiln / clang ratios (below 1: kiln is smaller). Ends with totals, the median and the geometric mean of the
# ratios; then the time to compile each (kiln against clang with its vmlinux.h) and a kiln
# program that names no kernel type. The clang twins are built with -DKILN_CORE_BENCH, which leaves out what only clang
# can write (enum.bpf.c's flavour enum), so both do the same reads. Asserts nothing. Usage: [ROUNDS=5] bash bench/core.sh   (as root, after `make kiln test-bins`)
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
RELOS=$BUILD/tests/core_relos
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
OUT=$BUILD/bench/core
mkdir -p "$OUT"

for tool in "$KILN" "$RELOS"; do
	if [ ! -x "$tool" ]; then
		echo "bench/core: $tool is missing (make kiln test-bins)" >&2
		exit 1
	fi
done
if ! bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$OUT/vmlinux.h"; then
	echo "bench/core: cannot dump /sys/kernel/btf/vmlinux with bpftool" >&2
	exit 1
fi

# the insns, relo and processed lines of core_relos, as "SECTION INSNS RELOS PROCESSED"
sections() {
	"$RELOS" --verifier "$1" | awk '$1 == "insns" { n[$2] = $3 } $1 == "relo" { r[$2]++ }
		$1 == "processed" { p[$2] = $3 }
		END { for (s in n) print s, n[s], r[s] + 0, (s in p) ? p[s] : "-" }' | sort
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
row() { printf '%-9s %-36s %6s %6s %6s   %6s %6s   %10s %10s %6s\n' "$@"; }
row case section kiln clang ratio k-relo c-relo kiln-proc clang-proc ratio
skipped=()
for csrc in "$ROOT"/tests/core/*.bpf.c; do      # the cases with a clang twin
	name=$(basename "$csrc" .bpf.c)
	src=$ROOT/tests/core/$name.lisp
	kobj=$OUT/$name.kiln.o
	cobj=$OUT/$name.clang.o
	if ! "$CLANG" -O2 -g -target bpf -DKILN_CORE_BENCH -I"$OUT" "-I/usr/include/$MULTIARCH" -c "$csrc" -o "$cobj"; then
		skipped+=("$name (clang cannot build the twin)")
		continue
	fi
	if ! err=$("$KILN" compile "$src" -o "$kobj" 2>&1); then
		skipped+=("$name (kiln: $(printf '%s' "$err" | head -1))")
		continue
	fi
	# both twins have one program on the same section
	join <(sections "$kobj") <(sections "$cobj") | while read -r sec ki kr kp ci cr cp; do
		row "$name" "$sec" "$ki" "$ci" "$(ratio "$ki" "$ci")" "$kr" "$cr" "$kp" "$cp" "$(ratio "$kp" "$cp")"
		echo "$ki $ci $kr $cr $kp $cp" >>"$stats"
	done
done
if [ -s "$stats" ]; then
	read -r tki tci tkr tcr tkp tcp < <(awk '{ a += $1; b += $2; c += $3; d += $4; e += $5; f += $6 }
		END { print a, b, c, d, e, f }' "$stats")
	row total "$(wc -l <"$stats") programs" "$tki" "$tci" "$(ratio "$tki" "$tci")" "$tkr" "$tcr" \
		"$tkp" "$tcp" "$(ratio "$tkp" "$tcp")"
	awk '$2 > 0 { r[n++] = $1 / $2; l += log($1 / $2) }
		END {
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
			med = n % 2 ? r[int(n / 2)] : (r[n / 2 - 1] + r[n / 2]) / 2
			printf "kiln / clang instructions: median %.2f, geometric mean %.2f over %d programs\n", med, exp(l / n), n
		}' "$stats"
fi
for s in "${skipped[@]+"${skipped[@]}"}"; do
	echo "skipped: $s"
done

# -- compile time: ms per compile, best of ROUNDS; kiln reads the kernel's BTF (once per
# process) for every program here, and for none in the baseline (a program with no kernel type)
ROUNDS=${ROUNDS:-5}
BASELINE=${BASELINE:-$ROOT/tests/lib/ev-calls.lisp}
best_ms() {       # command...: the fastest of ROUNDS runs, in ms
	local best= t0 t1 ms i
	for ((i = 0; i < ROUNDS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo -; return; }
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	echo "$best"
}
printf '\n%-9s %10s %10s   (ms, best of %d)\n' compile kiln clang "$ROUNDS"
for csrc in "$ROOT"/tests/core/*.bpf.c; do
	name=$(basename "$csrc" .bpf.c)
	printf '%-9s %10s %10s\n' "$name" \
		"$(best_ms "$KILN" compile "$ROOT/tests/core/$name.lisp" -o "$OUT/$name.time.kiln.o")" \
		"$(best_ms "$CLANG" -O2 -g -target bpf -DKILN_CORE_BENCH -I"$OUT" "-I/usr/include/$MULTIARCH" -c "$csrc" \
			-o "$OUT/$name.time.clang.o")"
done
printf '%-9s %10s %10s   (%s: no kernel type)\n' baseline \
	"$(best_ms "$KILN" compile "$BASELINE" -o "$OUT/baseline.time.kiln.o")" - "${BASELINE#"$ROOT"/}"
