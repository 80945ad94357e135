# shellcheck shell=bash
# --resident: what a process's memory holds at the end of a one-shot run, by folio order and
# mapping, against what the kernel says of the same process at the same moment (smaps_rollup,
# the mTHP sizes' stats) and what the workload made.

THP_SYSFS=/sys/kernel/mm/transparent_hugepage

# start_holder REPORT ARGS...: a workload that does ARGS then holds its memory (--linger), in
# the background, its report (one JSON line) in $T/REPORT (a minute at most); killed when the
# test ends (with --in-cgroup, the child that holds, whose pid the report gives, too).
start_holder() {
	local report=$T/$1 holder
	shift
	"$WORKLOAD" --linger 600 "$@" >"$report" &
	holder=$!
	at_exit "kill $holder 2>/dev/null"
	for _ in $(seq 600); do
		if [ -s "$report" ]; then
			at_exit "kill $(json_field "$(cat "$report")" pid) 2>/dev/null"
			return 0
		fi
		kill -0 "$holder" 2>/dev/null || fail "the workload ended: $*"
		sleep 0.1
	done
	fail "the workload did not report in a minute: $*"
}

# sweep_thread: SWEEP_TID, the id of the running foliostat's (FS_PID) sweep thread, fs-resident,
# once it has started (a minute at most).
sweep_thread() {
	local task
	SWEEP_TID=""
	for _ in $(seq 600); do
		for task in /proc/"$FS_PID"/task/*; do
			[ "$(cat "$task/comm" 2>/dev/null)" = fs-resident ] && SWEEP_TID=${task##*/} && return 0
		done
		sleep 0.1
	done
	fail "foliostat has no fs-resident thread"
}

# resident_of RECORD PID EXPR: EXPR (Python) over the memory object of PID in RECORD's
# resident.processes (m), e.g. m['anon']['folios'].get('9', 0).
resident_of() {
	python3 -c '
import json, sys
record = json.loads(open(sys.argv[1]).readline())
rows = [p for p in record["resident"]["processes"] if p["pid"] == int(sys.argv[2])]
if len(rows) != 1:
    sys.exit("pid %s: %d rows in resident.processes" % (sys.argv[2], len(rows)))
m = rows[0]["memory"]
print(eval(sys.argv[3]))' "$1" "$2" "$3" || fail "no resident figures of $2 in $1"
}

# read_resident RECORD ARGS...: a one-shot foliostat --resident ARGS -j into $T/RECORD, its
# record checked against the schema.
read_resident() {
	local record=$T/$1
	shift
	"$FOLIOSTAT" --resident -d 0.2 -j "$@" >"$record" 2>"$record.err" ||
		fail "foliostat --resident $*: exit status $? ($(cat "$record.err"))"
	assert_records_valid "$record"
}

# rollup_kb PID FIELD: FIELD of /proc/PID/smaps_rollup, in kB.
rollup_kb() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/smaps_rollup"
}

# start_cgroup_thp_holder: a holder of 64 MiB of MADV_HUGEPAGE memory born in a cgroup of its
# own (CGROUPS[holder]); its pid in HELD_PID, the huge pages it got (from its smaps) in HELD_HUGE.
start_cgroup_thp_holder() {
	need_pmd_thp
	make_cgroups holder
	start_holder holder --in-cgroup "${CGROUPS[holder]}" thp 64
	# (--in-cgroup: the work is done by a child born in the cgroup, the pid the report gives)
	HELD_PID=$(json_field "$(cat "$T/holder")" pid)
	HELD_HUGE=$(json_field "$(cat "$T/holder")" huge_pages)
	assert_between "$HELD_HUGE" 1 32 "huge pages the workload got (smaps)"
}

# assert_thp_holder_read RECORD: RECORD (read with -c of the holder's cgroup) has the holder
# alone, its huge pages order-9 folios mapped by PMDs, as many as smaps_rollup's AnonHugePages
# says, and every page it maps counted once (the sum is its Rss).
assert_thp_holder_read() {
	local record=$1 pid=$HELD_PID huge=$HELD_HUGE
	assert_eq "$(query "$record" "len(recs[0]['resident']['processes'])")" 1 \
		"processes of the cgroup (-c)"
	assert_eq "$(resident_of "$record" "$pid" "m['anon']['folios'].get('9', 0)")" "$huge" \
		"order-9 anonymous folios"
	assert_eq "$(resident_of "$record" "$pid" "m['anon']['large_folios']['pmd']")" "$huge" \
		"order-9 folios mapped by a PMD"
	assert_eq "$(resident_of "$record" "$pid" "m['anon']['large_folios']['pmd'] * 2048")" \
		"$(rollup_kb "$pid" AnonHugePages)" "kB mapped by PMDs, against smaps_rollup's AnonHugePages"
	assert_eq "$(resident_of "$record" "$pid" "m['anon']['pages'].get('9', 0)")" \
		"$((huge * 512))" "pages in order-9 folios"
	assert_eq "$(resident_of "$record" "$pid" \
		"sum(sum(m[t]['pages'].values()) for t in m) * $(getconf PAGESIZE) // 1024")" \
		"$(rollup_kb "$pid" Rss)" "kB mapped in all, against smaps_rollup's Rss"
}

