# shellcheck shell=bash
# The exporter (--listen, --format prometheus) against real peers: Debian's Prometheus and
# promtool, node_exporter's textfile collector, and clients that misbehave. Servers listen on
# loopback only, on free ports; every wait is a bounded loop on something they report.

# free_port: a TCP port no socket has, on any address, now.
free_port() {
	python3 - <<-'EOF'
		import random, socket
		# Below the ephemeral range, where no connection's own port (a client's, the kernel's
		# pick for a bind to port 0) can take it before foliostat binds it; free on every
		# address, as a wildcard listen ([::], 0.0.0.0) needs it.
		low, high = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
		ports = range(1024, low) if low > 2048 else range(high + 1, 65536)
		for _ in range(1000):
		    port = random.choice(ports)
		    try:
		        try:
		            s = socket.socket(socket.AF_INET6)
		            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
		            s.bind(("::", port))
		        except OSError as e:
		            if e.errno != 97:  # EAFNOSUPPORT: no IPv6, so IPv4's wildcard alone
		                raise
		            s = socket.socket()
		            s.bind(("0.0.0.0", port))
		        s.close()
		        print(port)
		        break
		    except OSError:
		        continue
		else:
		    raise SystemExit("no free port")
	EOF
}

# wait_http URL: until URL answers 200 (a minute at most).
wait_http() {
	for _ in $(seq 600); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	fail "$1 did not answer in a minute"
}

# start_endpoint ARGS...: foliostat --listen 127.0.0.1:$FS_PORT ARGS..., started and counting.
start_endpoint() {
	FS_PORT=$(free_port)
	start_foliostat "$T/endpoint" --listen "127.0.0.1:$FS_PORT" "$@"
	FS_URL=http://127.0.0.1:$FS_PORT
}

# scrape FILE [CURL_ARGS...]: /metrics into FILE, failing on anything but 200.
scrape() {
	local file=$1
	shift
	local code
	code=$(curl -s -o "$file" -w '%{http_code}' "$@" "$FS_URL/metrics") || fail "scrape failed"
	[ "$code" = 200 ] || fail "scrape answered $code"
}

# expo FILE ARGS...: tests/exposition.py over a scraped exposition.
expo() {
	python3 tests/exposition.py "$@"
}

# start_prometheus [JOBS [RULES]]: Debian's Prometheus, scraping every second foliostat's
# endpoint over plain HTTP, or the scrape jobs in file JOBS (YAML list items), evaluating the
# rule file RULES every second if given; its storage in $T; PROM_URL is its HTTP API.
# shellcheck disable=SC2120 # JOBS is optional
start_prometheus() {
	command -v prometheus >/dev/null || skip "prometheus is not installed (scripts/install-deps.sh --tests)"
	local port
	port=$(free_port)
	cat >"$T/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		  evaluation_interval: 1s
	EOF
	if [ -n "${2:-}" ]; then
		printf 'rule_files:\n  - %s\n' "$(realpath "$2")" >>"$T/prometheus.yml"
	fi
	echo "scrape_configs:" >>"$T/prometheus.yml"
	if [ -n "${1:-}" ]; then
		cat "$1" >>"$T/prometheus.yml"
	else
		cat >>"$T/prometheus.yml" <<-EOF
			  - job_name: foliostat
			    static_configs:
			      - targets: ['127.0.0.1:$FS_PORT']
		EOF
	fi
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn >"$T/prometheus.log" 2>&1 &
	PROM_PID=$!
	PROM_URL=http://127.0.0.1:$port
	at_exit "kill $PROM_PID 2>/dev/null; wait $PROM_PID 2>/dev/null"
	wait_http "$PROM_URL/-/ready"
}

# promql EXPR: the value of an instant query now, one "LABELS VALUE" line per series (LABELS as
# JSON), through Prometheus's HTTP API. A query that fails fails the test (nothing is printed
# then: the message goes to stderr, so that it cannot pass for a series).
promql() {
	curl -sf --get "$PROM_URL/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
reply = json.load(sys.stdin)
if reply.get("status") != "success":
    sys.exit("query failed: %s" % reply)
result = reply["data"]["result"]
if reply["data"]["resultType"] == "scalar":
    print("{}", result[1])
else:
    for series in result:
        print(json.dumps(series["metric"], sort_keys=True), series["value"][1])' ||
		fail "query failed: $1"
}

# promql_value EXPR: the single value of EXPR (fails if it is not exactly one series).
promql_value() {
	local out
	out=$(promql "$1") || fail "query failed: $1"
	[ "$(printf '%s\n' "$out" | grep -c .)" -eq 1 ] || fail "$1: expected one series, got: $out"
	printf '%s\n' "$out" | awk '{ print $NF }'
}

# assert_scraped_samples: Prometheus's own count of the samples of its last scrape of foliostat
# (it asked for OpenMetrics and parsed it) is over 100.
assert_scraped_samples() {
	local samples
	samples=$(promql_value 'scrape_samples_scraped{job="foliostat"}')
	assert_number "$samples" "samples of Prometheus's last scrape"
	[ "$samples" -gt 100 ] || fail "Prometheus scraped too few samples: $samples"
	echo "ok: Prometheus scraped $samples samples"
}

