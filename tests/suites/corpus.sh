#!/usr/bin/env bash
# corpus.sh — semantics proven in the kernel: every tests/corpus/NAME.lisp is compiled by
# kiln and its C twin NAME.c by clang -O2; the harness loads both, runs them with
# BPF_PROG_TEST_RUN on the same packets (the defaults plus the file's `;; twin-args:`) and
# requires identical return values, output packets and map contents.
set -u
out="$BUILD/tests/corpus"
mkdir -p "$out"
for src in "$ROOT"/tests/corpus/*.lisp; do
	name=$(basename "$src" .lisp)
	twin="${src%.lisp}.c"
	if [ ! -f "$twin" ]; then
		echo "FAIL corpus/$name: no C twin $twin"
		continue
	fi
	if ! err=$(clang -O2 -g -target bpf -I/usr/include/"$(uname -m)"-linux-gnu -c "$twin" -o "$out/$name.clang.o" 2>&1); then
		echo "FAIL corpus/$name: clang: $(head -1 <<<"$err")"
		continue
	fi
	if ! err=$("$KILN" compile "$src" -o "$out/$name.kiln.o" 2>&1); then
		echo "FAIL corpus/$name: kiln compile: $(head -1 <<<"$err")"
		continue
	fi
	args=$(sed -n 's/^;; twin-args://p' "$src")
	# shellcheck disable=SC2086  # twin-args are words
	if res=$("$BUILD/tests/twin" "$out/$name.kiln.o" "$out/$name.clang.o" $args 2>&1); then
		echo "PASS corpus/$name"
	else
		echo "FAIL corpus/$name: $(grep -v '^STATS' <<<"$res" | head -1)"
		grep -v '^STATS' <<<"$res" | sed -n '2,8s/^/    /p'
	fi
done
