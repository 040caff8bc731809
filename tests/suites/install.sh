#!/usr/bin/env bash
# install.sh — libkiln as a C user gets it: `make install` into a temporary prefix, then a C
# program built with pkg-config against the shared library and against the static one
# compiles a kiln source, runs it in the kernel and reads its map. The shared library exports
# only kiln_* symbols. The man pages and the bash completion script are installed too. The
# kiln command links what the Makefile says (static archives when it has them all). make
# install runs ldconfig (the test's LDCONFIG) for the linker's cache.
set -u
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
# SANITIZE: the flags of a sanitizer build under test (make test-asan); the install and the
# C program built against it use them too
# (LDCONFIG: what make install runs for the linker's cache, here a marker of the test's own)
if ! o=$(make -s -C "$ROOT" install PREFIX="$dest" BUILD="$BUILD" SANITIZE="${SANITIZE:-}" \
	LDCONFIG="touch $dest/ldconfig-ran" 2>&1); then
	echo "FAIL install/make-install: $(tail -3 <<<"$o")"
	exit 0
fi
if [ -e "$dest/ldconfig-ran" ]; then echo "PASS install/ldconfig"
else echo "FAIL install/ldconfig: make install did not run LDCONFIG"; fi
for f in bin/kiln lib/libkiln.a lib/libkiln.so lib/pkgconfig/kiln.pc include/kiln/kiln.h include/kiln/map.h include/kiln/compile.h \
	share/man/man1/kiln.1 share/man/man1/kiln-compile.1 share/man/man1/kiln-map.1 share/bash-completion/completions/kiln; do
	[ -e "$dest/$f" ] || { echo "FAIL install/files: no $f"; exit 0; }
done
echo "PASS install/files"
export PKG_CONFIG_PATH="$dest/lib/pkgconfig"
bad=$(nm -D --defined-only "$dest/lib/libkiln.so" | awk '$2 == "T" && $3 !~ /^kiln_/ {print $3}' | head -3)
n=$(nm -D --defined-only "$dest/lib/libkiln.so" | awk '$2 == "T" && $3 ~ /^kiln_/' | wc -l)
if [ -z "$bad" ] && [ "$n" -ge 50 ]; then echo "PASS install/exports"
else echo "FAIL install/exports: $n kiln_ symbols, others: $bad"; fi
# the compiler's door is exported: kiln_compile and its companions
exported=$(nm -D --defined-only "$dest/lib/libkiln.so" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}')
miss=$(for s in kiln_compile kiln_compile_is_source kiln_compile_has_pass kiln_compile_passes kiln_compile_prelude; do
	grep -qx "$s" <<<"$exported" || echo "$s"; done)
if [ -z "$miss" ]; then echo "PASS install/exports-compile"
else echo "FAIL install/exports-compile: not exported: $miss"; fi
# a C program compiles a kiln source in memory through the installed header alone
cat > "$dest/compile.c" <<'C'
#include <kiln/kiln.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	void *elf = NULL;
	size_t size = 0;
	char *warnings = NULL;
	struct kiln_compile_opts o = { .sz = sizeof(o), .warnings = &warnings };
	int err = kiln_compile(argv[1], &elf, &size, &o);
	printf("%d %s %s\n", err, err ? kiln_errmsg() : "", elf && size > 4 && !memcmp(elf, "\177ELF", 4) ? "elf" : "none");
	free(elf);
	free(warnings);
	return argc < 2;
}
C
if o=$(cc -std=gnu11 -Wall -Wextra ${SANITIZE:-} -o "$dest/compile" "$dest/compile.c" $(pkg-config --cflags --libs kiln) 2>&1) &&
	o=$(cd "$ROOT" && LD_LIBRARY_PATH="$dest/lib" "$dest/compile" examples/xdp-count.lisp 2>&1) && [ "$o" = "0  elf" ]; then
	echo "PASS install/compile-api"
else
	echo "FAIL install/compile-api: $o"
fi
for kind in shared static; do
	flags=$(pkg-config --cflags --libs kiln) && [ $kind = static ] && flags="-static-libgcc $(pkg-config --cflags kiln) $dest/lib/libkiln.a $(pkg-config --static --libs kiln | sed 's/-lkiln//')"
	if ! o=$(cc -std=gnu11 -Wall -Wextra ${SANITIZE:-} -o "$dest/xdp-verdicts-$kind" "$ROOT/examples/c/xdp-verdicts.c" $flags 2>&1); then
		echo "FAIL install/build-$kind: $o"; continue
	fi
	o=$(cd "$ROOT" && LD_LIBRARY_PATH="$dest/lib" "$dest/xdp-verdicts-$kind" 2>&1)
	if grep -q '^port 23: verdict 1$' <<<"$o" && grep -q '^port 80: verdict 2$' <<<"$o" &&
		grep -q '^verdicts\[1\] = 1$' <<<"$o" && grep -q '^verdicts\[2\] = 2$' <<<"$o"; then
		echo "PASS install/run-$kind"
	else
		echo "FAIL install/run-$kind: $o"
	fi
done
if [ $(ldd "$dest/xdp-verdicts-shared" | grep -c libkiln) -eq 1 ] && [ $(ldd "$dest/xdp-verdicts-static" | grep -c libkiln) -eq 0 ]; then
	echo "PASS install/linkage"
else
	echo "FAIL install/linkage: $(ldd "$dest/xdp-verdicts-shared" "$dest/xdp-verdicts-static" | grep -i kiln)"
fi
# the kiln command under test: libbpf, libdw and libedit from their static archives when the
# Makefile found every archive (README, "Dependencies"), shared otherwise
libs=$(make -s -C "$ROOT" --no-print-directory kiln-libs 2>/dev/null)
shared=$(ldd "$(readlink -f "$KILN")" 2>/dev/null | grep -cE '/lib(bpf|dw|edit)\.so')
if [[ $libs == *-Bstatic* ]]; then want=0; else want=3; fi
if [ -n "$libs" ] && [ "$shared" -eq "$want" ]; then
	echo "PASS install/kiln-linkage ($([ $want = 0 ] && echo static || echo shared) libbpf, libdw, libedit)"
else
	echo "FAIL install/kiln-linkage: the Makefile links '$libs', the binary has $shared of libbpf, libdw, libedit shared"
fi
