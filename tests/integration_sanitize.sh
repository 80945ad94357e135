# shellcheck shell=bash
# Untrusted names in every output: cgroups and processes named with terminal escapes, ill-formed
# UTF-8, quotes, backslashes and newlines, and cgroup paths of about 4,096 bytes, each with a
# workload of known faults in it. The table shows no control byte, every JSON record matches the
# schema, promtool accepts every exposition, each name is shown by the rule foliostat(8) gives
# ("Untrusted names", checked by tests/untrusted_names.py), and each workload's faults are what
# wait4 counted for it.

# start_named NAME ARGS...: foliostat ARGS... writing to $T/NAME, started and counting; several
# may run at once (stop_named NAME stops one and checks its exit and its records).
declare -A NAMED_PIDS
start_named() {
	local name=$1
	shift
	start_foliostat "$T/$name" "$@"
	NAMED_PIDS[$name]=$FS_PID
	at_exit "kill -KILL $FS_PID 2>/dev/null"
}

stop_named() {
	FS_PID=${NAMED_PIDS[$1]}
	stop_foliostat "$T/$1"
}

# hex BYTES: the bytes of a string, in hex.
hex() {
	printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'
}

# run_in_cgroup DIR PAGES [WORKLOAD_ARGS...]: a workload (build/workload, or WORKLOAD_BIN) born
# in cgroup DIR touching PAGES pages; appends "PID FAULTS CGROUP_ID CGROUP_HEX COMM_HEX" to
# $T/expect (see tests/untrusted_names.py): its faults as wait4 counted them, its cgroup's id and
# path, and the name it ran under (COMM, or the binary's).
run_in_cgroup() {
	local dir=$1 pages=$2 bin=${WORKLOAD_BIN:-$WORKLOAD} comm=${COMM-}
	shift 2
	"$bin" "$@" --rusage "$T/rusage" --in-cgroup "$dir" pages "$pages" >"$T/work" ||
		fail "workload in $(printf '%q' "$dir") failed"
	local pid faults
	pid=$(json_field "$(cat "$T/rusage")" pid)
	faults=$(($(json_field "$(cat "$T/rusage")" minflt) + $(json_field "$(cat "$T/rusage")" majflt)))
	[ "$faults" -ge "$pages" ] || fail "wait4 counted $faults faults for $pages pages"
	[ -n "$comm" ] || comm=${bin##*/}
	echo "$pid $faults $(stat -c %i "$dir") $(hex "${dir#"$CGROUP_ROOT"}") $(hex "$comm")" >>"$T/expect"
}

# make_hostile_cgroups: cgroups with hostile names (a terminal escape, a quote and a backslash,
# ill-formed UTF-8 in a unit's name, C1's CSI and a right-to-left override: the kernel refuses
# '/' and newline in a cgroup's name) below one of the test's, made before foliostat starts:
# a cgroup made since its last walk of the hierarchy (at most one a second) may be unnamed in
# a record. The test's is a slice at the root, where systemd's layout makes the .service a unit
# (and its ill-formed name a unit label).
HOSTILE_NAMES=($'evil\e]0;pwned\ax' $'q"uo\\te' $'bad\xff\xfe.service' $'c1\xc2\x9b2J\xe2\x80\xaeexe')
make_hostile_cgroups() {
	local name
	make_root_cgroups "fstesthostile$$.slice"
	CGROUPS["hostile"]=$CGROUP_ROOT/fstesthostile$$.slice
	for name in "${HOSTILE_NAMES[@]}"; do
		mkdir "${CGROUPS[hostile]}/$name" || fail "cannot create cgroup $(printf '%q' "$name")"
		at_exit "rmdir '${CGROUPS[hostile]}/$name' 2>/dev/null"
	done
}

# hostile_workloads: in each hostile cgroup a workload whose name is hostile too, set by prctl
# or by the name of the binary it executes.
hostile_workloads() {
	local parent=${CGROUPS[hostile]} i
	local -a names=("${HOSTILE_NAMES[@]}")
	: >"$T/expect"
	# A binary named with a terminal escape, executed: its name is the kernel's comm.
	mkdir "$T/bin"
	cp "$WORKLOAD" "$T/bin/"$'\e]0;pwned\a'
	cp "$WORKLOAD" "$T/bin/"$'c1\xc2\x9b2J'
	WORKLOAD_BIN="$T/bin/"$'\e]0;pwned\a' run_in_cgroup "$parent/${names[0]}" 1024
	# prctl(PR_SET_NAME): a quote, a backslash, a newline and a tab; then ill-formed UTF-8.
	COMM=$'a"b\\c\nd\te' run_in_cgroup "$parent/${names[1]}" 2048 --name "$(hex $'a"b\\c\nd\te')"
	COMM=$'\xff\xc0\xaf\xed\xa0\x80A' run_in_cgroup "$parent/${names[2]}" 3072 \
		--name ffc0afeda08041
	WORKLOAD_BIN="$T/bin/"$'c1\xc2\x9b2J' run_in_cgroup "$parent/${names[3]}" 4096
	i=$(wc -l <"$T/expect")
	assert_eq "$i" 4 "workloads run in hostile cgroups"
}

# check_output KIND FILE BY: tests/untrusted_names.py over one of foliostat's outputs.
check_output() {
	python3 tests/untrusted_names.py "$@" "$T/expect" || fail "$2 ($1, by $3)"
}

# The issue's own case and its kin: `foliostat --by cgroup` and by process, one-shot tables,
# show every hostile name with its control bytes as \xNN, never raw, in columns still aligned;
# each row's faults are its workload's.
test_sanitize_table_shows_no_control_bytes() {
	need_root
	make_hostile_cgroups
	start_named cgroups --by cgroup -r 0
	start_named processes -r 0
	hostile_workloads
	stop_named cgroups
	stop_named processes
	check_output table "$T/cgroups" cgroup
	check_output table "$T/processes" process
}

# JSON records by cgroup and by process match the schema (stop_named validates them), hold each
# name as the text Python decodes from its bytes, the unit read off a cgroup path included, and
# each workload's faults.
test_sanitize_json_records_stay_valid() {
	need_root
	make_hostile_cgroups
	start_named cgroups -j 0.5 -r 0 --by cgroup
	start_named processes -j 0.5 -r 0
	hostile_workloads
	FS_PID=${NAMED_PIDS[cgroups]} wait_next_record "$T/cgroups"
	FS_PID=${NAMED_PIDS[processes]} wait_next_record "$T/processes"
	stop_named cgroups
	stop_named processes
	check_output json "$T/cgroups" cgroup
	check_output json "$T/processes" process
}

# wait_scrape URL FILE BY: scrape URL into FILE until it holds every workload's faults (a
# minute at most), promtool accepting every scrape.
wait_scrape() {
	for _ in $(seq 300); do
		curl -sf -o "$2" "$1" || fail "scrape of $1 failed"
		promtool check metrics <"$2" >"$T/promtool" 2>&1 ||
			fail "promtool check metrics rejected $1: $(head -5 "$T/promtool")"
		python3 tests/untrusted_names.py exposition "$2" "$3" "$T/expect" >/dev/null 2>&1 &&
			break
		sleep 0.2
	done
	echo "ok: promtool check metrics accepts $1"
	check_output exposition "$2" "$3"
}

# The exporter (by cgroup) and --format prometheus (by process): promtool accepts both, each
# label value is the name made valid and marked with its hash where it was changed, so two names
# alike but for their ill-formed bytes stay two series, and each series has its workload's faults.
test_sanitize_exposition_of_hostile_names() {
	need_root
	command -v promtool >/dev/null || skip "promtool is not installed (scripts/install-deps.sh --tests)"
	local port
	make_hostile_cgroups
	port=$(free_port)
	start_named endpoint --listen "127.0.0.1:$port"
	start_named processes --format prometheus --by process -r 0
	hostile_workloads
	wait_scrape "http://127.0.0.1:$port/metrics" "$T/scraped" cgroup
	stop_named processes
	promtool check metrics <"$T/processes" || fail "promtool check metrics rejected --format prometheus"
	echo "ok: promtool check metrics accepts --format prometheus"
	check_output exposition "$T/processes" process
	stop_named endpoint
}

# Two cgroups at the end of paths of about 4,096 bytes (directories of 255 bytes), alike but for
# their last byte, each with a workload: /metrics and --format prometheus pass promtool, the two
# are two series whose labels are cut to the documented maximum and end in the SHA-256 of their
# path (tests/untrusted_names.py computes it with hashlib), and each has its workload's faults.
# A table and JSON records by cgroup show them too.
test_sanitize_long_cgroup_paths() {
	need_root
	command -v promtool >/dev/null || skip "promtool is not installed (scripts/install-deps.sh --tests)"
	make_cgroups long
	local dir=${CGROUPS[long]} leaf name port end
	# Absolute paths of 4,093 or 4,094 bytes, within PATH_MAX (4,096 with the NUL) as the
	# system calls on them need: directories of 255 bytes, one shorter, and the leaves.
	name=$(printf 'd%.0s' $(seq 255))
	add_directory() {
		dir=$dir/$1
		mkdir "$dir" || fail "cannot create a cgroup at ${#dir} bytes"
		at_exit "rmdir '$dir' 2>/dev/null"
	}
	while [ $((4095 - ${#dir})) -ge 513 ]; do
		add_directory "$name"
	done
	[ $((4095 - ${#dir})) -le 258 ] || add_directory "$(printf 'm%.0s' $(seq $((4095 - ${#dir} - 258))))"
	leaf=$(printf 'e%.0s' $(seq $((4095 - ${#dir} - 2 > 255 ? 254 : 4095 - ${#dir} - 3))))
	for end in a b; do
		mkdir "$dir/$leaf$end" || fail "cannot create the leaf at ${#dir}"
		at_exit "rmdir '$dir/$leaf$end' 2>/dev/null"
	done
	echo "paths of $((${#dir} + 1 + ${#leaf} + 1 - ${#CGROUP_ROOT})) bytes below $CGROUP_ROOT"
	port=$(free_port)
	start_named endpoint --listen "127.0.0.1:$port"
	start_named processes --format prometheus -r 0 --by cgroup
	start_named json -j 0.5 -r 0 --by cgroup
	start_named table -r 0 --by cgroup
	: >"$T/expect"
	run_in_cgroup "$dir/${leaf}a" 2048
	run_in_cgroup "$dir/${leaf}b" 3072
	wait_scrape "http://127.0.0.1:$port/metrics" "$T/scraped" cgroup
	local series
	series=$(grep -c "^foliostat_minor_faults_total{cgroup=\"/foliostat-test-long\.$$/ddd" "$T/scraped")
	assert_eq "$series" 2 "series of the two long paths"
	FS_PID=${NAMED_PIDS[json]} wait_next_record "$T/json"
	stop_named processes
	promtool check metrics <"$T/processes" || fail "promtool check metrics rejected --format prometheus"
	check_output exposition "$T/processes" cgroup
	stop_named json
	check_output json "$T/json" cgroup
	stop_named table
	check_output table "$T/table" cgroup
	stop_named endpoint
}

# --files: a file named with a terminal escape, C1's CSI, ill-formed UTF-8, a quote, a backslash
# and a newline, read whole after a drop from the page cache: the table shows its path without a
# control byte, the JSON record holds it as the text Python decodes from its bytes, and both
# count its pages.
test_sanitize_file_paths() {
	need_root
	local file=/var/tmp/foliostat-sanitize.$$.$'\e]0;pwned\a\xc2\x9b\xff"\\\nx'
	head -c $((3 << 20)) /dev/zero >"$file" || fail "cannot write a file with a hostile name"
	at_exit "rm -f '$file'"
	sync "$file"
	echo "$((3 << 8)) $(stat -c '%Hd:%Ld %i' "$file") $(hex "$file")" >"$T/expect"
	start_named table --files --top 0
	start_named json -j --files --top 0
	"$WORKLOAD" read "$file" >"$T/read" || fail "reading the file failed"
	assert_eq "$(json_field "$(cat "$T/read")" resident_before)" 0 "pages of the file cached before the read"
	stop_named table
	stop_named json
	check_output table "$T/table" file
	check_output json "$T/json" file
}

# Process names are untrusted bytes; the stream stays valid JSON and the name is the same text
# Python decodes from those bytes.
test_hostile_names_stay_valid_json() {
	need_root
	# "a\"b\\c<tab>\x01\xff\xc0\xaf\xed\xa0\x80\xe2\x82"
	local hex=22615c0962017bffc0afeda080e282
	start_foliostat "$T/out" -j 0.3
	"$WORKLOAD" --name "$hex" pages 64 >"$T/workload"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local pid expected
	pid=$(json_field "$(cat "$T/workload")" pid)
	expected=$(python3 -c 'import json,sys; print(json.dumps([bytes.fromhex(sys.argv[1])[:15].decode("utf-8", "replace")]))' "$hex")
	assert_eq "$(query "$T/out" "comms($pid)")" "$expected" "the workload's name"
}
