# shellcheck shell=bash
# Helpers for tests/integration_figures.sh: figures read so that null or an error fails, the
# kernel's own count of the same tracepoint events (per process with perf stat, per thread
# group from a system-wide perf record), and the kernel's enum scan_result.

# is_count VALUE: VALUE is a count (a non-negative integer; never null, empty or an error).
is_count() {
	[[ $1 =~ ^[0-9]+$ ]]
}

# figure VAR FILE EXPR WHAT: set VAR to records.py's EXPR over the records in FILE, failing the
# test unless it is a count. Not in a $(...): the failure ends the test, it is not lost.
figure() {
	local value
	value=$(python3 tests/records.py "$2" "$3") || fail "$4: records.py failed on $3"
	is_count "$value" || fail "$4: not a count: '$value' (null is not measured, never 0)"
	printf -v "$1" '%s' "$value"
}

# assert_counts_eq ACTUAL EXPECTED WHAT: both counts, and equal.
assert_counts_eq() {
	is_count "$1" || fail "$3: '$1' is not a count"
	is_count "$2" || fail "$3: the expected '$2' is not a count"
	assert_eq "$1" "$2" "$3"
}

# assert_counts_between VALUE LOW HIGH WHAT: all counts, VALUE within LOW..HIGH.
assert_counts_between() {
	if ! is_count "$1" || ! is_count "$2" || ! is_count "$3"; then
		fail "$4: '$1' '$2' '$3' are not all counts"
	fi
	assert_between "$1" "$2" "$3" "$4"
}

