# tests/harness/run.sh — sourced by the suites that run `kiln run` in the background. They
# count only what their own kiln made (the link and program ids in its /proc/PID/fdinfo, or
# behind a pin of theirs), never the machine's totals, and wait on conditions with deadlines.

# start_run OUT ERR ARGS...: `kiln run ARGS...` in the background, stdout to OUT and stderr to
# ERR, its pid in $k; returns once it says it is running (0) or has ended or 10 s have passed
# (1). Both files are emptied here first: were the background shell left to do it, the wait
# could read the word from the last run's file and go on before this one has attached.
start_run() {
	local o=$1 e=$2; shift 2
	: >"$o"; : >"$e"
	"$KILN" run "$@" >"$o" 2>"$e" &
	k=$!
	local i
	for i in $(seq 200); do
		grep -q 'running' "$e" && return 0
		kill -0 "$k" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# stop_run: SIGINT to the kiln run in $k, then 0 if it ended within 2 s (killed otherwise)
stop_run() {
	local i
	kill -INT $k
	for i in $(seq 200); do
		kill -0 $k 2>/dev/null || { wait $k; k=; return 0; }
		sleep 0.01
	done
	kill -KILL $k; wait $k; k=
	return 1
}

# fd_ids PID KIND: the ids of the bpf links (KIND link) or programs (prog) PID holds, one a line
fd_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | sed -n "s/^$2_id:[[:space:]]*//p" | sort -un
}

# pinned_id KIND PATH: the id of the link/prog/map pinned at PATH
pinned_id() {
	bpftool -j "$1" show pinned "$2" 2>/dev/null | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2
}

# gone KIND IDS...: 0 once none of the links/programs/maps with these ids exists (the kernel
# frees programs from a work queue, a moment after the last fd closes), 1 after 5 s
gone() {
	local kind=$1 id i alive; shift
	for i in $(seq 100); do
		alive=0
		for id in "$@"; do bpftool "$kind" show id "$id" >/dev/null 2>&1 && alive=1; done
		[ $alive -eq 0 ] && return 0
		sleep 0.05
	done
	return 1
}

# count_words WORDS...: how many were given (ids lists are newline-separated words)
count_words() { echo $#; }

# wait_text FILE TEXT [PID]: 0 once FILE has TEXT; 1 after 10 s, or when PID (default $k) has
# ended without it
wait_text() {
	local i p=${3:-$k}
	for i in $(seq 200); do
		grep -qF -- "$2" "$1" && return 0
		kill -0 "$p" 2>/dev/null || { grep -qF -- "$2" "$1"; return; }
		sleep 0.05
	done
	return 1
}

# ended [PID]: 0 once PID (default $k) has exited (within 5 s), its status in $st; 1
# (st=running) if it has not
ended() {
	local i p=${1:-$k}
	st=running
	for i in $(seq 100); do
		kill -0 "$p" 2>/dev/null || { wait "$p"; st=$?; return 0; }
		sleep 0.05
	done
	return 1
}
