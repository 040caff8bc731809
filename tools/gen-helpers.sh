#!/bin/sh
# gen-helpers.sh — regenerate src/compiler/helpers.inc, kiln's table of BPF helpers, from the
# uapi <linux/bpf.h>: ids from __BPF_FUNC_MAPPER, argument kinds from the documented signatures.
#
# usage: tools/gen-helpers.sh [path/to/linux/bpf.h [path/to/helpers.inc]]
# The .inc is checked in, so building kiln never runs this; run it after a uapi header update
# and review the diff. Needs only a POSIX sh and awk (mawk, gawk and busybox awk all do).
set -eu

hdr=${1:-/usr/include/linux/bpf.h}
out=${2:-$(dirname "$0")/../src/compiler/helpers.inc}
[ -r "$hdr" ] || { echo "gen-helpers: cannot read $hdr" >&2; exit 1; }

# The header's version, for the provenance line; version.h sits next to bpf.h in linux-libc-dev.
ver=$(awk '$2 == "LINUX_VERSION_CODE" { c = $3 + 0
	printf "%d.%d.%d", int(c / 65536), int(c / 256) % 256, c % 256 }' \
	"$(dirname "$hdr")/version.h" 2>/dev/null || true)
[ -n "$ver" ] || ver=unknown

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
trap 'exit 1' INT TERM

awk -v hdr="$hdr" -v ver="$ver" '
# How an argument is classified (the brief of tables.h, applied to a documented C parameter):
#   struct bpf_map *, or a void * named map/ringbuf (get_local_storage, ringbuf_*)  -> MAP
#   the FIRST parameter, when it is the program context: a context struct, or a void *
#   named ctx/skb/bpf_socket                                                        -> CTX
#   a parameter named unsafe_ptr/user_ptr: the verifier takes any value there
#   (ARG_ANYTHING), so an address read out of memory is passed as an integer         -> SCALAR
#   any other pointer                                                              -> PTR
#   anything else                                                                  -> SCALAR
# "..." (trace_printk) makes the row variadic: nargs becomes 5, the BPF call maximum, and
# tables.c knows how many of them are fixed.
BEGIN {
	ctxstruct = "^(const )?struct (sk_buff|__sk_buff|xdp_buff|xdp_md|pt_regs|bpf_perf_event_data|" \
		"sk_msg_buff|sk_msg_md|bpf_sock_ops|bpf_sock_addr|sk_reuseport_md|bpf_sysctl|" \
		"bpf_sk_lookup) \\*$"

	# Rows written by hand: helpers whose documented signature misleads the rule above (or,
	# in some future header, has no signature at all). "ret_ptr|nargs|kinds|why".
	hand["skb_output"] = "false|5|KL_ARG_PTR, KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR|" \
		"documented as void *ctx, but the verifier wants a BTF struct sk_buff *, not the context"
	hand["xdp_output"] = "false|5|KL_ARG_PTR, KL_ARG_MAP, KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR|" \
		"documented as void *ctx, but the verifier wants a BTF struct xdp_buff *, not the context"
	hand["probe_write_user"] = "false|3|KL_ARG_SCALAR, KL_ARG_PTR, KL_ARG_SCALAR|" \
		"dst is a user-space address: any value (ARG_ANYTHING)"
	nfn = 0
}

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

function kind(arg, first,    name, type) {
	name = arg
	sub(/.*[^A-Za-z0-9_]/, "", name)
	type = trim(substr(arg, 1, length(arg) - length(name)))
	if (type ~ /struct bpf_map \*$/ || (type ~ /\*$/ && (name == "map" || name == "ringbuf")))
		return "KL_ARG_MAP"
	if (first && (type ~ ctxstruct || (type ~ /^(const )?void \*$/ && name ~ /^(ctx|skb|bpf_socket)$/)))
		return "KL_ARG_CTX"
	if (name == "unsafe_ptr" || name == "user_ptr")
		return "KL_ARG_SCALAR"
	if (type ~ /\*/)
		return "KL_ARG_PTR"
	return "KL_ARG_SCALAR"
}