# 64 MiB of MADV_HUGEPAGE memory, read once: -c selects the holder by its cgroup, alone.
test_resident_thp_is_mapped_by_pmds() {
	need_root
	start_cgroup_thp_holder
	read_resident record -c "${CGROUPS[holder]}"
	assert_thp_holder_read "$T/record"
}

# With the 64 kB mTHP size on for MADV_HUGEPAGE memory and the PMD size off, 16 MiB touched
# fault in order-4 folios, each mapped whole by PTEs at its alignment: as many as that size's
# stats/nr_anon grew by (anonymous mTHPs of the size on the host; madvise keeps others' memory
# out). A kernel without mTHP sizes (6.1) has no folio of orders 1 to 8 there, which is checked.
test_resident_mthp_is_mapped_by_ptes() {
	need_root
	local size=$THP_SYSFS/hugepages-64kB pmd=$THP_SYSFS/hugepages-2048kB
	[ "$(getconf PAGESIZE)" = 4096 ] || skip "the 64 kB mTHP size is order 4 with 4 KiB pages only"
	if ! [ -d "$size" ] || ! [ -d "$pmd" ]; then
		# No mTHP sizes (Linux 6.8 and later): anonymous memory is of order 0 or the PMD's,
		# nothing between; the huge pages the workload got are its order-9 folios.
		need_pmd_thp
		start_holder holder thp 16
		local held
		held=$(json_field "$(cat "$T/holder")" pid)
		read_resident record -p "$held"
		assert_eq "$(resident_of "$T/record" "$held" \
			"sum(m['anon']['folios'].get(str(o), 0) for o in range(1, 9))")" 0 \
			"anonymous folios of orders 1 to 8, on a kernel without mTHP sizes"
		assert_eq "$(resident_of "$T/record" "$held" "m['anon']['folios'].get('9', 0)")" \
			"$(json_field "$(cat "$T/holder")" huge_pages)" "order-9 folios, against smaps"
		echo "case: no mTHP sizes here (Linux 6.8 and later): orders 1 to 8 checked to be empty"
		return 0
	fi
	local was_size was_pmd
	was_size=$(sed -E 's/.*\[(.*)\].*/\1/' "$size/enabled")
	was_pmd=$(sed -E 's/.*\[(.*)\].*/\1/' "$pmd/enabled")
	at_exit "echo $was_size >$size/enabled; echo $was_pmd >$pmd/enabled"
	echo madvise >"$size/enabled" && echo never >"$pmd/enabled" || fail "cannot set the mTHP sizes"
	local before="" after="" pid folios
	[ -e "$size/stats/nr_anon" ] && before=$(cat "$size/stats/nr_anon")
	start_holder holder thp 16
	[ -n "$before" ] && after=$(cat "$size/stats/nr_anon")
	pid=$(json_field "$(cat "$T/holder")" pid)
	read_resident record -p "$pid"
	folios=$(resident_of "$T/record" "$pid" "m['anon']['folios'].get('4', 0)")
	assert_between "$folios" 1 256 "order-4 folios of 16 MiB"
	if [ -n "$before" ]; then
		assert_eq "$folios" "$((after - before))" "order-4 folios, against the growth of stats/nr_anon"
	else
		echo "case: no stats/nr_anon for the size here (Linux 6.13 and later): the count alone"
	fi
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['pte']")" "$folios" \
		"order-4 folios mapped whole by PTEs, aligned"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['pages'].get('4', 0)")" \
		"$((folios * 16))" "pages in order-4 folios"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['pmd']")" 0 \
		"folios mapped by a PMD (the PMD size is off)"
}

