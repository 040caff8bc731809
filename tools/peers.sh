#!/usr/bin/env bash
# tools/peers.sh DIR — `make peers`: clone kiln's two peers, the projects some suites and benches
# compare kiln with (tests/harness/peers.sh), into DIR: DIR/Whistler at the commit the tests were
# written against (WHISTLER_REV) and DIR/bpftrace at tag BPFTRACE_TAG (one commit deep: the
# tests read only that tag). A peer already in DIR is kept when it has what the tests read,
# else reported. Needs the network; without it, says so and fails, changing nothing. The URLs
# and revisions come from the Makefile (WHISTLER_URL, WHISTLER_REV, BPFTRACE_URL, BPFTRACE_TAG).
set -u
dir=${1:?usage: tools/peers.sh DIR}
: "${WHISTLER_URL:?}" "${WHISTLER_REV:?}" "${BPFTRACE_URL:?}" "${BPFTRACE_TAG:?}"
mkdir -p "$dir" || exit 1
status=0

# have NAME REV: whether DIR/NAME is a git checkout (a clone or a bare mirror) that has REV
have() {
	local d=$dir/$1
	if [ -e "$d/.git" ]; then git -C "$d" rev-parse -q --verify "$2^{commit}" >/dev/null 2>&1
	else git --git-dir="$d" rev-parse -q --verify "$2^{commit}" >/dev/null 2>&1; fi
}
# clone NAME URL REV GIT-CLONE-OPTIONS...: DIR/NAME from URL at REV, made whole in a scratch
# directory beside it first
clone() {
	local name=$1 url=$2 rev=$3 tmp err
	shift 3
	if have "$name" "$rev"; then
		echo "peers: $dir/$name has $rev: kept"
		return
	fi
	if [ -e "$dir/$name" ]; then
		echo "peers: $dir/$name exists but has no $rev: move it away, or point KILN_PEERS elsewhere" >&2
		status=1
		return
	fi
	tmp=$(mktemp -d "$dir/.$name.XXXXXX") || { status=1; return; }
	echo "peers: cloning $url into $dir/$name at $rev"
	if ! err=$(git clone -q "$@" "$url" "$tmp/$name" 2>&1) ||
		! err=$(git -C "$tmp/$name" -c advice.detachedHead=false checkout -q "$rev" 2>&1); then
		echo "peers: cannot clone $url (is there a network?): $(tail -1 <<<"$err")" >&2
		echo "peers: without $name its cross-checks SKIP; or set KILN_PEERS to a directory holding" \
			"checkouts of Whistler and bpftrace (README.md, \"Peers\")" >&2
		rm -rf "$tmp"
		status=1
		return
	fi
	mv "$tmp/$name" "$dir/$name" && rmdir "$tmp"
}
clone Whistler "$WHISTLER_URL" "$WHISTLER_REV"
clone bpftrace "$BPFTRACE_URL" "$BPFTRACE_TAG" --depth 1 --branch "$BPFTRACE_TAG"
[ $status -eq 0 ] && echo "peers: ready in $dir (the tests' default; elsewhere, set KILN_PEERS=$dir)"
exit $status
