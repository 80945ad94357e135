# shellcheck shell=bash
# Cgroup names (user/group/cgroup_names.c): cgroups made and removed by the thousand around the
# exporter, as a user with a delegated subtree can, cost it no memory that grows with them; the
# cgroups active at a scrape are named at once, by their own paths.

# rss_kib PID: its resident memory (VmRSS), in KiB.
rss_kib() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

# churn_batch FIRST COUNT: cgroups FIRST .. FIRST+COUNT-1 below CHURN_DIR (names of
# CHURN_NAME_LEN bytes), each made and given a workload that touches 1 MiB, then a scrape into
# $T/batch while they all exist (it names them), then all removed. Checks the scrape's churn
# cgroups are exactly some of this batch's (by their whole paths), at least one.
churn_batch() {
	local first=$1 count=$2 i name
	: >"$T/made"
	for ((i = first; i < first + count; i++)); do
		name=$(churn_name "$i")
		mkdir "$CHURN_DIR/$name" || fail "mkdir $name"
		"$WORKLOAD" --in-cgroup "$CHURN_DIR/$name" pages "$CHURN_PAGES" >/dev/null ||
			fail "workload in cgroup $i"
		echo "cgroup=\"$CHURN_PATH/$name\"" >>"$T/made"
	done
	scrape "$T/batch"
	grep -o "cgroup=\"$CHURN_PATH/[^\"]*\"" "$T/batch" | LC_ALL=C sort -u >"$T/named"
	[ -s "$T/named" ] || fail "no cgroup of the batch from $first is named in the scrape"
	LC_ALL=C sort "$T/made" | LC_ALL=C comm -13 - "$T/named" >"$T/wrong"
	[ ! -s "$T/wrong" ] ||
		fail "named, but not a cgroup of this batch: $(head -c 300 "$T/wrong")"
	for ((i = first; i < first + count; i++)); do
		rmdir "$CHURN_DIR/$(churn_name "$i")" || fail "rmdir cgroup $i"
	done
}

# churn_name I: the I-th cgroup's name, CHURN_NAME_LEN bytes.
churn_name() {
	local name="churn-$1-"
	printf '%s%s' "$name" "${CHURN_PAD:0:$((CHURN_NAME_LEN - ${#name}))}"
}

