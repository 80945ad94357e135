# shellcheck shell=bash
# How records come out: the one-shot summary (a table, or one JSON record at --duration),
# COUNT records streamed every INTERVAL, a long interval's record; and the files they go to,
# -o's log that appends and --replace's file replaced whole. (Those files' mode:
# integration_output_mode.sh; the record schema: integration_schema.sh.)

# A one-shot run prints one readable summary on SIGINT, within 100 columns.
test_one_shot_summary_is_readable() {
	need_root
	# -c: only the workload, so whatever else the host does cannot push it out of the top 3.
	start_foliostat "$T/out" -n workload
	"$WORKLOAD" thp 16 >"$T/workload"
	stop_foliostat "$T/out"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	grep -q "^probes: [0-9]* of [0-9]* attached" "$T/out" || fail "no probes line"
	grep -q "^SYSTEM " "$T/out" || fail "no system block"
	grep -q "^pid $pid (workload): folios allocated, by order" "$T/out" || fail "no histogram for the workload"
	local huge
	huge=$(json_field "$(cat "$T/workload")" huge_pages)
	assert_between "$huge" 1 8 "huge pages the workload got (smaps)"
	grep -qE "^ +9 : +$huge +$((huge * 512)) +\|\*+ *\|$" "$T/out" || fail "no order-9 row of $huge folios"
	assert_eq "$(awk 'length > 100 { n++ } END { print n + 0 }' "$T/out")" 0 "lines over 100 columns"
	echo "ok: summary"
}

# --duration ends a one-shot run by itself with one JSON record.
test_one_shot_json_with_duration() {
	need_root
	local launched ended
	launched=$(now_ms)
	"$FOLIOSTAT" -j -d 1 >"$T/out" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	assert_eq "$(query "$T/out" "recs[0]['schema']")" 1 "schema"
	# The duration at least (less a millisecond of rounding), and within foliostat's life.
	assert_between "$(query "$T/out" "int(recs[0]['interval_s'] * 1000)")" 999 $((ended - launched)) "interval_s in ms"
	# Every probe this kernel offers attached, the others said unavailable and their figures
	# null; on x86 the exceptions tracepoints count faults, perf's event where they are absent.
	assert_probes_as_host_offers "$T/out"
}

# Streaming prints COUNT records of INTERVAL each, and exits 0.
test_streaming_prints_count_records() {
	need_root
	local launched ended
	launched=$(now_ms)
	timeout 60 "$FOLIOSTAT" -j 0.3 4 >"$T/out" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	assert_eq "$(wc -l <"$T/out")" 4 "records"
	# Records come on a schedule of 0.3 s from the start (one late record makes the next
	# shorter): after k records at least 0.3 k s have passed (less a millisecond of rounding),
	# and all four within foliostat's life as seen here.
	assert_eq "$(query "$T/out" "[int(sum(r['interval_s'] for r in recs[:k]) * 1000) >= 300 * k - 1 for k in range(1, 5)]")" \
		"[true, true, true, true]" "time covered after each record, at least 0.3 s each"
	assert_between "$(query "$T/out" "int(sum(r['interval_s'] for r in recs) * 1000)")" 1199 $((ended - launched)) \
		"the four intervals in ms"
	assert_eq "$(query "$T/out" "all(r['interval_s'] > 0 for r in recs)")" true "every interval > 0"
	assert_eq "$(query "$T/out" "len({r['time'] for r in recs})")" 4 "distinct times"
}

