#!/usr/bin/env bash
# tools/objsame.sh OLD_KILN NEW_KILN — are the objects two kiln binaries write the same?
#
# Issue 29 (the redesign) may change no object kiln writes: each stays byte-identical or
# no larger. This compiles, with each binary, every program of the corpus (tests/corpus),
# examples/, tests/whistler/, Whistler's examples and bpftrace v0.17's tools (through
# `kiln trace --emit`; the peers are found as tests/harness/peers.sh says), and compares the
# objects byte for byte. A source both binaries refuse counts as the same when the messages
# match. Prints one line per difference and a summary; exits 1 on any object that differs
# and is larger, or on an error that differs, 0 otherwise.
# Set OBJSAME_KEEP=DIR to keep the objects in DIR; OBJSAME_TRACE_NEW="--dialect 0.17" gives
# the new binary's `kiln trace` those options (the old one's meaning, kept by a newer binary).
set -u
old=$(readlink -f "$1"); new=$(readlink -f "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/harness/peers.sh
. "$root/tests/harness/peers.sh"
work=${OBJSAME_KEEP:-$(mktemp -d)}
mkdir -p "$work/src" "$work/old" "$work/new"
[ -n "${OBJSAME_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

n=0; same=0; smaller=0; larger=0; differ=0; errsame=0; errdiff=0
list=()
for f in "$root"/tests/corpus/*.lisp "$root"/examples/*.lisp "$root"/tests/whistler/*.lisp; do
	[ -f "$f" ] && list+=("lisp:$f")
done
for f in "$root"/tests/trace/*.bt; do [ -f "$f" ] && list+=("bt:$f"); done
if [ -e "$WHISTLER_DIR" ]; then
	mkdir -p "$work/src/whistler"
	for p in $(peer_git "$WHISTLER_DIR" ls-tree --name-only HEAD examples/ | grep '\.lisp$'); do
		whistler_file "$p" > "$work/src/whistler/$(basename "$p")" 2>/dev/null &&
			list+=("lisp:$work/src/whistler/$(basename "$p")")
	done
else
	echo "note: no Whistler checkout ($PEERS_HOW): its examples are not compared"
fi
if [ -e "$BPFTRACE_SRC" ]; then
	mkdir -p "$work/src/bt"
	for p in $(peer_git "$BPFTRACE_SRC" ls-tree --name-only v0.17.0 tools/ | grep '\.bt$'); do
		peer_git "$BPFTRACE_SRC" show "v0.17.0:$p" > "$work/src/bt/$(basename "$p")" 2>/dev/null &&
			list+=("bt:$work/src/bt/$(basename "$p")")
	done
else
	echo "note: no bpftrace checkout ($PEERS_HOW): its tools are not compared"
fi

build() {   # KILN KIND SRC OUT ERR
	case $2 in
	lisp) "$1" compile -w "$3" -o "$4" >/dev/null 2>"$5" ;;
	bt) if [ "$1" = "$new" ]; then
		# shellcheck disable=SC2086  # words, as the user gives them
		"$1" trace ${OBJSAME_TRACE_NEW:-} --emit "$4" "$3" >/dev/null 2>"$5"
	else "$1" trace --emit "$4" "$3" >/dev/null 2>"$5"; fi ;;
	esac
}
for item in "${list[@]}"; do
	kind=${item%%:*}; src=${item#*:}
	base=$(echo "$src" | sed "s|^$root/||; s|^$work/src/||; s|/|_|g")
	n=$((n + 1))
	build "$old" "$kind" "$src" "$work/old/$base.o" "$work/old/$base.err"; ro=$?
	build "$new" "$kind" "$src" "$work/new/$base.o" "$work/new/$base.err"; rn=$?
	if [ $ro -ne 0 ] || [ $rn -ne 0 ]; then
		if [ $ro -ne 0 ] && [ $rn -ne 0 ] && cmp -s "$work/old/$base.err" "$work/new/$base.err"; then
			errsame=$((errsame + 1))
		else
			errdiff=$((errdiff + 1)); echo "ERROR DIFFERS $base (old rc $ro, new rc $rn)"
		fi
		continue
	fi
	if cmp -s "$work/old/$base.o" "$work/new/$base.o"; then
		same=$((same + 1)); continue
	fi
	so=$(stat -c %s "$work/old/$base.o"); sn=$(stat -c %s "$work/new/$base.o")
	if [ "$sn" -lt "$so" ]; then smaller=$((smaller + 1)); echo "SMALLER $base ($so -> $sn bytes)"
	elif [ "$sn" -gt "$so" ]; then larger=$((larger + 1)); echo "LARGER $base ($so -> $sn bytes)"
	else differ=$((differ + 1)); echo "DIFFERS (same size) $base ($so bytes)"; fi
done
echo "objsame: $n sources: $same identical, $smaller smaller, $larger larger, $differ differ at the same size, $errsame refused alike, $errdiff errors differ"
[ $larger -eq 0 ] && [ $errdiff -eq 0 ]