# MADV_DONTNEED of the second half of each huge page leaves each a whole order-9 folio mapped in
# part: half its pages each, none by a PMD; where the kernel counts them (6.13 and later),
# the PMD size's stats/nr_anon_partially_mapped grew by as many.
test_resident_partly_unmapped_thp_is_partial() {
	need_root
	need_pmd_thp
	local stats=$THP_SYSFS/hugepages-2048kB/stats/nr_anon_partially_mapped before="" after=""
	[ -e "$stats" ] && before=$(cat "$stats")
	start_holder holder thphalf 32
	[ -n "$before" ] && after=$(cat "$stats")
	local pid huge
	pid=$(json_field "$(cat "$T/holder")" pid)
	huge=$(json_field "$(cat "$T/holder")" huge_pages)
	assert_between "$huge" 1 16 "huge pages the workload got before unmapping halves (smaps)"
	read_resident record -p "$pid"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['partial']")" "$huge" \
		"order-9 folios mapped in part"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['pages'].get('9', 0)")" \
		"$((huge * 256))" "pages of them mapped (half of each)"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['pmd']")" 0 \
		"folios mapped by a PMD"
	if [ -n "$before" ]; then
		assert_eq "$((after - before))" "$huge" "growth of stats/nr_anon_partially_mapped"
	fi
	assert_eq "$(rollup_kb "$pid" AnonHugePages)" 0 "smaps_rollup's AnonHugePages"
}

# The opener of --resident's /proc files keeps CAP_SYS_ADMIN (21), CAP_SYS_PTRACE (19) and
# CAP_DAC_READ_SEARCH (2) and nothing else, with no_new_privs and a seccomp filter of its own
# where foliostat gets one; foliostat itself runs as nobody and still reads a root process.
test_resident_opener_keeps_only_what_it_needs() {
	need_root
	"$FOLIOSTAT" --check >"$T/check" || fail "--check failed: $(cat "$T/check")"
	start_holder holder pages 256
	local pid opener
	pid=$(json_field "$(cat "$T/holder")" pid)
	start_foliostat "$T/out" --resident -p "$pid" -j
	opener=$(pgrep -P "$FS_PID" -x foliostat-proc) || fail "foliostat has no foliostat-proc child"
	assert_opener_confined "$opener" 0000000000280004 "$T/check"
	assert_eq "$(awk '/^Uid:/ { print $2 }' "/proc/$FS_PID/status")" "$(id -u nobody)" \
		"foliostat's uid once started"
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['resident']['processes_read']")" 1 "processes read"
	assert_eq "$(resident_of "$T/out" "$pid" "m['anon']['pages'].get('0', 0) >= 256")" True \
		"the workload's 256 small pages, read by an unprivileged foliostat"
}

# --by cgroup: a cgroup's row is its processes' rows added up (two holders born in it, one of
# 16 MiB of THPs, one of 1,024 small pages), read by process and by cgroup; where the cgroup
# has the memory controller, its memory.stat's anon_thp is what its PMDs map.
test_resident_cgroup_is_its_processes_added_up() {
	need_root
	need_pmd_thp
	make_cgroups group
	start_holder thp --in-cgroup "${CGROUPS[group]}" thp 16
	start_holder pages --in-cgroup "${CGROUPS[group]}" pages 1024
	read_resident by-process -c "${CGROUPS[group]}"
	read_resident by-cgroup --by cgroup -c "${CGROUPS[group]}"
	python3 - "$T/by-process" "$T/by-cgroup" "${CGROUPS[group]#"$CGROUP_ROOT"}" <<-'EOF' ||
		import json, sys
		procs = json.loads(open(sys.argv[1]).readline())["resident"]["processes"]
		groups = json.loads(open(sys.argv[2]).readline())["resident"]["cgroups"]
		def add(a, b):
		    if isinstance(a, dict):
		        return {k: add(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b)}
		    return a + b
		assert len(procs) == 2, f"{len(procs)} processes in the cgroup, expected 2"
		assert len(groups) == 1, f"{len(groups)} cgroup rows, expected 1"
		assert groups[0]["cgroup"] == sys.argv[3], f"{groups[0]['cgroup']} is not {sys.argv[3]}"
		assert groups[0]["processes"] == 2, f"{groups[0]['processes']} processes, expected 2"
		total = add(procs[0]["memory"], procs[1]["memory"])
		assert groups[0]["memory"] == total, f"{groups[0]['memory']} != {total}"
		print(f"ok: the cgroup's row is its 2 processes' added up: {total['anon']}")
	EOF
		fail "the cgroup's row is not its processes' added up"
	local huge stat=${CGROUPS[group]}/memory.stat
	huge=$(json_field "$(cat "$T/thp")" huge_pages)
	assert_eq "$(query "$T/by-cgroup" "recs[0]['resident']['cgroups'][0]['memory']['anon']['large_folios']['pmd']")" \
		"$huge" "the cgroup's order-9 folios mapped by PMDs, against the workload's smaps"
	if [ -e "$stat" ]; then
		assert_eq "$(awk '$1 == "anon_thp" { print $2 }' "$stat")" "$((huge << 21))" \
			"the cgroup's memory.stat anon_thp"
	else
		echo "case: no memory controller in the cgroup2 hierarchy here (a hybrid host): no memory.stat"
	fi
}

