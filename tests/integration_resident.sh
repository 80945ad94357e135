# shellcheck shell=bash
# --resident: what a process's memory holds at the end of a one-shot run, by folio order and
# mapping, against what the kernel says of the same process at the same moment (smaps_rollup,
# the mTHP sizes' stats) and what the workload made.

THP_SYSFS=/sys/kernel/mm/transparent_hugepage

# start_holder ARGS...: a workload that does ARGS then holds its memory (--linger), in the
# background; HOLDER is its pid once its report is in $T/holder (a minute at most).
start_holder() {
	"$WORKLOAD" --linger 600 "$@" >"$T/holder" &
	HOLDER=$!
	at_exit "kill $HOLDER 2>/dev/null"
	for _ in $(seq 600); do
		if [ -s "$T/holder" ]; then
			# (with --in-cgroup, the one that holds is the child it reports)
			at_exit "kill $(json_field "$(cat "$T/holder")" pid) 2>/dev/null"
			return 0
		fi
		kill -0 "$HOLDER" 2>/dev/null || fail "the workload ended: $*"
		sleep 0.1
	done
	fail "the workload did not report in a minute: $*"
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

# rollup_kb PID FIELD: FIELD of /proc/PID/smaps_rollup, in kB.
rollup_kb() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/smaps_rollup"
}

# 64 MiB of MADV_HUGEPAGE memory: its huge pages (the workload's own count, from smaps) are
# order-9 folios mapped by PMDs, as many as smaps_rollup's AnonHugePages says; every page the
# process maps is counted once (the sum is its Rss); -c selects it by its cgroup, alone.
test_resident_thp_is_mapped_by_pmds() {
	need_root
	need_pmd_thp
	make_cgroups holder
	start_holder --in-cgroup "${CGROUPS[holder]}" thp 64
	local pid huge
	# (--in-cgroup: the work is done by a child born in the cgroup, the pid the report gives)
	pid=$(json_field "$(cat "$T/holder")" pid)
	huge=$(json_field "$(cat "$T/holder")" huge_pages)
	assert_between "$huge" 1 32 "huge pages the workload got (smaps)"
	"$FOLIOSTAT" --resident -c "${CGROUPS[holder]}" -d 0.2 -j >"$T/record" 2>"$T/err" ||
		fail "exit status $? ($(cat "$T/err"))"
	local rss_kb anon_huge_kb
	rss_kb=$(rollup_kb "$pid" Rss)
	anon_huge_kb=$(rollup_kb "$pid" AnonHugePages)
	assert_records_valid "$T/record"
	assert_eq "$(query "$T/record" "len(recs[0]['resident']['processes'])")" 1 \
		"processes of the cgroup (-c)"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['folios'].get('9', 0)")" "$huge" \
		"order-9 anonymous folios"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['pmd']")" "$huge" \
		"order-9 folios mapped by a PMD"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['large_folios']['pmd'] * 2048")" \
		"$anon_huge_kb" "kB mapped by PMDs, against smaps_rollup's AnonHugePages"
	assert_eq "$(resident_of "$T/record" "$pid" "m['anon']['pages'].get('9', 0)")" \
		"$((huge * 512))" "pages in order-9 folios"
	assert_eq "$(resident_of "$T/record" "$pid" \
		"sum(sum(m[t]['pages'].values()) for t in m) * $(getconf PAGESIZE) // 1024")" \
		"$rss_kb" "kB mapped in all, against smaps_rollup's Rss"
}

# With the 64 kB mTHP size on for MADV_HUGEPAGE memory and the PMD size off, 16 MiB touched
# fault in order-4 folios, each mapped whole by PTEs at its alignment: as many as that size's
# stats/nr_anon grew by (anonymous mTHPs of the size on the host; madvise keeps others' memory
# out).
test_resident_mthp_is_mapped_by_ptes() {
	need_root
	local size=$THP_SYSFS/hugepages-64kB pmd=$THP_SYSFS/hugepages-2048kB
	[ "$(getconf PAGESIZE)" = 4096 ] || skip "the 64 kB mTHP size is order 4 with 4 KiB pages only"
	[ -d "$size" ] && [ -d "$pmd" ] || skip "no 64 kB mTHP size here (Linux 6.8 and later)"
	local was_size was_pmd
	was_size=$(sed -E 's/.*\[(.*)\].*/\1/' "$size/enabled")
	was_pmd=$(sed -E 's/.*\[(.*)\].*/\1/' "$pmd/enabled")
	at_exit "echo $was_size >$size/enabled; echo $was_pmd >$pmd/enabled"
	echo madvise >"$size/enabled" && echo never >"$pmd/enabled" || fail "cannot set the mTHP sizes"
	local before="" after="" pid folios
	[ -e "$size/stats/nr_anon" ] && before=$(cat "$size/stats/nr_anon")
	start_holder thp 16
	[ -n "$before" ] && after=$(cat "$size/stats/nr_anon")
	pid=$(json_field "$(cat "$T/holder")" pid)
	"$FOLIOSTAT" --resident -p "$pid" -d 0.2 -j >"$T/record" 2>"$T/err" ||
		fail "exit status $? ($(cat "$T/err"))"
	assert_records_valid "$T/record"
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
	start_holder thphalf 32
	[ -n "$before" ] && after=$(cat "$stats")
	local pid huge
	pid=$(json_field "$(cat "$T/holder")" pid)
	huge=$(json_field "$(cat "$T/holder")" huge_pages)
	assert_between "$huge" 1 16 "huge pages the workload got before unmapping halves (smaps)"
	"$FOLIOSTAT" --resident -p "$pid" -d 0.2 -j >"$T/record" 2>"$T/err" ||
		fail "exit status $? ($(cat "$T/err"))"
	assert_records_valid "$T/record"
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
	start_holder pages 256
	local pid opener
	pid=$(json_field "$(cat "$T/holder")" pid)
	start_foliostat "$T/out" --resident -p "$pid" -j
	opener=$(pgrep -P "$FS_PID" -x foliostat-proc) || fail "foliostat has no foliostat-proc child"
	for _ in $(seq 100); do
		grep -qx 'NoNewPrivs:[[:space:]]*1' "/proc/$opener/status" && break
		sleep 0.1
	done
	local cap
	for cap in CapEff CapPrm; do
		assert_eq "$(awk -v c="$cap:" '$1 == c { print $2 }' "/proc/$opener/status")" \
			0000000000280004 "the opener's $cap"
	done
	assert_eq "$(awk '/^CapBnd:/ { print $2 }' "/proc/$opener/status")" 0000000000000000 \
		"the opener's bounding set"
	if grep -qE '^  seccomp filter +on' "$T/check"; then
		for _ in $(seq 100); do
			grep -qx 'Seccomp:[[:space:]]*2' "/proc/$opener/status" && break
			sleep 0.1
		done
		assert_eq "$(awk '/^Seccomp:/ { print $2 }' "/proc/$opener/status")" 2 "the opener's seccomp mode"
	fi
	assert_eq "$(awk '/^Uid:/ { print $2 }' "/proc/$FS_PID/status")" "$(id -u nobody)" \
		"foliostat's uid once started"
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['resident']['processes_read']")" 1 "processes read"
	assert_eq "$(resident_of "$T/out" "$pid" "m['anon']['pages'].get('0', 0) >= 256")" True \
		"the workload's 256 small pages, read by an unprivileged foliostat"
}
