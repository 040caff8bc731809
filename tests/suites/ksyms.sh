#!/usr/bin/env bash
# ksyms.sh — kernel symbols (defksym): a typeless one's address against /proc/kallsyms, live;
# typed ones (the per-CPU runqueues read through per-cpu-ptr and this-cpu-ptr, as runqlen
# does; the per-CPU int bpf_prog_active) in .ksyms as clang writes them (symbols,
# relocations, the extern VARs of DATASEC .ksyms), resolved by libbpf to the kernel's BTF
# ids, and read live where the kernel can give the verifier their addresses; the errors at
# file:line:col.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/ksyms"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-ksyms-$$
trap 'rm -rf "$pin" "$pin-c"' EXIT
pass() { echo "PASS ksyms/$1"; }
fail() { echo "FAIL ksyms/$1: $2"; }
skip() { echo "SKIP ksyms/$1: $2"; }

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip all "this kernel has no /sys/kernel/btf/vmlinux"
	exit 0
fi

# a .bss variable's value as `kiln run OBJ` prints it at the end ("{addr: 123, ...}")
value_of() { sed -n "s/.*[{ ]$2: \([0-9-]*\).*/\1/p" "$1" | head -1; }

# ---- typeless: schedule's address, from kallsyms through libbpf, read live ------------------
ksym_addr=$(awk '$3 == "schedule" { print $1; exit }' /proc/kallsyms 2>/dev/null)
if ! err=$("$KILN" compile tests/lib/ksyms-typeless.lisp -o "$out/typeless.o" 2>&1); then
	fail typeless-live "compile: $(head -2 <<<"$err")"
elif [ -z "$ksym_addr" ] || [ "$ksym_addr" == 0000000000000000 ] || [ "$(id -u)" != 0 ]; then
	skip typeless-live "/proc/kallsyms hides addresses here (not root, or kptr_restrict)"
else
	timeout 30 "$KILN" run "$out/typeless.o" --duration 300ms >"$out/typeless.run" 2>&1
	got=$(value_of "$out/typeless.run" addr)
	if [ -n "$got" ] && [ "$(printf '%016x' "$got")" == "$ksym_addr" ]; then
		pass "typeless-live (schedule at $ksym_addr, as /proc/kallsyms says)"
	else
		fail typeless-live "the program read ${got:-nothing}, /proc/kallsyms says $ksym_addr: $(tail -2 "$out/typeless.run" | tr '\n' ' ')"
	fi
fi

# ---- typed: the object as clang's twin is -------------------------------------------------
# One line per .ksyms entry: name, linkage, offset, and the type chain (CONST > STRUCT 'rq').
ksyms_shape() {
	bpftool btf dump file "$1" | awk '
		/^\[[0-9]+\]/ {
			id = substr($1, 2, length($1) - 2); kind[id] = $2; name[id] = $3; ref[id] = ""
			if (match($0, /type_id=[0-9]+/)) ref[id] = substr($0, RSTART + 8, RLENGTH - 8)
			if (match($0, /linkage=[a-z]+/)) link[id] = substr($0, RSTART + 8, RLENGTH - 8)
			cur = id; insec = (kind[id] == "DATASEC" && name[id] == "'"'"'.ksyms'"'"'")
			if (insec) secsize = $4
			next
		}
		insec && match($0, /type_id=[0-9]+ offset=[0-9]+/) {
			split(substr($0, RSTART, RLENGTH), f, /[= ]/); ent[++n] = f[2]; off[n] = f[4]
		}
		END {
			print ".ksyms " secsize
			for (i = 1; i <= n; i++) {
				v = ent[i]; vn = name[v]; gsub(/\047/, "", vn); s = vn " " link[v] " offset=" off[i] ":"
				for (t = ref[v]; t != ""; t = ref[t]) {
					if (t == 0) { s = s " void"; break }
					s = s " " kind[t] (kind[t] == "STRUCT" || kind[t] == "INT" ? " " name[t] : "")
				}
				print s
			}
		}' | sort
}
syms() { readelf -sW "$1" | awk '$4 == "NOTYPE" && $7 == "UND" && $8 != "" { print $5, $8 }' | sort; }
# the program's relocations against them (clang's debug sections have more)
relocs() { readelf -rW "$1" | awk '/^Relocation section/ { code = $3 ~ /raw_tp/ } code && $5 ~ /^(runqueues|bpf_prog_active|schedule)$/ { print $3, $5 }' | sort; }

have_clang=1
if ! command -v clang >/dev/null; then
	fail clang-twin "clang is not installed (make deps)"
	have_clang=0
elif ! err=$(clang -O2 -g -target bpf "-I/usr/include/$(gcc -print-multiarch)" -c tests/lib/ksyms.bpf.c -o "$out/twin-clang.o" 2>&1); then
	fail clang-twin "clang: $(head -2 <<<"$err")"
	have_clang=0