# wait_scraped_after UNIX_TIME: until Prometheus holds a scrape of foliostat made after that
# time (which read the maps then: every count up to it is in).
wait_scraped_after() {
	local at
	for _ in $(seq 300); do
		at=$(promql 'timestamp(foliostat_scrapes_total)' | awk '{ print $NF }')
		if [ -n "$at" ] && python3 -c 'import sys; sys.exit(float(sys.argv[1]) <= float(sys.argv[2]))' "$at" "$1"; then
			return 0
		fi
		sleep 0.1
	done
	fail "Prometheus scraped nothing after $1 in 30 s: $(tail -5 "$T/prometheus.log")"
}

# Prometheus scrapes the endpoint (OpenMetrics, as it asks) while workloads of known activity run
# in cgroups of their own; what it stores is what the workloads did, and every query of the
# Grafana dashboard finds data.
test_prometheus_stores_known_figures() {
	need_root
	make_cgroups thp reader faults memcg-thp
	make_uncached_file 16
	local tlb_interrupts
	tlb_interrupts=$(tlb_shootdown_interrupts)
	# What memory holds (--resident): a process that holds THPs in the THP cgroup all along.
	start_holder held --in-cgroup "${CGROUPS[thp]}" thp 8
	start_endpoint --self --resident
	vmstat_snapshot run_begin
	start_prometheus
	local thp_cg=${CGROUPS[thp]#"$CGROUP_ROOT"} read_cg=${CGROUPS[reader]#"$CGROUP_ROOT"}
	# A scrape before the workloads, for increase() to start from.
	wait_scraped_after "$(date +%s.%N)"
	"$WORKLOAD" --in-cgroup "${CGROUPS[thp]}" thp 16 >"$T/thp" || fail "thp workload"
	# shellcheck disable=SC2153 # FILE is make_uncached_file's
	"$WORKLOAD" --in-cgroup "${CGROUPS[reader]}" read "$FILE" >"$T/read" || fail "read workload"
	local ended
	ended=$(date +%s.%N)
	wait_scraped_after "$ended"
	assert_eq "$(promql_value 'up{job="foliostat"}')" 1 "the scrape target is up"
	# The huge pages the workload found in its smaps are the order-9 folios of its cgroup.
	local huge
	huge=$(json_field "$(cat "$T/thp")" huge_pages)
	assert_between "$huge" 1 8 "huge pages the workload got (smaps)"
	assert_eq "$(promql_value "foliostat_folios_allocated_total{cgroup=\"$thp_cg\",order=\"9\",kind=\"movable\"}")" \
		"$huge" "order-9 folios of the THP workload's cgroup, in Prometheus"
	# The reader's cgroup: the file's 4096 pages, and perhaps a few of the workload's start-up.
	local bytes
	bytes=$(promql_value "foliostat_pagecache_added_bytes_total{cgroup=\"$read_cg\"}")
	assert_between "$((bytes / 4096))" 4096 4160 "page-cache pages of the reader's cgroup, in Prometheus"
	# increase() over the run, of the system's order-9 counter: at least the workload's.
	local increase
	increase=$(promql_value 'round(increase(foliostat_system_folios_allocated_total{order="9",kind="movable"}[10m]))')
	[ "${increase%.*}" -ge "$huge" ] || fail "increase() of the system's order-9 folios: $increase < $huge"
	echo "ok: increase() of the system's order-9 folios = $increase"
	# THP faults that got a huge page: those huge pages, where the kernel has the tracepoint
	# (memcg:count_memcg_events); elsewhere no series at all.
	local thp_alloc_measured
	thp_alloc_measured=$(promql_value 'foliostat_probe_attached{probe="memcg:count_memcg_events"}')
	if [ "$thp_alloc_measured" = 1 ]; then
		assert_eq "$(promql_value "foliostat_thp_fault_alloc_total{cgroup=\"$thp_cg\"}")" "$huge" \
			"THP faults that got a huge page, of the THP workload's cgroup, in Prometheus"
	else
		local series
		series=$(promql 'foliostat_system_thp_fault_alloc_total') || fail "query failed"
		assert_empty "$series" "THP faults that got a huge page, not measured here"
	fi
	# Prometheus asked for OpenMetrics and parsed it: its own view of the target.
	assert_scraped_samples
	# Every panel of the dashboard has data to show, once the host has done each kind of work:
	# collapses (of whole ranges, and of sparse ones: zero-filled pages), compaction (stalls and
	# migration), shootdowns, reclaim in a memory cgroup.
	"$WORKLOAD" collapse 4 >/dev/null || fail "collapse workload"
	"$WORKLOAD" sparsecollapse 4 >/dev/null || fail "sparse collapse workload"
	"$WORKLOAD" compact 0 >/dev/null || fail "compact workload"
	"$WORKLOAD" tlbflip 200 >/dev/null || fail "tlbflip workload"
	# THP faults the memory cgroup refuses to charge: 16 MiB, 15 of them touched, 8 attempts in a
	# cgroup of 16 MiB (see integration_fault_outcomes.sh); then reclaim in it, at 8 MiB. The
	# workload is born in a cgroup2 directory of its own, the group its series are labelled with
	# (the memory cgroup may be cgroup v1's).
	make_memcg 16
	in_memcg memcg-thp
	"${WRAP[@]}" "$WORKLOAD" --in-cgroup "${CGROUPS[memcg-thp]}" thp 16,15360 >"$T/memcg-thp" ||
		fail "THP workload in a memory cgroup"
	echo $((8 << 20)) >"$MEMCG_LIMIT" || fail "cannot lower the memory cgroup's limit"
	"${WRAP[@]}" "$WORKLOAD" read "$FILE" >/dev/null || fail "reader in a memory cgroup"
	# Major faults: a mapping of the file read after its pages were dropped.
	"$WORKLOAD" --rusage "$T/faultcount.rusage" --in-cgroup "${CGROUPS[faults]}" \
		faultcount "$FILE" >"$T/faultcount" || fail "faultcount workload"
	wait_scraped_after "$(date +%s.%N)"
	vmstat_snapshot run_end
	# A whole pass of --resident's reading, and a scrape after it: the holder's THPs are its
	# cgroup's PMD-mapped order-9 folios (the THP workload that ran there has ended).
	for _ in $(seq 1200); do
		[ "$(promql_value 'foliostat_resident_passes_total')" -ge 1 ] && break
		sleep 0.1
	done
	assert_eq "$(promql_value "foliostat_resident_large_folios{cgroup=\"$thp_cg\",type=\"anon\",mapping=\"pmd\"}")" \
		"$(json_field "$(cat "$T/held")" huge_pages)" \
		"PMD-mapped THPs of the THP cgroup's holder (--resident), against its smaps, in Prometheus"
	# Each of the memory cgroup's 8 THP attempts got a huge page, had it discarded (the charge
	# refused), or found none; the order-9 folios are those got and those discarded.
	local memcg_cg=${CGROUPS[memcg-thp]#"$CGROUP_ROOT"} memcg_huge discarded failed alloc9
	memcg_huge=$(json_field "$(cat "$T/memcg-thp")" huge_pages)
	discarded=$(promql_value "sum(foliostat_folios_discarded_total{cgroup=\"$memcg_cg\",order=\"9\"}) or vector(0)")
	failed=$(promql_value "sum(foliostat_folio_allocations_failed_total{cgroup=\"$memcg_cg\",order=\"9\"}) or vector(0)")
	alloc9=$(promql_value "foliostat_folios_allocated_total{cgroup=\"$memcg_cg\",order=\"9\",kind=\"movable\"}")
	echo "memory cgroup $memcg_cg: $memcg_huge huge pages (smaps), $alloc9 order-9 folios," \
		"$discarded discarded, $failed found none"
	assert_between "$memcg_huge" 1 7 "huge pages the memory cgroup took (smaps), of 8 attempts"
	assert_between "$discarded" 1 8 "order-9 folios discarded in the memory cgroup, in Prometheus"
	assert_eq "$alloc9" "$((memcg_huge + discarded))" "order-9 folios of the memory cgroup: got + discarded"
	if [ "$thp_alloc_measured" = 1 ]; then
		assert_eq "$(promql_value "foliostat_thp_fault_alloc_total{cgroup=\"$memcg_cg\"}")" \
			"$memcg_huge" "the memory cgroup's THP faults that got a huge page"
		assert_eq "$((memcg_huge + discarded + failed))" 8 "the memory cgroup's THP attempts"
	fi
	# Major and minor faults of the faultcount cgroup: every fault of its processes (the one
	# born there and the child it forked to read), as wait4 reports them to the workload.
	local faults_cg=${CGROUPS[faults]#"$CGROUP_ROOT"} majflt minflt
	majflt=$(json_field "$(cat "$T/faultcount.rusage")" majflt)
	minflt=$(json_field "$(cat "$T/faultcount.rusage")" minflt)
	assert_between "$majflt" 1 4096 "major faults of a read of an uncached file (wait4)"
	assert_eq "$(promql_value "foliostat_major_faults_total{cgroup=\"$faults_cg\"}")" "$majflt" \
		"major faults of the faultcount cgroup, in Prometheus"
	assert_eq "$(promql_value "foliostat_minor_faults_total{cgroup=\"$faults_cg\"}")" "$minflt" \
		"minor faults of the faultcount cgroup, in Prometheus"
	# A panel may be empty only where the host has nothing for it, by a count of its own:
	# no TLB shootdown interrupt in /proc/interrupts over the run (hypervisors that flush
	# remote TLBs without one), no mTHP sizes in sysfs, no THP fault that found no huge page
	# or no direct compaction in /proc/vmstat over the run (hosts whose memory always has free
	# 2 MiB blocks, such as VMs whose memory virtio-mem plugs on demand), or a figure foliostat
	# does not measure here (its family absent from the exposition: its probe is not attached).
	scrape "$T/final"
	expo "$T/final" --adds-up >/dev/null || fail "the groups do not add up after the workloads"
	tlb_interrupts=$(($(tlb_shootdown_interrupts) - tlb_interrupts))
	# THP faults that found no huge page (those the memory cgroup refused are counted apart),
	# and direct compaction, over the run.
	local no_huge_page compact_stalls
	no_huge_page=$(($(vmstat_delta run thp_fault_fallback) - $(vmstat_delta run thp_fault_fallback_charge)))
	compact_stalls=$(vmstat_delta run compact_stall)
	local title expr metric count=0 empty="" excused nothing_here=0 series
	python3 tests/dashboard_queries.py contrib/grafana/foliostat.json \
		--var "cgroup=.*" --var "instance=.+" --range 5m >"$T/queries" ||
		fail "tests/dashboard_queries.py failed"
	while IFS=$'\t' read -r title expr; do
		count=$((count + 1))
		series=$(promql "$expr") || fail "query failed: $expr"
		[ -n "$series" ] && continue
		excused=""
		case $expr in *remote_shootdown* | *remote_send_ipi*)
			[ "$tlb_interrupts" -eq 0 ] && excused="no TLB shootdown interrupt on this host" ;;
		esac
		case $expr in *kernel_mthp*)
			compgen -G '/sys/kernel/mm/transparent_hugepage/hugepages-*' >/dev/null ||
				excused="no mTHP sizes in sysfs" ;;
		esac
		case $expr in *folio_allocations_failed*)
			[ "$no_huge_page" -le 0 ] &&
				excused="no THP fault found no huge page (vmstat thp_fault_fallback - thp_fault_fallback_charge grew by $no_huge_page)" ;;
		esac
		case $expr in *'access!=""'* | *'cause!=""'*)
			faults_from_exceptions ||
				excused="faults come without access and cause here (perf's page-fault event)" ;;
		esac
		case $expr in *compaction_stall*_by_order*)
			[ "$compact_stalls" -eq 0 ] && excused="no direct compaction (vmstat compact_stall did not grow)" ;;
		esac
		case $expr in *kube_pod_info*)
			[ -z "$(promql 'count(kube_pod_info)')" ] &&
				excused="no kube_pod_info in this Prometheus (test_kubernetes_pods_are_named_through_kube_pod_info joins it)" ;;
		esac
		# (Only where foliostat reports a probe missing: a misspelt metric is no excuse.)
		# shellcheck disable=SC2013 # metric names are words
		for metric in $(grep -o 'foliostat_[a-z_]*' <<<"$expr" | sed -E 's/_(bucket|count|sum)$//'); do
			grep -q "^# TYPE $metric " "$T/final" || ! grep -q '^foliostat_probe_attached{.*} 0$' "$T/final" ||
				excused="$metric is not measured here"
		done
		if [ -n "$excused" ]; then
			echo "case: dashboard panel '$title' has no data: $excused"
			nothing_here=$((nothing_here + 1))
		else
			empty="$empty"$'\n'"  $title: $expr"
		fi
	done <"$T/queries"
	[ -z "$empty" ] || fail "dashboard panels without data:$empty"
	[ "$count" -gt 5 ] || fail "only $count dashboard queries"
	echo "ok: $((count - nothing_here)) of the $count queries of the dashboard return data, the others' figures are none on this host"
	stop_foliostat "$T/endpoint"
}

