# summary.awk — bench/bench.sh's tables, results.json and plot data from its raw rows:
#   P ROUND FILE PROG SIDE INSNS XLATED JITED PROCESSED STACK NS   (NS "-": not test-run)
#   C ROUND FILE SIDE MS            (one whole compile; SIDE floor: /bin/true, the same way)
# Medians over rounds per program and side, then per metric: totals, the ratio of totals,
# the geometric mean and median of the per-program ratios kiln/clang, programs over 1.10,
# the worst five. Variables: json=PATH dat=PATH rounds=N repeat=N.
function median(s,    a, n, i, j, t) {      # s: space-separated numbers
	n = split(s, a, " ")
	if (n == 0) return "-"
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function push(k, v) { if (v != "-" && v != "") vals[k] = vals[k] " " v }
$1 == "P" {
	id = $3 "/" $4
	if (!(id in seen)) { seen[id] = 1; ids[++nid] = id }
	for (m = 1; m <= 6; m++) push(id SUBSEP $5 SUBSEP m, $(5 + m))
}
$1 == "C" {
	if (!(($3) in cseen)) { cseen[$3] = 1; files[++nfile] = $3 }
	push($3 SUBSEP $4, $5)
}
END {
	split("insns xlated jited processed stack ns", mname, " ")
	nm = 6
	printf "%-34s %13s %13s %15s %9s %15s\n", "program (file/prog)", "insns k/c", "xlated k/c", "processed k/c", "stack k/c", "ns/call k/c"
	for (i = 1; i <= nid; i++) {
		id = ids[i]
		line = sprintf("%-34s", substr(id, 1, 34))
		for (m = 1; m <= nm; m++) {
			k = median(vals[id SUBSEP "kiln" SUBSEP m]); c = median(vals[id SUBSEP "clang" SUBSEP m])
			K[id, m] = k; Cl[id, m] = c
			if (m == 3) continue
			w = (m == 4 || m == 6) ? 15 : (m == 5 ? 9 : 13)
			line = line sprintf(" %" w "s", (m == 6 && k != "-") ? sprintf("%.1f/%.1f", k, c) : k "/" c)
		}
		print line
	}
	# per metric
	for (m = 1; m <= nm; m++) {
		tk = tc = n = lsum = over = 0; rl = ""
		delete R
		for (i = 1; i <= nid; i++) {
			id = ids[i]; k = K[id, m]; c = Cl[id, m]
			if (k == "-" || c == "-") continue
			tk += k; tc += c
			if (k > 0 && c > 0) {
				r = k / c; n++; R[n] = r; Rid[n] = id; lsum += log(r); rl = rl " " r
				if (r > 1.10) over++
			}
		}
		S[m, "tk"] = tk; S[m, "tc"] = tc; S[m, "n"] = n; S[m, "over"] = over
		S[m, "tot"] = tc > 0 ? tk / tc : 0
		S[m, "geo"] = n ? exp(lsum / n) : 0
		S[m, "med"] = n ? median(rl) : 0
		# worst five: a selection, n is small
		delete used
		S[m, "worst"] = ""
		for (w = 1; w <= 5 && w <= n; w++) {
			b = 0
			for (j = 1; j <= n; j++) if (!(j in used) && (b == 0 || R[j] > R[b])) b = j
			used[b] = 1
			W[m, w] = Rid[b]; WR[m, w] = R[b]
		}
		S[m, "nw"] = w - 1
	}
	# compile time
	ctk = ctc = cn = clsum = ctf = fn = flsum = 0; crl = frl = ""
	for (i = 1; i <= nfile; i++) {
		f = files[i]
		CK[f] = median(vals[f SUBSEP "kiln"]); CC[f] = median(vals[f SUBSEP "clang"]); CF[f] = median(vals[f SUBSEP "floor"])
		if (CK[f] == "-" || CC[f] == "-" || CC[f] <= 0) continue
		ctk += CK[f]; ctc += CC[f]; cn++; r = CK[f] / CC[f]; clsum += log(r); crl = crl " " r
		if (CF[f] != "-") { ctf += CF[f]; fn++; r = CF[f] / CC[f]; flsum += log(r); frl = frl " " r }
	}
	print ""
	printf "%-10s %12s %12s %7s %8s %7s %5s  %s\n", "metric", "kiln total", "clang total", "total", "geomean", "median", ">1.10", "worst five (kiln/clang)"
	for (m = 1; m <= nm; m++) {
		ws = ""
		for (w = 1; w <= S[m, "nw"]; w++) ws = ws sprintf("%s %.2f; ", W[m, w], WR[m, w])
		printf "%-10s %12.1f %12.1f %7.3f %8.3f %7.3f %5d  %s\n", mname[m], S[m, "tk"], S[m, "tc"], S[m, "tot"], S[m, "geo"], S[m, "med"], S[m, "over"], ws
	}
	printf "%-10s %12.1f %12.1f %7.3f %8.3f %7.3f %5s  (ms per file, whole process, %d files)\n", "compile", ctk, ctc, ctc ? ctk / ctc : 0, cn ? exp(clsum / cn) : 0, cn ? median(crl) : 0, "-", cn
	if (fn)   # what no program can go below: the 50x target is 0.02
		printf "%-10s %12.1f %12.1f %7.3f %8.3f %7.3f %5s  (/bin/true, timed the same way: the least any process costs, %d files)\n", "floor", ctf, ctc, ctc ? ctf / ctc : 0, exp(flsum / fn), median(frl), "-", fn
	printf "(%d programs, medians of %d rounds, run time: BPF_PROG_TEST_RUN repeat %d on each program's first input)\n", nid, rounds, repeat

	# results.json
	printf "{\n  \"rounds\": %d,\n  \"repeat\": %d,\n  \"programs\": [\n", rounds, repeat > json
	for (i = 1; i <= nid; i++) {
		id = ids[i]; split(id, parts, "/")
		printf "    {\"file\": \"%s\", \"prog\": \"%s\"", parts[1], parts[2] > json
		for (s = 0; s < 2; s++) {
			printf ", \"%s\": {", (s ? "clang" : "kiln") > json
			for (m = 1; m <= nm; m++) {
				v = s ? Cl[id, m] : K[id, m]
				printf "%s\"%s\": %s", (m > 1 ? ", " : ""), mname[m], (v == "-" ? "null" : v) > json
			}
			printf "}" > json
		}
		printf "}%s\n", (i < nid ? "," : "") > json
	}
	printf "  ],\n  \"compile_ms\": [\n" > json
	for (i = 1; i <= nfile; i++) {
		f = files[i]
		printf "    {\"file\": \"%s\", \"kiln\": %s, \"clang\": %s, \"floor\": %s}%s\n", f, (CK[f] == "-" ? "null" : CK[f]), (CC[f] == "-" ? "null" : CC[f]), (CF[f] == "-" ? "null" : CF[f]), (i < nfile ? "," : "") > json
	}
	printf "  ],\n  \"summary\": {\n" > json
	for (m = 1; m <= nm; m++) {
		printf "    \"%s\": {\"kiln_total\": %s, \"clang_total\": %s, \"ratio_of_totals\": %.4f, \"geomean\": %.4f, \"median\": %.4f, \"programs\": %d, \"over_1_10\": %d, \"worst\": [", mname[m], S[m, "tk"], S[m, "tc"], S[m, "tot"], S[m, "geo"], S[m, "med"], S[m, "n"], S[m, "over"] > json
		for (w = 1; w <= S[m, "nw"]; w++) printf "%s{\"program\": \"%s\", \"ratio\": %.4f}", (w > 1 ? ", " : ""), W[m, w], WR[m, w] > json
		printf "]},\n" > json
	}
	printf "    \"compile_ms\": {\"kiln_total\": %.3f, \"clang_total\": %.3f, \"ratio_of_totals\": %.4f, \"geomean\": %.4f, \"median\": %.4f, \"files\": %d},\n", ctk, ctc, (ctc ? ctk / ctc : 0), (cn ? exp(clsum / cn) : 0), (cn ? median(crl) : 0), cn > json
	printf "    \"floor_ms\": {\"total\": %.3f, \"ratio_to_clang\": %.4f, \"geomean\": %.4f, \"median\": %.4f, \"files\": %d}\n  }\n}\n", ctf, (ctc ? ctf / ctc : 0), (fn ? exp(flsum / fn) : 0), (fn ? median(frl) : 0), fn > json
	# plot data: one row per program, the three ratios (0 where there is none)
	for (i = 1; i <= nid; i++) {
		id = ids[i]; line = id
		split("1 4 6", pm, " ")
		for (j = 1; j <= 3; j++) {
			m = pm[j]; k = K[id, m]; c = Cl[id, m]
			line = line sprintf(" %s", (k != "-" && c != "-" && k > 0 && c > 0) ? sprintf("%.4f", k / c) : "NaN")
		}
		print line > dat
	}
}