# A file of 16 MiB dropped from the page cache, then mapped and read whole by a process that
# holds the mapping: what the process maps of files grows by the file's pages (and a few of its
# own code's), in the orders the kernel added them to the page cache meanwhile, in that process (perf's record of
# filemap:mm_filemap_add_to_page_cache; where the event has no order, as on 6.1, all order 0).
test_resident_mapped_file_shows_its_page_cache_orders() {
	need_root
	mount_tracefs
	make_uncached_file 16
	mkfifo "$T/go" || fail "mkfifo"
	local go holder pid
	exec {go}<>"$T/go"
	"$WORKLOAD" --linger 600 mapheld "$FILE" <"$T/go" >"$T/held" &
	holder=$!
	at_exit "kill $holder 2>/dev/null"
	for _ in $(seq 600); do [ -s "$T/held" ] && break; sleep 0.1; done
	pid=$(json_field "$(head -1 "$T/held")" pid)
	read_resident before -p "$pid"
	perf_record_begin added filemap:mm_filemap_add_to_page_cache
	echo go >&"$go"
	for _ in $(seq 600); do [ "$(wc -l <"$T/held")" -ge 2 ] && break; sleep 0.1; done
	[ "$(wc -l <"$T/held")" -ge 2 ] || fail "the workload did not map the file in a minute"
	perf_record_end added
	read_resident after -p "$pid"
	local pages order orders=0 expr
	pages=$(json_field "$(tail -1 "$T/held")" pages)
	assert_eq "$(json_field "$(tail -1 "$T/held")" resident_after)" "$pages" \
		"the file's pages in the page cache after the read (mincore)"
	local tracepoint=/sys/kernel/tracing/events/filemap/mm_filemap_add_to_page_cache/format
	# (orders 0 to 15, as the record's histograms have them)
	grep -q 'field:unsigned char order;' "$tracepoint" && orders=15
	local grown total=0
	for order in $(seq 0 "$orders"); do
		expr="1 if order == $order else 0"
		[ "$orders" = 0 ] && expr=1
		grown=$(python3 - "$T/before" "$T/after" "$pid" "$order" <<-'EOF'
			import json, sys
			def file_pages(path):
			    rec = json.loads(open(path).readline())
			    row = [p for p in rec["resident"]["processes"] if p["pid"] == int(sys.argv[3])]
			    return int(row[0]["memory"]["file"]["pages"].get(sys.argv[4], 0)) if row else 0
			print(file_pages(sys.argv[2]) - file_pages(sys.argv[1]))
		EOF
		) || fail "no resident figures"
		local added
		added=$(perf_record_sum added "$pid" filemap:mm_filemap_add_to_page_cache "$expr")
		# The workload's own code run for the first time after its report (mmap, the loop,
		# mincore) maps a few more small pages of its binary and C library, cached already (no
		# addition): order 0 may grow by those, 64 at most; every other order exactly.
		if [ "$order" = 0 ]; then
			assert_between "$grown" "$added" "$((added + 64))" \
				"growth of the file pages mapped in order-0 folios, against perf's additions (and code)"
		else
			assert_eq "$grown" "$((added << order))" \
				"growth of the file pages mapped in order-$order folios, against perf's additions"
		fi
		total=$((total + grown))
	done
	assert_between "$total" "$pages" "$((pages + 64))" \
		"growth of the file pages mapped, against the file's pages (and code)"
}

# THP bloat: one page touched per 2 MiB, then MADV_COLLAPSE; each huge page made filled its 511
# other pages with zeroes. The process's thp.zero_filled is the growth of its resident
# anonymous pages over the collapse (the workload's own statm, before and after): every page it
# gained is one it never touched; and the system's is at least that.
test_collapse_zero_filled_pages_are_the_rss_growth() {
	need_root
	need_pmd_thp
	# shellcheck disable=SC2016 # $0 and $1 are the command's
	"$FOLIOSTAT" -j -- sh -c '"$0" sparsecollapse 16 >"$1"' "$WORKLOAD" "$T/report" \
		>"$T/record" 2>"$T/err" || fail "exit status $? ($(cat "$T/err"))"
	assert_records_valid "$T/record"
	local report pid huge grown
	report=$(cat "$T/report")
	pid=$(json_field "$report" pid)
	huge=$(json_field "$report" huge_pages)
	grown=$(($(json_field "$report" anon_after) - $(json_field "$report" anon_before)))
	assert_eq "$(json_field "$report" collapse_errno)" 0 "MADV_COLLAPSE's errno"
	assert_between "$huge" 1 8 "huge pages the collapse made (smaps)"
	assert_eq "$grown" "$((huge * 511))" "the workload's resident anonymous pages' growth over the collapse (statm)"
	assert_eq "$(query "$T/record" "[p for p in recs[0]['processes'] if p['pid'] == $pid][0]['thp']['zero_filled']")" \
		"$grown" "the process's thp.zero_filled, against its resident pages' growth"
	local system
	system=$(query "$T/record" "recs[0]['system']['thp']['zero_filled']")
	assert_between "$system" "$grown" 1000000000 "the system's thp.zero_filled"
}