# The text format passes promtool's checks; OpenMetrics is served when asked for; / links to
# /metrics; anything else is 404; every per-group counter adds up to the system's.
test_endpoint_exposition_is_valid() {
	need_root
	start_endpoint --self
	"$WORKLOAD" pages 2000 >/dev/null || fail "workload"
	scrape "$T/text"
	promtool check metrics <"$T/text" || fail "promtool check metrics rejected the exposition"
	echo "ok: promtool check metrics"
	assert_eq "$(curl -s -o /dev/null -w '%{content_type}' "$FS_URL/metrics")" \
		"text/plain; version=0.0.4; charset=utf-8" "text format's content type"
	scrape "$T/om" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5'
	assert_eq "$(tail -1 "$T/om")" "# EOF" "OpenMetrics' last line"
	grep -q '^# TYPE foliostat_folios_allocated counter$' "$T/om" || fail "OpenMetrics counter family"
	assert_eq "$(curl -s -o /dev/null -w '%{content_type}' -H 'Accept: application/openmetrics-text' "$FS_URL/metrics")" \
		"application/openmetrics-text; version=1.0.0; charset=utf-8" "OpenMetrics' content type"
	curl -s "$FS_URL/" >"$T/index" && grep -q 'href="/metrics"' "$T/index" ||
		fail "/ does not link to /metrics"
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$FS_URL/nothing")" 404 "another path"
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x "$FS_URL/metrics")" 405 "a POST"
	expo "$T/text" --adds-up >/dev/null || fail "the groups do not add up to the system"
	echo "ok: every per-group counter adds up to the system's"
	# By default a row is a cgroup, and every probe's state is there.
	[ "$(expo "$T/text" --count 'foliostat_probe_attached{probe="kmem:mm_page_alloc"}')" = 1 ] ||
		fail "no probe state"
	assert_eq "$(expo "$T/text" --sum 'foliostat_build_info')" 1 "build info"
	# The default port is no known service's, nor the default of an exporter Debian packages
	# (their /etc/default files give it as --web.listen-address=:PORT).
	! grep -qE '[[:space:]]10140/(tcp|udp)' /etc/services || fail "10140 is in /etc/services"
	! grep -hs 'listen-address' /etc/default/prometheus* | grep -q ':10140' ||
		fail "an installed exporter's default is 10140"
	# (--help wraps its text: read it as one line.)
	"$FOLIOSTAT" --help >"$T/help" && tr -s ' \n' '  ' <"$T/help" | grep -q 'PORT (default 10140' ||
		fail "--help does not give the default port"
	# Every family is documented in foliostat-metrics(7) (the system's as their group's counterpart).
	local family documented=0
	# shellcheck disable=SC2013 # family names are words
	for family in $(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$T/text"); do
		grep -qx "\.B ${family/_system_/_}" man/foliostat-metrics.7 ||
			grep -qx "\.B $family" man/foliostat-metrics.7 || fail "$family is not in foliostat-metrics(7)"
		documented=$((documented + 1))
	done
	echo "ok: the $documented families are documented in foliostat-metrics(7)"
	stop_foliostat "$T/endpoint"
}

