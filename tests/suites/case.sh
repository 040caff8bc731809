#!/usr/bin/env bash
# case.sh — kiln reads names as Common Lisp's reader does, without regard to case, and keeps
# the names a user gives as written (docs/language.md, "Names and case").
#  - tests/case/upper.lisp, written in upper and mixed case, compiles and runs (test-run):
#    the map values prove each form did its work; its mixed-case names are in the kernel and
#    in BTF as written (map Counts, struct ConnectionEvent with Pid/Port/Proto, program Upper).
#  - every tests/corpus/*.lisp and examples/*.lisp (and the programs of tests/core, whistler,
#    progtypes, verifier, lib, cli and warnings), copied with everything but strings,
#    character literals and comments put in upper case, compiles to an object of the same
#    size that differs from the lower-case original's only where a lower-case letter became
#    its capital, and only in .strtab and .BTF (the user's names and the source lines of line
#    info): instructions, relocations, maps and the symbol table are byte-identical.
#  - the same for Whistler's examples, read from a checkout (a peer, tests/harness/peers.sh;
#    SKIP without one).
#  - a few corpus programs in upper case run against their C twins under BPF_PROG_TEST_RUN.
# The case-collision errors are tests/errors/case-clash-*.lisp.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/case"
rm -rf "$out"
mkdir -p "$out/lo" "$out/up"

# Upper-case a Lisp source outside strings, character literals (#\a, #\space) and comments.
upcase() {
	awk '{
		out = ""; n = length($0); i = 1
		while (i <= n) {
			c = substr($0, i, 1)
			if (instr) {
				out = out c
				if (c == "\\") { out = out substr($0, i + 1, 1); i += 2; continue }
				if (c == "\"") instr = 0
				i++; continue
			}
			if (c == ";") { out = out substr($0, i); break }
			if (c == "\"") { instr = 1; out = out c; i++; continue }
			if (c == "#" && substr($0, i + 1, 1) == "\\") {
				j = i + 3
				while (j <= n && substr($0, j, 1) ~ /[A-Za-z0-9-]/) j++
				out = out substr($0, i, j - i); i = j; continue
			}
			out = out toupper(c); i++
		}
		print out
	}' "$1"
}

# The bytes where two objects differ that are not a lower-case letter in the first against
# its capital in the second, or that lie outside .strtab and .BTF: one line each.
not_case_only() {   # lower.o upper.o
	{ readelf -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] \(\.strtab\|\.BTF\) .*/& /p'; echo "--"; cmp -l "$1" "$2"; } |
	awk 'function hex(s,   v, i) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	     function oct(s,   v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1); return v }
	     $0 == "--" { diffs = 1; next }
	     !diffs { sub(/^ *\[ *[0-9]*\] */, ""); lo[++ns] = hex($4); hi[ns] = hex($4) + hex($5); next }
	     { off = $1 - 1; o = oct($2); u = oct($3); inside = 0
	       for (k = 1; k <= ns; k++) if (off >= lo[k] && off < hi[k]) inside = 1
	       if (!inside || !(o >= 97 && o <= 122 && u == o - 32)) print }'
}

