# shellcheck shell=bash
# The documentation's pictures (docs/images): the dashboard as Prometheus answers its queries and
# the host's allocations by folio order over time, both drawn from a real run of known workloads.
# The first test makes such a run and checks its data against what each workload reports of
# itself; `make pictures` runs it and keeps what it drew (PICTURES_OUT). The second checks that
# the pictures in the docs were drawn from the data beside them, and that data from a real run.

PICTURES=docs/images
PLOT=(/usr/bin/python3 scripts/plot_pictures.py)
# The gap between two phases: so that each shows apart from the next on the pictures, whose
# rates are over 4 s (Grafana's $__rate_interval for a 1 s scrape interval). Not a wait for work.
PHASE_GAP=4

# The plots need Debian's matplotlib, for Debian's python3: /usr/bin/python3, whatever python3
# comes first in PATH.
need_matplotlib() {
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
		skip "python3-matplotlib is not installed (scripts/install-deps.sh --tests)"
}

# phase NAME CGROUP COMMAND...: one workload of the run, COMMAND, in cgroup directory CGROUP;
# its span, its cgroup (as foliostat labels it) and its own report go to $T/phases.
phase() {
	local name=$1 cgroup=$2 start end out
	shift 2
	sleep "$PHASE_GAP"
	start=$(date +%s.%N)
	out=$("$@") || fail "phase $name: $* failed"
	end=$(date +%s.%N)
	python3 -c '
import json, sys
name, cgroup, start, end, output, *command = sys.argv[1:]
# The command as a reader would type it: the workload and its action, without the wrapper
# that puts it in a memory cgroup nor the cgroup it is born in.
words = command[[w.endswith("/workload") for w in command].index(True) + 1:]
if "--in-cgroup" in words:
    at = words.index("--in-cgroup")
    words[at:at + 2] = []
print(json.dumps({"name": name, "cgroup": cgroup, "start": float(start), "end": float(end),
                  "output": json.loads(output), "command": " ".join(["workload"] + words)}))' \
		"$name" "${cgroup#"$CGROUP_ROOT"}" "$start" "$end" "$out" "$@" >>"$T/phases" ||
		fail "phase $name: no report"
	echo "phase $name: $out"
}

# A run of five workloads, each in a cgroup of its own (small pages, a THP workload, a reader
# of an uncached file, MADV_COLLAPSE, THP faults in a memory cgroup too small for them), seen
# by `foliostat --listen` scraped by a real Prometheus every second and by `foliostat -j 1`
# beside it. The dashboard's queries over the run and the records are the pictures' data; the
# data must say of each workload what it says of itself (tests/picture_data.py check): the THP
# workload's huge pages in its smaps are its cgroup's order-9 folios in Prometheus and in the
# records, and its series rise when it ran; the reader's file is its cgroup's page cache.
test_pictures_of_a_real_run() {
	need_root
	need_pmd_thp
	need_matplotlib
	command -v prometheus >/dev/null || skip "prometheus is not installed (scripts/install-deps.sh --tests)"
	make_cgroups small thp reader collapse memcg-thp
	make_uncached_file 64
	make_memcg 16
	in_memcg memcg-thp
	start_endpoint
	start_prometheus
	"$FOLIOSTAT" -j --by cgroup -r 0 -o "$T/records" 1 2>"$T/records.err" &
	local stream=$!
	track_foliostat "$stream"
	wait_attached "$stream" "$T/records.err"
	local start end
	start=$(date +%s.%N)
	wait_scraped_after "$start"
	: >"$T/phases"
	# Each over about 3 s (--pace), as a program ramps up: a cgroup's series, born at the first
	# scrape after its first event, shows the rest of its growth (rate() sees no growth in the
	# sample a series is born with).
	phase small "${CGROUPS[small]}" "$WORKLOAD" --pace 3 --in-cgroup "${CGROUPS[small]}" pages 32768
	phase thp "${CGROUPS[thp]}" "$WORKLOAD" --pace 3 --in-cgroup "${CGROUPS[thp]}" thp 64
	# shellcheck disable=SC2153 # FILE is make_uncached_file's
	phase reader "${CGROUPS[reader]}" \
		"$WORKLOAD" --pace 3 --in-cgroup "${CGROUPS[reader]}" read "$FILE"
	phase collapse "${CGROUPS[collapse]}" \
		"$WORKLOAD" --pace 3 --in-cgroup "${CGROUPS[collapse]}" sparsecollapse 16
	phase memcg-thp "${CGROUPS[memcg-thp]}" \
		"${WRAP[@]}" "$WORKLOAD" --pace 3 --in-cgroup "${CGROUPS[memcg-thp]}" thp 16,15360
	sleep "$PHASE_GAP"
	end=$(date +%s.%N)
	# Everything up to the end is in both: a scrape after it, a record written after it.
	wait_scraped_after "$end"
	local records
	records=$(wc -l <"$T/records")
	for _ in $(seq 600); do
		[ "$(wc -l <"$T/records")" -gt "$records" ] && break
		sleep 0.1
	done
	[ "$(wc -l <"$T/records")" -gt "$records" ] || fail "no record after the run in a minute"
	kill -INT "$stream"
	wait "$stream" || fail "foliostat -j exited with $?: $(cat "$T/records.err")"
	assert_records_valid "$T/records"
	local selected=".*foliostat-test.*"
	python3 tests/dashboard_queries.py --layout --var "cgroup=$selected" --var "instance=.+" \
		--range 4s >"$T/layout" || fail "dashboard_queries.py --layout"
	python3 tests/picture_data.py collect --prometheus "$PROM_URL" --layout "$T/layout" \
		--phases "$T/phases" --records "$T/records" --start "$start" --end "$end" \
		--rows "Folio allocations,Transparent huge pages,Why no large folios" \
		--foliostat "$FOLIOSTAT" --about "cgroup_variable=$selected" -o "$T/run.json" ||
		fail "picture_data.py collect"
	python3 tests/picture_data.py check "$T/run.json" || fail "the run's data does not tell of the run"
	"${PLOT[@]}" dashboard "$T/run.json" "$T/dashboard.png" || fail "plot_pictures.py dashboard"
	"${PLOT[@]}" orders "$T/run.json" "$T/orders.png" || fail "plot_pictures.py orders"
	"${PLOT[@]}" verify "$T/run.json" "$T/dashboard.png" "$T/orders.png" ||
		fail "the pictures are not those of the run's data"
	stop_foliostat "$T/endpoint"
	if [ -n "${PICTURES_OUT:-}" ]; then
		cp "$T/run.json" "$T/dashboard.png" "$T/orders.png" "$PICTURES_OUT/" ||
			fail "cannot keep the pictures in $PICTURES_OUT"
		echo "kept: $PICTURES_OUT/run.json, dashboard.png, orders.png"
	fi
}