# node_exporter's textfile collector serves what --replace FILE --format prometheus writes.
test_textfile_for_node_exporter() {
	need_root
	command -v prometheus-node-exporter >/dev/null || skip "prometheus-node-exporter is not installed"
	mkdir "$T/textfile"
	start_foliostat "$T/out" --format prometheus --replace "$T/textfile/foliostat.prom" 0.5
	"$WORKLOAD" pages 3000 >"$T/workload" || fail "workload"
	wait_file_written "$T/textfile/foliostat.prom" 2
	local port
	port=$(free_port)
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$T/textfile" \
		--web.listen-address="127.0.0.1:$port" >"$T/node.log" 2>&1 &
	local node=$!
	FS_URL=http://127.0.0.1:$port
	wait_http "$FS_URL/metrics"
	scrape "$T/node"
	kill "$node"
	grep -q '^node_textfile_scrape_error 0$' "$T/node" || fail "node_exporter could not read the file: $(grep textfile "$T/node")"
	local ours
	ours=$(expo "$T/node" --count 'foliostat_system_folios_allocated_total')
	[ "$ours" -gt 0 ] || fail "node_exporter serves no foliostat series"
	echo "ok: node_exporter serves $ours samples of foliostat_system_folios_allocated_total"
	expo "$T/node" --adds-up >/dev/null || fail "the groups do not add up through node_exporter"
	stop_foliostat "$T/out"
	# A textfile is written whole, and only the .prom file is left.
	assert_eq "$(ls "$T/textfile")" foliostat.prom "files in the textfile directory"
}