# first_swept OUT PASSES ARGS...: foliostat --resident ARGS (streaming JSON), until a record has
# PASSES whole passes or more: that record into OUT (the reader stops foliostat by leaving; a
# minute of records at most, however slow the host).
first_swept() {
	local out=$1 passes=$2
	shift 2
	"$FOLIOSTAT" --resident -j "$@" 1 60 2>"$out.err" | python3 -c '
import json, sys
for line in sys.stdin:
    if json.loads(line)["resident"]["passes"] >= int(sys.argv[2]):
        open(sys.argv[1], "w").write(line)
        break
' "$out" "$passes"
	[ -s "$out" ] || fail "no record of $passes whole passes in a minute ($(cat "$out.err"))"
	assert_records_valid "$out"
}

# While records stream, the sweep reads the selected processes again and again: a record after
# two whole passes has the holder's THPs as a single read has them, and says how old its
# readings are.
test_resident_streaming_records_show_what_memory_holds() {
	need_root
	start_cgroup_thp_holder
	first_swept "$T/record" 2 -c "${CGROUPS[holder]}"
	assert_thp_holder_read "$T/record"
	query "$T/record" "recs[0]['resident']['processes'][0]['age_seconds'] <= recs[0]['resident']['oldest_seconds']" |
		grep -qx true || fail "a row's reading is older than the record's oldest"
}

# The sweep keeps to its budget: a pass over a process of 128 MiB of small pages (a page-flags
# read for each) takes at least its CPU time divided by the budget, where unpaced it would take
# about its CPU time: its CPU share over the pass is at most twice the budget (the last batch's
# work is not paid back by a sleep). The figures are still the process's: its Rss.
test_resident_sweep_keeps_to_its_budget() {
	need_root
	start_holder holder pages 32768
	local pid
	pid=$(json_field "$(cat "$T/holder")" pid)
	first_swept "$T/record" 1 -p "$pid" --resident-budget 2
	local cpu seconds
	cpu=$(query "$T/record" "recs[0]['resident']['cpu_seconds']")
	seconds=$(query "$T/record" "recs[0]['resident']['seconds']")
	echo "a pass: $cpu s of CPU over $seconds s, budget 2%"
	query "$T/record" "0 < recs[0]['resident']['cpu_seconds'] <= 2 * 0.02 * recs[0]['resident']['seconds']" |
		grep -qx true || fail "the pass took $cpu s of CPU in $seconds s: more than twice 2%"
	assert_eq "$(resident_of "$T/record" "$pid" \
		"sum(sum(m[t]['pages'].values()) for t in m) * $(getconf PAGESIZE) // 1024")" \
		"$(rollup_kb "$pid" Rss)" "kB mapped in all, against smaps_rollup's Rss"
}