# (About a minute here; under emulation, everything slower.)
set_test_timeout test_pictures_of_a_real_run 900

# The pictures in the docs: each names the digest of docs/images/run.json, and drawing that data
# again gives its pixels; the data tells of a real run (the same checks as above); every picture
# is shown by a document and every picture a document shows is there. Altered data fails both.
test_pictures_in_the_docs_come_from_a_real_run() {
	need_matplotlib
	local pictures=("$PICTURES/dashboard.png" "$PICTURES/orders.png")
	python3 tests/picture_data.py check "$PICTURES/run.json" ||
		fail "$PICTURES/run.json does not tell of a real run"
	"${PLOT[@]}" verify "$PICTURES/run.json" "${pictures[@]}" ||
		fail "the pictures were not drawn from $PICTURES/run.json"
	local picture shown
	for picture in "${pictures[@]}"; do
		grep -qF "(${picture#docs/})" docs/*.md || grep -qF "($picture)" README.md ||
			fail "$picture is shown by no document"
	done
	# shellcheck disable=SC2013 # links are words
	for shown in $(grep -ohE '\]\([^)]*images/[^)]*\.png\)' README.md docs/*.md |
		sed -E 's/.*\(([^)]*)\)/\1/'); do
		[ -f "$shown" ] || [ -f "docs/$shown" ] || fail "a document shows $shown, which is not there"
	done
	echo "ok: the pictures are shown, and every picture shown is there"
	# Data that says a figure the workload did not report, or other data, fails.
	python3 - "$PICTURES/run.json" "$T/altered.json" <<-'EOF' || fail "cannot alter the data"
		import json, sys
		run = json.load(open(sys.argv[1]))
		run["counters"]["thp"]["order9_folios"] += 1
		json.dump(run, open(sys.argv[2], "w"))
	EOF
	! python3 tests/picture_data.py check "$T/altered.json" >"$T/check" ||
		fail "data with one huge page more than the workload got passed the checks"
	grep -q '^FAIL: order-9 folios of its cgroup in Prometheus' "$T/check" ||
		fail "the altered figure was not the one reported: $(cat "$T/check")"
	! "${PLOT[@]}" verify "$T/altered.json" "${pictures[@]}" >"$T/verify" ||
		fail "pictures passed for data they were not drawn from"
	echo "ok: altered data fails the checks and the pictures' verification"
}
