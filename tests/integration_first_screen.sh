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
