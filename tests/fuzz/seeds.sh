#!/usr/bin/env bash
# seeds.sh OUT — the seed corpora and dictionaries of the fuzz harnesses, made from the tests
# and examples (run by `make fuzz`, from the repository root, after `make kiln`):
#   OUT/seed/compiler/  every kiln source of examples/ and tests/ (good and bad programs)
#   OUT/seed/object/    objects (and each one's .BTF alone, raw): those sources compiled by kiln, and the C programs of tests/
#                       and examples/ compiled by clang -target bpf
#   OUT/seed/disasm/    those objects, and each code section of each on its own (raw slots)
#   OUT/seed/event/     per object: u32 length | its .BTF | a record of a struct's size (and
#                       one a byte short), the input format of fuzz_event.c
#   OUT/seed/trace/     bpftrace scripts: kiln's own (tests/trace/), and, from bpftrace's
#                       source (KILN_PEERS, tests/harness/peers.sh; tag v0.17.0, read here,
#                       never committed), its tools/*.bt and each PROG line of its runtime
#                       tests (tests/runtime/*)
#   OUT/compiler.dict   libFuzzer dictionary: the language's form names, helper names,
#                       keywords, map and program types, parens and other tokens
#   OUT/trace.dict      kiln trace's: builtins, functions, providers, keywords, operators
#   OUT/seed/host/      host Lisp (fuzz_host.c): tests/host/*.lisp, the kiln sources above, and
#                       Whistler's examples, read from its checkout (KILN_PEERS, see
#                       tests/harness/peers.sh) now, never copied into kiln
#   OUT/host.dict       the host's special forms and builtins (src/host's and src/lisp's tables),
#                       loop's words, format's directives, numbers (floats among them)
# A harness without a seed directory of its own name gets seed/object.
set -eu
export LC_ALL=C
. "$(dirname "$0")/../harness/peers.sh"   # KILN_PEERS: where Whistler and bpftrace's sources are
out=${1:?usage: seeds.sh OUT}
KILN=${KILN:-./kiln}
CLANG=${CLANG:-clang}
seed=$out/seed
# dict FILE: the words on stdin, each once, as a libFuzzer dictionary ("word", \ and " escaped)
dict() {
	sort -u | while IFS= read -r w; do
		[ -n "$w" ] || continue
		w=${w//\\/\\\\}
		printf '"%s"\n' "${w//\"/\\\"}"
	done >"$1"
}
rm -rf "$seed"
mkdir -p "$seed/compiler" "$seed/object" "$seed/disasm" "$seed/event" "$seed/trace"

# ---- kiln sources ---------------------------------------------------------------------------
lisps=(examples/*.lisp tests/*/*.lisp src/compiler/prelude.lisp)
for f in "${lisps[@]}"; do
	[ -s "$f" ] && cp "$f" "$seed/compiler/$(echo "${f%.lisp}" | tr / _).lisp"
done

# ---- objects --------------------------------------------------------------------------------
for f in "${lisps[@]}"; do
	case $f in tests/errors/*|src/*) continue ;; esac
	"$KILN" compile "$f" -o "$seed/object/$(echo "${f%.lisp}" | tr / _).kiln.o" >/dev/null 2>&1 || true
done
multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
if command -v "$CLANG" >/dev/null; then
	printf '%s\n' examples/c/*.c tests/lib/*.bpf.c tests/corpus/*.c | while read -r c; do
		printf '%s\0%s\0' "$c" "$seed/object/$(echo "${c%.c}" | tr / _).clang.o"
	done | xargs -0 -n2 -P2 sh -c '"$0" -O2 -g -target bpf -I/usr/include/'"$multiarch"' -c "$1" -o "$2" 2>/dev/null || true' "$CLANG"
fi

# ---- sections of the objects ----------------------------------------------------------------
le32() {       # a u32 as 4 little-endian bytes
	printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 24 & 255)))"
}
for o in "$seed"/object/*.o; do
	[ -s "$o" ] || continue
	b=$(basename "$o" .o)
	cp "$o" "$seed/disasm/$b.o"
	# name type address offset size es flags ...: code sections (flag X) and .BTF
	llvm-readelf -SW "$o" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p' | while read -r name type _ off size _ flags _; do
		if [ "$type" = PROGBITS ] && [[ $flags == *X* ]] && [ $((16#$size)) -gt 0 ]; then
			tail -c +$((16#$off + 1)) "$o" | head -c $((16#$size)) >"$seed/disasm/$b.$(echo "$name" | tr / _)"
		elif [ "$name" = .BTF ]; then
			tail -c +$((16#$off + 1)) "$o" | head -c $((16#$size)) >"$seed/event/.btf"
		fi
	done
	[ -s "$seed/event/.btf" ] || continue
	cp "$seed/event/.btf" "$seed/object/$b.btf"   # (fuzz_object takes raw BTF too)
	n=$(stat -c %s "$seed/event/.btf")
	# the structs' sizes (at most 4 per object), records from the object's own bytes
	bpftool btf dump file "$o" 2>/dev/null | sed -n "s/^\[[0-9]*\] STRUCT '[^']*' size=\([0-9]*\).*/\1/p" |
		sort -un | head -4 | while read -r sz; do
		for len in "$sz" $((sz > 0 ? sz - 1 : 0)); do
			{ le32 "$n"; cat "$seed/event/.btf"; tail -c +65 "$o" | head -c "$len"; } >"$seed/event/$b.$len"
		done
	done
	rm -f "$seed/event/.btf"
done

# ---- the compiler's dictionary --------------------------------------------------------------
# every name the compiler's tables know (string literals that look like kiln symbols or
# keywords), the prelude's macros, the keywords the sources use, and the reader's tokens
{
	cat src/compiler/helpers.inc src/compiler/tables.c src/kfacts/*.def src/compiler/lower*.c \
		src/compiler/forms.c src/compiler/expand.c src/compiler/types.c |
		grep -o '"[a-z:*+/<>=!-][a-z0-9:*+/<>=!?-]*"' | tr -d '"'
	sed -n 's/^(defmacro \([^ ()]*\).*/\1/p' src/compiler/prelude.lisp
	cat "${lisps[@]}" | grep -o ':[a-z][a-z0-9-]*'
	printf '%s\n' '(' ')' '((' '))' '()' '[' ']' "'" '`' ',' ',@' '#x' '#b' '#o' "#\\" '#:' '"' ';' '.' \
		'-1' '0' '1' '255' '65536' '4294967295' '18446744073709551615' '9223372036854775808'
} | dict "$out/compiler.dict"

# ---- bpftrace scripts -----------------------------------------------------------------------
for f in tests/trace/*.bt tests/trace/errors/*.bt; do
	[ -s "$f" ] && cp "$f" "$seed/trace/$(echo "${f%.bt}" | tr / _).bt"
done
if bpftrace_has_tag; then
	peer_git "$BPFTRACE_SRC" ls-tree -r --name-only v0.17.0 tools tests/runtime | while read -r f; do
		b=bpftrace_$(echo "$f" | tr / _)
		case $f in
		*.bt) peer_git "$BPFTRACE_SRC" show "v0.17.0:$f" >"$seed/trace/$b" ;;
		tests/runtime/*.*) ;;
		tests/runtime/*)   # one seed per PROG line
			peer_git "$BPFTRACE_SRC" show "v0.17.0:$f" | sed -n 's/^PROG //p' | awk -v p="$seed/trace/$b." \
				'{ print > (p NR ".bt"); close(p NR ".bt") }' ;;
		esac
	done
fi
# the words of kiln trace's tables (builtins, functions, providers) and its tokens
{
	cat src/trace/sema.c src/trace/fn_*.c src/trace/probes.c src/trace/parser.c |
		grep -o '{ "[a-zA-Z_][a-zA-Z0-9_]*"' | sed 's/^{ "//; s/"$//'
	printf '%s\n' BEGIN END if else while unroll break continue return struct sizeof offsetof \
		'@' '$' '$1' '@m[' '->' '++' '--' '+=' '<<' '>>' '==' '!=' '&&' '||' '?' ':' '/' '{' '}' '(' ')' \
		'#include <' '#define ' '%s' '%d' '\\n' 'kprobe:' 'tracepoint:syscalls:sys_enter_' 'uprobe:/bin/sh:'
} | dict "$out/trace.dict"

# ---- the host Lisp ----------------------------------------------------------------------------
mkdir -p "$seed/host"
cp "$seed"/compiler/*.lisp "$seed/host/"        # (tests/host/*.lisp among them)
if peer_git "$WHISTLER_DIR" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	peer_git "$WHISTLER_DIR" ls-tree -r --name-only HEAD -- examples | grep '\.lisp$' | while read -r f; do
		peer_git "$WHISTLER_DIR" show "HEAD:$f" >"$seed/host/whistler_$(basename "$f")" 2>/dev/null || true
	done
fi
{
	grep -ho '{ "[^"]*", \(sf\|b\|host\|rf\)_[a-z0-9_]*' src/host/*.c src/lisp/*.c |
		sed 's/.*{ "\([^"]*\)".*/\1/'
	printf '%s\n' in across from upfrom downfrom to upto downto below above by = then repeat for as \
		while until do doing collect sum count return finally nil t '&optional' '&rest' '&key' \
		'~a' '~s' '~d' '~x' '~o' '~b' '~c' '~%' '~&' '~~' '~{' '~}' '~@{' '~^' '~*' '~:*' '~10,'"'"'0d' \
		'(' ')' "'" '#(' '#\' '"' 'sb-sys:interactive-interrupt' 'error' 'condition' '*standard-output*' \
		'*error-output*' '9223372036854775807' '-9223372036854775808' '1000000000000' \
		'0.1' '-2.5' '.5' '1e38' '1.5d0' '1d308' '12.' '~f' '~,2f' '~8,3f' '~$' '~e' '~,2e' \
		'multiple-value-bind'
} | dict "$out/host.dict"

for d in compiler object disasm event trace host; do
	printf 'seeds: %-8s %5d inputs\n' "$d" "$(find "$seed/$d" -type f | wc -l)"
done
printf 'seeds: compiler.dict %d entries\n' "$(wc -l <"$out/compiler.dict")"
printf 'seeds: trace.dict %d entries\n' "$(wc -l <"$out/trace.dict")"
printf 'seeds: host.dict %d entries\n' "$(wc -l <"$out/host.dict")"