fi
if ! err=$("$KILN" compile tests/lib/ksyms.lisp -o "$out/twin-kiln.o" 2>&1) || [ -n "$err" ]; then
	fail typed-compile "$(head -3 <<<"$err")"
	exit 0
fi
pass typed-compile
if [ $have_clang == 1 ]; then
	sk=$(ksyms_shape "$out/twin-kiln.o"); sc=$(ksyms_shape "$out/twin-clang.o")
	want=".ksyms size=0
bpf_prog_active extern offset=0: CONST INT 'int'
runqueues extern offset=0: CONST STRUCT 'rq'
schedule extern offset=0: CONST void"
	if [ "$sk" == "$sc" ] && [ "$sk" == "$want" ]; then
		pass "btf-as-clang (DATASEC .ksyms: $(tail -n +2 <<<"$sk" | cut -d: -f1 | tr '\n' ',' | sed 's/,$//'))"
	else
		fail btf-as-clang "kiln: $(tr '\n' '|' <<<"$sk") clang: $(tr '\n' '|' <<<"$sc")"
	fi
	yk=$(syms "$out/twin-kiln.o"); yc=$(syms "$out/twin-clang.o")
	rk=$(relocs "$out/twin-kiln.o"); rc=$(relocs "$out/twin-clang.o")
	# the same symbols relocated against (kiln may load a symbol's address once where clang
	# loads it twice: its relocations are those of clang's, each symbol once or more)
	if [ "$yk" == "$yc" ] && [ "$(wc -l <<<"$yk")" == 3 ] && [ "$(uniq <<<"$rk")" == "$(uniq <<<"$rc")" ] &&
		[ "$(uniq <<<"$rk" | wc -l)" == 3 ] && [ "$(wc -l <<<"$rk")" -le "$(wc -l <<<"$rc")" ]; then
		pass "elf-as-clang (3 undefined global NOTYPE symbols; ld_imm64 relocations against them: kiln $(wc -l <<<"$rk"), clang $(wc -l <<<"$rc"))"
	else
		fail elf-as-clang "symbols kiln [$(tr '\n' ' ' <<<"$yk")] clang [$(tr '\n' ' ' <<<"$yc")]; relocations kiln [$(tr '\n' ' ' <<<"$rk")] clang [$(tr '\n' ' ' <<<"$rc")]"
	fi
	count() { llvm-objdump -d "$1" | awk '/^ *[0-9]+:/ { n = $1 + 0; w = / ll$/ ? 2 : 1 } END { print n + w }'; }
	nk=$(count "$out/twin-kiln.o"); nc=$(count "$out/twin-clang.o")
	if [ -n "$nk" ] && [ "$nk" -le "$nc" ]; then
		pass "size (kiln $nk instructions, clang $nc)"
	else
		fail size "kiln ${nk:-?} instructions, clang ${nc:-?}"
	fi
fi

# ---- typed: libbpf resolves them to the kernel's BTF, the kernel gives their addresses -------
# The verifier takes a typed ksym's address from kallsyms; a kernel built without
# CONFIG_KALLSYMS_ALL lists no variable there and refuses every typed ksym (clang's too).
load_log() { bpftool -d prog loadall "$1" "$2" 2>&1; }
vid=$(bpftool btf dump file /sys/kernel/btf/vmlinux | sed -n "s/^\[\([0-9]*\)\] VAR 'runqueues' .*/\1/p")
lk=$(load_log "$out/twin-kiln.o" "$pin"); rk=$?
if ! grep -q "extern (var ksym) 'runqueues': resolved to \[$vid\] var runqueues" <<<"$lk" ||
   ! grep -q "extern (var ksym) 'bpf_prog_active': resolved to \[[0-9]*\] var bpf_prog_active" <<<"$lk"; then
	fail typed-resolve "libbpf: $(grep -iE "extern|ksym|error" <<<"$lk" | grep -v '^libbpf: -- ' | tail -3 | tr '\n' ' ')"
