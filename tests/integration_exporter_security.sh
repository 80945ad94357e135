# shellcheck shell=bash
# The exporter on a shared host: access control in the exporters' own form (--web.config.file:
# TLS and bcrypt basic auth, against a real Prometheus), a Unix socket, and local clients that
# hold connections, read slowly, guess passwords or scrape as fast as they can. Servers listen
# on loopback only, on free ports; every client loop is bounded in count and time. (Helpers of
# integration_exporter.sh: free_port, wait_http, scrape, expo, promql, promql_value,
# wait_scraped_after.)

# make_web_config [USER PASSWORD]: a self-signed certificate for 127.0.0.1 and localhost
# (openssl), and $T/web.yml naming it, with USER's password hashed by htpasswd -B (apache's own
# bcrypt, not the libcrypt foliostat checks it with).
make_web_config() {
	command -v openssl >/dev/null || skip "openssl is not installed (scripts/install-deps.sh --tests)"
	command -v htpasswd >/dev/null || skip "htpasswd is not installed (apache2-utils: scripts/install-deps.sh --tests)"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
		-keyout "$T/key.pem" -out "$T/cert.pem" 2>"$T/openssl.err" ||
		fail "openssl: $(cat "$T/openssl.err")"
	{
		echo "tls_server_config:"
		echo "  cert_file: cert.pem" # relative: to the config file's directory
		echo "  key_file: $T/key.pem"
		if [ $# -eq 2 ]; then
			echo "basic_auth_users:"
			echo "  $1: '$(htpasswd -nbB -C 8 "$1" "$2" | cut -d: -f2-)'"
		fi
	} >"$T/web.yml"
}

# cpu_ticks PID: the user and system time a process has used so far, in clock ticks
# (/proc/PID/stat's utime and stime).
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# loader_cost PID PORT PATH MIN_TICKS SECONDS [USER:PASSWORD|guess]: what one request costs the
# loader on this host, now: requests to PATH one after another, each on a new connection (with
# that basic auth, or a new wrong password each time with "guess"), until the loader (PID) has
# used MIN_TICKS clock ticks more and 10 requests at least were made, or SECONDS have passed
# (the time a slow host needs: under emulation with a busy host, a scrape can take a second). Prints "REQUESTS TICKS N401 N429"
# (TICKS from /proc/PID/stat, rounded up by one tick: the bound of one request's cost is
# TICKS / REQUESTS). Fails unless every request had an answer.
loader_cost() {
	python3 - "$@" <<-'EOF'
		import base64, http.client, sys, time
		pid, port, path, min_ticks, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
		auth = sys.argv[6] if len(sys.argv) > 6 else None
		def ticks():
		    with open("/proc/%s/stat" % pid) as f:
		        fields = f.read().rsplit(")", 1)[1].split()
		    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
		start, end, n, codes = ticks(), time.monotonic() + secs, 0, {}
		while time.monotonic() < end and n < 100000 and (ticks() - start < min_ticks or n < 10):
		    n += 1
		    headers = {}
		    if auth:
		        user = ("prom:guess%d" % n) if auth == "guess" else auth
		        headers["Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
		    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
		    conn.request("GET", path, headers=headers)
		    reply = conn.getresponse()
		    reply.read()
		    conn.close()
		    codes[reply.status] = codes.get(reply.status, 0) + 1
		print(n, ticks() - start + 1, codes.get(401, 0), codes.get(429, 0))
	EOF
}

# A real Prometheus scrapes foliostat over TLS with basic auth and stores what a workload did;
# a job with a wrong password is refused. curl: no password or a wrong one is 401 with a
# challenge, the right one 200; plain HTTP gets no answer from the TLS port.
test_exporter_tls_and_basic_auth_with_prometheus() {
	need_root
	command -v prometheus >/dev/null || skip "prometheus is not installed (scripts/install-deps.sh --tests)"
	make_cgroups auth
	make_web_config prom 's3cret pass'
	FS_PORT=$(free_port)
	start_foliostat "$T/endpoint" --listen "127.0.0.1:$FS_PORT" --web.config.file "$T/web.yml"
	FS_URL=https://127.0.0.1:$FS_PORT
	local tls=(--cacert "$T/cert.pem") code
	code=$(curl -s "${tls[@]}" -D "$T/headers" -o /dev/null -w '%{http_code}' "$FS_URL/metrics")
	assert_eq "$code" 401 "a scrape without a password"
	grep -qi '^WWW-Authenticate: Basic realm="foliostat"' "$T/headers" ||
		fail "no challenge: $(cat "$T/headers")"
	# (The wrong ones from addresses of their own: each address has a budget of password checks,
	# about one check of this cost per ten seconds after its first: see --web.config.file.)
	assert_eq "$(curl -s "${tls[@]}" --interface 127.0.0.2 -u 'prom:s3cret pasS' -o /dev/null \
		-w '%{http_code}' "$FS_URL/metrics")" 401 "a scrape with a wrong password"
	assert_eq "$(curl -s "${tls[@]}" --interface 127.0.0.3 -u 'other:s3cret pass' -o /dev/null \
		-w '%{http_code}' "$FS_URL/metrics")" 401 "a scrape as an unknown user"
	assert_eq "$(curl -s "${tls[@]}" -u 'prom:s3cret pass' -o /dev/null -w '%{http_code}' "$FS_URL/")" \
		200 "the index page with the password"
	code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FS_PORT/metrics") || true
	assert_eq "$code" 000 "plain HTTP to the TLS port"

	cat >"$T/jobs.yml" <<-EOF
		  - job_name: foliostat
		    scheme: https
		    tls_config:
		      ca_file: $T/cert.pem
		    basic_auth:
		      username: prom
		      password: 's3cret pass'
		    static_configs:
		      - targets: ['127.0.0.1:$FS_PORT']
		  - job_name: wrong-password
		    scheme: https
		    tls_config:
		      ca_file: $T/cert.pem
		    basic_auth:
		      username: prom
		      password: wrong
		    static_configs:
		      - targets: ['127.0.0.1:$FS_PORT']
	EOF
	start_prometheus "$T/jobs.yml"
	wait_scraped_after "$(date +%s.%N)"
	"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[auth]}" pages 3000 >/dev/null ||
		fail "workload"
	wait_scraped_after "$(date +%s.%N)"
	assert_eq "$(promql_value 'up{job="foliostat"}')" 1 "the TLS and basic-auth target is up"
	assert_eq "$(promql_value 'up{job="wrong-password"}')" 0 "the target with a wrong password"
	assert_scraped_samples
	local cg=${CGROUPS[auth]#"$CGROUP_ROOT"} minflt
	minflt=$(json_field "$(cat "$T/rusage")" minflt)
	assert_between "$minflt" 3000 100000 "minor faults of the workload (wait4)"
	assert_eq "$(promql_value "foliostat_minor_faults_total{cgroup=\"$cg\"}")" "$minflt" \
		"minor faults of the workload's cgroup, in Prometheus over TLS"
	stop_foliostat "$T/endpoint"
}

# --web.config.file errors: what is not right in the file is a usage error (2) named at its
# line, before anything is loaded; a file that cannot be read is a failure (1).
test_exporter_web_config_errors() {
	make_web_config prom secret
	local status port
	port=$(free_port)
	# run_config FILE: foliostat's exit status with it (its message in $T/err).
	run_config() {
		status=0
		timeout 60 "$FOLIOSTAT" --listen "127.0.0.1:$port" --web.config.file "$1" -d 30 \
			>/dev/null 2>"$T/err" || status=$?
	}
	sed 's/^basic_auth_users:/basic_auth_user:/' "$T/web.yml" >"$T/typo.yml"
	run_config "$T/typo.yml"
	assert_eq "$status" 2 "exit status for an unknown key"
	grep -q "^foliostat: invalid --web.config.file '$T/typo.yml': line 4: unknown key 'basic_auth_user'" "$T/err" ||
		fail "message: $(cat "$T/err")"
	printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n  client_ca_file: ca.pem\n' \
		"$T/cert.pem" "$T/key.pem" >"$T/client-ca.yml"
	run_config "$T/client-ca.yml"
	assert_eq "$status" 2 "exit status for client certificates (not implemented)"
	grep -q "line 4: tls_server_config.client_ca_file is not supported by foliostat" "$T/err" ||
		fail "message: $(cat "$T/err")"
	printf 'basic_auth_users:\n  prom: secret\n' >"$T/plain.yml"
	run_config "$T/plain.yml"
	assert_eq "$status" 2 "exit status for a password that is not a bcrypt hash"
	grep -q "the hash of 'prom' is not a bcrypt hash" "$T/err" || fail "message: $(cat "$T/err")"

	run_config "$T/absent.yml"
	assert_eq "$status" 1 "exit status for a missing web config"
	grep -qx "foliostat: failed to read the web config '$T/absent.yml': No such file or directory" "$T/err" ||
		fail "message: $(cat "$T/err")"
	sed "s|cert.pem|$T/absent.pem|" "$T/web.yml" >"$T/no-cert.yml"
	run_config "$T/no-cert.yml"
	assert_eq "$status" 1 "exit status for a missing certificate"
	grep -qx "foliostat: failed to read the TLS certificate '$T/absent.pem': No such file or directory" "$T/err" ||
		fail "message: $(cat "$T/err")"
	echo "not a key" >"$T/bad-key.pem"
	sed "s|key_file: .*|key_file: $T/bad-key.pem|" "$T/web.yml" >"$T/bad-key.yml"
	run_config "$T/bad-key.yml"
	assert_eq "$status" 1 "exit status for a key that is not PEM"
	grep -q "^foliostat: failed to start the HTTPS server: the certificate .* or the key '$T/bad-key.pem' is not PEM" "$T/err" ||
		fail "message: $(cat "$T/err")"
	echo "ok: $(cat "$T/err")"
}

# --listen unix:PATH: a socket of mode 0660 (its group the directory's where that is
# set-group-ID), scraped with curl --unix-socket and counted exactly; others cannot connect;
# a stale socket is replaced, anything else at the path is left alone; gone at exit.
test_exporter_unix_socket() {
	need_root
	make_cgroups unix
	chmod 0711 "$T" # (others may pass through to the socket's directory)
	mkdir "$T/run"
	chgrp nogroup "$T/run" && chmod 2750 "$T/run" || fail "cannot make the socket's directory"
	local sock=$T/run/foliostat.sock status
	# A socket left behind: bound, never listened on, its process gone.
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$sock" ||
		fail "cannot make a stale socket"
	start_foliostat "$T/endpoint" --listen "unix:$sock"
	assert_eq "$(stat -c '%F %a %G' "$sock")" "socket 660 nogroup" "the socket's type, mode and group"
	"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[unix]}" pages 2000 >/dev/null ||
		fail "workload"
	local code
	code=$(curl -s --unix-socket "$sock" -o "$T/metrics" -w '%{http_code}' http://localhost/metrics)
	assert_eq "$code" 200 "a scrape over the Unix socket"
	local cg=${CGROUPS[unix]#"$CGROUP_ROOT"} minflt
	minflt=$(json_field "$(cat "$T/rusage")" minflt)
	assert_eq "$(expo "$T/metrics" --sum "foliostat_minor_faults_total{cgroup=\"$cg\"}")" "$minflt" \
		"minor faults of the workload's cgroup, over the Unix socket (wait4: $minflt)"
	# The socket's group may connect; a user outside it may not.
	code=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		curl -s --unix-socket "$sock" -o /dev/null -w '%{http_code}' http://localhost/metrics) || true
	assert_eq "$code" 200 "a scrape by a member of the socket's group"
	code=$(setpriv --reuid=nobody --regid=daemon --clear-groups \
		curl -s --unix-socket "$sock" -o /dev/null -w '%{http_code}' http://localhost/metrics) || true
	assert_eq "$code" 000 "a scrape by a user outside the socket's group"
	# A second foliostat finds the socket in use: it neither takes nor removes it.
	status=0
	timeout 60 "$FOLIOSTAT" --listen "unix:$sock" -d 30 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a socket in use"
	grep -qx "foliostat: failed to listen on unix:$sock: another process listens on that socket" "$T/err" ||
		fail "message: $(cat "$T/err")"
	[ -S "$sock" ] || fail "the socket in use was removed"
	stop_foliostat "$T/endpoint"
	# Run as nobody under Landlock, foliostat may not remove it from a directory of root's: it
	# is left stale (foliostat(8)), and the next start takes its place.
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$sock" \
		2>/dev/null && fail "the socket still accepts connections after foliostat exited"
	start_foliostat "$T/again" --listen "unix:$sock"
	code=$(curl -s --unix-socket "$sock" -o /dev/null -w '%{http_code}' http://localhost/metrics)
	assert_eq "$code" 200 "a scrape of the next foliostat on the socket the last one left"
	stop_foliostat "$T/again"
	rm -f "$sock"
	# Anything but a socket is left alone.
	echo data >"$sock"
	status=0
	timeout 60 "$FOLIOSTAT" --listen "unix:$sock" -d 30 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for a file at the socket's path"
	grep -qx "foliostat: failed to listen on unix:$sock: a file that is not a socket is there" "$T/err" ||
		fail "message: $(cat "$T/err")"
	assert_eq "$(cat "$sock")" data "the file at the socket's path"
}

# hold_connections PORT N SPREAD SECS: N connections to 127.0.0.1:PORT that never send a byte,
# from 127.0.0.1 (SPREAD=same) or each from an address of its own in 127.0.0.0/8 (spread),
# held for at most SECS seconds or until killed; "holding N" in $T/hold once all are open.
hold_connections() {
	python3 - "$@" >"$T/hold" 2>&1 <<-'EOF' &
		import socket, sys, time
		port, n, spread, secs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "spread", float(sys.argv[4])
		held = []
		for i in range(n):
		    s = socket.socket()
		    if spread:
		        s.bind(("127.0.%d.%d" % (1 + i // 250, 2 + i % 250), 0))
		    s.connect(("127.0.0.1", port))
		    held.append(s)
		print("holding", len(held), flush=True)
		time.sleep(secs)
	EOF
	HOLDER=$!
	at_exit "kill $HOLDER 2>/dev/null"
	for _ in $(seq 300); do grep -q holding "$T/hold" && return 0; sleep 0.1; done
	fail "could not open the connections: $(cat "$T/hold")"
}

# 64 idle connections from 127.0.0.1 (twice the limit per address), then 200 from as many
# loopback addresses (any local user can open them; beyond the total limit): a scrape from
# 127.0.0.1, as a Prometheus on the host makes it, is answered at once every time, with the
# figures exact.
test_exporter_idle_connections_do_not_lock_out() {
	need_root
	make_cgroups idle
	start_endpoint
	local how code time i minflt cg=${CGROUPS[idle]#"$CGROUP_ROOT"}
	for how in same spread; do
		hold_connections "$FS_PORT" "$([ $how = same ] && echo 64 || echo 200)" "$how" 60
		"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[idle]}" pages 1000 >/dev/null ||
			fail "workload"
		for i in 1 2 3; do
			code=$(curl -s -m 2 -o "$T/metrics" -w '%{http_code} %{time_total}' "http://127.0.0.1:$FS_PORT/metrics") || true
			time=${code#* }
			assert_eq "${code% *}" 200 "scrape $i while $(cat "$T/hold") idle connections ($how address), in $time s"
		done
		minflt=$(json_field "$(cat "$T/rusage")" minflt)
		[ "$how" = spread ] && minflt=$((minflt + $(cat "$T/minflt.same")))
		echo "$minflt" >"$T/minflt.$how"
		assert_eq "$(expo "$T/metrics" --sum "foliostat_minor_faults_total{cgroup=\"$cg\"}")" "$minflt" \
			"minor faults of the workloads' cgroup, scraped while held (wait4: $minflt)"
		kill "$HOLDER"
		wait "$HOLDER" 2>/dev/null
	done
	stop_foliostat "$T/endpoint"
}

# Local clients scraping as fast as they can (8 processes for 5 s: half on keep-alive
# connections, half on a new connection each time) share the reads: the loader's CPU over the
# flood stays within what the design allows, measured on this host in the same run: a read and
# rendering every 250 ms (at most span / 250 + 3 of them), each costing what one scrape alone
# costs (calibrated: scrapes one after another, each then waits for its own read), and for each
# scrape answered, twice what a request answered at once costs (calibrated: the index page, a new
# connection each). Unshared, every scrape pays a read and a rendering, many times the bound.
# Meanwhile a workload's faults are counted exactly.
test_exporter_flood_keeps_cpu_bounded() {
	need_root
	make_cgroups flood
	start_endpoint
	local clients=8 secs=5 hz before after began ended scrapes_before cost
	hz=$(getconf CLK_TCK)
	local read_n read_ticks conn_n conn_ticks
	cost=$(loader_cost "$FS_PID" "$FS_PORT" /metrics 20 30) || fail "calibrating a scrape"
	read -r read_n read_ticks _ <<<"$cost"
	cost=$(loader_cost "$FS_PID" "$FS_PORT" / 20 30) || fail "calibrating a request"
	read -r conn_n conn_ticks _ <<<"$cost"
	assert_between "$read_n" 4 100000 "scrapes made to calibrate a read"
	# (a slow host, e.g. under emulation, makes few in the time given: the cost is then over-
	# rather than underestimated, by at most a tick over their number)
	assert_between "$conn_n" 10 100000 "requests made to calibrate a request"
	scrape "$T/before"
	scrapes_before=$(expo "$T/before" --sum foliostat_scrapes_total)
	before=$(cpu_ticks "$FS_PID")
	began=$(date +%s.%N)
	python3 - "$FS_PORT" "$clients" "$secs" >"$T/flood" 2>&1 <<-'EOF' &
		import http.client, os, sys, time
		port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
		kids = []
		for i in range(n):
		    pid = os.fork()
		    if pid == 0:
		        end, done = time.monotonic() + secs, 0
		        conn = None
		        while time.monotonic() < end:
		            try:
		                if conn is None or i % 2:
		                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
		                conn.request("GET", "/metrics")
		                reply = conn.getresponse()
		                reply.read()
		                done += reply.status == 200
		            except OSError:
		                conn = None
		        os.write(1, b"%d\n" % done)  # one write: lines of children never interleave
		        os._exit(0)
		    kids.append(pid)
		for kid in kids:
		    os.waitpid(kid, 0)
	EOF
	local flood=$!
	"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[flood]}" pages 5000 >/dev/null ||
		fail "workload"
	wait "$flood" || fail "the flood failed: $(cat "$T/flood")"
	after=$(cpu_ticks "$FS_PID")
	ended=$(date +%s.%N)
	local requests span_ms cpu_ms bound_ms read_us conn_us reads
	requests=$(paste -sd+ "$T/flood" | bc)
	assert_number "$requests" "scrapes answered during the flood (the clients said: $(head -c 2000 "$T/flood"))"
	span_ms=$(echo "($ended - $began) * 1000 / 1" | bc)
	cpu_ms=$(((after - before) * 1000 / hz))
	read_us=$((read_ticks * 1000000 / hz / read_n))
	conn_us=$((conn_ticks * 1000000 / hz / conn_n))
	reads=$((span_ms / 250 + 3))
	bound_ms=$(((reads * read_us + requests * conn_us * 2) / 1000))
	echo "flood: $requests scrapes answered in $span_ms ms; the loader used $cpu_ms ms of CPU" \
		"(a scrape alone costs it $read_us us, a request answered at once $conn_us us)"
	assert_between "$requests" $((clients * secs)) 1000000 "scrapes answered during the flood"
	assert_between "$cpu_ms" 0 "$bound_ms" \
		"the loader's CPU over the flood (ms; $reads reads of $read_us us, $requests requests of 2 x $conn_us us)"
	# One read and rendering serves every scrape of a 250 ms window (the text format only).
	scrape "$T/after"
	assert_between "$(($(expo "$T/after" --sum foliostat_scrapes_total) - scrapes_before))" 1 \
		$((span_ms / 250 + 3)) "expositions made for the flood's scrapes"
	local cg=${CGROUPS[flood]#"$CGROUP_ROOT"} minflt
	minflt=$(json_field "$(cat "$T/rusage")" minflt)
	assert_eq "$(expo "$T/after" --sum "foliostat_minor_faults_total{cgroup=\"$cg\"}")" "$minflt" \
		"minor faults of the workload's cgroup, scraped after the flood (wait4: $minflt)"
	stop_foliostat "$T/endpoint"
}

# Clients guessing passwords as fast as they can (4 processes for 4 s, a connection each guess;
# bcrypt of cost 10 takes tens of milliseconds by design, so unchecked they would keep the
# loader busy throughout on a few dozen guesses): the checks take at most the one-second
# allowance plus a tenth of the span (429 beyond it; the limit counts a check's CPU time; the
# guessers' own budget, on one address, allows them much less), plus the check under way when
# the allowance ran out. The rest
# of the loader's CPU is bounded by costs measured on this host in the same run: twice what a
# request refused without a check costs for each guess, and what a scrape alone costs for each
# read (the 3 scrapes, and foliostat's own reads when no scrape has come for 2 s). The scraper
# whose password was verified before is answered at once.
test_exporter_password_guessing_is_bounded() {
	need_root
	command -v htpasswd >/dev/null || skip "htpasswd is not installed (apache2-utils: scripts/install-deps.sh --tests)"
	printf 'basic_auth_users:\n  prom: %s\n' "$(htpasswd -nbB -C 10 prom right | cut -d: -f2-)" \
		>"$T/web.yml"
	FS_PORT=$(free_port)
	start_foliostat "$T/endpoint" --listen "127.0.0.1:$FS_PORT" --web.config.file "$T/web.yml"
	FS_URL=http://127.0.0.1:$FS_PORT
	scrape "$T/first" -u prom:right
	local clients=4 secs=4 hz before after began ended cost
	hz=$(getconf CLK_TCK)
	local read_n read_ticks conn_n conn_ticks check_ticks checks
	cost=$(loader_cost "$FS_PID" "$FS_PORT" /metrics 20 30 prom:right) || fail "calibrating a scrape"
	read -r read_n read_ticks _ <<<"$cost"
	cost=$(loader_cost "$FS_PID" "$FS_PORT" / 20 30) || fail "calibrating a request"
	read -r conn_n conn_ticks _ <<<"$cost"
	# (a wrong password: a check, until 20 ticks; a 429 costs less, so it bounds one check)
	cost=$(loader_cost "$FS_PID" "$FS_PORT" / 20 10 guess) || fail "calibrating a check"
	read -r _ check_ticks checks _ <<<"$cost"
	assert_between "$read_n" 4 100000 "scrapes made to calibrate a read"
	# (a slow host, e.g. under emulation, makes few in the time given: the cost is then over-
	# rather than underestimated, by at most a tick over their number)
	assert_between "$conn_n" 10 100000 "requests made to calibrate a request"
	assert_between "$checks" 1 100000 "password checks made to calibrate a check"
	before=$(cpu_ticks "$FS_PID")
	began=$(date +%s.%N)
	python3 - "$FS_PORT" "$clients" "$secs" >"$T/guesses" 2>&1 <<-'EOF2' &
		import base64, http.client, os, sys, time
		port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
		kids = []
		for i in range(n):
		    pid = os.fork()
		    if pid == 0:
		        end, codes, guess = time.monotonic() + secs, {}, 0
		        while time.monotonic() < end:
		            guess += 1
		            auth = base64.b64encode(b"prom:guess%d" % guess).decode()
		            try:
		                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
		                conn.request("GET", "/metrics", headers={"Authorization": "Basic " + auth})
		                status = conn.getresponse().status
		                conn.close()
		            except OSError:
		                status = 0
		            codes[status] = codes.get(status, 0) + 1
		        os.write(1, (" ".join("%s:%d" % kv for kv in sorted(codes.items())) + "\n").encode())
		        os._exit(0)
		    kids.append(pid)
		for kid in kids:
		    os.waitpid(kid, 0)
	EOF2
	local guesser=$! i code
	for i in 1 2 3; do
		code=$(curl -s -m 1 -u prom:right -o /dev/null -w '%{http_code} %{time_total}' "$FS_URL/metrics") || true
		assert_eq "${code% *}" 200 "scrape $i with the right password during the guessing, in ${code#* } s"
	done
	wait "$guesser" || fail "the guessing failed: $(cat "$T/guesses")"
	after=$(cpu_ticks "$FS_PID")
	ended=$(date +%s.%N)
	local refused busy span_ms cpu_ms bound_ms read_us conn_us check_us reads guesses
	refused=$(grep -o '401:[0-9]*' "$T/guesses" | cut -d: -f2 | paste -sd+ | bc)
	busy=$(grep -o '429:[0-9]*' "$T/guesses" | cut -d: -f2 | paste -sd+ | bc)
	span_ms=$(echo "($ended - $began) * 1000 / 1" | bc)
	cpu_ms=$(((after - before) * 1000 / hz))
	read_us=$((read_ticks * 1000000 / hz / read_n))
	conn_us=$((conn_ticks * 1000000 / hz / conn_n))
	check_us=$((check_ticks * 1000000 / hz / checks))
	reads=$((3 + span_ms / 2000 + 1))
	guesses=$((${refused:-0} + ${busy:-0}))
	bound_ms=$((1000 + span_ms / 10 + (check_us + reads * read_us + guesses * conn_us * 2) / 1000))
	echo "guessing: ${refused:-0} answered 401, ${busy:-0} 429 in $span_ms ms; the loader used $cpu_ms ms of CPU" \
		"(a check costs it $check_us us, a refusal $conn_us us, a scrape alone $read_us us)"
	assert_between "${busy:-0}" 1 1000000 "guesses answered 429 (checks beyond the allowance)"
	assert_between "$cpu_ms" 0 "$bound_ms" \
		"the loader's CPU over the guessing (ms; 1000 + $span_ms / 10 + a check, $reads reads, $guesses guesses of 2 x $conn_us us)"
	stop_foliostat "$T/endpoint"
}

# guess_from SECS ADDR...: a client per loopback ADDR guessing passwords as fast as it can for
# SECS seconds (bounded), a new connection each guess, in the background ($GUESSER). The last
# ADDR honours Retry-After: after a 429 it waits the seconds it says (within SECS), then
# guesses again. Each writes "ADDR CODE:COUNT... honoured:CODES retry-after:VALUES" to
# $T/guesses at the end, and "busy ADDR" to $T/busy at its first 429.
guess_from() {
	python3 - "$FS_PORT" "$T/busy" "$@" >"$T/guesses" 2>&1 <<-'EOF' &
		import base64, http.client, os, sys, time
		port, busy_file, secs, addrs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4:]
		kids = []
		for i, addr in enumerate(addrs):
		    pid = os.fork()
		    if pid == 0:
		        honours = i == len(addrs) - 1
		        end, codes, guess, honoured, retry_afters = time.monotonic() + secs, {}, 0, [], []
		        waited = False
		        while time.monotonic() < end:
		            guess += 1
		            auth = base64.b64encode(b"prom:guess%d" % guess).decode()
		            try:
		                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
		                                                  source_address=(addr, 0))
		                conn.request("GET", "/metrics", headers={"Authorization": "Basic " + auth})
		                reply = conn.getresponse()
		                status, retry = reply.status, reply.getheader("Retry-After")
		                conn.close()
		            except OSError:
		                status, retry = 0, None
		            codes[status] = codes.get(status, 0) + 1
		            if waited:
		                honoured.append(status)
		                waited = False
		            if status == 429:
		                if codes[429] == 1:
		                    with open(busy_file, "a") as f:
		                        f.write("busy %s\n" % addr)
		                retry_afters.append(retry)
		                if honours and retry and retry.isdigit() and time.monotonic() + int(retry) + 1 < end:
		                    time.sleep(int(retry))
		                    waited = True
		        line = "%s %s honoured:%s retry-after:%s\n" % (
		            addr, " ".join("%s:%d" % kv for kv in sorted(codes.items())),
		            ",".join(map(str, honoured)) or "-",
		            ",".join(sorted(set(map(str, retry_afters)))) or "-")
		        os.write(1, line.encode())  # one write: lines of children never interleave
		        os._exit(0)
		    kids.append(pid)
		for kid in kids:
		    os.waitpid(kid, 0)
	EOF
	GUESSER=$!
	at_exit "kill $GUESSER 2>/dev/null"
}

# Guessers on four loopback addresses (127.0.0.2-5), as fast as they may for 25 s, cannot keep
# out a scraper that knows the password, even for its first check after start-up (none was
# made before): each client has a budget of password checks of its own under the shared one,
# so the guessers leave the shared budget to others. The right password from 127.0.0.1 is
# answered 200, 20 times of 20, the first as soon as the guessers are refused (429). Every 429
# carries Retry-After, and a guesser that waits what it says is checked again (401, not 429).
test_exporter_guessers_do_not_lock_out_a_scraper() {
	need_root
	command -v htpasswd >/dev/null || skip "htpasswd is not installed (apache2-utils: scripts/install-deps.sh --tests)"
	printf 'basic_auth_users:\n  prom: %s\n' "$(htpasswd -nbB -C 10 prom right | cut -d: -f2-)" \
		>"$T/web.yml"
	FS_PORT=$(free_port)
	start_foliostat "$T/endpoint" --listen "127.0.0.1:$FS_PORT" --web.config.file "$T/web.yml"
	FS_URL=http://127.0.0.1:$FS_PORT
	guess_from 25 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5
	local i code ok=0 _
	# The flood in force: the three guessers that never wait have been refused.
	touch "$T/busy"
	for _ in $(seq 300); do
		[ "$(grep -c busy "$T/busy")" -ge 3 ] && break
		sleep 0.1
	done
	[ "$(grep -c busy "$T/busy")" -ge 3 ] ||
		fail "the guessers were never refused: $(cat "$T/busy" 2>/dev/null)"
	for i in $(seq 20); do
		code=$(curl -s -m 5 -u prom:right -o /dev/null -w '%{http_code} %{time_total}' "$FS_URL/metrics") || true
		echo "scrape $i with the right password during the guessing: ${code% *} in ${code#* } s"
		[ "${code% *}" = 200 ] && ok=$((ok + 1))
		sleep 0.2
	done
	wait "$GUESSER" || fail "the guessing failed: $(cat "$T/guesses")"
	cat "$T/guesses"
	assert_eq "$ok" 20 "scrapes answered 200 of 20 with the right password, from 127.0.0.1"
	local busy
	busy=$(grep -o ' 429:[0-9]*' "$T/guesses" | cut -d: -f2 | paste -sd+ | bc)
	assert_between "${busy:-0}" 4 1000000 "guesses answered 429"
	grep -q 'retry-after:.*\(None\|-\)$' "$T/guesses" && fail "a 429 without Retry-After: $(cat "$T/guesses")"
	grep -Eq 'retry-after:[0-9]+(,[0-9]+)*$' "$T/guesses" || fail "no Retry-After seconds: $(cat "$T/guesses")"
	local honoured
	honoured=$(grep '^127.0.0.5 ' "$T/guesses" | grep -o 'honoured:[^ ]*' | cut -d: -f2)
	[ -n "$honoured" ] && [ "$honoured" != - ] || fail "the guesser that honours Retry-After never retried"
	assert_eq "$(tr , '\n' <<<"$honoured" | grep -vc '^401$')" 0 \
		"retries after waiting Retry-After that were not checked (401) (retries: $honoured)"
	stop_foliostat "$T/endpoint"
}

# large_exposition: processes exported by the thousand (foliostat --by process --max-series
# 4000; up to 4000 processes, 1000 at a time, until the exposition has 150 KB), so that no socket
# buffer holds the exposition whole: the loader's socket takes some 70 KB of it with
# read_slowly's small segments and window, libmicrohttpd 16 KB.
large_exposition() {
	local i size=0
	for _ in 1 2 3 4; do
		for i in $(seq 1000); do /bin/true; done
		scrape "$T/before"
		size=$(stat -c %s "$T/before")
		[ "$size" -ge 150000 ] && break
	done
	assert_between "$size" 150000 1000000000 "bytes of the exposition (no socket buffer holds it whole)"
}

# read_slowly SECS PER_ADDR GAP ADDR...: PER_ADDR connections from each loopback ADDR (one
# every GAP seconds, the addresses in turn), each asking for /metrics with a receive buffer of
# 1 KiB and segments of 536 bytes, and reading 1 KiB of the answer every 2 s (never long without
# progress, never done), reopened a second after foliostat closes it, for SECS seconds
# (bounded), in the background ($READER); "reading N" in $T/slow once all are asking,
# "reopened N" at the end (a reader sees its connection closed only once it has read what the
# loader's socket held).
read_slowly() {
	python3 - "$FS_PORT" "$@" >"$T/slow" 2>&1 <<-'EOF' &
		import select, socket, sys, time
		port, secs, per_addr, gap = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
		addrs = sys.argv[5:]
		end = time.monotonic() + secs
		def ask(addr):
		    s = socket.socket()
		    # (small segments and window: the loader's socket then takes little of the answer)
		    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
		    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
		    s.bind((addr, 0))
		    s.settimeout(5)
		    s.connect(("127.0.0.1", port))
		    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
		    s.setblocking(False)
		    return s
		held = {}  # socket: address
		for _ in range(per_addr):
		    for addr in addrs:
		        held[ask(addr)] = addr
		        time.sleep(gap)
		print("reading", len(held), flush=True)
		closed, reopened, next_read = [], 0, time.monotonic() + 2
		while time.monotonic() < end:
		    now = time.monotonic()
		    for when, addr in [c for c in closed if c[0] <= now]:
		        closed.remove((when, addr))
		        try:
		            held[ask(addr)] = addr
		            reopened += 1
		        except OSError:
		            closed.append((now + 1, addr))
		    if now >= next_read:
		        next_read = now + 2
		        for s in list(held):
		            try:
		                if s.recv(1024) == b"":
		                    raise OSError
		            except BlockingIOError:
		                pass
		            except OSError:
		                closed.append((now + 1, held.pop(s)))
		                s.close()
		    time.sleep(0.05)
		print("reopened", reopened, flush=True)
	EOF
	READER=$!
	at_exit "kill $READER 2>/dev/null"
	for _ in $(seq 300); do grep -q reading "$T/slow" && return 0; sleep 0.1; done
	fail "could not open the connections: $(cat "$T/slow")"
}

# Slow readers on four loopback addresses (127.0.0.2-5), 32 connections each (the limit per
# address, and all 128 of the total), each holding a /metrics answer it reads a KiB at a time
# (large_exposition), reopening what is closed: a scrape from 127.0.0.1 is answered 200 in 5 s at most,
# 5 times of 5, with the figures exact. (5 s: a scrape waits 250 ms at most for a shared read,
# then its answer goes at loopback speed; 5 s is half of Prometheus's default scrape timeout,
# room for a loaded two-CPU host.) Before, no connection with an answer begun less than 10 s
# ago could be closed, and the newcomer, the scraper, was.
test_exporter_slow_readers_do_not_lock_out() {
	need_root
	make_cgroups slow
	start_endpoint --by process --max-series 4000
	local i code time minflt cg=${CGROUPS[slow]#"$CGROUP_ROOT"}
	large_exposition
	"$WORKLOAD" --rusage "$T/rusage" --in-cgroup "${CGROUPS[slow]}" pages 1000 >/dev/null ||
		fail "workload"
	read_slowly 15 32 0 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5
	sleep 1 # (every slow reader's answer under way)
	for i in 1 2 3 4 5; do
		code=$(curl -s -m 5 -o "$T/metrics" -w '%{http_code} %{time_total}' "$FS_URL/metrics") || true
		time=${code#* }
		assert_eq "${code% *}" 200 "scrape $i while slow readers from 4 addresses fill the slots, in $time s"
	done
	minflt=$(json_field "$(cat "$T/rusage")" minflt)
	assert_eq "$(expo "$T/metrics" --sum "foliostat_minor_faults_total{cgroup=\"$cg\"}")" "$minflt" \
		"minor faults of the workload's cgroup, scraped while the slow readers read (wait4: $minflt)"
	wait "$READER" 2>/dev/null
	echo "slow readers: $(paste -sd' ' "$T/slow")"
	stop_foliostat "$T/endpoint"
}

# Slow readers on two loopback addresses, 32 connections each, asking one after another (one
# every 0.1 s) for a large exposition and reading it a KiB every 2 s: the loader sends to at most
# 4 connections of each address past their first second (the others are closed for the new
# ones, the least progress first), so its sockets still open to each address (ss, the kernel's
# count) are at most 4 and the 5 a second asks (0.2 s apart) within the last second; not 32.
test_exporter_slow_readers_hold_few_answers() {
	need_root
	start_endpoint --by process --max-series 4000
	large_exposition
	read_slowly 20 32 0.1 127.0.0.2 127.0.0.3
	local addr open open_all=0
	for addr in 127.0.0.2 127.0.0.3; do
		open=$(ss -Htn state established "( sport = :$FS_PORT and dst $addr )" | wc -l)
		assert_between "$open" 1 9 "the loader's connections still open to the slow readers of $addr"
		open_all=$((open_all + open))
	done
	# What the kernel says was closed is what foliostat counts as evicted: the 64 connections
	# opened, less those still open, at least (the readers reopen what is closed).
	scrape "$T/bounds"
	kill "$READER"
	wait "$READER" 2>/dev/null
	assert_eq "$(expo "$T/bounds" --sum 'foliostat_bound_limit{structure="connections"}')" 128 \
		"connections' limit"
	assert_eq "$(expo "$T/bounds" --sum 'foliostat_bound_limit{structure="answers"}')" 16 \
		"answers' limit"
	assert_between "$(expo "$T/bounds" --sum 'foliostat_bound_entries{structure="connections"}')" \
		1 128 "connections held"
	local evicted
	evicted=$(($(expo "$T/bounds" --sum 'foliostat_bound_evictions_total{structure="connections"}') +
		$(expo "$T/bounds" --sum 'foliostat_bound_evictions_total{structure="answers"}')))
	assert_between "$evicted" $((64 - open_all)) 100000 "connections and answers closed for room"
	stop_foliostat "$T/endpoint"
}