# " * void *bpf_map_lookup_elem(struct bpf_map *map, const void *key)"
function signature(line,    s, name, ret, list, n, a, i, kinds, nargs) {
	s = line
	sub(/^ \* /, "", s)
	if (!match(s, /bpf_[a-z0-9_]+\(/))
		return
	name = substr(s, RSTART + 4, RLENGTH - 5)
	if (name in row)
		return   # several documented variants (get_socket_cookie): the first one is the rule
	ret = substr(s, 1, RSTART - 1)
	list = substr(s, RSTART + RLENGTH)
	sub(/\)[ \t]*$/, "", list)
	list = trim(list)
	kinds = ""; nargs = 0
	if (list != "void" && list != "") {
		n = split(list, a, ",")
		for (i = 1; i <= n; i++) {
			a[i] = trim(a[i])
			if (a[i] == "...") {
				fixed[name] = nargs
				while (nargs < 5) {
					kinds = kinds ", KL_ARG_SCALAR"
					nargs++
				}
				break
			}
			kinds = kinds ", " kind(a[i], i == 1)
			nargs++
		}
	}
	if (nargs > 5) {
		printf "gen-helpers: %s has %d arguments\n", name, nargs > "/dev/stderr"
		bad = 1
	}
	kinds = nargs ? substr(kinds, 3) : "KL_ARG_NONE"
	row[name] = (ret ~ /\*/ ? "true" : "false") ", " nargs ", { " kinds " }"
}

/Start of BPF helper function descriptions/ { indoc = 1; next }
indoc && /^ \*\// { indoc = 0; next }
indoc && /^ \* [A-Za-z_].*bpf_[a-z0-9_]+\(.*\)[ \t]*$/ { signature($0); next }

# Old headers list FN(name) and the id is the position; newer ones write FN(name, id, ##ctx).
/^#define _+BPF_FUNC_MAPPER\(FN/ { inmap = 1 }
inmap {
	s = $0
	while (match(s, /FN\([a-z0-9_]+[^)]*\)/)) {
		n = split(substr(s, RSTART + 3, RLENGTH - 4), a, ",")
		fn[nfn] = trim(a[1])
		id[nfn] = (n >= 2 && trim(a[2]) ~ /^[0-9]+$/) ? trim(a[2]) + 0 : nfn
		nfn++
		s = substr(s, RSTART + RLENGTH)
	}
	if ($0 !~ /\\[ \t]*$/)
		inmap = 0
}

END {
	if (nfn == 0) {
		print "gen-helpers: no __BPF_FUNC_MAPPER in " hdr > "/dev/stderr"
		exit 1
	}
	printf "/* helpers.inc — one row per BPF helper, included by tables.c: kiln name, BPF_FUNC_* id,\n"
	printf " * returns a pointer, argument count and kinds. Generated by tools/gen-helpers.sh from\n"
	printf " * %s (linux %s); do not edit, regenerate. */\n", hdr, ver
	for (i = 0; i < nfn; i++) {
		name = fn[i]
		if (name == "unspec")
			continue
		kiln = name
		gsub(/_/, "-", kiln)
		note = ""
		if (name in hand) {
			split(hand[name], h, "|")
			r = h[1] ", " h[2] ", { " h[3] " }"
			note = " /* by hand: " h[4] " */"
		} else if (name in row) {
			r = row[name]
			if (name in fixed) {
				note = " /* variadic: " fixed[name] " fixed, up to 5 */"
				printf "gen-helpers: %s is variadic (%d fixed): helper_variadic in tables.c must list it\n",
					name, fixed[name] > "/dev/stderr"
			}
		} else {
			print "gen-helpers: " name " has no documented signature; add a row to hand[]" > "/dev/stderr"
			bad = 1
			continue
		}
		printf "{ \"%s\", %d, %s },%s\n", kiln, id[i], r, note
	}
	exit bad ? 1 : 0
}
' "$hdr" >"$tmp"

mv "$tmp" "$out"
trap - EXIT
echo "gen-helpers: wrote $out ($(grep -c '^{ "' "$out") helpers)" >&2
