# shellcheck shell=bash
# The one-shot summary's process table answers "which process gets large folios?": rows ranked
# by pages allocated (--sort for other keys), each with its share of large folios, its largest
# order, its THP faults that got a huge page, its fallbacks and discards; every heading
# explained under the table, within 100 columns.

# table_row TABLE PID: the process table's row of PID, without its PID and COMM (COMM is one
# word here); table_rank TABLE PID: that row's place, 1 for the first.
table_row() {
	awk -v pid="$2" 'on && $1 == pid { $1 = ""; $2 = ""; print; exit }
		/^ +PID COMM / { on = 1 }' "$1"
}

table_rank() {
	awk -v pid="$2" 'on && $1 ~ /^[0-9]+$/ { n++; if ($1 == pid) { print n; exit } }
		/^ +PID COMM / { on = 1 } on && /^$/ { exit }' "$1"
}

# column TABLE PID HEADING: the row's cell under HEADING.
column() {
	local headings index
	headings=$(grep -m1 -E '^ +PID COMM ' "$1") || fail "no process table in $1"
	index=$(awk -v h="$3" '{ for (i = 3; i <= NF; i++) if ($i == h) { print i - 2; exit } }' \
		<<<"$headings")
	[ -n "$index" ] || fail "no column $3 in: $headings"
	table_row "$1" "$2" | awk -v i="$index" '{ print $i }'
}

