# shellcheck shell=bash
# Allocations by NUMA node (folios.alloc_by_node, system.folios.alloc_by_node_and_order, the
# foliostat_node_* families, --check's memory_nodes) against where the kernel put a workload's
# pages (its numa_maps, read by the test while the workload holds them) and against foliostat's
# allocation histograms, which BPF counts apart from the nodes.

# memory_nodes: the nodes with memory, as the kernel lists them, one per line ("0-1,3" -> 0 1 3).
memory_nodes() {
	local list
	list=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
	python3 - "$list" <<-'EOF'
		import sys
		for part in sys.argv[1].strip().split(","):
		    first, _, last = part.partition("-")
		    for node in range(int(first), int(last or first) + 1):
		        print(node)
	EOF
}

# A workload bound to the last node with memory (set_mempolicy) touches 4096 pages in a child
# and holds them while the test reads the child's numa_maps: the kernel's own word of where its
# pages are. foliostat, streaming, must put at least those pages on that node, and, with more
# than one node, not one of the child's folios on another (every allocation of the child's is
# made under the binding). Every object of every record: its folios and pages over the nodes are
# those of its allocation histogram, which BPF counts in other words of the same event. On a host
# of one node foliostat counts nothing per node (every allocation is on it); the test build's
# FOLIOSTAT_TEST_COUNT_NODES=1 has BPF count per node there too, so that the same checks run on
# BPF's counts on any host; the release build's figures and --check are checked as well.
# run_bound ARGS NAME: the workload's `bound ARGS` (with hold), its child's first line in $T/NAME
# and its numa_maps, read while it holds its pages, in $T/NAME.numa_maps.
run_bound() {
	local holder child
	rm -f "$T/go"
	mkfifo "$T/go"
	"$WORKLOAD" bound "$1" <"$T/go" >"$T/$2" &
	holder=$!
	exec 3>"$T/go"
	for _ in $(seq 1200); do
		[ -s "$T/$2" ] && break
		sleep 0.05
	done
	child=$(json_field "$(head -1 "$T/$2")" held) || fail "the workload did not hold its pages"
	cp "/proc/$child/numa_maps" "$T/$2.numa_maps"
	echo go >&3
	exec 3>&-
	wait "$holder" || fail "the workload failed"
}

