# twin_obj.sh — sourced by the suites that compare with the corpus's C twins: `twin_obj C OUT`
# gives OUT the clang -O2 object of twin C: a copy of the one `make twins` built
# (build/twins/NAME.clang.o) when it is newer than C, or clang's output now. Prints clang's
# errors and returns non-zero when it fails.
twin_obj() {
	local c=$1 out=$2 name pre
	name=$(basename "$c" .c)
	pre=${ROOT:-$PWD}/build/twins/$name.clang.o
	if [ "$(dirname "$c")" -ef "${ROOT:-$PWD}/tests/corpus" ] && [ -s "$pre" ] && [ "$pre" -nt "$c" ]; then
		cp "$pre" "$out"
		return
	fi
	"${CLANG:-clang}" -O2 -g -target bpf "-I/usr/include/$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")" \
		-c "$c" -o "$out" 2>&1
}