# A THP workload (64 MiB of MADV_HUGEPAGE memory) beside three small-page ones (16 MiB each,
# THP off), all the command foliostat follows: ranked by pages, the THP workload comes first,
# with the huge pages it got (its own count, from smaps) as THP faults, order 9 as its largest
# and all but its few small pages in large folios; the small-page ones have none (0%, order 0).
# Ranked by faults, a small-page one comes first (4,096 faults each, against about 32).
test_process_table_ranks_by_pages_and_shows_large_folios() {
	need_root
	need_pmd_thp
	# shellcheck disable=SC2016 # $0 and $1 are the command's
	local run=(sh -c '"$0" thp 64 >"$1/thp" & "$0" pages 4096 >"$1/p1" &
		"$0" pages 4096 >"$1/p2" & "$0" pages 4096 >"$1/p3"; wait' "$WORKLOAD" "$T")
	"$FOLIOSTAT" -r 4 -- "${run[@]}" >"$T/table" 2>"$T/err" || fail "exit status $? ($(cat "$T/err"))"
	sed -n '/^processes with activity/,/^$/p' "$T/table"
	local thp huge small
	thp=$(json_field "$(cat "$T/thp")" pid)
	huge=$(json_field "$(cat "$T/thp")" huge_pages)
	small=$(json_field "$(cat "$T/p1")" pid)
	grep -q '^processes with activity: .*, by pages allocated$' "$T/table" ||
		fail "the table does not say what ranks it"
	assert_eq "$(table_rank "$T/table" "$thp")" 1 "the THP workload's place, by pages"
	assert_between "$huge" 1 32 "huge pages the workload got (smaps), of 32"
	if probe_offered memcg:count_memcg_events; then
		assert_eq "$(column "$T/table" "$thp" THP)" "$huge" "THP faults that got a huge page (smaps: $huge)"
	else
		assert_eq "$(column "$T/table" "$thp" THP)" n/a "THP faults, where the kernel cannot tell"
	fi
	assert_eq "$(column "$T/table" "$thp" MAXORD)" 9 "the THP workload's largest order"
	# 64 MiB in huge pages, beside its few dozen small pages (stack, data, heap).
	if [ "$huge" -eq 32 ]; then
		assert_between "$(column "$T/table" "$thp" 'LARGE%' | tr -d %)" 99 100 \
			"the THP workload's share of large folios"
	fi
	assert_eq "$(column "$T/table" "$small" 'LARGE%')" 0% "a small-page workload's share of large folios"
	assert_eq "$(column "$T/table" "$small" MAXORD)" 0 "a small-page workload's largest order"
	# Every heading is explained under the table, and the table fits 100 columns.
	local heading
	while read -r heading; do
		sed -n '/^ *PID COMM /,/^$/p' "$T/table" | grep -qE "(^|; | )$heading [a-z]" ||
			fail "no legend for $heading"
	done < <(grep -m1 -E '^ +PID COMM ' "$T/table" | awk '{ for (i = 3; i <= NF; i++) print $i }')
	assert_eq "$(sed -n '/^processes with activity/,/^$/p' "$T/table" | awk 'length > 100' | wc -l)" 0 \
		"lines of the process table over 100 columns"

	"$FOLIOSTAT" -r 4 --sort faults -- "${run[@]}" >"$T/by-faults" 2>"$T/err" ||
		fail "exit status $? ($(cat "$T/err"))"
	grep -q '^processes with activity: .*, by page faults$' "$T/by-faults" ||
		fail "the table does not say it is ranked by faults"
	thp=$(json_field "$(cat "$T/thp")" pid)
	[ "$(table_rank "$T/by-faults" "$thp")" != 1 ] ||
		fail "ranked by faults, the THP workload (about 32 faults) came first"
	local first
	first=$(awk '/^ +PID COMM /{ getline; print $1; exit }' "$T/by-faults")
	assert_between "$(column "$T/by-faults" "$first" FAULTS)" 4096 100000 "the first row's faults, by faults"
}

# Streaming in table mode is a line per INTERVAL under one line of headings (never repeated in
# a pipe), as vmstat prints: its time, the system's figures and the first row. A workload that
# touches 8,192 pages: the lines' FAULTS add up to at least that (each page a fault), and it is
# the first process of a line. --full prints the whole tables instead.
test_streaming_table_is_a_line_per_interval() {
	need_root
	# shellcheck disable=SC2016 # $0 and $1 are the command's
	"$FOLIOSTAT" -r 0 0.2 -- sh -c 'exec "$0" --linger 1 pages 8192 >"$1"' "$WORKLOAD" "$T/workload" \
		>"$T/lines" 2>"$T/err" || fail "exit status $? ($(cat "$T/err"))"
	cat "$T/lines"
	assert_eq "$(grep -c 'TIME ALLOC_MiB LARGE%' "$T/lines")" 1 "lines of headings (a pipe: one)"
	assert_eq "$(head -1 "$T/lines" | awk '{ print $1, $NF }')" "TIME PROCESS" "the headings' line"
	local lines
	lines=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' "$T/lines")
	assert_between "$lines" 5 1000 "lines of a run over a second at 0.2 s"
	assert_eq "$(($(wc -l <"$T/lines") - 1))" "$lines" "lines that are neither headings nor records"
	assert_between "$(awk 'NR > 1 { s += $6 } END { print s }' "$T/lines")" 8192 100000 \
		"faults of the lines, a workload of 8,192 pages among them"
	grep -qE '^[0-9:]{8} .* [0-9]+ workload$' "$T/lines" || fail "no line with the workload first"
	assert_eq "$(awk 'length > 100' "$T/lines" | wc -l)" 0 "lines over 100 columns"
	"$FOLIOSTAT" --full 0.2 2 >"$T/full" 2>"$T/err" || fail "exit status $? ($(cat "$T/err"))"
	assert_eq "$(grep -c '^SYSTEM ' "$T/full")" 2 "whole tables with --full"
	local status=0
	"$FOLIOSTAT" --full -d 1 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 2 "--full without INTERVAL: a usage error"
}

# Colours are for a person at a terminal: on one (script(1) gives foliostat a pseudo-terminal),
# the headings are bold and a THP workload's share of large folios green; with NO_COLOR set, in
# a pipe and in a file, no escape at all.
test_colours_only_on_a_terminal() {
	need_root
	need_pmd_thp
	command -v script >/dev/null || skip "no script(1) (package bsdutils)"
	local cmd="$FOLIOSTAT -r 3 -- $WORKLOAD thp 16"
	TERM=xterm script -qec "$cmd" /dev/null >"$T/tty" 2>&1 || fail "exit status $? ($(cat "$T/tty"))"
	grep -qa $'\e\\[1m    PID COMM ' "$T/tty" || fail "no bold headings on a terminal: $(grep -a 'PID COMM' "$T/tty")"
	grep -qaE $'\e\\[32m(99|100)%\e\\[0m' "$T/tty" || fail "no green share of large folios on a terminal"
	NO_COLOR=1 TERM=xterm script -qec "$cmd" /dev/null >"$T/no-color" 2>&1 || fail "exit status $?"
	assert_eq "$(grep -ca $'\e' "$T/no-color")" 0 "lines with an escape under NO_COLOR"
	$cmd 2>/dev/null | cat >"$T/pipe" || fail "exit status $?"
	assert_eq "$(grep -ca $'\e' "$T/pipe")" 0 "lines with an escape in a pipe"
	grep -q 'PID COMM' "$T/pipe" || fail "no table in the pipe"
	"$FOLIOSTAT" -r 3 -o "$T/file" -- "$WORKLOAD" thp 16 2>/dev/null >/dev/null ||
		fail "exit status $?"
	assert_eq "$(grep -ca $'\e' "$T/file")" 0 "lines with an escape in -o's file"
}