# 3,000 cgroups with 200-byte names, each given a process that allocates 1 MiB, made and removed
# in batches of CHURN_BATCH around `foliostat --listen` (--max-series 20), each batch scraped
# while its cgroups exist: the scrape names them by their paths. The exporter's memory is
# bounded, not made to grow by the churn. Bound (foliostat(8), SECURITY): the cache holds the
# names the last reads asked for, a removed cgroup's forgotten within a second of a read that
# does not ask for it, so at most 3 batches' and the host's own cgroups (H, every cgroup2
# directory here) at once, each a path and 64 bytes of entry and allocator header: after a
# warm-up of 300 cgroups (which fills the 20 series and the exposition to their size),
#   growth <= (3 * CHURN_BATCH + H) * (path bytes + 64) + 256 KiB
# (256 KiB: glibc's heap keeps freed memory up to twice its 128 KiB trim threshold before giving
# it back), and from the start that plus what 20 series take: each group's counts (struct
# series_row, 5.4 KiB; 8 KiB allowed) and twice the largest exposition scraped (its buffer
# grows by doubling). The old cache kept every name a walk found for an hour: 2,700 paths of
# 230 bytes, about 700 KiB more. Where the exposition has the foliostat_bound_* families, the
# cache's entries are checked against the same count.
test_cgroup_churn_keeps_the_exporter_bounded() {
	need_root
	local i start warm end growth bound hosts expo_max=0 size entries
	CHURN_NAME_LEN=200 CHURN_BATCH=50
	CHURN_PAD=$(printf 'x%.0s' $(seq 200))
	CHURN_PAGES=$((1048576 / $(getconf PAGESIZE)))
	make_cgroups churn
	CHURN_DIR=${CGROUPS[churn]}
	CHURN_PATH=${CHURN_DIR#"$CGROUP_ROOT"}
	at_exit "rmdir '$CHURN_DIR'/churn-* 2>/dev/null"
	hosts=$(find "$CGROUP_ROOT" -type d | wc -l)
	# glibc's dynamic thresholds off: a freed large buffer goes back to the system at once, and
	# the heap's free top beyond 128 KiB too, so that VmRSS follows what foliostat holds.
	GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072 \
		start_endpoint --max-series 20
	at_exit "kill $FS_PID 2>/dev/null"
	scrape "$T/first"
	sleep 1
	scrape "$T/first"
	start=$(rss_kib "$FS_PID")
	for ((i = 0; i < 3000; i += CHURN_BATCH)); do
		churn_batch "$i" "$CHURN_BATCH"
		size=$(stat -c %s "$T/batch")
		[ "$size" -le "$expo_max" ] || expo_max=$size
		[ "$i" -ne 250 ] || warm=$(rss_kib "$FS_PID")
	done
	# Two scrapes a second apart: the names of the last batch, removed, are looked for and
	# forgotten.
	scrape "$T/last"
	sleep 1.1
	scrape "$T/last"
	end=$(rss_kib "$FS_PID")
	echo "VmRSS: $start KiB at the start, $warm KiB after 300 cgroups, $end KiB after 3000;" \
		"$hosts cgroups on the host; largest exposition $expo_max bytes"
	local per_name=$((${#CHURN_PATH} + 1 + CHURN_NAME_LEN + 64))
	bound=$(((3 * CHURN_BATCH + hosts) * per_name / 1024 + 256))
	growth=$((end - warm))
	[ "$growth" -le "$bound" ] ||
		fail "the exporter grew by $growth KiB over 2700 cgroups after the warm-up" \
			"(bound $bound KiB)"
	bound=$((bound + 20 * 8 + 2 * expo_max / 1024))
	growth=$((end - start))
	[ "$growth" -le "$bound" ] ||
		fail "the exporter grew by $growth KiB over 3000 cgroups (bound $bound KiB)"
	entries=$(awk '/structure="cgroup_names"/ && $1 ~ /^foliostat_bound.*entries/ {
		print $2 }' "$T/last")
	if [ -n "$entries" ]; then
		assert_between "$entries" 0 $((3 * CHURN_BATCH + hosts)) "cgroup names kept"
	else
		echo "no foliostat_bound_* families here: the cache is checked by the memory alone"
	fi
	stop_foliostat "$T/endpoint"
}
set_test_timeout test_cgroup_churn_keeps_the_exporter_bounded 360

# rows_named FILE DIR: how many rows of DIR's cgroup (by its id, its directory's inode) the
# records of FILE (--by cgroup) have; fails unless each is named DIR's path below the mount.
rows_named() {
	local id path=${2#"$CGROUP_ROOT"} rows="[g for r in recs for g in r['cgroups']"
	id=$(stat -c %i "$2") || fail "stat $2"
	local names="sorted(set(str(g['cgroup']) for g in $rows if g['cgroup_id'] == $id]))"
	assert_eq "$(query "$1" "$names")" \
		"[\"$path\"]" "the names of cgroup $id's rows" >&2
	query "$1" "len($rows if g['cgroup_id'] == $id])"
}

# Cgroups are named by their file handles, through foliostat-cgrp: a child that keeps
# CAP_DAC_READ_SEARCH alone (bit 2), with no_new_privs and its seccomp allow-list. So a cgroup
# first active less than a second after another was named is named at once, where a walk (at
# most once a second) would leave its row unnamed until a later read: two cgroups made while
# foliostat runs, active in two reads a third of a second apart, have every row named by their
# paths.
test_cgroups_are_named_by_handle_at_once() {
	need_root
	local opener
	"$FOLIOSTAT" --check >"$T/check" || fail "--check failed: $(cat "$T/check")"
	start_foliostat "$T/out" -j 0.3 -r 0 --by cgroup
	opener=$(pgrep -P "$FS_PID" -x foliostat-cgrp) ||
		fail "foliostat has no foliostat-cgrp child"
	assert_opener_confined "$opener" 0000000000000004 "$T/check"
	make_cgroups first second
	"$WORKLOAD" --in-cgroup "${CGROUPS[first]}" pages 512 >/dev/null || fail "workload"
	wait_next_record "$T/out"
	"$WORKLOAD" --in-cgroup "${CGROUPS[second]}" pages 512 >/dev/null || fail "workload"
	wait_next_record "$T/out"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	local first second
	first=$(rows_named "$T/out" "${CGROUPS[first]}")
	second=$(rows_named "$T/out" "${CGROUPS[second]}")
	echo "rows: $first of the first cgroup, $second of the second, all named by their paths"
	assert_between "$first" 1 100 "rows of the first cgroup"
	assert_between "$second" 1 100 "rows of the second cgroup"
}
