# shellcheck shell=bash
# Free memory by block size (system.free_memory, the table's "free blocks" line, the
# foliostat_free_* gauges) against /proc/buddyinfo and debugfs's extfrag/unusable_index read by
# the test in the same span, in a state the test makes: memory fragmented on purpose.

# buddy_snapshot FILE: now (Unix seconds), /proc/buddyinfo's counts and, where debugfs shows
# it and the zone's counts were the same before and after it was read, the kernel's unusable
# free space index (extfrag/unusable_index, thousandths), as JSON:
# {"time": t, "zones": {"0 Normal": {"blocks": [...], "unusable": [...] or null}}}.
buddy_snapshot() {
	python3 - "$1" <<-'EOF' || fail "cannot read /proc/buddyinfo"
		import json, os, sys, time
		def table(path, parse):
		    rows = {}
		    for line in open(path):
		        words = line.replace(",", " ").split()
		        if words[:1] == ["Node"] and words[2] == "zone":
		            rows[f"{words[1]} {words[3]}"] = [parse(w) for w in words[4:]]
		    return rows
		now = time.time()
		blocks = table("/proc/buddyinfo", int)
		index = "/sys/kernel/debug/extfrag/unusable_index"
		unusable = table(index, lambda w: round(float(w) * 1000)) if os.path.exists(index) else {}
		again = table("/proc/buddyinfo", int)
		# (a zone whose counts moved while debugfs was read has no index to go with them)
		json.dump({"time": now, "zones": {z: {"blocks": b, "unusable": unusable.get(z) if again.get(z) == b else None}
		                                 for z, b in blocks.items()}}, open(sys.argv[1], "w"))
	EOF
}

# buddy_sampler_start FILE: /proc/buddyinfo's counts, a JSON line per read every 5 ms, into
# FILE until buddy_sampler_stop (or ten minutes): every value the counts took long enough to be
# seen, for figures read at moments of their own.
buddy_sampler_start() {
	touch "$T/sampling"
	python3 - "$1" "$T/sampling" <<-'EOF' &
		import json, os, sys, time
		with open(sys.argv[1], "w") as out:
		    for _ in range(120000):
		        if not os.path.exists(sys.argv[2]):
		            break
		        zones = {}
		        for line in open("/proc/buddyinfo"):
		            w = line.replace(",", " ").split()
		            if w[:1] == ["Node"]:
		                zones[f"{w[1]} {w[3]}"] = [int(n) for n in w[4:]]
		        out.write(json.dumps(zones) + "\n")
		        time.sleep(0.005)
	EOF
	BUDDY_SAMPLER=$!
	at_exit "rm -f '$T/sampling'"
}

buddy_sampler_stop() {
	rm -f "$T/sampling"
	wait "$BUDDY_SAMPLER" || fail "the buddyinfo sampler failed"
}

# set_for_test FILE VALUE: write VALUE to a sysfs/procfs FILE, its old value put back when the
# test ends.
set_for_test() {
	local old
	old=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$1")
	[ -n "$old" ] || old=$(cat "$1")
	at_exit "echo '$old' >'$1'"
	echo "$2" >"$1" || fail "cannot write $2 to $1"
}