# compare a lower-case source with its upper-cased copy, both compiled in their own directory
# under the same file name (line info names the file)
compare() {   # label, source
	local label=$1 src=$2 name lo up err bad ndiff
	name=$(basename "$src" .lisp)
	lo="$out/lo/$name.lisp"; up="$out/up/$name.lisp"
	cp "$src" "$lo"
	upcase "$src" >"$up"
	if cmp -s "$lo" "$up"; then
		echo "FAIL $label/$name: upper-casing changed nothing"
		return
	fi
	if ! err=$(cd "$out/lo" && "$KILN" compile "$name.lisp" -o "$name.o" 2>&1 >/dev/null); then
		echo "SKIP $label/$name: the lower-case original does not compile here: $(head -1 <<<"$err")"
		return
	fi
	if ! err=$(cd "$out/up" && "$KILN" compile "$name.lisp" -o "$name.o" 2>&1 >/dev/null); then
		echo "FAIL $label/$name: the upper-case copy does not compile: $(head -1 <<<"$err")"
		return
	fi
	if [ "$(stat -c %s "$out/lo/$name.o")" != "$(stat -c %s "$out/up/$name.o")" ]; then
		# a user's name that is also the name of a type kiln writes (a field called s8 beside
		# the kernel's typedef s8) shares one string in the lower-case object and not in the
		# upper-case one: then compare what the objects say, the BTF and the code, in any case
		local c
		for c in lo up; do
			bpftool btf dump file "$out/$c/$name.o" | tr a-z A-Z >"$out/$c/$name.btf"
			llvm-objdump -d -r "$out/$c/$name.o" | tail -n +3 | tr a-z A-Z >"$out/$c/$name.dis"
		done
		if cmp -s "$out/lo/$name.btf" "$out/up/$name.btf" && cmp -s "$out/lo/$name.dis" "$out/up/$name.dis"; then
			echo "PASS $label/$name (the same BTF and code in any case; strings shared differently)"
		else
			echo "FAIL $label/$name: the objects differ in size, and in BTF or code beyond case"
		fi
		return
	fi
	bad=$(not_case_only "$out/lo/$name.o" "$out/up/$name.o")
	ndiff=$(cmp -l "$out/lo/$name.o" "$out/up/$name.o" | wc -l)
	if [ -n "$bad" ]; then
		echo "FAIL $label/$name: the objects differ beyond the case of names: $(head -3 <<<"$bad" | tr '\n' ' ')"
	elif [ "$ndiff" -eq 0 ]; then
		echo "FAIL $label/$name: the objects are identical, but the upper-case names should be in them"
	else
		echo "PASS $label/$name (identical but for $ndiff letters' case in names and line text)"
	fi
}

# ---- a program in upper and mixed case, run
prog=tests/case/upper.lisp
if ! run=$("$KILN" test-run "$prog" 2>&1); then
	echo "FAIL case/upper-run: $(tail -3 <<<"$run" | tr '\n' ' ')"
else
	entry() {   # map, key: the value test-run printed
		awk -v m="$1" -v k="$2" '$1 == "map" { cur = $2 } cur == m && $1 == k && $2 == "=>" { $1 = $2 = ""; sub(/^ */, ""); print }' <<<"$run"
	}
	port=$(entry Events 7 | sed -n 's/.*Port: \([0-9]*\).*/\1/p')
	got="retval=$(sed -n 's/^prog Upper: retval \([0-9]*\).*/\1/p' <<<"$run") M0=$(entry M 0) twice=$(entry Counts 2)"
	got+=" A=$(entry Counts 3) a=$(entry Counts 4) slots=$(entry Counts 5) case=$(entry Counts 6)"
	got+=" event=$(entry Events 7)"
	want="retval=2 M0=1 twice=$((2 * ${port:-0})) A=65 a=97 slots=8 case=2"
	want+=" event={Pid: 42, Port: ${port:-?}, Proto: 0}"
	if [ -n "$port" ] && [ "$got" = "$want" ]; then
		echo "PASS case/upper-run ($got)"
	else
		echo "FAIL case/upper-run: got '$got', expected '$want'"
	fi
fi

obj="$out/upper.o"
if ! err=$("$KILN" compile "$prog" -o "$obj" 2>&1); then
	echo "FAIL case/upper-btf: $err"
