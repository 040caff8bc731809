# build.sh — sourced by the benchmarks that drive libkiln from C: bench_build NAME compiles
# bench/NAME.c against $BUILD/libkiln.a into $BUILD/bench/NAME (the path goes in $bin), or
# says `make lib` is missing and exits.
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
CC=${CC:-cc}
bench_build() {
	local lib=$BUILD/libkiln.a
	if [ ! -f "$lib" ]; then
		echo "bench/$1: $lib is missing (make lib)" >&2
		exit 1
	fi
	mkdir -p "$BUILD/bench"
	bin=$BUILD/bench/$1
	"$CC" -O2 -g -std=gnu11 -Wall -Wextra -I"$ROOT/include" -I"$ROOT/src" -o "$bin" "$ROOT/bench/$1.c" "$lib" \
		-lbpf -lelf -ldw -lz -lpthread || exit 1
}
