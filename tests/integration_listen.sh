# shellcheck shell=bash
# --listen at run time, as foliostat(8) describes it: the addresses it binds ([::] both
# families, no address 127.0.0.1 only, ":" port 10140), HEAD, the connection limits (128, 32
# from one address, the oldest idle one giving way), the close after 5 seconds without progress,
# and --duration. Clients on loopback only; every wait is bounded.

# listening ADDR_HEX PORT: whether a TCP socket listens on ADDR_HEX:PORT, as /proc/net/tcp or
# tcp6 writes addresses (0100007F is 127.0.0.1; 32 zeros is [::]).
listening() {
	local port
	port=$(printf '%04X' "$2")
	awk -v want="$1:$port" '$4 == "0A" && toupper($2) == want { found = 1 } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6
}

# http_code URL [CURL_ARGS...]: the status of a request (000 when no connection could be made).
http_code() {
	local url=$1
	shift
	curl -s -m 5 -o /dev/null -w '%{http_code}' "$@" "$url" || true
}

# [::]:PORT serves IPv6 and IPv4 clients alike, and the counts are the workload's.
test_listen_on_ipv6_any_address() {
	need_root
	[ -e /proc/net/tcp6 ] || skip "no IPv6 on this host"
	make_cgroups v6
	FS_PORT=$(free_port)
	start_foliostat "$T/endpoint" --listen "[::]:$FS_PORT"
	listening 00000000000000000000000000000000 "$FS_PORT" || fail "nothing listens on [::]:$FS_PORT"
	"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[v6]}" pages 2000 >/dev/null || fail "workload"
	local url
	for url in "http://[::1]:$FS_PORT" "http://127.0.0.1:$FS_PORT"; do
		FS_URL=$url
		scrape "$T/metrics"
		assert_eq "$(expo "$T/metrics" --sum "foliostat_minor_faults_total{cgroup=\"${CGROUPS[v6]#"$CGROUP_ROOT"}\"}")" \
			"$(json_field "$(cat "$T/rusage")" minflt)" "minor faults of the workload's cgroup, scraped from $url (wait4)"
	done
	stop_foliostat "$T/endpoint"
}

# serves_on_loopback_only WHAT PORT ARGS...: foliostat ARGS... serves /metrics on 127.0.0.1:PORT
# and nothing on another loopback address or [::1] (WHAT names the run in messages); stopped
# after.
serves_on_loopback_only() {
	local what=$1 port=$2
	start_foliostat "$T/endpoint" "${@:3}"
	listening 0100007F "$port" || fail "$what does not listen on 127.0.0.1:$port"
	assert_eq "$(http_code "http://127.0.0.1:$port/metrics")" 200 "a scrape of $what from 127.0.0.1"
	assert_eq "$(http_code "http://127.0.0.2:$port/metrics")" 000 "a connection to 127.0.0.2 ($what)"
	if [ -e /proc/net/tcp6 ]; then
		assert_eq "$(http_code "http://[::1]:$port/metrics")" 000 "a connection to [::1] ($what)"
	fi
	stop_foliostat "$T/endpoint"
}

# Without an address, 127.0.0.1 only: another loopback address and [::1] are refused. ":" alone,
# and no value at all (before another option), is 127.0.0.1:10140.
test_listen_default_address_is_loopback_only() {
	need_root
	FS_PORT=$(free_port)
	serves_on_loopback_only "--listen :$FS_PORT" "$FS_PORT" --listen ":$FS_PORT"
	listening 0100007F 10140 && fail "port 10140, the default, is in use on this host"
	serves_on_loopback_only "--listen :" 10140 --listen :
	serves_on_loopback_only "--listen with no value" 10140 --listen --by process
}

# A host name is resolved once, IPv4 first: localhost:PORT is 127.0.0.1:PORT (and not [::1]).
test_listen_on_a_host_name() {
	need_root
	FS_PORT=$(free_port)
	serves_on_loopback_only "--listen localhost:$FS_PORT" "$FS_PORT" --listen "localhost:$FS_PORT"
}

# head_and_get PATH: a HEAD and then a GET of PATH, each on a connection of its own read raw to
# its end (the server closes each after its answer); prints "HEAD_STATUS HEAD_LENGTH GET_STATUS
# GET_LENGTH GET_BODY_BYTES", and fails if the HEAD answer carried any byte of a body.
head_and_get() {
	python3 - "$FS_PORT" "$1" <<-'EOF' || fail "HEAD $1: the answer is not as HTTP says"
		import socket, sys
		port, path = int(sys.argv[1]), sys.argv[2]
		def answer(method):
		    s = socket.create_connection(("127.0.0.1", port), timeout=10)
		    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (method, path)).encode())
		    data = b""
		    while True:
		        chunk = s.recv(65536)
		        if not chunk:
		            break
		        data += chunk
		    head, _, body = data.partition(b"\r\n\r\n")
		    lines = head.decode().split("\r\n")
		    headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
		    return int(lines[0].split()[1]), int(headers["content-length"]), body
		head_status, head_length, head_body = answer("HEAD")
		assert head_body == b"", "HEAD %s: %d bytes of body" % (path, len(head_body))
		get_status, get_length, body = answer("GET")
		print(head_status, head_length, get_status, get_length, len(body))
	EOF
}