# --listen --resident: gauges per cgroup, labelled as the other families' groups, that say what
# the holder's cgroup maps: its THPs' bytes as smaps_rollup's AnonHugePages, and as many PMD
# mappings as the workload's huge pages; the exposition passes promtool's checks.
test_resident_exporter_gauges_match_smaps() {
	need_root
	need_pmd_thp
	make_cgroups holder
	start_holder holder --in-cgroup "${CGROUPS[holder]}" thp 32
	local pid huge cgroup
	pid=$(json_field "$(cat "$T/holder")" pid)
	huge=$(json_field "$(cat "$T/holder")" huge_pages)
	cgroup=${CGROUPS[holder]#"$CGROUP_ROOT"}
	start_endpoint --resident -c "${CGROUPS[holder]}"
	for _ in $(seq 600); do
		scrape "$T/metrics"
		[ "$(expo "$T/metrics" --sum 'foliostat_resident_passes_total' 2>/dev/null)" -ge 1 ] && break
		sleep 0.1
	done
	[ "$(expo "$T/metrics" --sum 'foliostat_resident_passes_total')" -ge 1 ] ||
		fail "no whole pass in a minute"
	assert_eq "$(expo "$T/metrics" --sum "foliostat_resident_bytes{cgroup=\"$cgroup\",type=\"anon\",order=\"9\"}")" \
		"$(($(rollup_kb "$pid" AnonHugePages) * 1024))" \
		"the cgroup's bytes in order-9 anonymous folios, against smaps_rollup's AnonHugePages"
	assert_eq "$(expo "$T/metrics" --sum "foliostat_resident_large_folios{cgroup=\"$cgroup\",type=\"anon\",mapping=\"pmd\"}")" \
		"$huge" "the cgroup's folios mapped by PMDs, against the workload's smaps"
	assert_eq "$(expo "$T/metrics" --sum "foliostat_resident_bytes{cgroup=\"$cgroup\"}")" \
		"$(($(rollup_kb "$pid" Rss) * 1024))" "the cgroup's bytes, against smaps_rollup's Rss"
	assert_eq "$(expo "$T/metrics" --sum 'foliostat_resident_processes')" 1 "processes read (-c)"
	command -v promtool >/dev/null || skip "promtool is not installed (scripts/install-deps.sh --tests)"
	promtool check metrics <"$T/metrics" || fail "promtool check metrics rejected the exposition"
	stop_foliostat "$T/endpoint"
}

# Page tables read two ways give the same figures: with pagemap's PAGEMAP_SCAN (Linux 6.7 and
# later, which this kernel's version says it has or not) and read whole (the test build's
# FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1), of holders that keep their memory still: THPs mapped by
# PMDs and PTEs (the second half of each split off by MADV_DONTNEED: partial), small pages,
# and a reservation of 4 GiB of which a page in each 64 MiB is touched (where PAGEMAP_SCAN skips
# the holes).
test_resident_reads_alike_with_and_without_pagemap_scan() {
	need_root
	use_test_build
	start_holder thp thp 16
	start_holder half thphalf 8
	start_holder pages pages 4096
	start_holder sparse sparse 4096
	local pids expect=pagemap
	pids=$(for h in thp half pages sparse; do printf -- '-p %s ' "$(json_field "$(cat "$T/$h")" pid)"; done)
	# shellcheck disable=SC2086 # a -p for each
	read_resident scan $pids
	# shellcheck disable=SC2086
	FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1 read_resident whole $pids
	IFS=. read -r major minor _ <<<"$(uname -r)"
	[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 7 ]; } && expect=pagemap_scan
	assert_eq "$(query "$T/scan" "recs[0]['resident']['method']")" "\"$expect\"" \
		"how pagemap was read, on Linux $major.$minor"
	assert_eq "$(query "$T/whole" "recs[0]['resident']['method']")" '"pagemap"' \
		"how pagemap was read, with FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1"
	python3 - "$T/scan" "$T/whole" <<-'EOF' || fail "the two ways differ"
		import json, sys
		a, b = ({p["pid"]: p["memory"] for p in json.loads(open(f).readline())["resident"]["processes"]}
		        for f in sys.argv[1:])
		assert len(a) == 4 and a == b, f"{a} != {b}"
		print("ok: the 4 processes' figures are the same read both ways")
	EOF
	local sparse
	sparse=$(json_field "$(cat "$T/sparse")" pid)
	assert_eq "$(resident_of "$T/scan" "$sparse" "sum(m['anon']['pages'].values()) * $(getconf PAGESIZE) // 1024")" \
		"$(awk '$1 == "Anonymous:" { print $2 }' "/proc/$sparse/smaps_rollup")" \
		"the sparse holder's anonymous kB, against smaps_rollup's Anonymous"
}

# The sweep's thread (fs-resident) is as confined as foliostat (threads inherit the seccomp
# filter and Landlock only when started after them): nobody, no capability, no_new_privs, the
# filter.
test_resident_sweep_thread_is_confined() {
	need_root
	start_foliostat "$T/out" --resident -j 1
	sweep_thread
	assert_confined "$SWEEP_TID" "$(id -u nobody)"
	stop_foliostat "$T/out"
}

# Without CAP_SYS_ADMIN (dropped from the bounding set: a unit's capabilities that lack it),
# pagemap shows no page frame numbers and nothing can be read: a one-shot run, streaming
# records and an exporter each end with status 1 and say why, rather than print empty
# readings or answer scrapes with errors that say nothing (what they wrote before is whole
# JSON records, if any).
test_resident_without_cap_sys_admin_says_why() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	start_holder holder pages 256
	local pid port rc
	pid=$(json_field "$(cat "$T/holder")" pid)
	port=$(free_port)
	local -a runs=("-d 1" "-j 1" "--listen 127.0.0.1:$port -d 600")
	for run in "${runs[@]}"; do
		# shellcheck disable=SC2086 # the run's words
		timeout 300 setpriv --bounding-set -sys_admin "$FOLIOSTAT" --resident -p "$pid" $run \
			>"$T/out" 2>"$T/err"
		rc=$?
		assert_eq "$rc" 1 "exit status of --resident $run without CAP_SYS_ADMIN"
		grep -q '^foliostat: failed to read what memory holds: Operation not permitted (pagemap shows no page frame numbers without CAP_SYS_ADMIN)$' "$T/err" ||
			fail "--resident $run did not say why: $(cat "$T/err")"
		python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" ||
			fail "--resident $run wrote what is not JSON: $(cat "$T/out")"
	done
}