# wait_file_written FILE N: until foliostat has written FILE N times (its scrape counter).
wait_file_written() {
	for _ in $(seq 600); do
		[ -f "$1" ] && [ "$(expo "$1" --sum foliostat_scrapes_total 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		kill -0 "$FS_PID" 2>/dev/null || fail "foliostat exited"
		sleep 0.1
	done
	fail "$1 was not written $2 times in a minute"
}

# wait_series_gone SELECTOR FILE WHAT: scrape into FILE until no sample matches SELECTOR (a
# hundred scrapes at most: the grace periods the tests set are a second).
wait_series_gone() {
	for _ in $(seq 100); do
		scrape "$2"
		[ "$(expo "$2" --count "$1")" = 0 ] && break
		sleep 0.1
	done
	assert_eq "$(expo "$2" --count "$1")" 0 "$3"
}

# Bad input: a port in use, an address that does not parse; clients that connect and never read,
# send garbage, or come all at once: foliostat keeps counting and serving, and a workload run
# meanwhile is counted exactly.
test_endpoint_survives_bad_clients() {
	need_root
	local status=0
	"$FOLIOSTAT" --listen 300.1.1.1:80 2>"$T/err" || status=$?
	assert_eq "$status" 2 "exit status for an unparsable address"
	grep -q "invalid --listen" "$T/err" || fail "no message: $(cat "$T/err")"
	python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$T/busy" &
	local holder=$!
	for _ in $(seq 100); do [ -s "$T/busy" ] && break; sleep 0.05; done
	status=0
	"$FOLIOSTAT" --listen "127.0.0.1:$(cat "$T/busy")" -d 5 2>"$T/err" || status=$?
	kill "$holder"
	assert_eq "$status" 1 "exit status for a port in use"
	grep -q "^foliostat: failed to listen on 127.0.0.1:[0-9]*: Address already in use$" "$T/err" ||
		fail "message: $(cat "$T/err")"
	echo "ok: $(cat "$T/err")"

	make_cgroups work
	start_endpoint
	# Abuse: slow readers that ask and never read, garbage, half requests, many at once.
	python3 - "$FS_PORT" >"$T/abuse" 2>&1 <<-'EOF' &
		import socket, sys, threading
		port = int(sys.argv[1])
		held = []
		for _ in range(6):  # ask for the metrics with a tiny window, never read
		    s = socket.socket()
		    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
		    s.connect(("127.0.0.1", port))
		    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		    held.append(s)
		for junk in (b"\x00\xff garbage\r\n\r\n", b"GET /metrics HTTP/1.1\r\n" + b"X: " + b"y" * 70000,
		             b"GET /metrics HT", b"BREW /pot HTCPCP/1.0\r\n\r\n"):
		    s = socket.socket(); s.connect(("127.0.0.1", port))
		    try:
		        s.sendall(junk)  # the server may refuse it and close before it is all sent
		    except OSError:
		        pass
		    held.append(s)
		def scrape():
		    with socket.create_connection(("127.0.0.1", port)) as s:
		        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
		        while s.recv(65536):
		            pass
		for _ in range(3):  # rounds of concurrent scrapes
		    threads = [threading.Thread(target=scrape) for _ in range(16)]
		    [t.start() for t in threads]
		    [t.join() for t in threads]
		print("abuse done", flush=True)
		threading.Event().wait(30)  # hold the silent connections until killed
	EOF
	local abuser=$!
	"$WORKLOAD" --in-cgroup "${CGROUPS[work]}" pages 5000 >"$T/workload" || fail "workload"
	for _ in $(seq 600); do grep -q "abuse done" "$T/abuse" && break; sleep 0.1; done
	grep -q "abuse done" "$T/abuse" || fail "the concurrent scrapes did not finish: $(cat "$T/abuse")"
	# While the silent clients still hold their connections, a scrape is answered.
	scrape "$T/after"
	kill "$abuser"
	local cg=${CGROUPS[work]#"$CGROUP_ROOT"} faults
	faults=$(expo "$T/after" --sum "foliostat_page_faults_total{cgroup=\"$cg\",$(user_write_faults)}")
	assert_between "$faults" 5000 5100 "write faults of the workload touching 5000 pages"
	expo "$T/after" --adds-up >/dev/null || fail "the groups do not add up after the abuse"
	echo "ok: counted and served through the abuse"
	stop_foliostat "$T/endpoint"
}

# --max-series bounds the groups: a new group takes the place of one idle since it was last
# scraped, else it counts in group="other", and the sums stay exact; a removed cgroup leaves
# after --series-grace; --by process exports only the top N.
test_series_are_bounded() {
	need_root
	make_cgroups top top/a top/b top/c
	# Only the tasks below top: no other cgroup of the host competes for the one series.
	start_endpoint -c "${CGROUPS[top]}" --max-series 1 --series-grace 1
	# a and b, with no scrape between them: whichever comes second finds the place taken by a
	# group whose counts nobody has seen yet, and counts in other.
	"$WORKLOAD" --in-cgroup "${CGROUPS[top/a]}" pages 500 >/dev/null || fail "workload"
	"$WORKLOAD" --in-cgroup "${CGROUPS[top/b]}" pages 500 >/dev/null || fail "workload"
	scrape "$T/both" # (a scrape reads the maps: both workloads are in)
	assert_eq "$(expo "$T/both" --sum foliostat_series)" 1 "groups with series of their own"
	local in_other
	in_other=$(expo "$T/both" --sum "foliostat_page_faults_total{group=\"other\",$(user_write_faults)}")
	assert_between "$in_other" 500 600 "write faults counted in other"
	expo "$T/both" --adds-up >/dev/null || fail "the groups do not add up with --max-series"
	# Scraped now: c takes the place of the idle one.
	"$WORKLOAD" --in-cgroup "${CGROUPS[top/c]}" pages 500 >/dev/null || fail "workload"
	scrape "$T/after-c"
	assert_eq "$(expo "$T/after-c" --sum foliostat_series_folded_total)" 1 "groups that gave up their series"
	# The same bound as every other structure's (foliostat(8), SECURITY): the limit asked for,
	# the one group of c held, the one group that gave its place.
	assert_eq "$(expo "$T/after-c" --sum 'foliostat_bound_limit{structure="series"}')" 1 "series limit"
	assert_eq "$(expo "$T/after-c" --sum 'foliostat_bound_entries{structure="series"}')" 1 "series held"
	assert_eq "$(expo "$T/after-c" --sum 'foliostat_bound_evictions_total{structure="series"}')" 1 \
		"series evicted"
	local c=${CGROUPS[top/c]#"$CGROUP_ROOT"} folded
	assert_between "$(expo "$T/after-c" --sum "foliostat_page_faults_total{cgroup=\"$c\",$(user_write_faults)}")" \
		500 600 "write faults of c, in its own series"
	# The series that ended keeps its counts in what Prometheus has stored of it: with them as
	# last scraped, the sums are exact still.
	folded=$(expo "$T/both" --labels foliostat_page_faults_total cgroup)
	assert_eq "$(expo "$T/after-c" --count "foliostat_page_faults_total{cgroup=\"$folded\"}")" 0 \
		"series of the group that gave up its place"
	expo "$T/after-c" --adds-up --plus "$T/both" "cgroup=$folded" >/dev/null ||
		fail "the groups do not add up after the fold"
	# Removed, its cgroup's series leaves once it has been idle for the grace period.
	local gone=$c
	rmdir "${CGROUPS[top/c]}" || fail "rmdir"
	wait_series_gone "foliostat_folios_allocated_total{cgroup=\"$gone\"}" "$T/later" \
		"series of the removed cgroup after the grace period"
	expo "$T/later" --adds-up --plus "$T/both" "cgroup=$folded" --plus "$T/after-c" "cgroup=$c" \
		>/dev/null || fail "the groups do not add up after the expiry"
	stop_foliostat "$T/endpoint"

	start_endpoint --by process -r 1 --series-grace 1
	"$WORKLOAD" pages 3000 >"$T/workload" || fail "workload"
	scrape "$T/process"
	local pid
	pid=$(json_field "$(cat "$T/workload")" pid)
	expo "$T/process" --labels foliostat_page_faults_total pid >"$T/pids"
	grep -qx "$pid" "$T/pids" || fail "the busiest process has no series: $(cat "$T/pids")"
	expo "$T/process" --adds-up >/dev/null || fail "the groups do not add up by process"
	echo "ok: by process, $(wc -l <"$T/pids") processes with series"
	# Exited, the workload's series leaves once the grace period has passed since its last event.
	wait_series_gone "foliostat_page_faults_total{pid=\"$pid\"}" "$T/later" \
		"series of the exited process after the grace period"
	stop_foliostat "$T/endpoint"
}

# Many hosts, one view: two foliostat instances (two ports on loopback, each counting the
# cgroup of its own workload, as two hosts would count theirs) scraped by one real Prometheus
# that loads contrib/prometheus's rules. The dashboard's fleet row gives each instance's total
# exactly as that instance serves it (read by the test once both workloads ended and
# Prometheus scraped both since), and its "all instances" query their sum; each instance's
# total is at least the pages its workload touched; and the rules, evaluated by Prometheus on
# foliostat's real series, record each instance's cgroup (page faults, bytes allocated), with
# the value their expression has at the rule's own timestamp.
test_fleet_of_two_instances_adds_up() {
	need_root
	make_cgroups fleet-a fleet-b
	local a b port_a port_b pid_a pid_b cg_a cg_b ended name
	port_a=$(free_port)
	start_foliostat "$T/a" --listen "127.0.0.1:$port_a" -c "${CGROUPS[fleet-a]}"
	pid_a=$FS_PID
	port_b=$(free_port)
	while [ "$port_b" = "$port_a" ]; do port_b=$(free_port); done
	start_foliostat "$T/b" --listen "127.0.0.1:$port_b" -c "${CGROUPS[fleet-b]}"
	pid_b=$FS_PID
	a=127.0.0.1:$port_a b=127.0.0.1:$port_b
	cat >"$T/jobs" <<-EOF
		  - job_name: foliostat
		    static_configs:
		      - targets: ['$a', '$b']
	EOF
	start_prometheus "$T/jobs" contrib/prometheus/foliostat-rules.yml
	cg_a=${CGROUPS[fleet-a]#"$CGROUP_ROOT"} cg_b=${CGROUPS[fleet-b]#"$CGROUP_ROOT"}
	"$WORKLOAD" --in-cgroup "${CGROUPS[fleet-a]}" pages 3000 >/dev/null || fail "workload a"
	"$WORKLOAD" --in-cgroup "${CGROUPS[fleet-b]}" pages 5000 >/dev/null || fail "workload b"
	ended=$(date +%s.%N)
	# Both instances scraped after the workloads ended (each read the maps then).
	for _ in $(seq 300); do
		promql 'timestamp(foliostat_scrapes_total)' | awk -v t="$ended" '$NF > t { n++ } END { exit n != 2 }' && break
		sleep 0.1
	done
	promql 'timestamp(foliostat_scrapes_total)' | awk -v t="$ended" '$NF > t { n++ } END { exit n != 2 }' ||
		fail "Prometheus did not scrape both instances after the workloads in 30 s"
	# Each instance's own word: its exposition's allocated bytes of its workload's cgroup (the
	# other groups, unselected above all, go on counting the host's other processes).
	local own_a own_b
	own_a=$(curl -sf "http://$a/metrics" | grep -F "foliostat_allocated_bytes_total{cgroup=\"$cg_a\"" |
		awk '{ s += $NF } END { printf "%.0f", s }')
	own_b=$(curl -sf "http://$b/metrics" | grep -F "foliostat_allocated_bytes_total{cgroup=\"$cg_b\"" |
		awk '{ s += $NF } END { printf "%.0f", s }')
	local page
	page=$(getconf PAGESIZE)
	assert_between "$((own_a / page))" 3000 1000000 "pages instance a counted for its cgroup (3000 touched)"
	assert_between "$((own_b / page))" 5000 1000000 "pages instance b counted for its cgroup (5000 touched)"
	python3 tests/dashboard_queries.py contrib/grafana/foliostat.json --var "instance=.+" --var "cgroup=$cg_a|$cg_b" \
		--range 1m | awk -F'\t' '$1 ~ /^Allocated bytes since foliostat started/ { print $2 }' >"$T/fleet" ||
		fail "dashboard_queries.py"
	assert_eq "$(wc -l <"$T/fleet")" 2 "the fleet row's queries of allocated bytes since start"
	assert_eq "$(promql "$(sed -n 1p "$T/fleet")" | sed -E 's/.*"instance": "([^"]*)".* ([0-9.e+]+)$/\1 \2/' | sort |
		awk '{ printf "%s %.0f\n", $1, $2 }' | tr '\n' ' ')" "$(printf '%s\n' "$a $own_a" "$b $own_b" | sort | tr '\n' ' ')" \
		"the fleet row, by instance"
	assert_eq "$(promql "$(sed -n 2p "$T/fleet")" | awk '{ printf "%.0f", $NF }')" "$((own_a + own_b))" \
		"the fleet row, all instances"
	# The rules, on the real series: each instance's cgroup is recorded, a recorded sample is its
	# expression's value at the sample's time, and the job's (the fleet's) the sum of the
	# instances' of the same evaluation. Compared once both instances have stopped and
	# Prometheus has seen them down: while they are scraped, an evaluation may run while a
	# scrape whose samples are older than it is being stored, which a query made later sees.
	for name in cgroup:foliostat_page_faults:rate5m instance:foliostat_allocated_bytes:rate5m; do
		for _ in $(seq 300); do
			[ "$(promql "$name" | grep -c .)" -ge 2 ] && break
			sleep 0.1
		done
	done
	assert_eq "$(promql 'cgroup:foliostat_page_faults:rate5m' | grep -oE '"cgroup": "[^"]*", "instance": "[^"]*"' | sort | tr '\n' ' ')" \
		"$(printf '"cgroup": "%s", "instance": "%s"\n' "$cg_a" "$a" "$cg_b" "$b" | sort | tr '\n' ' ')" \
		"the cgroups the page-fault rule records"
	FS_PID=$pid_a stop_foliostat "$T/a"
	FS_PID=$pid_b stop_foliostat "$T/b"
	for _ in $(seq 300); do
		[ "$(promql 'up{job="foliostat"} == 0' | grep -c .)" -eq 2 ] && break
		sleep 0.1
	done
	[ "$(promql 'up{job="foliostat"} == 0' | grep -c .)" -eq 2 ] || fail "Prometheus did not see both instances down"
	# (an evaluation made after that: every sample it could see was stored by then)
	local down
	down=$(date +%s.%N)
	for _ in $(seq 300); do
		promql 'timestamp(instance:foliostat_allocated_bytes:rate5m)' | awk -v t="$down" '$NF > t { n++ } END { exit n != 2 }' && break
		sleep 0.1
	done
	python3 - "$PROM_URL" <<-'EOF' || fail "the recorded rules are not their expressions' values"
		import json, sys, urllib.parse, urllib.request
		url = sys.argv[1]
		def query(q, t=None):
		    args = {"query": q} | ({"time": t} if t else {})
		    reply = json.load(urllib.request.urlopen(f"{url}/api/v1/query?" + urllib.parse.urlencode(args)))
		    return {json.dumps({k: v for k, v in s["metric"].items() if k != "__name__"}, sort_keys=True): s["value"]
		            for s in reply["data"]["result"]}
		for rule, expr in (("instance:foliostat_allocated_bytes:rate5m",
		                    "sum by (job, instance) (rate(foliostat_system_allocated_bytes_total[5m]))"),
		                   ("cgroup:foliostat_page_faults:rate5m",
		                    "sum by (job, instance, cgroup, group) (rate(foliostat_page_faults_total[5m]))")):
		    samples = query(rule)
		    assert len(samples) >= 2, f"{rule}: {samples}"
		    for labels, (t, v) in samples.items():
		        again = query(expr, t).get(labels)
		        assert again and again[1] == v, f"{rule} {labels} at {t}: {v}; its expression: {again}"
		    print(f"ok: {rule} = its expression at its time: {sorted(v[1] for v in samples.values())}")
		# The fleet's: the sum of the instances' at the same time (one evaluation records both).
		(t, fleet), = query("job:foliostat_allocated_bytes:rate5m").values()
		each = [float(v) for _, v in query("instance:foliostat_allocated_bytes:rate5m", t).values()]
		assert len(each) == 2 and abs(float(fleet) - sum(each)) <= 1e-9 * float(fleet), f"fleet {fleet} at {t}, instances {each}"
		print(f"ok: the job's allocated bytes per second {fleet} = the sum of its two instances' {each}")
	EOF
}
