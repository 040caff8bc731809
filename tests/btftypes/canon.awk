# canon.awk — BTF as text that does not depend on type ids, for tests/suites/btftypes.sh.
# Reads `bpftool btf dump file` output and prints every VAR and FUNC with each type id
# replaced by the type it names, recursively, and each DATASEC entry on its own line: two
# dumps of the same C types print the same lines whatever their ids and order (sort them).
# With -v chain=NAME, prints only the first TYPEDEF called NAME, expanded the same way.
/^\[[0-9]+\] / {
	id = substr($1, 2, length($1) - 2) + 0
	line = $0
	sub(/^\[[0-9]+\] /, "", line)
	head[id] = line
	kind[id] = $2
	nsub[id] = 0
	if (chain != "" && !found && $2 == "TYPEDEF" && $3 == "'" chain "'")
		found = id
	next
}
/^\t/ { sub_line[id, nsub[id]++] = substr($0, 2); next }
# every type_id=N (and index_type_id=, ret_type_id=) in s, as the type N expanded
function expand(s, depth,    out, pre, num, rest) {
	out = ""
	while (match(s, /type_id=[0-9]+/)) {
		pre = substr(s, 1, RSTART - 1)
		num = substr(s, RSTART + 8, RLENGTH - 8) + 0
		rest = substr(s, RSTART + RLENGTH)      # before canon's own match() moves RSTART
		out = out pre "type_id=(" canon(num, depth + 1) ")"
		s = rest
	}
	return out s
}
function canon(id, depth,    s, i) {
	if (id == 0)
		return "void"
	if (!(id in head))
		return "MISSING"
	if (depth > 24)
		return "DEEP"
	s = expand(head[id], depth)
	for (i = 0; i < nsub[id]; i++)
		s = s " {" expand(sub_line[id, i], depth) "}"
	return s
}
END {
	if (chain != "") {
		print found ? canon(found, 0) : "no TYPEDEF " chain
		exit
	}
	for (id in head) {
		if (kind[id] == "VAR" || kind[id] == "FUNC")
			print canon(id, 0)
		else if (kind[id] == "DATASEC")
			for (i = 0; i < nsub[id]; i++) {
				s = sub_line[id, i]
				sub(/^type_id=[0-9]+ offset=[0-9]+ /, "", s)   # clang orders .maps its own way
				print head[id] " holds " s
			}
	}
}
