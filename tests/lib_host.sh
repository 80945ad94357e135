# shellcheck shell=bash
# Expectations from the host the suite runs on (its kernel's tracepoints, architecture and
# preemption, THP modes, cpuset), read independently of foliostat, so that the suite passes
# on any kernel foliostat supports with the figures that kernel lacks checked as null.

# assert_probes_as_host_offers FILE [--check] [--files] [--following]: the probe states of
# FILE's first record are what this host's tracefs and BTF call for, and each figure a probe
# feeds is null exactly when it is not attached (tests/host_probes.py).
assert_probes_as_host_offers() {
	mount_tracefs
	python3 tests/host_probes.py "$@" || fail "probe states differ from what this host offers"
}

# host_attribution: how foliostat must attribute events on this kernel: "lookups" where a
# tracepoint program may be preempted (PREEMPT_RT, which uname -v and /sys/kernel/realtime
# tell), "records" elsewhere.
host_attribution() {
	if uname -v | grep -q 'PREEMPT_RT' || [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
		echo '"lookups"'
	else
		echo '"records"'
	fi
}

# need_pmd_thp: skip unless a MADV_HUGEPAGE region can get PMD-sized huge pages here: the
# top-level mode is "always" or "madvise", and where the kernel has per-size (mTHP) settings,
# the PMD size's own is one of those, or "inherit".
need_pmd_thp() {
	local thp=/sys/kernel/mm/transparent_hugepage mode size_mode
	mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp/enabled" 2>/dev/null)
	case $mode in always | madvise) ;; *) skip "THP '${mode:-absent}' ($thp/enabled)" ;; esac
	local size="$thp/hugepages-$(($(cat "$thp/hpage_pmd_size") >> 10))kB/enabled"
	[ -e "$size" ] || return 0
	size_mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$size")
	case $size_mode in always | madvise | inherit) ;; *) skip "PMD-size THP '$size_mode' ($size)" ;; esac
}

# thp_mode: the THP mode anonymous memory not advised MADV_HUGEPAGE gets ("always", "madvise"
# or "never"), the PMD size's own setting first where the kernel has one.
thp_mode() {
	local thp=/sys/kernel/mm/transparent_hugepage mode
	local size="$thp/hugepages-$(($(cat "$thp/hpage_pmd_size") >> 10))kB/enabled"
	[ -e "$size" ] && mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$size")
	[ "${mode:-inherit}" = inherit ] && mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp/enabled")
	echo "$mode"
}

