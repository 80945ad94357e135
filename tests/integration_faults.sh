# shellcheck shell=bash
# Page faults: by mode, access and cause, from the exceptions tracepoints or, where they are
# missing, perf's software event; anonymous and file-backed, each against perf's count of the
# same faults. (Major and minor against getrusage: integration_fault_outcomes.sh.)

# Touching N fresh anonymous pages (THP off) takes N user-mode faults, each a write to a page
# that was not present, plus those of process start-up. Each of foliostat's splits (mode,
# access, cause) equals perf's count of the same faults (the error code's bits filtered), not
# a sum of foliostat's other figures. Where faults come from perf's software event (every
# architecture but x86), the modes are checked against that event's u and k counts, and access
# and cause, which it does not tell, must be null.
test_anonymous_pages_fault_once_each() {
	need_root
	mount_tracefs
	local mode kinds=(read write exec protection not_present) perf_args=()
	# The x86 error code: 1 protection (else not present), 2 write, 16 instruction fetch.
	local -A filter=([read]='!(error_code & 18)' [write]='error_code & 2 && !(error_code & 16)'
		[exec]='error_code & 16' [protection]='error_code & 1' [not_present]='!(error_code & 1)')
	for mode in user kernel; do
		perf_args+=(-e "$(fault_event "$mode")")
		faults_from_exceptions || continue
		for kind in "${kinds[@]}"; do
			perf_args+=(-e "exceptions:page_fault_$mode" --filter "${filter[$kind]}")
		done
	done
	run_workload_traced "${perf_args[@]}" -- pages 16384
	local pid user theirs kind n
	pid=$(json_field "$(cat "$T/workload")" pid)
	user=$(query "$T/out" "faults($pid, 'user')")
	assert_between "$user" 16384 17384 "user-mode faults of the workload"
	for mode in user kernel; do
		assert_matches_perf "$(query "$T/out" "faults($pid, '$mode')")" \
			"$(perf_count "$T/perf" "$(fault_event "$mode")" 1)" 100 "$mode-mode faults"
	done
	if ! faults_from_exceptions; then
		assert_eq "$(query "$T/out" "sorted({str(p['faults'][k]) for r in recs for p in r['processes'] for k in ('read', 'write', 'exec', 'protection', 'not_present')})")" \
			'["None"]' "access and cause, which perf's software event does not tell"
		return
	fi
	# perf lists each event under its filters in order: the mode's total first.
	for n in "${!kinds[@]}"; do
		kind=${kinds[n]}
		theirs=$(($(perf_count "$T/perf" exceptions:page_fault_user $((n + 2))) +
			$(perf_count "$T/perf" exceptions:page_fault_kernel $((n + 2)))))
		assert_matches_perf "$(query "$T/out" "faults($pid, '$kind')")" "$theirs" 100 "$kind faults"
	done
	assert_between "$(query "$T/out" "faults($pid, 'write')")" 16384 17384 "write faults"
	assert_between "$(query "$T/out" "faults($pid, 'not_present')")" 16384 17384 "not-present faults"
}

# Where the exceptions tracepoints are missing (every architecture but x86), perf's software
# page-fault event counts faults by mode: here the tracepoints are disabled, and the workload's
# faults in each mode must be what perf's own count of that event in that mode says
# (fault_event), with access and cause null.
test_faults_by_mode_from_the_perf_event() {
	need_root
	export FOLIOSTAT_DISABLE_PROBES=exceptions:page_fault_user,exceptions:page_fault_kernel
	faults_from_exceptions && fail "fault_event still names the disabled tracepoints"
	run_workload_traced -e "$(fault_event user)" -e "$(fault_event kernel)" -- pages 16384
	local pid mode
	pid=$(json_field "$(cat "$T/workload")" pid)
	assert_eq "$(query "$T/out" "recs[0]['probes']['software:page-faults']")" '"attached"' "software:page-faults state"
	assert_between "$(query "$T/out" "faults($pid, 'user')")" 16384 17384 "user-mode faults of the workload"
	# perf counts from the exec; foliostat from the fork.
	for mode in user kernel; do
		assert_matches_perf "$(query "$T/out" "faults($pid, '$mode')")" \
			"$(perf_count "$T/perf" "$(fault_event "$mode")")" 100 "$mode-mode faults"
	done
	assert_eq "$(query "$T/out" "[recs[-1]['system']['faults'][k] for k in ('read', 'write', 'exec', 'not_present', 'protection')]")" \
		"[null, null, null, null, null]" "access and cause, which the event does not tell"
}

# Reading an uncached file through a mapping takes faults served through the page cache; the
# count matches perf's for the same tracepoint.
test_mapped_file_read_takes_file_faults() {
	need_root
	mount_tracefs
	make_uncached_file 64
	local line pid file_faults theirs
	if ! host_has_tracepoint filemap:mm_filemap_fault; then
		# Debian 12's 6.1 has no such tracepoint: the figure is null (not measured), never 0.
		run_workload_traced -e page-faults -- mapread "$FILE"
		pid=$(json_field "$(cat "$T/workload")" pid)
		assert_eq "$(json_field "$(cat "$T/workload")" resident_after)" 16384 "pages cached after the mapped read (mincore)"
		assert_eq "$(query "$T/out" "sorted({p['faults']['file'] for r in recs for p in r['processes'] if p['pid'] == $pid}, key=str)")" \
			"[null]" "file-backed faults of the reader, not measured on this kernel"
		assert_eq "$(query "$T/out" "pages(hist($pid, 'pagecache')) >= 16384")" true "the file's pages added by the reader"
		return
	fi
	run_workload_traced -e filemap:mm_filemap_fault -- mapread "$FILE"
	line=$(cat "$T/workload")
	pid=$(json_field "$line" pid)
	assert_eq "$(json_field "$line" resident_after)" 16384 "pages cached after the mapped read (mincore)"
	file_faults=$(query "$T/out" "faults($pid, 'file')")
	theirs=$(perf_count "$T/perf" filemap:mm_filemap_fault)
	assert_between "$file_faults" 1 16384 "file-backed faults of the reader"
	assert_between "$file_faults" "$theirs" $((theirs + 16)) "foliostat vs perf (perf=$theirs)"
	assert_between "$file_faults" 1 "$(query "$T/out" "faults($pid, 'user')")" "file faults within user faults"
	assert_eq "$(query "$T/out" "pages(hist($pid, 'pagecache')) >= 16384")" true "the file's pages added by the reader"
}
