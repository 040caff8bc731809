#!/usr/bin/env bash
# tools/objinsn.sh DIR [KILN] — of the objects tools/objsame.sh kept (OBJSAME_KEEP=DIR: DIR/old
# and DIR/new), are those that differ the same but for source positions? For each pair that
# is not byte-identical: every section but .BTF and .BTF.ext the same bytes (readelf -x);
# .strtab and .symtab the same but for the STT_FILE symbol's name (the source's path); the
# section list the same (names, types, sizes, but those three's sizes); the BTF types the
# same (bpftool btf dump), and .BTF.ext's func_info records; `kiln disasm` and `llvm-objdump
# -d` the same once their source lines are dropped. kiln trace's objects differ so since its
# line info points into the .bt script. Prints one line per difference and a summary; exits 1
# when any pair differs otherwise.
set -u
dir=$1
K=${2:-$(cd "$(dirname "$0")/.." && pwd)/kiln}
strtab() { readelf -p .strtab "$1" | sed -n 's/^ *\[ *[0-9a-f]*\]  //p'; }
filesym() { readelf -sW "$1" | awk '$4 == "FILE" {print $8}'; }
hdr() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \(.*\)$/\1/p' |
		awk '{n=$1; t=$2; s=$5; if (n ~ /^\.BTF/ || n == ".strtab") s="-"; print n, t, s}'
}
# .BTF.ext's func_info records (section, instruction, type) of two objects: the same?
funcinfo=$(cat <<'PY'
import struct, sys
def sec(path, name):   # an ELF section's bytes
    data = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    shs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    so = shs[shstrndx][4]
    for h in shs:
        if data[so + h[0]:data.index(b'\0', so + h[0])].decode() == name:
            return data[h[4]:h[4] + h[5]]
def btf_str(btf, off):
    hdr_len, = struct.unpack_from('<I', btf, 4)
    str_off, = struct.unpack_from('<I', btf, 16)
    base = hdr_len + str_off + off
    return btf[base:btf.index(b'\0', base)].decode()
def funcinfo(path):   # [(section name, [(insn_off, type_id)...])...]
    ext, btf = sec(path, '.BTF.ext'), sec(path, '.BTF')
    if not ext:
        return []
    hdr_len, = struct.unpack_from('<I', ext, 4)
    fi_off, fi_len = struct.unpack_from('<II', ext, 8)
    p = hdr_len + fi_off; end = p + fi_len
    rec, = struct.unpack_from('<I', ext, p); p += 4
    out = []
    while p < end:
        name_off, n = struct.unpack_from('<II', ext, p); p += 8
        out.append((btf_str(btf, name_off), [struct.unpack_from('<II', ext, p + i * rec) for i in range(n)]))
        p += n * rec
    return out
sys.exit(funcinfo(sys.argv[1]) != funcinfo(sys.argv[2]))
PY
)
# pair OLD NEW: 0 when the same but for source positions
pair() {
	local o=$1 n=$2 b s same=0
	b=$(basename "$o")
	for s in $(hdr "$o" | awk '{print $1}'); do
		case $s in
		NULL|.BTF|.BTF.ext) ;;
		.strtab)
			cmp -s <(strtab "$o" | grep -vxF "$(filesym "$o")") <(strtab "$n" | grep -vxF "$(filesym "$n")") ||
				{ echo "$b: .strtab differs beyond the FILE name"; same=1; } ;;
		.symtab)
			cmp -s <(readelf -sW "$o" | sed 's/ FILE .*/ FILE/') <(readelf -sW "$n" | sed 's/ FILE .*/ FILE/') ||
				{ echo "$b: .symtab differs beyond the FILE name"; same=1; } ;;
		*)
			cmp -s <(readelf -x "$s" "$o") <(readelf -x "$s" "$n") || { echo "$b: section $s differs"; same=1; } ;;
		esac
	done
	cmp -s <(hdr "$o") <(hdr "$n") || { echo "$b: the section list differs"; same=1; }
	python3 -c "$funcinfo" "$o" "$n" || { echo "$b: .BTF.ext's func_info differs"; same=1; }
	cmp -s <(bpftool btf dump file "$o" 2>&1) <(bpftool btf dump file "$n" 2>&1) || { echo "$b: BTF types differ"; same=1; }
	cmp -s <("$K" disasm "$o" | grep -v '^;') <("$K" disasm "$n" | grep -v '^;') || { echo "$b: kiln disasm differs"; same=1; }
	cmp -s <(llvm-objdump -d --no-show-raw-insn "$o" | tail -n +3) <(llvm-objdump -d --no-show-raw-insn "$n" | tail -n +3) ||
		{ echo "$b: llvm-objdump -d differs"; same=1; }
	return $same
}
n=0; ok=0; bad=0
for o in "$dir"/old/*.o; do
	nw=$dir/new/$(basename "$o")
	[ -f "$nw" ] && ! cmp -s "$o" "$nw" || continue
	n=$((n + 1))
	if pair "$o" "$nw"; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
done
echo "objinsn: $n objects differ: $ok only in source positions (.BTF/.BTF.ext line info, the FILE name), $bad otherwise"
[ $bad -eq 0 ]