else
	btf=$(bpftool btf dump file "$obj" 2>&1)
	syms=$(readelf -s -W "$obj")
	missing=""
	for want in "STRUCT 'ConnectionEvent' size=8 vlen=3" "'Pid' type_id" "'Port' type_id" "'Proto' type_id" \
		    "VAR 'Counts'" "VAR 'M'" "VAR 'Events'" "FUNC 'Upper'" "FUNC 'Twice'"; do
		grep -qF "$want" <<<"$btf" || missing+=" [$want]"
	done
	for want in Counts M Events Upper Twice; do
		awk -v n="$want" '$NF == n { f = 1 } END { exit !f }' <<<"$syms" || missing+=" [symbol $want]"
	done
	grep -qi "connectionevent'" <<<"$btf" && ! grep -qF "'ConnectionEvent'" <<<"$btf" && missing+=" [case of ConnectionEvent]"
	if [ -z "$missing" ]; then
		echo "PASS case/upper-btf (ConnectionEvent, Pid, Counts, Upper as written in BTF and ELF)"
	else
		echo "FAIL case/upper-btf: missing$missing"
	fi
fi

# ---- corpus programs in upper case, run against their C twins (as corpus.sh runs them): the
# map and program names the twin pairs by name are defined in lower case and used in upper
# case everywhere else (RESULTS is results); macros' names, parameters and backquote, the
# struct accessors, types and constants are upper case
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
mkdir -p "$out/twin"
for name in macros wh-struct event-stores arith; do
	lisp=tests/corpus/$name.lisp up="$out/twin/$name.lisp" kobj="$out/twin/$name.kiln.o" cobj="$out/twin/$name.clang.o"
	upcase "$lisp" | sed 's/^(DEFMAP \([^ ]*\)/(DEFMAP \L\1/; s/^(DEFPROG \([^ ]*\)/(DEFPROG \L\1/; s/^(DEF-COUNTER \([^ ]*\)/(DEF-COUNTER \L\1/' >"$up"
	args=$(sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' "$lisp" | tr '\n' ' ')
	if ! grep -q '^(DEFPROG [a-z]' "$up" || ! grep -q 'RESULTS\|DEFSTRUCT\|DEFMACRO' "$up"; then
		echo "FAIL case-twin/$name: the upper-case copy is not what this test means to run"
	elif ! err=$("${CLANG:-clang}" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "${lisp%.lisp}.c" -o "$cobj" 2>&1); then
		echo "SKIP case-twin/$name: the C twin does not build here: $(head -1 <<<"$err")"
	elif ! err=$("$KILN" compile "$up" -o "$kobj" 2>&1); then
		echo "FAIL case-twin/$name: $(head -1 <<<"$err")"
	# shellcheck disable=SC2086  # twin-args are whitespace-separated words by design
	elif ! err=$(timeout 300 "$BUILD/tests/twin" "$kobj" "$cobj" $args 2>&1); then
		echo "FAIL case-twin/$name: $(head -3 <<<"$err" | tr '\n' ' ')"
	else
		echo "PASS case-twin/$name (the upper-case copy runs as the C twin does)"
	fi
done

# ---- kiln's corpus, examples and the other test programs (CO-RE, tracing, verifier), upper-cased
for f in tests/corpus/*.lisp examples/*.lisp tests/{core,whistler,progtypes,verifier,lib,cli,warnings}/*.lisp; do
	compare case "$f"
done

# ---- Whistler's examples, upper-cased (read from a checkout, never copied into kiln)
. "$ROOT/tests/harness/peers.sh"
examples="count-xdp drop-port multi-prog percpu-counter ratelimit-xdp ringbuf-events
sk-lookup-catchall synflood-xdp tail-call-dispatch tc-classifier cgroup-firewall"
mkdir -p "$out/whistler"
n=0
for ex in $examples; do
	dst="$out/whistler/$ex.lisp"
	if ! whistler_file "examples/$ex.lisp" >"$dst" || [ ! -s "$dst" ]; then
		rm -f "$dst"
		continue
	fi
	n=$((n + 1))
	compare case-whistler "$dst"
done
if [ $n -eq 0 ]; then
	for ex in $examples; do peer_skip "case-whistler/$ex" "no Whistler checkout at $WHISTLER_DIR"; done
fi
exit 0