elif [ "$(grep -c "patched insn #[0-9]* (LDX/ST/STX)" <<<"$lk")" != 2 ]; then
	fail typed-resolve "libbpf relocated $(grep -c "patched insn" <<<"$lk") of rq.nr_running's 2 direct loads"
elif [ $rk -eq 0 ]; then
	pass "typed-resolve (libbpf: runqueues is the kernel's BTF VAR [$vid]; loaded)"
elif grep -q "ldimm64 failed to find the address for kernel symbol 'runqueues'" <<<"$lk" && ! grep -qw runqueues /proc/kallsyms; then
	lc=""
	[ $have_clang == 1 ] && lc=$(load_log "$out/twin-clang.o" "$pin-c")
	if [ $have_clang == 1 ] && ! grep -q "ldimm64 failed to find the address for kernel symbol 'runqueues'" <<<"$lc"; then
		fail typed-resolve "kiln's object is refused for runqueues' address, clang's is not: $(grep -iE 'error|fail' <<<"$lc" | tail -2 | tr '\n' ' ')"
	elif ! "$KILN" check tests/lib/ksyms.lisp 2>&1 | grep -q "hint: the verifier takes a typed defksym's address from the kernel's kallsyms"; then
		fail typed-resolve "kiln check gives no hint for the refusal: $("$KILN" check tests/lib/ksyms.lisp 2>&1 | tail -2 | tr '\n' ' ')"
	else
		pass "typed-resolve (libbpf: runqueues is the kernel's BTF VAR [$vid], rq.nr_running's loads relocated; the kernel then asks kallsyms for its address, as for clang's twin, and kiln check explains why it is refused)"
	fi
else
	fail typed-resolve "$(grep -iE "error|fail|invalid|R[0-9] " <<<"$lk" | grep -v '^libbpf: -- ' | tail -3 | tr '\n' ' ')"
fi
rm -rf "$pin" "$pin-c"

if ! grep -qw runqueues /proc/kallsyms; then
	skip typed-live "the kernel lists no variable in /proc/kallsyms (CONFIG_KALLSYMS_ALL off), where the verifier finds a typed ksym's address"
else
	timeout 30 "$KILN" run "$out/twin-kiln.o" --duration 300ms >"$out/typed.run" 2>&1
	nr=$(value_of "$out/typed.run" nr); addr=$(value_of "$out/typed.run" addr)
	if [ -n "$nr" ] && [ "$nr" -ge 1 ] && [ -n "$addr" ] && [ "$addr" != 0 ]; then
		pass "typed-live (this CPU's runqueue runs $nr tasks, the one running the program among them)"
	else
		fail typed-live "nr_running ${nr:-?}, schedule at ${addr:-?}: $(tail -3 "$out/typed.run" | tr '\n' ' ')"
	fi
fi

# ---- Whistler's spelling: (per-cpu-ptr (ld-btf-id ID) CPU), the id made runqueues' extern -----
cat >"$out/whistler.lisp" <<L
(defksym runqueues :type rq)
(defmap out :type :array :key u32 :value u64 :max-entries 2)
(defprog probe (:type :raw-tracepoint :section "raw_tp/sys_enter")
  (when-let ((rq (per-cpu-ptr (ld-btf-id $vid) 0)))
    (setf (getmap out 0) (-> rq nr-running)))
  (setf (getmap out 1) (-> (this-cpu-ptr runqueues) nr-running))
  0)
L
if ! err=$("$KILN" compile "$out/whistler.lisp" -o "$out/whistler.o" 2>&1); then
	fail whistler-ld-btf-id "$(head -2 <<<"$err")"
else
	sw=$(ksyms_shape "$out/whistler.o")
	nloads=$("$KILN" disasm "$out/whistler.o" | grep -c "= \*(u32 \*)(r0 + [0-9]*) *; CO-RE byte_off rq.nr_running")
	if [ "$sw" == ".ksyms size=0
runqueues extern offset=0: CONST STRUCT 'rq'" ] && [ "$nloads" == 2 ]; then
		pass "whistler-ld-btf-id ((ld-btf-id $vid) is runqueues' one extern; its -> loads are direct)"
	else
		fail whistler-ld-btf-id "$(tr '\n' '|' <<<"$sw") $nloads direct loads"
	fi
fi

# ---- errors, each at its file:line:col -----------------------------------------------------
i=0
while IFS='|' read -r form where msg; do
	i=$((i + 1))
	use=schedule
	[[ $form == *defconstant* ]] && use="(ld-btf-id one)"
	printf ';; error case %d\n%s\n(defprog p (:type :raw-tracepoint :section "raw_tp/sys_enter")\n  (this-cpu-ptr %s) 0)\n' \
		"$i" "$form" "$use" >"$out/err$i.lisp"
	if err=$("$KILN" compile "$out/err$i.lisp" -o "$out/err$i.o" 2>&1); then
		fail "error-$i" "compiled: $form"
	elif grep -qF "err$i.lisp:$where: error: $msg" <<<"$err"; then
		pass "error-$i ($msg)"
	else
		fail "error-$i" "$form: $(head -1 <<<"$err")"
	fi
done <<'CASES'
(defksym runqueus :type rq)|2:10|the kernel's BTF has no variable 'runqueus'
(defksym runqueues :type no-such-struct)|2:26|the kernel has no struct or union 'no-such-struct'
(defksym runqueues :type task-struct)|2:26|the kernel's 'runqueues' is a struct rq, not task-struct
(defksym bpf-prog-active :type u64)|2:32|the kernel's 'bpf_prog_active' is a 4-byte signed integer
(defksym no-such-kernel-symbol)|2:10|the kernel has no symbol 'no_such_kernel_symbol'
(defksym schedule)|4:17|'schedule' is a typeless kernel symbol
(defksym schedule :type)|2:19|defksym takes a name and :type TYPE
(defconstant one 1)|4:28|the kernel's BTF type 1
CASES