# A record of an interval over 10 s is made of several reads (BPF's 32-bit counts must not wrap
# between two): one record still covers the whole interval, every event in it once.
test_long_interval_record_sums_its_reads() {
	need_root
	local launched first_end second_start ended syscalls
	launched=$(now_ms)
	start_foliostat "$T/out" -j --self 10.5 1
	"$WORKLOAD" pages 4096 >"$T/workload"
	first_end=$(now_ms)
	# The second workload once foliostat has made the record's first read (after 5.25 s).
	syscalls=$(foliostat_syscalls) || fail "foliostat exited"
	wait_foliostat_read "$syscalls"
	second_start=$(now_ms)
	"$WORKLOAD" pages 2048 >>"$T/workload"
	wait "$FS_PID" || fail "exit status $?"
	ended=$(now_ms)
	assert_records_valid "$T/out"
	local first second
	first=$(json_field "$(sed -n 1p "$T/workload")" pid)
	second=$(json_field "$(sed -n 2p "$T/workload")" pid)
	assert_eq "$(wc -l <"$T/out")" 1 "records"
	# The interval asked for at least, and no more than foliostat's whole life as seen here.
	assert_between "$(query "$T/out" "int(recs[0]['interval_s'] * 1000)")" 10499 $((ended - launched)) "interval in ms"
	# From the record's own times: its first read (halfway) came between the two workloads.
	local first_read
	first_read=$(query "$T/out" "(lambda r: int(__import__('datetime').datetime.fromisoformat(r['time'].replace('Z', '+00:00')).timestamp() * 1000 - r['interval_s'] * 500))(recs[0])")
	echo "first workload ended at $first_end, first read at $first_read, second began at $second_start (ms)"
	assert_between "$first_read" "$first_end" "$second_start" "the record's first read, between the workloads"
	# Each touched its pages once: at least that many order-0 movable folios, and a little over
	# at most (page tables, the C library).
	assert_between "$(query "$T/out" "hist($first, 'alloc_movable').get('0', 0)")" 4096 4400 \
		"first workload's order-0 movable folios"
	assert_between "$(query "$T/out" "hist($second, 'alloc_movable').get('0', 0)")" 2048 2350 \
		"second workload's order-0 movable folios (in the record's second read)"
	assert_between "$(query "$T/out" "recs[0]['self']['probes']['kmem:mm_page_alloc']['events']")" \
		6144 100000000 "mm_page_alloc program runs over the record"
}

# --output appends: what FILE held stays, each record follows as one line (JSON) or one table;
# a symlink at FILE is refused (exit 1, nothing written through it).
test_output_file_is_a_log() {
	need_root
	echo '{"before": true}' >"$T/log.ndjson"
	"$FOLIOSTAT" -j -o "$T/log.ndjson" 0.1 3 >"$T/stdout" || fail "exit status $?"
	"$FOLIOSTAT" -j -o "$T/log.ndjson" 0.1 2 >>"$T/stdout" || fail "exit status $?"
	assert_eq "$(wc -c <"$T/stdout")" 0 "bytes on standard output"
	assert_eq "$(head -1 "$T/log.ndjson")" '{"before": true}' "what the file held before"
	tail -n +2 "$T/log.ndjson" >"$T/records"
	assert_eq "$(wc -l <"$T/records")" 5 "records appended by two runs (3 and 2)"
	assert_records_valid "$T/records"
	"$FOLIOSTAT" -d 0.2 -o "$T/tables" || fail "exit status $?"
	"$FOLIOSTAT" -d 0.2 -o "$T/tables" || fail "exit status $?"
	assert_eq "$(grep -c '^SYSTEM ' "$T/tables")" 2 "tables appended by two one-shot runs"
	echo keep >"$T/target"
	ln -s "$T/target" "$T/link"
	local status=0
	"$FOLIOSTAT" -j -d 0.2 -o "$T/link" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a symlink at FILE"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to open '$T/link': a symbolic link (--output does not follow one)" "message"
	assert_eq "$(cat "$T/target")" keep "the symlink's target"
}

