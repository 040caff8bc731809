#!/usr/bin/env bash
# interop.sh — kiln's objects in other tools' hands: for every example and corpus program,
# `bpftool btf dump file` shows each defmap as clang lays it out, `bpftool prog loadall`
# loads every program, and libbpf opens and loads the object with func and line info.
set -u
out="$BUILD/tests/interop"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-interop-$$
trap 'rm -rf "$pin"' EXIT

for src in "$ROOT"/examples/*.lisp "$ROOT"/tests/corpus/*.lisp; do
	[ -f "$src" ] || continue
	name=$(basename "$(dirname "$src")")/$(basename "$src" .lisp)
	obj="$out/${name//\//_}.o"
	if ! err=$("$KILN" compile "$src" -o "$obj" 2>&1); then
		echo "FAIL interop/$name: kiln compile: $(echo "$err" | head -1)"
		continue
	fi
	# each (defmap NAME ...) is a VAR of an anonymous struct with type and max_entries, in .maps
	btf=$(bpftool btf dump file "$obj" 2>&1) || { echo "FAIL interop/$name: bpftool btf dump: $btf"; continue; }
	# the defmap names, comments (; and #| |#) removed first
	maps=$(perl -0pe 's/#\|.*?\|#//gs; s/;[^\n]*//g' "$src" | grep -o '(defmap [^ )]*' | awk '{print $2}' | tr - _)
	# and the drop counter kiln adds for each ring buffer with-event writes to
	maps="$maps $(perl -0pe 's/;[^\n]*//g' "$src" | grep -oE '\(with-event \([^ ]+ [^ ]+ [^ )]+\)' | awk '{print $4}' | tr -d ')' | sort -u | tr - _ | sed 's/$/_drops/')"
	bad=""
	for m in $maps; do
		grep -q "^\[[0-9]*\] VAR '$m' type_id=[0-9]*, linkage=global" <<<"$btf" || bad="$bad no VAR '$m';"
	done
	if [ -n "$maps" ]; then
		grep -q "DATASEC '.maps'" <<<"$btf" || bad="$bad no DATASEC .maps;"
		grep -q "'type' type_id=" <<<"$btf" || bad="$bad no 'type' member;"
		grep -q "'max_entries' type_id=" <<<"$btf" || bad="$bad no 'max_entries' member;"
		nvars=$(awk "/DATASEC '.maps'/ {on=1; next} /^\[/ {on=0} on && /\(VAR '/ {n++} END {print n+0}" <<<"$btf")
		[ "$nvars" -eq "$(wc -w <<<"$maps")" ] || bad="$bad .maps has $nvars vars;"
	fi
	grep -q "^\[[0-9]*\] FUNC '" <<<"$btf" || bad="$bad no FUNC;"
	if [ -n "$bad" ]; then
		echo "FAIL interop/$name-btf:$bad"
	else
		echo "PASS interop/$name-btf"
	fi
	rm -rf "$pin"
	before=$(ls /sys/fs/bpf)
	if err=$(bpftool prog loadall "$obj" "$pin" 2>&1); then
		echo "PASS interop/$name-bpftool-loadall"
	else
		echo "FAIL interop/$name-bpftool-loadall: $(echo "$err" | grep -v '^libbpf: -- ' | tail -3 | tr '\n' ' ')"
	fi
	rm -rf "$pin"
	# maps with :pinning :by-name were pinned by libbpf under /sys/fs/bpf: remove them
	for p in $(comm -13 <(sort <<<"$before") <(ls /sys/fs/bpf | sort)); do rm -f "/sys/fs/bpf/$p"; done
	if err=$("$BUILD/tests/loadobj" "$obj" 2>&1); then
		echo "PASS interop/$name-libbpf-load"
	else
		echo "FAIL interop/$name-libbpf-load: $(echo "$err" | tail -3 | tr '\n' ' ')"
	fi
done
