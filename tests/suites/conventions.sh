#!/usr/bin/env bash
# conventions.sh — what a user expects of a Unix tool besides its work: `kiln --version` and
# `kiln version` (the Makefile's VERSION; --json with libbpf's version and the kernel's
# uname); a man page for kiln and for every command in the table (`kiln help --commands`, so
# commands added later are covered) that groff renders without a warning and that names
# every option the command's --help and option table name; the bash completion script
# (commands, verbs, options, files, pins under /sys/fs/bpf, interfaces), run in bash with
# COMP_WORDS set as readline would; the Vim syntax and file type detection under editors/,
# loaded by a headless vim, and the Emacs mode byte-compiled, each where the editor is
# installed (SKIP with the reason otherwise).
set -u
SUITE=conventions
. "$ROOT/tests/harness/report.sh"
tmp=$(mktemp -d)
pin=/sys/fs/bpf/kiln-conv-$$
trap 'rm -rf "$tmp" "$pin"' EXIT

# ---- version ----------------------------------------------------------------------------
want=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
v=$("$KILN" --version); rc=$?
[[ $rc -eq 0 && $v =~ ^kiln\ $want( \(git [0-9a-z.+-]+\))?$ ]] && pass version-flag \
	|| fail version-flag "rc $rc, '$v' (VERSION $want)"
check version-command "$v" "$("$KILN" version 2>&1)"
# the line ends with a newline (command substitution would hide a missing one)
check version-newline "$(printf '\n' | od -An -c)" "$("$KILN" --version | tail -c1 | od -An -c)"
j=$("$KILN" version --json 2>&1)
got=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["version"], d["libbpf"], d["kernel"]["release"], d["kernel"]["machine"])' "$j" 2>&1)
lb=$(pkg-config --modversion libbpf 2>/dev/null | cut -d. -f1,2)
check version-json "$want ${lb:-?} $(uname -r) $(uname -m)" "$got"
check version-help 0 "$("$KILN" help version >/dev/null 2>&1; echo $?)"

# ---- man pages --------------------------------------------------------------------------
cmds=$("$KILN" help --commands)
# the table --commands prints is the one `kiln --help` lists
listed=$("$KILN" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/:$/ {print $1}')
check man-commands "$listed" "$cmds"
render() {   # page -> ASCII text on stdout, groff's warnings on stderr
	LANG=C MANWIDTH=80 groff -man -Tascii -ww -P-cbou "$1"
}
"$KILN" help --man > "$tmp/kiln.1" 2>"$tmp/err" || fail man-kiln "$(cat "$tmp/err")"
render "$tmp/kiln.1" > "$tmp/kiln.txt" 2>"$tmp/warn"
check man-kiln-clean "" "$(cat "$tmp/warn")"
for c in $cmds; do
	if ! "$KILN" help --man "$c" > "$tmp/$c.1" 2>"$tmp/err"; then
		fail "man-$c" "$(cat "$tmp/err")"; continue
	fi
	render "$tmp/$c.1" > "$tmp/$c.txt" 2>"$tmp/warn"
	check "man-$c-clean" "" "$(cat "$tmp/warn")"
	if command -v mandoc >/dev/null; then
		check "man-$c-lint" "" "$(mandoc -T lint -W warning "$tmp/$c.1" 2>&1)"
	fi
	grep -q "^NAME" "$tmp/$c.txt" && grep -q "kiln-$c - " "$tmp/$c.txt" \
		&& grep -q "^SYNOPSIS" "$tmp/$c.txt" && pass "man-$c-sections" \
		|| fail "man-$c-sections" "$(head -12 "$tmp/$c.txt")"
	grep -q "kiln-$c(1)" "$tmp/kiln.txt" && pass "man-$c-in-kiln.1" || fail "man-$c-in-kiln.1" "no kiln-$c(1) in kiln(1)"
	help=$("$KILN" "$c" --help 2>&1)
	# every option --help names is in the page, and every option of the table is in --help
	# (so help and table cannot drift apart) and in the page's OPTIONS section
	miss=""
	for o in $(grep -oE '(^|[][ |,(])--?[a-zA-Z][a-zA-Z0-9-]*' <<<"$help" | sed 's/^[][ |,(]//' | sort -u); do
		grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|$)" "$tmp/$c.txt" || miss+=" $o"
	done
	check "man-$c-help-options" "" "$miss"
	opts=$(sed -n '/^OPTIONS/,/^[A-Z]/p' "$tmp/$c.txt")
	miss=""; nohelp=""
	for o in $("$KILN" help --options "$c"); do
		grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|$)" <<<"$opts" || miss+=" $o"
		grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|$)" <<<"$help" || nohelp+=" $o"
	done
	check "man-$c-table-options" "" "$miss"
	check "man-$c-table-in-help" "" "$nohelp"