# A record that does not fit (a full file system) is cut off again: the log ends with a whole
# record, and foliostat exits 1 saying why.
test_output_file_keeps_whole_records_when_full() {
	need_root
	mkdir "$T/small"
	mount -t tmpfs -o size=64k tmpfs "$T/small" || skip "cannot mount a tmpfs"
	local status=0
	timeout 60 "$FOLIOSTAT" -j -r 0 -o "$T/small/log.ndjson" 0.05 2>"$T/err" || status=$?
	cp "$T/small/log.ndjson" "$T/log.ndjson"
	umount "$T/small"
	assert_eq "$status" 1 "exit status when the file system is full"
	assert_eq "$(cat "$T/err")" "foliostat: failed to write '$T/small/log.ndjson': No space left on device" \
		"message"
	assert_between "$(wc -l <"$T/log.ndjson")" 1 1000 "whole records before the one that did not fit"
	assert_eq "$(tail -c 1 "$T/log.ndjson" | od -An -c | tr -d ' ')" '\n' "the file's last byte"
	assert_records_valid "$T/log.ndjson"
}

# --replace: each record replaces the file whole, so a reader polling it all along never sees
# part of one; nothing goes to standard output; the file holds the last record.
test_replace_file_is_replaced_whole() {
	need_root
	mkdir "$T/dir"
	# The reader polls the file until foliostat has ended (a minute at most), however long
	# foliostat takes to start on this host.
	python3 - "$T/dir/latest.json" "$T/done" >"$T/reads" <<'READER' &
import json, os, sys, time
path, done, reads, bad, end = sys.argv[1], sys.argv[2], 0, 0, time.time() + 60
while time.time() < end and not os.path.exists(done):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        continue
    reads += 1
    try:
        json.loads(text)
    except ValueError:
        bad += 1
print(reads, bad)
READER
	local reader=$!
	"$FOLIOSTAT" -j --replace "$T/dir/latest.json" 0.1 25 >"$T/stdout"
	touch "$T/done"
	wait "$reader"
	local reads bad
	read -r reads bad <"$T/reads"
	echo "reader: $reads reads, $bad not whole"
	assert_between "$reads" 100 100000000 "reads of the file while records were replaced"
	assert_eq "$bad" 0 "reads that saw part of a record"
	assert_eq "$(wc -c <"$T/stdout")" 0 "bytes on standard output"
	assert_eq "$(wc -l <"$T/dir/latest.json")" 1 "records in the file"
	assert_records_valid "$T/dir/latest.json"
	assert_eq "$(ls -A "$T/dir")" latest.json "files left in the directory"
}

# --replace never writes through a symlink at FILE: the link is replaced, its target untouched;
# a directory that does not exist, or that foliostat may not write to, is a runtime error at
# start-up.
test_replace_file_does_not_follow_symlinks() {
	need_root
	echo keep >"$T/target"
	ln -s "$T/target" "$T/link"
	"$FOLIOSTAT" -j -d 0.3 --replace "$T/link" >/dev/null
	assert_eq "$(cat "$T/target")" keep "the symlink's target"
	[ -f "$T/link" ] && [ ! -L "$T/link" ] || fail "the symlink was not replaced by a file"
	assert_eq "$(query "$T/link" "len(recs)")" 1 "records in the file"
	assert_records_valid "$T/link"
	local status=0
	"$FOLIOSTAT" -j -d 0.3 --replace "$T/missing/out.json" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a missing directory"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to open the directory of '$T/missing/out.json': No such file or directory" \
		"message"
	# Records are written without privileges: another user's directory fails at start-up,
	# not after a 30-second run.
	mkdir "$T/theirs" && chown nobody "$T/theirs" && chmod 755 "$T/theirs" || fail "setup"
	status=0
	timeout 10 "$FOLIOSTAT" -j -d 30 --replace "$T/theirs/out.json" 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a directory foliostat may not write to"
	assert_eq "$(cat "$T/err")" \
		"foliostat: failed to write a file beside '$T/theirs/out.json': Permission denied" "message"
	assert_empty "$(ls -A "$T/theirs")" "files left in that directory"
}
