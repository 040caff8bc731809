# clang.sh — sourced by the benchmarks that compare kiln's compile with clang's on the twin
# corpus (tests/corpus/X.lisp beside X.c): the flags clang gets, one compile of each, and a
# timer, and floor_process: a process that does nothing, run the same way. Needs $KILN;
# $CLANG may name another clang.
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
CLANG_FLAGS=(-O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c)
kiln_compile() { "$KILN" compile "$1" -o "$2" >/dev/null 2>&1; }             # SRC OBJ
floor_process() { /bin/true "$1" -o "$2" >/dev/null 2>&1; }                 # SRC OBJ: no work at all
clang_compile() { "$CLANG" "${CLANG_FLAGS[@]}" "$1" -o "$2" 2>/dev/null; }    # SRC OBJ
# COMMAND...: its wall time in nanoseconds, in $ns. Timed by bash's clock, not by running
# `date` (two more processes would cost as much as a kiln compile) nor in a $( ) subshell.
# The command's exit status is returned.
ns_of() {
	local start=${EPOCHREALTIME/./} rc end
	"$@"
	rc=$?
	end=${EPOCHREALTIME/./}
	ns=$(((end - start) * 1000))
	return $rc
}