done
# man itself finds and formats a page the way `make install` lays them out
if command -v man >/dev/null; then
	mkdir -p "$tmp/share/man/man1" && cp "$tmp"/*.1 "$tmp/share/man/man1/" \
		&& for c in $cmds; do mv "$tmp/share/man/man1/$c.1" "$tmp/share/man/man1/kiln-$c.1"; done
	o=$(LANG=C MANWIDTH=80 MANPATH="$tmp/share/man" man kiln-map 2>&1 | grep -c 'kiln map dump')
	[ "$o" -ge 1 ] && pass man-installed || fail man-installed "man kiln-map: no 'kiln map dump'"
fi

# ---- bash completion ----------------------------------------------------------------------
"$KILN" completion bash > "$tmp/kiln.bash" 2>"$tmp/err" || fail completion "$(cat "$tmp/err")"
check completion-syntax "" "$(bash -n "$tmp/kiln.bash" 2>&1)"
mkdir -p "$tmp/src/sub" "$pin" && touch "$tmp/src/a.lisp" "$tmp/src/b.o" "$tmp/src/c.txt" && mkdir "$pin/maps-x"
comp() {   # the words, the last being completed -> COMPREPLY sorted, on one line
	(cd "$tmp/src" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
		_kiln; printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "' - "$tmp/kiln.bash" "$@")
}
has() {   # name, words..., then ::, the candidates wanted among COMPREPLY's
	local name=$1; shift; local words=() got miss=""
	while [ "$1" != :: ]; do words+=("$1"); shift; done; shift
	got=" $(comp "${words[@]}")"
	for w; do [[ $got == *" $w "* ]] || miss+=" $w"; done
	[ -z "$miss" ] && pass "$name" || fail "$name" "missing$miss in:$got"
}
check completion-command "map " "$(comp kiln ma)"
check completion-map-verbs "delete dump get list peek pop push set " "$(comp kiln map '')"
check completion-compile-files "a.lisp sub " "$(comp kiln compile '')"
check completion-run-files "a.lisp b.o sub " "$(comp kiln run -w '')"
check completion-option-value "sub " "$(comp kiln compile a.lisp --btf s)"
has completion-compile-options kiln compile - :: -o -O2 --dump-ir --btf -w --no-warnings --help
has completion-map-target kiln map dump "$pin/m" :: "$pin/maps-x"
has completion-iface kiln run a.lisp --iface '' :: lo
has completion-help kiln help '' :: compile map version
# every option of every command's table is offered after its --
for c in $cmds; do
	want=$("$KILN" help --options "$c" | grep -- '^--' | tr '\n' ' ')
	[ -z "$want" ] && continue
	has "completion-$c-options" kiln "$c" -- :: $want
done

# ---- editors --------------------------------------------------------------------------------
printf '(defmap counts :type :hash :max-entries 16 :key :u32 :value :u64)\n(defprog count (:type :xdp)\n  (when-let ((v (getmap counts 0))) (incf v))\n  XDP_PASS)\n' > "$tmp/prog.lisp"
printf '(defun f (x) x)\n' > "$tmp/plain.lisp"
if command -v vim >/dev/null; then
	cat > "$tmp/probe.vim" <<'VIM'
let s:out = [&filetype]
for s:p in [[1,2], [1,9], [1,23], [2,2], [3,4], [4,3]]
  call add(s:out, synIDattr(synID(s:p[0], s:p[1], 1), "name"))
endfor
call writefile(s:out + ['errors:' . v:errmsg], $KILN_VIM_OUT)
qa!
VIM
	KILN_VIM_OUT="$tmp/vim.out" timeout 20 vim -Es -u NONE -i NONE -N --cmd "set rtp^=$ROOT/editors/vim" \
		-c 'filetype on' -c 'syntax on' -c "e $tmp/prog.lisp" -S "$tmp/probe.vim" </dev/null >/dev/null 2>&1
	check vim-syntax "kiln kilnDefine kilnDefName kilnType kilnDefine kilnForm kilnConstant errors:" \
		"$(tr '\n' ' ' < "$tmp/vim.out" 2>/dev/null | sed 's/ $//')"
	KILN_VIM_OUT="$tmp/vim2.out" timeout 20 vim -Es -u NONE -i NONE -N --cmd "set rtp^=$ROOT/editors/vim" \
		-c 'filetype on' -c "e $tmp/plain.lisp" -c 'call writefile([&filetype], $KILN_VIM_OUT)' -c 'qa!' </dev/null >/dev/null 2>&1
	check vim-plain-lisp "lisp" "$(cat "$tmp/vim2.out" 2>/dev/null)"
else
	echo "SKIP conventions/vim-syntax: vim is not installed"
fi
if command -v emacs >/dev/null; then
	cp "$ROOT/editors/kiln-mode.el" "$tmp/"
	o=$(timeout 60 emacs --batch -Q --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$tmp/kiln-mode.el" 2>&1)
	[ $? -eq 0 ] && pass emacs-byte-compile || fail emacs-byte-compile "$o"
	o=$(timeout 60 emacs --batch -Q -L "$tmp" -l kiln-mode --visit "$tmp/prog.lisp" \
		--eval '(progn (font-lock-ensure) (goto-char (point-min)) (search-forward "defprog") (princ (format "%s %s" major-mode (get-text-property (1- (point)) (quote face)))))' 2>&1 | tail -1)
	check emacs-mode "kiln-mode font-lock-keyword-face" "$o"
else
	echo "SKIP conventions/emacs-mode: emacs is not installed (the mode is not byte-compiled here)"
fi

# ---- module lines -------------------------------------------------------------------------
# Outside src/compiler and src/lib the compiler is reached through <kiln/compile.h> only:
# no file includes libkiln's private lib/fail.h, the compilation context (compiler/compile.h)
# or a stage's header (forms, lower, emit, regalloc, elf, btf, opt).
priv='#include "(lib/fail|compiler/(compile|forms|lower|emit|regalloc|elf|btf|opt))\.h"'
got=$(cd "$ROOT" && find src -name '*.[ch]' -not -path 'src/compiler/*' -not -path 'src/lib/*' -print0 |
	xargs -0 grep -lE "$priv" | sort)
check module-lines-compiler "" "$got"
# and every header kiln installs (include/kiln) is one kiln.h includes
miss=$(cd "$ROOT/include/kiln" && for h in *.h; do [ "$h" = kiln.h ] || grep -q "#include \"$h\"" kiln.h || echo "$h"; done)
check module-lines-kiln-h "" "$miss"