# allowed_cpus: the CPUs this test may run on (its cpuset, from /proc/self/status), one a line.
allowed_cpus() {
	local range first last
	for range in $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' ' '); do
		first=${range%-*} last=${range#*-}
		seq "$first" "$last"
	done
}

# foliostat_syscalls: the read system calls foliostat ($FS_PID) has made so far
# (/proc/PID/io): each read of its maps reads /proc for the processes it reports, so they grow
# at every read and stand still between two.
foliostat_syscalls() {
	awk '$1 == "syscr:" { print $2 }' "/proc/$FS_PID/io"
}

# wait_foliostat_read SYSCALLS: wait until foliostat has read since it had made SYSCALLS read
# calls (foliostat_syscalls), for a minute at most.
wait_foliostat_read() {
	local now
	for _ in $(seq 1200); do
		now=$(foliostat_syscalls) || fail "foliostat exited while the test waited for a read"
		[ "$now" -gt "$1" ] && return 0
		sleep 0.05
	done
	fail "foliostat made no read in a minute"
}

# now_ms: wall-clock time in milliseconds, to compare with the records' times.
now_ms() {
	date +%s%3N
}

# host_has_tracepoint GROUP:EVENT: whether this kernel offers the tracepoint (tracefs).
host_has_tracepoint() {
	mount_tracefs
	[ -d "/sys/kernel/tracing/events/${1%%:*}/${1#*:}" ]
}

# probe_offered GROUP:EVENT: whether foliostat may attach this tracepoint here: the kernel
# offers it and FOLIOSTAT_DISABLE_PROBES (which a run may export to stand for a host without
# it, e.g. an arm64 one on x86) leaves it.
probe_offered() {
	host_has_tracepoint "$1" && [[ ,${FOLIOSTAT_DISABLE_PROBES:-}, != *",$1,"* ]]
}

# faults_from_exceptions: whether foliostat counts faults with x86's exceptions tracepoints on
# this host (either is offered), which give faults by mode, access and cause; elsewhere (every
# other architecture) perf's software page-fault event is its source, by mode alone, and
# access and cause are null.
faults_from_exceptions() {
	probe_offered exceptions:page_fault_user || probe_offered exceptions:page_fault_kernel
}

# fault_event MODE: the perf event that counts MODE's faults (user or kernel) independently of
# foliostat, as it splits them: the exceptions tracepoint of the mode where faults come from
# those, else the software page-fault event with perf's u or k modifier (which keeps the faults
# whose registers are in that mode, as foliostat's program does by the instruction pointer).
fault_event() {
	if faults_from_exceptions; then
		echo "exceptions:page_fault_$1"
	else
		echo "page-faults:${1:0:1}"
	fi
}

# user_write_faults: the labels of foliostat_page_faults_total that hold a workload's writes to
# fresh pages: mode="user",access="write" where faults come with their access (x86), mode="user"
# elsewhere (perf's event tells the mode alone; the workload's other user faults are its
# start-up's, a hundred or so).
user_write_faults() {
	if faults_from_exceptions; then
		echo 'mode="user",access="write"'
	else
		echo 'mode="user"'
	fi
}

# migrate_reports_large_split: whether this kernel's mm_migrate_pages reports large folios split
# (its format has large_folio_split, which perf script prints as nr_split; 6.1's has not).
migrate_reports_large_split() {
	mount_tracefs
	grep -qw 'large_folio_split;' /sys/kernel/tracing/events/migrate/mm_migrate_pages/format
}

# tlb_null_unless_traced WORKLOAD_ARGS...: where foliostat cannot count TLB flushes here (no
# tlb:tlb_flush: every architecture but x86), run the workload under foliostat, check that the
# TLB figures of every process and of the system are null (not measured, never 0), and return
# 0: the test ends there. Where it can, return 1 at once.
tlb_null_unless_traced() {
	probe_offered tlb:tlb_flush && return 1
	run_workload_traced -e page-faults -- "$@"
	assert_eq "$(query "$T/out" "sorted({str(p['tlb']) for r in recs for p in r['processes']})")" \
		'["None"]' "TLB figures of every process where the kernel has no tlb:tlb_flush"
	assert_system_null "$T/out" "['tlb']" "TLB flushes"
}

# assert_system_null FILE KEYS WHAT: the system figure at KEYS (a Python subscript, e.g.
# "['faults']['file']") is null in every record of FILE: not measured on this host, never 0.
assert_system_null() {
	assert_eq "$(query "$1" "sorted({str(r['system']$2) for r in recs})")" '["None"]' "$3, null on this host"
}

# measured_or VALUE FALLBACK FILE PROBE: VALUE, a figure of FILE's records, where it is
# measured; where it is null, PROBE must be one this host lacks and FILE must say so, and
# FALLBACK (the same figure from an independent source) stands for it.
measured_or() {
	if [ "$1" != null ] && [ "$1" != None ]; then
		echo "$1"
		return
	fi
	host_has_tracepoint "$4" && fail "$4: this host has it, yet the figure is null"
	query "$3" "recs[0]['probes']['$4']" | grep -q '^"unavailable' || fail "$4 not said unavailable"
	echo "$2"
}

# in_memcg NAME: where the memory cgroup of make_memcg is in the cgroup2 hierarchy (a host with
# cgroup2 alone, as Debian 12's), CGROUPS[NAME] (make_cgroups) becomes a directory inside it, so
# that a workload moved there stays under its limit; on a hybrid host (cgroup v1's memory
# controller) the two hierarchies are apart, and it stays where it is.
in_memcg() {
	local memcg=${MEMCG_LIMIT%/*}
	case $memcg in "$CGROUP_ROOT"/*) ;; *) return 0 ;; esac
	rmdir "${CGROUPS[$1]}" || fail "cannot remove ${CGROUPS[$1]}"
	CGROUPS[$1]=$memcg/${CGROUPS[$1]##*/}
	mkdir "${CGROUPS[$1]}" || fail "cannot create ${CGROUPS[$1]}"
	at_exit "rmdir '${CGROUPS[$1]}' 2>/dev/null"
}

# assert_opener_confined PID CAPS CHECK: an opener (user/opener.c) keeps exactly CAPS (its
# CapEff and CapPrm as /proc/PID/status prints them), no bounding set and no_new_privs, and,
# where foliostat gets a seccomp filter (CHECK: a file of foliostat --check's output), one of
# its own (mode 2: foliostat's is installed after the fork).
assert_opener_confined() {
	local caps=$2 check=$3 status=/proc/$1/status cap
	# Its last steps of start-up (forked before foliostat's drop, it may lag behind it).
	for _ in $(seq 100); do
		grep -qx 'NoNewPrivs:[[:space:]]*1' "$status" && break
		sleep 0.1
	done
	for cap in CapEff CapPrm; do
		assert_eq "$(awk -v c="$cap:" '$1 == c { print $2 }' "$status")" "$caps" "the opener's $cap"
	done
	assert_eq "$(awk '/^CapBnd:/ { print $2 }' "$status")" 0000000000000000 "the opener's bounding set"
	assert_eq "$(awk '/^NoNewPrivs:/ { print $2 }' "$status")" 1 "the opener's no_new_privs"
	grep -qE '^  seccomp filter +on' "$check" || return 0
	# (its very last step, just after no_new_privs)
	for _ in $(seq 100); do
		grep -qx 'Seccomp:[[:space:]]*2' "$status" && break
		sleep 0.1
	done
	assert_eq "$(awk '/^Seccomp:/ { print $2 }' "$status")" 2 "the opener's seccomp mode"
	assert_eq "$(awk '/^Seccomp_filters:/ { print $2 }' "$status")" 1 "the opener's seccomp filters"
}