# A pass spreads all its work, choosing the processes included, over its time: with 3,000
# more processes on the host, the sweep's CPU time (its thread's, /proc's schedstat) never runs
# ahead of its budget (1%) times the time since it started by more than a tenth of what this
# test itself spends reading every process's comm, stat and cgroup files once (what choosing
# them all at the pass's start cost: a burst the pacer then paid back by sleeping).
test_resident_sweep_spreads_its_work_over_the_pass() {
	need_root
	start_holder idle idle 3000
	local listing
	listing=$(python3 -c '
import os, time
began = time.process_time()
for pid in filter(str.isdigit, os.listdir("/proc")):
    for name in ("comm", "stat", "cgroup"):
        try:
            open(f"/proc/{pid}/{name}").read()
        except OSError:
            pass
print(time.process_time() - began)
')
	echo "reading every process's comm, stat and cgroup: $listing s of CPU"
	start_foliostat "$T/out" --resident -j 60 --resident-budget 1
	sweep_thread
	local tid=$SWEEP_TID
	local hz samples=0 up start cpu
	hz=$(getconf CLK_TCK)
	for _ in $(seq 20); do
		up=$(cut -d' ' -f1 /proc/uptime)
		start=$(awk '{ print $22 }' "/proc/$FS_PID/task/$tid/stat")
		cpu=$(cut -d' ' -f1 "/proc/$FS_PID/task/$tid/schedstat")
		awk -v up="$up" -v start="$start" -v hz="$hz" -v cpu="$cpu" -v listing="$listing" '
			BEGIN {
				wall = up - start / hz
				bound = 0.01 * wall + listing / 10
				printf "%.2f s since it started: %.3f s of CPU (at most %.3f)\n", wall, cpu / 1e9, bound
				exit !(cpu / 1e9 <= bound)
			}' || fail "the sweep ran ahead of its budget"
		samples=$((samples + 1))
		sleep 0.25
	done
	stop_foliostat "$T/out"
	assert_eq "$samples" 20 "samples of the sweep's CPU time"
}

# reserve_holder NAME HEAD TAIL: a holder of a reservation of 64 TiB (MAP_NORESERVE) whose
# first HEAD and last TAIL pages are touched; its pid in RESERVE_PID.
reserve_holder() {
	start_holder "$1" reserve "$((64 << 20)),$2,$3"
	RESERVE_PID=$(json_field "$(cat "$T/$1")" pid)
}

# A reservation of 64 TiB with 16 pages touched at its start is read in well under a second,
# with PAGEMAP_SCAN where the kernel has it and without (before Linux 6.7, or the test build's
# FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1): pagemap read whole would be 128 GiB of entries, minutes
# of work. The figures are the process's (smaps_rollup's Anonymous), and whole (not cut short).
test_resident_reads_a_64_tib_reservation_in_milliseconds() {
	need_root
	use_test_build
	reserve_holder reserve 16 0
	local pid=$RESERVE_PID way
	for way in scan whole; do
		if [ "$way" = whole ]; then
			FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1 read_resident "$way" -p "$pid"
		else
			read_resident "$way" -p "$pid"
		fi
		echo "$way: read in $(query "$T/$way" "recs[0]['resident']['seconds']") s" \
			"($(query "$T/$way" "recs[0]['resident']['method']"))"
		assert_eq "$(query "$T/$way" "recs[0]['resident']['seconds'] < 1")" true \
			"the 64 TiB reservation read in less than a second ($way)"
		assert_eq "$(query "$T/$way" "recs[0]['resident']['processes_cut_short']")" 0 \
			"processes cut short ($way)"
		assert_eq "$(resident_of "$T/$way" "$pid" "sum(m['anon']['pages'].values()) * $(getconf PAGESIZE) // 1024")" \
			"$(rollup_kb "$pid" Anonymous)" "anonymous kB, against smaps_rollup's Anonymous ($way)"
	done
	assert_eq "$(query "$T/whole" "recs[0]['resident']['method']")" '"pagemap"' \
		"how pagemap was read, with FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1"
}

# Pages at both ends of a 64 TiB reservation: without PAGEMAP_SCAN the holes between cannot be
# ruled out, and the reading stops at the limit of pagemap entries per process (twice the
# host's pages), in bounded time, marked: cut_short in the row, processes_cut_short, a '+' in
# the table; its figures are every other mapping's pages and the first end's (the reservation
# is read last), fewer than smaps_rollup's Anonymous. With PAGEMAP_SCAN (Linux 6.7 and later)
# the reading is whole.
test_resident_cut_short_reading_is_marked() {
	need_root
	use_test_build
	reserve_holder ends 16 16
	local pid=$RESERVE_PID kb whole pages_kb
	kb=$(rollup_kb "$pid" Anonymous)
	pages_kb="sum(m['anon']['pages'].values()) * $(getconf PAGESIZE) // 1024"
	FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1 read_resident whole -p "$pid"
	echo "without PAGEMAP_SCAN: read in $(query "$T/whole" "recs[0]['resident']['seconds']") s"
	assert_eq "$(query "$T/whole" "recs[0]['resident']['processes_cut_short']")" 1 \
		"processes cut short, without PAGEMAP_SCAN"
	assert_eq "$(query "$T/whole" "recs[0]['resident']['processes'][0]['cut_short']")" true \
		"the row is marked cut short"
	# (a mapping that could take all the entries left is read after the others)
	assert_eq "$(resident_of "$T/whole" "$pid" "$pages_kb")" \
		"$((kb - 16 * $(getconf PAGESIZE) / 1024))" \
		"kB read before the limit: all but the reservation's last 16 pages (smaps_rollup's Anonymous $kb)"
	FOLIOSTAT_TEST_NO_PAGEMAP_SCAN=1 "$FOLIOSTAT" --resident -d 0.2 -p "$pid" >"$T/table" 2>&1 ||
		fail "foliostat --resident (table): exit status $?"
	grep -q '1 read in part (+)' "$T/table" || fail "the table does not say a reading was cut short: $(cat "$T/table")"
	grep -Eq "^ *$pid +workload +[0-9.]+\+" "$T/table" ||
		fail "the process's row is not marked '+': $(cat "$T/table")"
	read_resident scan -p "$pid"
	whole=0
	[ "$(query "$T/scan" "recs[0]['resident']['method']")" = '"pagemap_scan"' ] && whole=1
	assert_eq "$(query "$T/scan" "recs[0]['resident']['processes_cut_short']")" "$((1 - whole))" \
		"processes cut short, $(query "$T/scan" "recs[0]['resident']['method']")"
	if [ "$whole" = 1 ]; then
		assert_eq "$(resident_of "$T/scan" "$pid" "$pages_kb")" "$kb" \
			"kB read with PAGEMAP_SCAN, against smaps_rollup's Anonymous"
	fi
}

# A pid given to another process between --resident's selection and its open (the test
# build's FOLIOSTAT_TEST_RESIDENT_OPEN_DELAY: the process selected, then a pause before its
# files are opened, in which the test ends it and starts another with its pid through
# ns_last_pid): the other process's memory is never reported under the pid and name of the one
# selected; the process counts as gone.
test_resident_reused_pid_is_not_read_under_the_old_name() {
	need_root
	use_test_build
	start_holder first pages 256
	local pid second="" tries=0
	pid=$(json_field "$(cat "$T/first")" pid)
	cp "$WORKLOAD" "$T/reused" || fail "cp"
	FOLIOSTAT_TEST_RESIDENT_OPEN_DELAY=10 "$FOLIOSTAT" --resident -d 0.2 -j -p "$pid" \
		>"$T/record" 2>"$T/err" &
	local fs=$!
	at_exit "kill $fs 2>/dev/null"
	for _ in $(seq 600); do
		grep -q "^foliostat test: selected $pid\$" "$T/err" && break
		sleep 0.1
	done
	grep -q "^foliostat test: selected $pid\$" "$T/err" || fail "foliostat did not select $pid: $(cat "$T/err")"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	while [ -e "/proc/$pid" ]; do sleep 0.01; done
	# The next fork takes the pid after ns_last_pid's, when free; another process of the host
	# may fork first: tried again (the process that got another pid ended at once).
	while [ "$second" != "$pid" ] && [ "$tries" -lt 1000 ]; do
		tries=$((tries + 1))
		echo "$((pid - 1))" >/proc/sys/kernel/ns_last_pid
		"$T/reused" --linger 600 pages 4096 >"$T/second" &
		second=$!
		[ "$second" = "$pid" ] || { kill "$second" 2>/dev/null; wait "$second" 2>/dev/null; }
	done
	[ "$second" = "$pid" ] || fail "no process took pid $pid in 1000 forks"
	at_exit "kill $second 2>/dev/null"
	for _ in $(seq 100); do [ -s "$T/second" ] && break; sleep 0.1; done
	echo "pid $pid is now $(cat "/proc/$pid/comm")'s (after $tries forks), $(rollup_kb "$pid" Rss) kB"
	wait "$fs" || fail "foliostat: exit status $? ($(cat "$T/err"))"
	assert_records_valid "$T/record"
	assert_eq "$(query "$T/record" "len(recs[0]['resident']['processes'])")" 0 \
		"rows of the reused pid $pid (the first process's name, the second's memory)"
	assert_eq "$(query "$T/record" "recs[0]['resident']['processes_read']")" 0 "processes read"
	assert_eq "$(query "$T/record" "recs[0]['resident']['processes_gone']")" 1 \
		"processes gone (the one selected ended)"
}
