#!/usr/bin/env bash
# tests/trace/testprogs.sh GITDIR TAG OUTDIR — the test programs bpftrace's runtime suite runs
# and probes (tests/testprogs/*, tests/testlibs/*.c of bpftrace at TAG, read from its git
# mirror, never copied into kiln) built with gcc the way that tag's CMakeLists builds them:
#   v0.17 (tests/CMakeLists.txt): each program on its own, -g -O0, linked -no-pie; each
#     library shared (-fPIC), -g -O0, left not executable; HAVE_SYSTEMTAP_SYS_SDT_H when
#     <sys/sdt.h> is there (Debian's systemtap-sdt-dev), so the usdt programs carry their
#     probes; usdt_lib linked with libusdt_tp;
#   v0.26 (tests/testprogs/CMakeLists.txt, a file there): the same with tests/include on the
#     include path and frame pointers kept, each program also as NAME-pie (-fpie -pie),
#     C++ ones with g++, uprobe_nofp without frame pointers (-O1), and the derived files the
#     suite names: false.bin (main alone, raw), archive.zip (true, stored), uprobe_test-stripped
#     with its debug file in external_debug/, uprobe_separate_debug-stripped with .debug/
#     beside it, the Go and Rust programs when go and rustc are there (go build; rustc with
#     v0 symbol mangling). (The split-DWARF ones are not built.)
# The runner links OUTDIR/testprogs and OUTDIR/testlibs beside the tests, where their RUN
# lines look (./testprogs/x). Rebuilt only when OUTDIR/.stamp is missing or names another
# commit or another text of this script. Prints what failed to build; exits non-zero only when nothing was built.
set -u
git_dir=$1 tag=$2 out=$(realpath -m "$3")
commit=$(git -C "$git_dir" rev-parse "$tag^{commit}") || exit 1
stamp="$commit $(md5sum <"$0" | cut -c1-12)"   # the sources' commit and this script's text
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0
rm -rf "$out" && mkdir -p "$out/src" "$out/testprogs" "$out/testlibs" || exit 1
git -C "$git_dir" archive "$commit" tests/testprogs tests/testlibs tests/include 2>/dev/null |
	tar -x -C "$out/src" 2>/dev/null ||
	git -C "$git_dir" archive "$commit" tests/testprogs tests/testlibs | tar -x -C "$out/src" || exit 1
src=$out/src/tests new=0
[ -f "$src/testprogs/CMakeLists.txt" ] && new=1
cflags=(-g -O0 -w)
[ $new = 1 ] && cflags+=(-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -I"$src/include")
echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1 && cflags+=(-DHAVE_SYSTEMTAP_SYS_SDT_H)
built=0
cc_one() {   # output, source, flags...: built (counted) or said
	local cc=gcc
	[[ $2 == *.cpp ]] && cc=g++
	if "$cc" -o "$1" "$2" "${@:3}" 2>/dev/null; then built=$((built + 1))
	else echo "testprogs: $(basename "$1") did not build"; fi
}
for c in "$src"/testlibs/*.c; do
	n=$(basename "$c" .c)
	cc_one "$out/testlibs/lib$n.so" "$c" "${cflags[@]}" -fPIC -shared
	chmod -x "$out/testlibs/lib$n.so" 2>/dev/null
done
for c in "$src"/testprogs/*.c "$src"/testprogs/*.cpp; do
	[ -f "$c" ] || continue
	n=$(basename "${c%.*}")
	extra=()
	[ "$n" = usdt_lib ] && extra=(-fPIC -I"$src/testlibs" -L"$out/testlibs" -lusdt_tp
		-Wl,-rpath,"$out/testlibs")
	flags=("${cflags[@]}")
	[ "$n" = uprobe_nofp ] && flags=(-g -O1 -fomit-frame-pointer -fno-optimize-sibling-calls -w)
	cc_one "$out/testprogs/$n" "$c" "${flags[@]}" -no-pie "${extra[@]}"
	[ $new = 1 ] && cc_one "$out/testprogs/$n-pie" "$c" "${flags[@]}" -fpie -pie "${extra[@]}"
done
if [ $new = 1 ]; then
	t=$out/testprogs
	gcc -c -o "$t/false.o" "$src/testprogs/false.c" && llvm-objcopy -S --only-section=.text \
		--keep-symbol=main -O binary "$t/false.o" "$t/false.bin"; rm -f "$t/false.o"
	(cd "$t" && zip -q -0 -j archive.zip true) || echo "testprogs: archive.zip not made (zip)"
	mkdir -p "$t/external_debug" "$t/.debug"
	llvm-objcopy --only-keep-debug "$t/uprobe_test" "$t/external_debug/uprobe_test-stripped.debug" &&
		llvm-objcopy --strip-debug "$t/uprobe_test" "$t/uprobe_test-stripped"
	s=uprobe_separate_debug-stripped
	llvm-objcopy --only-keep-debug "$t/uprobe_separate_debug" "$t/.debug/$s.debug" &&
		llvm-objcopy --strip-debug "$t/uprobe_separate_debug" "$t/$s" &&
		llvm-objcopy --add-gnu-debuglink="$t/.debug/$s.debug" "$t/$s"
	for g in "$src"/testprogs/*.go; do
		[ -f "$g" ] && type -P go >/dev/null || continue
		(cd "$src/testprogs" && GOCACHE=$out/gocache GOFLAGS=-mod=mod go build -o "$t/$(basename "$g" .go)" \
			"$(basename "$g")" 2>/dev/null) || echo "testprogs: $(basename "$g" .go) did not build"
	done
	for r in "$src"/testprogs/*.rs; do
		[ -f "$r" ] && type -P rustc >/dev/null || continue
		rustc -C symbol_mangling_version=v0 -o "$t/$(basename "$r" .rs)" "$r" 2>/dev/null ||
			echo "testprogs: $(basename "$r" .rs) did not build"
	done
fi
[ "$built" -gt 0 ] || exit 1
echo "$stamp" >"$out/.stamp"