test_allocations_by_node_are_where_the_kernel_put_them() {
	need_root
	local nodes target pages=4096
	mapfile -t nodes < <(memory_nodes)
	target=${nodes[-1]}
	assert_eq "$(
		"$FOLIOSTAT" --check -j | python3 -c 'import json,sys; m = json.load(sys.stdin)["check"]["memory_nodes"]; print(*m["nodes"], m["method"])'
	)" "${nodes[*]} $([ ${#nodes[@]} -gt 1 ] && echo 'page flags' || echo 'one node')" \
		"--check's memory nodes (the kernel's has_memory: ${nodes[*]})"
	if [ ${#nodes[@]} -eq 1 ]; then
		# The release build's one-node figures: every allocation, on the one node.
		"$FOLIOSTAT" -j -d 1 >"$T/release" 2>"$T/release.err" || { cat "$T/release.err"; fail "foliostat -j -d 1"; }
		assert_records_valid "$T/release"
		query "$T/release" "recs[0]['system']['folios']['alloc_by_node'] == {'$target': {'folios': folios(recs[0]['system']['folios']['alloc']), 'pages': pages(recs[0]['system']['folios']['alloc'])}} or sys.exit('one node: ' + str(recs[0]['system']['folios']['alloc_by_node']))" >/dev/null ||
			fail "the release build's one node does not have every allocation"
		use_test_build
		export FOLIOSTAT_TEST_COUNT_NODES=1
		assert_eq "$("$FOLIOSTAT" --check | grep -c 'memory nodes .*counted per node from page flags, checked on 1')" 1 \
			"the test build counts per node, checked on node $target"
	fi
	start_foliostat "$T/out" -j 0.5 -r 0
	run_bound "$target,$pages,hold" small
	run_bound "$target,$pages,hold,thp" huge
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	python3 - "$T/out" "$T/small" "$T/huge" "$target" "$pages" "${nodes[@]}" <<-'EOF' || fail "allocations by node are off"
		import json, os, re, sys
		out, small, huge, target, pages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
		nodes = sorted(sys.argv[6:], key=int)
		recs = [json.loads(l) for l in open(out)]
		# The child's touched mapping: the one with its pages' anon= count (numa_maps: N<node>=pages).
		def placed(workload):
		    held = json.loads(open(workload).readline())
		    maps = open(f"{workload}.numa_maps").read()
		    touched = [l for l in maps.splitlines() if re.search(rf"\banon={pages}\b", l)]
		    assert len(touched) == 1, f"no single mapping of {pages} anonymous pages in numa_maps: {maps}"
		    on = {m[0]: int(m[1]) for m in re.findall(r"\bN(\d+)=(\d+)", touched[0])}
		    print(f"numa_maps of child {held['held']}'s mapping: {on}, huge pages {held['huge_pages']}")
		    assert on.get(target) == pages, f"the kernel did not put the child's {pages} pages on node {target}: {on}"
		    return held["held"], held["huge_pages"], on
		child, _, on = placed(small)
		thp_child, huge_pages, _ = placed(huge)
		def objects(r):
		    yield "system", r["system"]
		    for g in ("interrupt", "untracked", "unselected"):
		        yield g, r["system"][g]
		    for p in r["processes"]:
		        yield f"process {p['pid']}", p
		for i, r in enumerate(recs):
		    for name, o in objects(r):
		        f = o["folios"]
		        by = f["alloc_by_node"]
		        assert sorted(by, key=int) == nodes, f"record {i} {name}: nodes {sorted(by)} are not {nodes}"
		        alloc = f["alloc"] or {}
		        want = (sum(alloc.values()), sum(n << int(o_) for o_, n in alloc.items()))
		        got = (sum(v["folios"] for v in by.values()), sum(v["pages"] for v in by.values()))
		        assert got == want, f"record {i} {name}: by node {by} adds up to {got}, its allocations to {want}"
		        if name.startswith("process") or name == "system":
		            # By node and order: every node, and over the nodes the allocations by order,
		            # but for the allocations under way at two reads (one per CPU at each: a
		            # thread's by node and order are read just after its counters).
		            by_order = f["alloc_by_node_and_order"]
		            assert sorted(by_order, key=int) == nodes, f"record {i} {name}: alloc_by_node_and_order's nodes {sorted(by_order)}"
		            over = {}
		            for hist in by_order.values():
		                for order_, n in hist.items():
		                    over[order_] = over.get(order_, 0) + n
		            assert all(abs(over.get(k, 0) - alloc.get(k, 0)) <= 2 * os.cpu_count() for k in set(over) | set(alloc)), \
		                f"record {i} {name}: by node and order {by_order}, allocations {alloc}"
		rows = [p for r in recs for p in r["processes"] if p["pid"] == child]
		assert rows, f"the child {child} has no row"
		mine = {n: sum(p["folios"]["alloc_by_node"][n]["pages"] for p in rows) for n in nodes}
		folios = {n: sum(p["folios"]["alloc_by_node"][n]["folios"] for p in rows) for n in nodes}
		print(f"the child's pages by node: {mine}, folios: {folios}")
		assert mine[target] >= on[target], f"node {target}: {mine[target]} pages, numa_maps has {on[target]} there"
		others = {n: folios[n] for n in nodes if n != target}
		assert not any(others.values()), f"the child's folios on other nodes than {target}: {others}"
		# The THP child's, by node and order: all on its node, and as many order-9 folios there
		# as it has huge pages (its smaps), plus those it threw away (a charge refused).
		thp_rows = [p for r in recs for p in r["processes"] if p["pid"] == thp_child]
		assert thp_rows, f"the THP child {thp_child} has no row"
		def orders_on(node):
		    hist = {}
		    for p in thp_rows:
		        for order_, n in p["folios"]["alloc_by_node_and_order"][node].items():
		            hist[int(order_)] = hist.get(int(order_), 0) + n
		    return hist
		thp_on = {n: orders_on(n) for n in nodes}
		discarded = sum((p["folios"]["discarded"] or {}).get("9", 0) for p in thp_rows)
		print(f"the THP child's folios by node and order: {thp_on}, discarded order 9: {discarded}")
		assert thp_on[target].get(9, 0) == huge_pages + discarded, \
		    f"node {target}: {thp_on[target].get(9, 0)} order-9 folios, the child has {huge_pages} huge pages and discarded {discarded}"
		assert sum(n << o for o, n in thp_on[target].items()) >= pages, f"node {target}: the THP child's pages {thp_on[target]} < {pages}"
		assert not any(sum(thp_on[n].values()) for n in nodes if n != target), f"the THP child's folios on other nodes: {thp_on}"
		print("ok: every object's allocations add up by node and order; the children's pages are on their node")
	EOF
	# The exposition: each node with memory has its series, and no other node.
	"$FOLIOSTAT" --format prometheus -d 1 >"$T/metrics" 2>"$T/metrics.err" || { cat "$T/metrics.err"; fail "--format prometheus -d 1"; }
	assert_eq "$(grep -oE '^foliostat_system_node_(folios_allocated|allocated_bytes)_total\{node="[0-9]+"\}' "$T/metrics" | sort -u | grep -oE '[0-9]+' | sort -un | tr '\n' ' ')" \
		"$(printf '%s ' "${nodes[@]}")" "the nodes of foliostat_system_node_*_total"
	grep -qE '^foliostat_system_node_folios_allocated_by_order_total\{node="'"$target"'",order="0"\} [1-9]' "$T/metrics" ||
		fail "no order-0 folios on node $target in foliostat_system_node_folios_allocated_by_order_total"
	# The groups' by node and order too, which add up to the system's (as every group family).
	[ "$(python3 tests/exposition.py "$T/metrics" --count 'foliostat_node_folios_allocated_by_order_total{node="'"$target"'",order="0"}')" -ge 1 ] ||
		fail "no group has order-0 folios on node $target in foliostat_node_folios_allocated_by_order_total"
	python3 tests/exposition.py "$T/metrics" --adds-up >/dev/null || fail "the groups' figures do not add up to the system's"
	command -v promtool >/dev/null || skip "promtool is not installed (scripts/install-deps.sh --tests)"
	promtool check metrics <"$T/metrics" || fail "promtool check metrics rejected the exposition"
}