# Memory fragmented on purpose in a cgroup (the workload's "scarce": 1 GiB faulted and every
# other page given back, proactive compaction off, every free block of the PMD order or larger
# taken by hugetlb, THP defrag "never"), held while foliostat streams records: its THP faults
# find no free block (alloc_failed at the PMD order in its row, at least as many as its attempts
# that got no huge page), and the records made while memory was held that way say what the test reads
# itself meanwhile: no free block of the PMD order or larger in each zone where hugetlb took
# them, in every zone and order a count buddyinfo had at some read of the test's in that span
# (one every 5 ms: foliostat reads at moments of its own), and an unusable share the kernel's
# unusable free space index took at one of those reads (the test computes it as debugfs's
# extfrag/unusable_index does, and checks that against debugfs; 100% at the PMD order where
# hugetlb took every block). The one-shot table says so under the failures,
# and the exporter's gauges are buddyinfo's too.
test_free_memory_when_no_block_is_free() {
	need_root
	need_pmd_thp
	local thp=/sys/kernel/mm/transparent_hugepage
	grep -q '\[never\]' "$thp/enabled" && skip "THP is off on this host"
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null &&
		at_exit "umount /sys/kernel/debug 2>/dev/null"
	set_for_test "$thp/defrag" never
	at_exit "echo $(cat /proc/sys/vm/nr_hugepages) >/proc/sys/vm/nr_hugepages"
	[ -w /proc/sys/vm/compaction_proactiveness ] &&
		at_exit "echo $(cat /proc/sys/vm/compaction_proactiveness) >/proc/sys/vm/compaction_proactiveness"
	make_cgroups frag
	start_foliostat "$T/out" -j 1 -c "${CGROUPS[frag]}"
	"$FOLIOSTAT" -c "${CGROUPS[frag]}" >"$T/table" 2>"$T/table.err" &
	local table=$!
	track_foliostat "$table"
	wait_attached "$table" "$T/table.err"
	# The exporter's text, made anew every second into a file: started, like the others, before
	# memory is held (a foliostat starting during the hold would take the single pages left to
	# allocate from: a 4 GiB machine ran out of memory and killed the workload).
	"$FOLIOSTAT" --format prometheus --replace "$T/metrics.live" 1 2>"$T/metrics.err" &
	local exporter=$!
	track_foliostat "$exporter"
	wait_attached "$exporter" "$T/metrics.err"
	mkfifo "$T/go" || fail "mkfifo"
	local go scarce
	exec {go}<>"$T/go"
	"$WORKLOAD" --in-cgroup "${CGROUPS[frag]}" scarce 256,16,16,hold <"$T/go" >"$T/workload" &
	scarce=$!
	at_exit "kill $scarce 2>/dev/null"
	for _ in $(seq 1200); do [ -s "$T/workload" ] && break; sleep 0.1; done
	[ -s "$T/workload" ] || fail "the workload did not fragment memory in two minutes"
	buddy_snapshot "$T/before"
	buddy_sampler_start "$T/samples"
	wait_next_record "$T/out"
	wait_next_record "$T/out"
	# An exposition made in the span: the file replaced since the span began.
	local inode
	inode=$(stat -c %i "$T/metrics.live" 2>/dev/null)
	for _ in $(seq 600); do
		[ "$(stat -c %i "$T/metrics.live" 2>/dev/null)" != "$inode" ] && break
		sleep 0.1
	done
	cp "$T/metrics.live" "$T/metrics" || fail "no exposition of foliostat's"
	[ "$(stat -c %i "$T/metrics.live")" != "$inode" ] ||
		fail "foliostat made no exposition in a minute: $(cat "$T/metrics.err")"
	buddy_sampler_stop
	buddy_snapshot "$T/after"
	echo go >&"$go"
	wait "$scarce" || fail "the workload failed"
	kill -INT "$table" "$exporter"
	wait "$table" || fail "the one-shot table run failed: $(cat "$T/table.err")"
	wait "$exporter" || fail "the exporting run failed: $(cat "$T/metrics.err")"
	stop_foliostat "$T/out"
	cat "$T/workload"
	python3 - "$T/out" "$T/before" "$T/after" "$T/workload" "$(getconf PAGESIZE)" "$T/metrics" "$T/samples" "$T/table" <<-'EOF' ||
		import datetime, json, os, re, sys
		recs = [json.loads(l) for l in open(sys.argv[1])]
		before, after = (json.load(open(p)) for p in sys.argv[2:4])
		work = json.loads(open(sys.argv[4]).readline())
		pmd = {4096: 9, 16384: 11, 65536: 13}[int(sys.argv[5])]
		def t(rec):
		    return datetime.datetime.fromisoformat(rec["time"].replace("Z", "+00:00")).timestamp()
		# foliostat's own figures in that state: the THP faults that found no free block.
		failed = sum(p["folios"]["alloc_failed"].get(str(pmd), 0)
		             for r in recs for p in r["processes"] if p["pid"] == work["pid"])
		# (a fault may try more than once: at least as many as the attempts that got none)
		expected = work["attempts"] - work["huge_pages"]
		assert expected >= 1 and failed >= expected, \
		    f"{failed} order-{pmd} allocations found no block, expected {expected} at least"
		print(f"ok: {failed} order-{pmd} allocations found no free block ({expected} THP attempts got no huge page)")
		# The records wholly inside the held span.
		held = [r for r in recs if t(r) - r["interval_s"] >= before["time"] and t(r) <= after["time"]]
		assert held, "no record was made wholly while memory was held"
		# Every count buddyinfo took in the span, as the test read it: foliostat's reads are
		# at moments of their own, within it.
		samples = [json.loads(l) for l in open(sys.argv[7])] + \
		    [{z: v["blocks"] for z, v in s["zones"].items()} for s in (before, after)]
		def unusable(blocks, order):  # the kernel's unusable free space index, as a share
		    free = sum(n << o for o, n in enumerate(blocks))
		    return (free - sum(n << o for o, n in enumerate(blocks) if o >= order)) / free if free else 1.0
		# The test's own index is the kernel's: debugfs's, read just after buddyinfo.
		formula = 0
		for snap in (before, after):
		    for name, z in snap["zones"].items():
		        for o, theirs in enumerate(z["unusable"] or []):
		            assert abs(unusable(z["blocks"], o) * 1000 - theirs) <= 1, \
		                f"{name} order {o}: the test's index {unusable(z['blocks'], o)}, debugfs's {theirs / 1000}"
		            formula += 1
		seen, seen_unusable = {}, {}
		for s in samples:
		    for name, counts in s.items():
		        for o, n in enumerate(counts):
		            lo, hi = seen.get((name, o), (n, n))
		            seen[(name, o)] = (min(lo, n), max(hi, n))
		            u = unusable(counts, o)
		            lo, hi = seen_unusable.get((name, o), (u, u))
		            seen_unusable[(name, o)] = (min(lo, u), max(hi, u))
		print(f"ok: {len(samples)} reads of buddyinfo by the test in the span; its unusable index is debugfs's in {formula} cases")
		checked = unusable_checked = 0
		for r in held:
		    fm = r["system"]["free_memory"]
		    assert fm["samples"] >= 1, fm["samples"]
		    for z in fm["zones"]:
		        name = f"{z['node']} {z['zone']}"
		        b0, b1 = before["zones"][name]["blocks"], after["zones"][name]["blocks"]
		        assert len(z["free_blocks"]) == len(b0), (name, z["free_blocks"], b0)
		        for o in range(len(b0)):
		            mine = z["free_blocks"][str(o)]
		            lo, hi = seen[(name, o)]
		            assert z["fewest_free_blocks"][str(o)] <= mine, (name, o)
		            assert lo <= mine <= hi, f"{name} order {o}: {mine} free blocks, buddyinfo {lo}..{hi}"
		            checked += 1
		        # The unusable share: one the index took at a read of the test's in the span.
		        for o in range(len(b0)):
		            mine = z["unusable"][str(o)]
		            lo, hi = seen_unusable[(name, o)]
		            assert lo - 1e-6 <= mine <= hi + 1e-6, f"{name} order {o}: unusable {mine}, buddyinfo's {lo}..{hi}"
		            assert z["most_unusable"][str(o)] >= mine - 1e-9, (name, o)
		            unusable_checked += 1
		        if any(b0[pmd:]) or any(b1[pmd:]):
		            continue  # a zone hugetlb did not take every block from (DMA), or one freed since
		        assert not any(z["free_blocks"][str(o)] for o in range(pmd, len(b0))), (name, z)
		        assert z["unusable"][str(pmd)] == 1, (name, z["unusable"])
		print(f"ok: {len(held)} records made while held: {checked} zone-order counts among buddyinfo's")
		print(f"ok: {unusable_checked} unusable shares among those the test's reads give")
		if os.path.exists("/sys/kernel/debug/extfrag/unusable_index"):
		    assert formula, "no zone held still while debugfs was read, before or after"
		else:
		    print("case: no debugfs here: the test's index is not compared with the kernel's")
		# The exporter's gauges: buddyinfo's wherever its count held still.
		gauges = {}
		for line in open(sys.argv[6]):
		    m = re.match(r'foliostat_free_blocks\{node="(\d+)",zone="([^"]+)",order="(\d+)"\} (\d+)$', line)
		    if m:
		        gauges[(f"{m[1]} {m[2]}", int(m[3]))] = int(m[4])
		compared = 0
		for name, z in before["zones"].items():
		    for o in range(len(z["blocks"])):
		        assert (name, o) in gauges, f"no foliostat_free_blocks for {name} order {o}"
		        lo, hi = seen[(name, o)]
		        assert lo <= gauges[(name, o)] <= hi, f"{name} order {o}: gauge {gauges[(name, o)]}, buddyinfo {lo}..{hi}"
		        compared += 1
		print(f"ok: {compared} foliostat_free_blocks gauges among buddyinfo's")
		# The one-shot table's line of the PMD order: each zone's fewest blocks at most the
		# most the test's reads saw; and where every read in the span found no block of that
		# order or larger (the hold lasts over a table sample), no block and 100% unusable. A
		# zone may keep a block the allocation could not use (the zone below its watermark, or
		# a block of another migrate type): buddyinfo then says so, and so must the table.
		table = open(sys.argv[8]).read()
		m = re.search(rf"^    free blocks   order {pmd} at worst: (.*)$", table, re.M)
		assert m, f"the table has no free-blocks line of order {pmd}: {table[-2000:]}"
		shown = {f"{n} {zone}": (int(c), int(pct))
		         for c, n, zone, pct in re.findall(r"(\d+) on node (\d+) (\S+), (\d+)%", m[1])}
		assert shown, m[0]
		empty = 0
		for name, (count, pct) in shown.items():
		    lo, hi = seen[(name, pmd)]
		    assert count <= hi, f"table: {name} order {pmd}: {count} blocks at worst, buddyinfo {lo}..{hi}"
		    if all(seen[(name, o)] == (0, 0) for o in range(pmd, len(before["zones"][name]["blocks"]))):
		        assert (count, pct) == (0, 100), f"table: {name} had no block of order {pmd} up: {m[0]}"
		        empty += 1
		print(f"ok: the table's order-{pmd} line, {len(shown)} zones within the test's reads; "
		      f"{empty} with no free block, as buddyinfo said throughout")
	EOF
		fail "free memory is not what the kernel says"
	command -v promtool >/dev/null || skip "promtool is not installed (scripts/install-deps.sh --tests)"
	promtool check metrics <"$T/metrics" || fail "promtool check metrics rejected the exposition"
}
