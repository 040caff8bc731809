#!/usr/bin/env bash
# test_run.sh — the per-call overhead of libkiln's kiln_prog_test_run against libbpf's
# bpf_prog_test_run_opts on one trivial XDP program (bench/test_run.c): ns per call for each
# and the ratio, with the two loops taking turns going first. Asserts nothing. As root:
#   make lib && bash bench/test_run.sh [CALLS [ROUNDS]]      (default 1000000 calls, 4 rounds)
set -eu
. "$(dirname "$0")/build.sh"
bench_build test_run
src=$(mktemp --suffix=.lisp)
trap 'rm -f "$src"' EXIT
echo '(defprog pass (:type :xdp) XDP_PASS)' > "$src"
"$bin" "$src" "${1:-1000000}" "${2:-4}"