# scan_results: "VALUE NAME" lines of the running kernel's enum scan_result (its BTF), NAME as
# foliostat writes it (lowercased, without SCAN_), into $T/scan_results.
scan_results() {
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$T/btf" || fail "bpftool btf dump"
	awk '/^\[[0-9]+\] ENUM .scan_result. / { on = 1; next }
		on && /^\[/ { exit }
		on { name = $1; gsub(/\047/, "", name); sub(/^SCAN_/, "", name)
		     val = $2; sub(/^val=/, "", val); print val, tolower(name) }' "$T/btf" >"$T/scan_results"
	[ "$(grep -c . "$T/scan_results")" -ge 2 ] || fail "no enum scan_result in the kernel's BTF"
}

# scan_result_events EVENT FIELD: perf arguments that count EVENT, then EVENT once per value of
# enum scan_result in FIELD (scan_results first), appended to the array PERF_ARGS.
scan_result_events() {
	local value
	PERF_ARGS+=(-e "$1")
	while read -r value _; do
		PERF_ARGS+=(-e "$1" --filter "$2 == $value")
	done <"$T/scan_results"
}

# perf_results PERF EVENT: EVENT's counts by result from perf stat's output PERF (made with
# scan_result_events), as JSON {name: count} without the zero ones. Fails unless the results
# add up to perf's unfiltered count of EVENT.
perf_results() {
	python3 - "$1" "$2" "$T/scan_results" <<-'EOF' || fail "perf's counts of $2 by result"
		import json, sys
		perf, event, results = sys.argv[1:]
		counts = [int(line.split(",")[0]) for line in open(perf)
		          if line.count(",") >= 2 and line.split(",")[2] == event]
		names = [line.split()[1] for line in open(results)]
		if len(counts) != len(names) + 1:
		    sys.exit(f"{len(counts)} counts of {event} for {len(names)} results")
		if sum(counts[1:]) != counts[0]:
		    sys.exit(f"{event}: results sum to {sum(counts[1:])}, unfiltered {counts[0]}")
		print(json.dumps({n: c for n, c in zip(names, counts[1:]) if c}, sort_keys=True))
	EOF
}

# assert_same_results OURS THEIRS WHAT: two JSON objects of result -> count are the same (a
# null, or a value that is not a count, fails).
assert_same_results() {
	python3 - "$1" "$2" <<-'EOF' || fail "$3: foliostat $1, the kernel $2"
		import json, sys
		ours, theirs = (json.loads(a) for a in sys.argv[1:])
		for m in (ours, theirs):
		    if not isinstance(m, dict) or not all(type(v) is int and v > 0 for v in m.values()):
		        sys.exit(f"not a map of counts: {m}")
		sys.exit(ours != theirs)
	EOF
	echo "ok: $3 = $1"
}

# perf_record_begin NAME EVENT...: a system-wide perf record of the tracepoints EVENT..., on
# from when this returns (as perf_window_begin), into $T/NAME.data; perf_record_end NAME stops
# it and writes its samples as perf script does ("TGID EVENT: FIELDS") to $T/NAME.script.
perf_record_begin() {
	local name=$1 ctl ack event
	shift
	local events=()
	for event in "$@"; do events+=(-e "$event"); done
	mkfifo "$T/$name.ctl" "$T/$name.ack" || fail "mkfifo"
	# Timestamps from CLOCK_MONOTONIC, the clock BPF's stall times are read from: perf's own
	# (the scheduler's clock) may run at another rate (under emulation, by a third).
	perf record -q -a -m "$(perf_record_buffer)" -D -1 -k CLOCK_MONOTONIC --control "fifo:$T/$name.ctl,$T/$name.ack" \
		-o "$T/$name.data" "${events[@]}" 2>"$T/$name.perf.err" &
	exec {ctl}<>"$T/$name.ctl" {ack}<>"$T/$name.ack"
	# shellcheck disable=SC2034,SC2004 # lib.sh's associative arrays, which perf_window_* read
	{
		PERF_WINDOW_PID[$name]=$!
		PERF_WINDOW_CTL[$name]=$ctl
		PERF_WINDOW_ACK[$name]=$ack
	}
	perf_window_command "$name" enable
}

perf_record_end() {
	local name=$1
	perf_window_end "$name"
	assert_perf_lost_nothing "$T/$name.data"
	perf script --ns -i "$T/$name.data" -F pid,tid,time,event,trace >"$T/$name.script" \
		2>"$T/$name.script.err" || fail "perf script: $(cat "$T/$name.script.err")"
	[ -s "$T/$name.script" ] || fail "perf recorded no sample at all"
}

# perf_record_sum NAME TGID EVENT PYTHON: over the samples of EVENT of thread group TGID (or of
# every thread: all) that perf_record_end kept, the sum of PYTHON, an expression of the event's
# fields as perf script writes them (integers as numbers, e.g. `pages if pages != -1 else 0`).
perf_record_sum() {
	python3 - "$T/$1.script" "$2" "$3" "$4" <<-'EOF' || fail "perf's samples of $3"
		import re, sys
		path, tgid, event, expr = sys.argv[1:]
		total = 0
		for line in open(path):
		    m = re.match(r"\s*(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$", line)
		    if not m or (tgid != "all" and m.group(1) != tgid) or m.group(4) != event:
		        continue
		    fields = {k: int(v) for k, v in re.findall(r"(\w+)[:=](-?\d+)\b", m.group(5))}
		    total += eval(expr, {}, fields)
		print(int(total))
	EOF
}

# perf_record_stall_us NAME TGID BEGIN END: the microseconds the threads of TGID spent between
# each BEGIN and the END that follows it in the same thread, by perf's timestamps (the sum of
# perf_record_durations).
perf_record_stall_us() {
	perf_record_durations "$@"
	awk '{ total += $1 } END { printf "%.0f\n", total }' "$T/$1.durations" ||
		fail "perf's stalls $3..$4"
}

# expo_figure FILE 'NAME{...}' VAR WHAT: VAR = the sum of the samples of the exposition FILE
# that match, failing unless there is at least one (a family that is absent is not 0).
expo_figure() {
	local n value
	n=$(python3 tests/exposition.py "$1" --count "$2") || fail "$4: exposition.py"
	[ "$n" -ge 1 ] || fail "$4: no sample of $2 in the exposition"
	value=$(python3 tests/exposition.py "$1" --sum "$2") || fail "$4: exposition.py"
	is_count "$value" || fail "$4: not a count: $value"
	printf -v "$3" '%s' "$value"
}

# expo_series_or_zero FILE 'NAME{...}' VAR WHAT: VAR = the sum of the samples that match, or 0
# where none does: a group's series appears at its first nonzero count. Only for a family the
# caller has seen measured for that group (a family that is absent is not 0).
expo_series_or_zero() {
	local n value=0
	n=$(python3 tests/exposition.py "$1" --count "$2") || fail "$4: exposition.py"
	is_count "$n" || fail "$4: not a count: $n"
	if [ "$n" -ge 1 ]; then
		value=$(python3 tests/exposition.py "$1" --sum "$2") || fail "$4: exposition.py"
		is_count "$value" || fail "$4: not a count: $value"
	fi
	printf -v "$3" '%s' "$value"
}

# make_swapfile MIB: a swap file of MIB MiB on a disk file system, on until the test ends (after
# which the workloads that used it have exited, so swapoff has nothing to read back).
make_swapfile() {
	local file=/var/tmp/foliostat-swap.$$
	command -v mkswap >/dev/null || skip "no mkswap (util-linux)"
	head -c $(($1 << 20)) /dev/zero >"$file" || fail "cannot write $file"
	chmod 600 "$file"
	at_exit "rm -f '$file'"
	mkswap -q "$file" >/dev/null || fail "mkswap $file"
	swapon "$file" || fail "swapon $file"
	at_exit "swapoff '$file'"
}

# allow_memcg_swap: let make_memcg's cgroup swap (it turns swap off for it).
allow_memcg_swap() {
	local dir=${MEMCG_LIMIT%/*}
	if [ -e "$dir/memory.swap.max" ]; then
		echo max >"$dir/memory.swap.max" || fail "cannot allow swap in $dir"
	elif [ -e "$dir/memory.swappiness" ]; then
		echo 60 >"$dir/memory.swappiness" || fail "cannot allow swap in $dir"
	fi
}

# vmstat_exact_snapshot POINT: vmstat_snapshot, with the per-CPU differences of the node and zone
# counters (nr_*) folded in first: /proc/vmstat shows those only once a CPU's difference passes
# a threshold, or a refresh folds them.
vmstat_exact_snapshot() {
	echo 1 >/proc/sys/vm/stat_refresh || fail "cannot fold the per-CPU vmstat counters"
	vmstat_snapshot "$1"
}

# kernel_enum ENUM PREFIX FILE: "VALUE NAME" lines of the kernel's enum ENUM (its BTF) into FILE,
# NAME as foliostat writes it (lowercased, without PREFIX).
kernel_enum() {
	[ -s "$T/btf" ] || bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$T/btf" ||
		fail "bpftool btf dump"
	awk -v enum="'$1'" -v prefix="$2" '$2 == "ENUM" && $3 == enum { on = 1; next }
		on && /^\[/ { exit }
		on { name = $1; gsub(/\047/, "", name); sub("^" prefix, "", name)
		     val = $2; sub(/^val=/, "", val); print val, tolower(name) }' "$T/btf" >"$3"
	[ "$(grep -c . "$3")" -ge 2 ] || fail "no enum $1 in the kernel's BTF"
}

# perf_record_map NAME TGID EVENT KEY ENUM_FILE: over the samples of EVENT of thread group TGID
# that perf_record_end kept, how many there are for each value of the field KEY (or of the
# number in parentheses that ends the line, for KEY "paren": how perf script writes a symbolic
# field), named by ENUM_FILE (kernel_enum), as JSON {name: count} without zeros.
perf_record_map() {
	python3 - "$T/$1.script" "$2" "$3" "$4" "$5" <<-'EOF' || fail "perf's samples of $3 by $4"
		import json, re, sys
		path, tgid, event, key, enum = sys.argv[1:]
		names = dict(line.split() for line in open(enum))
		counts = {}
		for line in open(path):
		    m = re.match(r"\s*(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$", line)
		    if not m or (tgid != "all" and m.group(1) != tgid) or m.group(4) != event:
		        continue
		    if key == "paren":
		        value = re.search(r"\((-?\d+)\)\s*$", m.group(5)).group(1)
		    else:
		        value = re.search(r"\b" + key + r"[:=](-?\d+)\b", m.group(5)).group(1)
		    name = names.get(value, f"?{value}")
		    counts[name] = counts.get(name, 0) + 1
		print(json.dumps(counts, sort_keys=True))
	EOF
}

# perf_record_durations NAME TGID BEGIN END: the microseconds (fractions kept) of each BEGIN to
# the END that follows it in the same thread of TGID, one a line, into $T/NAME.durations.
perf_record_durations() {
	python3 - "$T/$1.script" "$2" "$3" "$4" >"$T/$1.durations" <<-'EOF' || fail "perf's stalls $3..$4"
		import re, sys
		path, tgid, begin, end = sys.argv[1:]
		started = {}
		for line in open(path):
		    m = re.match(r"\s*(\d+)/(\d+)\s+([\d.]+):\s+(\S+):", line)
		    if not m or m.group(1) != tgid:
		        continue
		    if m.group(4) == begin:
		        started[m.group(2)] = float(m.group(3))
		    elif m.group(4) == end and m.group(2) in started:
		        print(f"{(float(m.group(3)) - started.pop(m.group(2))) * 1e6:.3f}")
	EOF
}

# expo_map FILE NAME LABEL [LABEL=VALUE...]: the samples of NAME in the exposition FILE whose
# labels include the LABEL=VALUE pairs, summed by the value of LABEL, as JSON {value: count}
# without zeros.
expo_map() {
	python3 - "$@" <<-'EOF' || fail "exposition $2 by $3"
		import json, sys
		sys.path.insert(0, "tests")
		import exposition
		path, name, label, *pairs = sys.argv[1:]
		want = dict(p.split("=", 1) for p in pairs)
		counts = {}
		for n, labels, v in exposition.parse(path):
		    if n == name and label in labels and all(labels.get(k) == x for k, x in want.items()):
		        counts[labels[label]] = counts.get(labels[label], 0) + int(v)
		print(json.dumps({k: v for k, v in counts.items() if v}, sort_keys=True))
	EOF
}

# assert_stall_time TOTAL_US HIST_US DURATIONS WHAT: a stall time foliostat reports (TOTAL_US,
# with its histogram HIST_US as JSON, {lower bound in us: stalls}) against the stall lengths in
# DURATIONS (perf_record_durations): within 1% and 20 us a stall of perf's sum, and, where
# foliostat's histogram differs from perf's stalls by a few strays only (1 and one in 50, see
# assert_stall_buckets), give or take the strays' bucket bounds: a vCPU that waits between the
# two handlers of one hit (a whole time slice of an emulator running both vCPUs on one thread)
# moves that stall by milliseconds. A lost or doubled stall changes the count, which the caller
# compares; a time wrong for every stall moves most of them, which leaves no slack.
assert_stall_time() {
	python3 - "$@" <<-'EOF' || fail "$4"
		import json, sys
		ours, hist, durations, what = int(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
		stalls = [float(line) for line in open(durations)]
		def lower(d):
		    b = 0
		    while d >= 2 ** b:
		        b += 1
		    return 0 if b == 0 else 2 ** (b - 1)
		theirs = {}
		for d in stalls:
		    theirs[lower(d)] = theirs.get(lower(d), 0) + 1
		keys = {int(k) for k in hist} | set(theirs)
		diff = {k: hist.get(str(k), 0) - theirs.get(k, 0) for k in keys}
		moved = sum(v for v in diff.values() if v > 0)
		slack = sum(stalls) / 100 + 20 * len(stalls)
		if moved <= 1 + len(stalls) // 50:
		    slack += sum(abs(v) * (2 * k or 1) for k, v in diff.items())
		total = sum(stalls)
		print(f"{what}: {ours} us, perf's {total:.0f} us over {len(stalls)} stalls"
		      f" ({moved} in another bucket), give or take {slack:.0f} us")
		if abs(ours - total) > slack:
		    sys.exit(f"FAIL: {what}: {ours} us, perf's {total:.0f} us")
	EOF
}

# assert_stall_buckets FILE SELECTOR DURATIONS WHAT: the cumulative buckets of the histogram
# SELECTOR (NAME{labels} without le) in the exposition FILE against the stall lengths in
# DURATIONS (perf_record_durations): its _count is their number, each bucket le holds at least
# those shorter than le less 2 us and 2%, at most those shorter than le plus as much, give or
# take a few strays (1 and one in 50 stalls); _sum is their sum within 20 us and 5% a stall.
# Why strays: perf and BPF read the clock in two handlers of one tracepoint hit, one after the
# other, and a vCPU descheduled between them (a hypervisor's steal, an interrupt storm) moves
# that one stall by any amount (CI saw one stall of 26 cross 256 us). A fault of the bounds
# (a factor of 2 off, a unit wrong) moves most stalls: which of bounds twice and half as far
# perf's own stalls would have failed is added to $T/stall_bounds_told, for
# assert_stall_bounds_told (the histograms share their bounds: one that can tell is enough).
assert_stall_buckets() {
	python3 - "$@" "$T/stall_bounds_told" <<-'EOF' || fail "$4: the histogram does not match perf's stalls"
		import re, sys
		sys.path.insert(0, "tests")
		import exposition
		path, selector, durations, what, told_path = sys.argv[1:]
		name, want = exposition.selector(selector)
		stalls = [float(line) for line in open(durations)]
		def tol(us):
		    return 2 + us / 50
		buckets, count, total = {}, None, None
		for n, labels, v in exposition.parse(path):
		    if not all(labels.get(k) == x for k, x in want.items()):
		        continue
		    if n == name + "_bucket":
		        buckets[labels["le"]] = v
		    elif n == name + "_count":
		        count = v
		    elif n == name + "_sum":
		        total = v * 1e6
		if count is None and total is None and not buckets and not stalls:
		    # (a histogram appears at its first stall; the kernel may make none this run, as
		    # when it defers compaction after failures: then neither foliostat nor perf has any)
		    print(f"case: {what}: none, as perf saw none")
		    sys.exit(0)
		if count is None or total is None or not buckets:
		    sys.exit(f"{what}: no histogram {selector}")
		if count != len(stalls):
		    sys.exit(f"{what}: _count {count}, perf saw {len(stalls)} stalls")
		# (the sum, looser: a unit or a sum wrong is far outside it, a stray is not)
		if abs(total - sum(stalls)) > sum(20 + d / 20 for d in stalls):
		    sys.exit(f"{what}: _sum {total:.1f} us, perf {sum(stalls):.1f} us")
		stray = 1 + len(stalls) // 50
		def strays(counts):
		    """The most stalls a bucket holds beyond perf's range, and what that bucket says."""
		    worst, said = 0, ""
		    for le, v in sorted(counts.items(), key=lambda b: float(b[0])):
		        bound = float(le) * 1e6
		        low = sum(d < bound - tol(bound) for d in stalls)
		        high = sum(d < bound + tol(bound) for d in stalls) if le != "+Inf" else len(stalls)
		        if max(low - v, v - high) > worst:
		            worst = max(low - v, v - high)
		            said = f"bucket le={le} holds {v:.0f}, perf's stalls say {low}..{high} (give or take {stray})"
		    return worst, said
		used, said = strays(buckets)
		if used > stray:
		    sys.exit(f"{what}: {said}")
		told = []
		for factor in (2, 0.5):
		    shifted = {le: len(stalls) if le == "+Inf" else sum(d < float(le) * 1e6 * factor for d in stalls)
		               for le in buckets}
		    if strays(shifted)[0] > stray:
		        told.append(factor)
		with open(told_path, "a") as f:
		    f.write("".join(f"{factor}\n" for factor in told))
		print(f"ok: {what}: {len(stalls)} stalls, {len(buckets)} buckets, each within perf's"
		      f" ({used:.0f} strays, {stray} allowed); bounds {' or '.join(str(f) for f in told) or 'no'}"
		      " times as far would fail")
	EOF
}

# assert_stall_bounds_told: of the histograms assert_stall_buckets checked, at least one would
# have failed bounds twice as far, and one bounds half as far (a run's stalls of one kind may
# be too few or too alike to tell).
assert_stall_bounds_told() {
	local factor
	for factor in 2 0.5; do
		grep -qx "$factor" "$T/stall_bounds_told" 2>/dev/null ||
			fail "no stall histogram checked could tell bounds $factor times as far: the workloads must stall more"
	done
	echo "ok: the stall histograms checked would fail bounds twice or half as far"
}

# bpf_prog_stats FILE: bpftool's view of the loaded programs (run_cnt, run_time_ns,
# recursion_misses), as JSON in FILE.
bpf_prog_stats() {
	bpftool prog show -j >"$1" || fail "bpftool prog show"
}

# assert_bpf_statistics EXPOSITION BEFORE AFTER: for every probe with a foliostat_bpf_* series,
# the runs, run time and missed runs are between bpftool's figures of the probe's program
# (loaded under the name user/collect/loader.c gives it: bpftool shows it whole from the program's BTF,
# or as the kernel keeps it, 15 bytes) read just before and just after the scrape. Every
# attached probe has a series of each.
assert_bpf_statistics() {
	python3 - "$@" <<-'EOF' || fail "foliostat_bpf_* against bpftool"
		import json, re, sys
		sys.path.insert(0, "tests")
		import exposition
		expo, before, after = sys.argv[1:]
		samples = exposition.parse(expo)
		table = re.finditer(r'\[PROBE_\w+\]\s*=\s*\{"([^"]+)",\s*(?:"\w+"|NULL),\s*'
		                    r'(?:ONE\("(\w+)"\)|\{\{"(\w+)",\s*\d+\},\s*\{"(\w+)",\s*\d+\}\})',
		                    open("user/collect/loader.c").read())
		programs = {m.group(1): {n for p in m.group(2, 3, 4) if p for n in (p, p[:15])}
		            for m in table}
		def stats(path, probe, key):
		    return sum(p.get(key, 0) for p in json.load(open(path))
		               if p.get("name") in programs[probe])
		attached = {l["probe"] for n, l, v in samples if n == "foliostat_probe_attached" and v == 1}
		checked = 0
		for family, key, scale in (("foliostat_bpf_runs_total", "run_cnt", 1),
		                           ("foliostat_bpf_run_seconds_total", "run_time_ns", 1e-9),
		                           ("foliostat_bpf_missed_runs_total", "recursion_misses", 1)):
		    series = {l["probe"]: v for n, l, v in samples if n == family}
		    if set(series) != attached:
		        sys.exit(f"{family}: series for {sorted(series)}, attached {sorted(attached)}")
		    for probe, value in series.items():
		        if probe not in programs:
		            sys.exit(f"{probe}: no program in user/collect/loader.c's table")
		        low, high = stats(before, probe, key) * scale, stats(after, probe, key) * scale
		        slack = 5e-9 * value if scale != 1 else 0  # 9 significant digits
		        if not low - slack <= value <= high + slack:
		            sys.exit(f"{family}{{probe={probe}}} = {value}, bpftool {low}..{high}")
		        checked += 1
		runs = {l["probe"]: v for n, l, v in samples if n == "foliostat_bpf_runs_total"}
		if runs.get("kmem:mm_page_alloc", 0) < 4096:
		    sys.exit(f"kmem:mm_page_alloc ran {runs.get('kmem:mm_page_alloc')} times, < 4096")
		print(f"ok: {checked} foliostat_bpf_* series within bpftool's figures around the scrape")
	EOF
}

# starve_undone_at_exit: the hugetlb pool and compaction proactiveness as they are now are put
# back when the test ends, whatever ends it: `workload starve` puts them back itself, but not
# when it is killed (a test that times out), and a pool holding the host's memory would starve
# every later test.
starve_undone_at_exit() {
	local pool proactiveness=/proc/sys/vm/compaction_proactiveness
	pool=$(cat /proc/sys/vm/nr_hugepages) || fail "cannot read nr_hugepages"
	at_exit "echo $pool >/proc/sys/vm/nr_hugepages"
	if [ -w "$proactiveness" ]; then
		at_exit "echo $(cat "$proactiveness") >$proactiveness"
	fi
}