# HEAD answers as GET would, without the body: the page's exact length, and for /metrics a
# length of the same exposition (its values change between two reads, by a few digits each).
test_listen_head_has_length_and_no_body() {
	need_root
	start_endpoint
	local out head_status head_length get_status get_length body lines
	out=$(head_and_get /) || exit 1
	read -r head_status head_length get_status get_length body <<<"$out"
	assert_eq "$head_status $get_status" "200 200" "HEAD / and GET / status"
	assert_eq "$head_length" "$get_length" "HEAD /'s Content-Length, vs GET's"
	assert_eq "$body" "$get_length" "GET /'s body, vs its Content-Length"
	out=$(head_and_get /metrics) || exit 1
	read -r head_status head_length get_status get_length body <<<"$out"
	assert_eq "$head_status $get_status" "200 200" "HEAD /metrics and GET /metrics status"
	assert_eq "$body" "$get_length" "GET /metrics's body, vs its Content-Length"
	scrape "$T/metrics"
	lines=$(wc -l <"$T/metrics")
	# Every sample's value may have gained or lost a few digits between the two reads.
	assert_between "$head_length" $((get_length - 4 * lines)) $((get_length + 4 * lines)) \
		"HEAD /metrics's Content-Length (GET's: $get_length, $lines lines)"
	assert_eq "$(http_code "$FS_URL/metrics" -X HEAD --head)" 200 "curl's HEAD"
	stop_foliostat "$T/endpoint"
}

# The limits in numbers: 32 idle connections from 127.0.0.1, then a 33rd: the oldest is closed,
# the other 32 stay. Then up to 128 in all (the rest from other loopback addresses), and a 129th
# from another: the oldest of all is closed. Then one connection alone is closed by the server
# 5 seconds after it was opened with no request (its close is awaited, 30 s at most).
test_listen_connection_limits_and_idle_close() {
	need_root
	start_endpoint
	python3 - "$FS_PORT" >"$T/limits" 2>&1 <<-'EOF' || fail "$(cat "$T/limits")"
		import select, socket, sys, time
		port = int(sys.argv[1])
		def conn(addr):
		    s = socket.socket()
		    s.bind((addr, 0))
		    s.connect(("127.0.0.1", port))
		    return s
		def closed(s, wait=0.0):
		    if not select.select([s], [], [], wait)[0]:
		        return False
		    try:
		        return s.recv(1) == b""
		    except ConnectionError:
		        return True
		def wait_closed(s, secs):
		    end = time.monotonic() + secs
		    while time.monotonic() < end:
		        if closed(s, 0.05):
		            return True
		    return False
		def check(cond, what):
		    print(("ok: " if cond else "FAIL: ") + what, flush=True)
		    if not cond:
		        sys.exit(1)
		began = time.monotonic()
		same = [conn("127.0.0.1") for _ in range(32)]
		time.sleep(0)  # (no wait: the server accepts them in its loop)
		newcomer = conn("127.0.0.1")
		check(wait_closed(same[0], 3), "the oldest of 33 connections from 127.0.0.1 is closed")
		check(not any(closed(s) for s in same[1:] + [newcomer]), "the other 32 from 127.0.0.1 stay open")
		others = [conn("127.0.1.%d" % (2 + i)) for i in range(96)]  # 128 open in all
		check(not any(closed(s) for s in same[1:] + [newcomer] + others), "128 connections in all stay open")
		extra = conn("127.0.2.2")
		check(wait_closed(same[1], 3), "the oldest of 129 connections is closed")
		check(not any(closed(s) for s in same[2:] + [newcomer] + others + [extra]),
		      "the other 128 stay open")
		check(time.monotonic() - began < 4.5, "all this within the idle timeout (%.1f s)" % (time.monotonic() - began))
		for s in same + [newcomer] + others + [extra]:
		    s.close()
		alone = conn("127.0.0.1")
		opened = time.monotonic()
		check(wait_closed(alone, 30), "an idle connection is closed")
		took = time.monotonic() - opened
		check(4.9 <= took <= 7, "an idle connection closed after %.2f s (5 s without progress)" % took)
	EOF
	cat "$T/limits"
	assert_eq "$(http_code "$FS_URL/metrics")" 200 "a scrape after the limits were reached"
	stop_foliostat "$T/endpoint"
}

# --listen with --duration: served while it lasts, then foliostat exits 0 by itself, the
# duration after its start-up ended (within the bound on "at once").
test_listen_with_duration_exits_after_it() {
	need_root
	FS_PORT=$(free_port)
	FS_URL=http://127.0.0.1:$FS_PORT
	start_foliostat "$T/endpoint" --listen "127.0.0.1:$FS_PORT" -d 2
	local started=${EPOCHREALTIME/./} scraped
	scrape "$T/metrics"
	# (a scrape is a read and a rendering: what this host takes for the last one, as foliostat
	# makes it before it exits)
	scraped=$(((${EPOCHREALTIME/./} - started) / 1000))
	time_exit "$FS_PID" 30
	ELAPSED_MS=$(((${EPOCHREALTIME/./} - started) / 1000))
	assert_eq "$EXIT_STATUS" 0 "exit status after the duration"
	assert_between "$ELAPSED_MS" 1800 $((3000 + scraped)) "ms from the end of start-up to exit, with -d 2"
	assert_eq "$(http_code "$FS_URL/metrics")" 000 "a connection after the exit"
	assert_nothing_attached
}
