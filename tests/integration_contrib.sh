# shellcheck shell=bash
# Tests of what contrib/ ships beside foliostat: the exporter's systemd unit, as `make install`
# installs it, the Grafana dashboard and the bash completion. No running systemd or Grafana is
# needed: systemd-analyze checks the unit offline, promtool parses the dashboard's queries, and
# the completion runs in a non-interactive bash.

# unit_problems ROOT UNIT: systemd-analyze verify's complaints about UNIT, installed below ROOT;
# prints them (and returns 1) when there are any. verify may print warnings and still exit 0,
# and it also warns about other units it loads (the host's, copied below ROOT): the lines that
# count are those naming UNIT, and its exit status.
unit_problems() {
	local root=$1 unit=$2 status=0 lines
	# verify reads the tree as the system would: ExecStart's binary is looked for below ROOT.
	# Documentation's man page is looked up on this host by man(1), so it is checked apart.
	systemd-analyze verify --root="$root" --man=no --recursive-errors=no "$unit" \
		>"$T/verify.out" 2>&1 || status=$?
	lines=$(grep -F "$unit" "$T/verify.out")
	[ "$status" -eq 0 ] && [ -z "$lines" ] && return 0
	echo "systemd-analyze verify $unit exited with $status:"
	sed 's/^/  /' "$T/verify.out"
	return 1
}

# The unit make install writes verifies cleanly against the tree it is installed in, names
# the installed binary, and make uninstall removes it with the dashboard.
test_systemd_unit_verifies() {
	local root=$T/root unit_dir=$T/root/usr/local/lib/systemd/system dir
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze (package systemd)"
	make install DESTDIR="$root" PREFIX=/usr/local >"$T/install.log" 2>&1 ||
		{ cat "$T/install.log"; fail "make install failed"; }
	[ -f "$unit_dir/foliostat.service" ] || fail "make install did not install foliostat.service"
	[ -f "$root/usr/local/share/man/man8/foliostat.8" ] || fail "no man page for Documentation="
	[ -f "$root/usr/local/share/foliostat/grafana/foliostat.json" ] ||
		fail "make install did not install the Grafana dashboard"
	[ -f "$root/usr/local/share/foliostat/prometheus/foliostat-rules.yml" ] ||
		fail "make install did not install the Prometheus rules"
	assert_eq "$(grep '^ExecStart=' "$unit_dir/foliostat.service")" \
		"ExecStart=/usr/local/sbin/foliostat --listen 127.0.0.1:10140" "installed ExecStart"
	# Least privilege by default: CAP_SYS_ADMIN (--self, perf's events under a strict
	# perf_event_paranoid) only from the drop-in.
	assert_eq "$(grep '^AmbientCapabilities=' "$unit_dir/foliostat.service")" \
		"AmbientCapabilities=CAP_BPF CAP_PERFMON" "the unit's capabilities"

	# The units every service depends on by default (sysinit.target, ...), from this host.
	# (/lib is /usr/lib on merged-/usr hosts: each directory once.)
	for dir in /lib/systemd/system /usr/lib/systemd/system; do
		dir=$(realpath -e "$dir" 2>/dev/null) || continue
		[ -e "$root$dir" ] && continue
		{ mkdir -p "$root$(dirname "$dir")" && cp -a "$dir" "$root$dir"; } || fail "cannot copy $dir"
	done

	unit_problems "$root" foliostat.service || fail "the installed unit does not verify cleanly"
	echo "ok: systemd-analyze verify reports nothing about foliostat.service"
	# The drop-in, where its comment says to put it: the unit still verifies, now with --self.
	local dropin=$root/usr/local/share/foliostat/systemd/foliostat-self.conf
	[ -f "$dropin" ] || fail "make install did not install the drop-in foliostat-self.conf"
	assert_eq "$(grep '^ExecStart=/' "$dropin")" \
		"ExecStart=/usr/local/sbin/foliostat --listen 127.0.0.1:10140 --self" "the drop-in's ExecStart"
	mkdir -p "$root/etc/systemd/system/foliostat.service.d" &&
		cp "$dropin" "$root/etc/systemd/system/foliostat.service.d/" || fail "cannot place the drop-in"
	unit_problems "$root" foliostat.service || fail "the unit with the drop-in does not verify cleanly"
	sed -i 's/^AmbientCapabilities=/AmbientCapabilitys=/' \
		"$root/etc/systemd/system/foliostat.service.d/foliostat-self.conf"
	! unit_problems "$root" foliostat.service >/dev/null ||
		fail "a drop-in with a misspelt directive passed the check"
	rm -r "$root/etc/systemd/system/foliostat.service.d"
	echo "ok: the unit verifies with its drop-in (and fails with a misspelt one)"

	# The check can fail: a misspelt directive is only a warning to systemd.
	sed 's/^ProtectClock=/ProtectClok=/' "$unit_dir/foliostat.service" \
		>"$unit_dir/foliostat-misspelt.service"
	! unit_problems "$root" foliostat-misspelt.service >/dev/null ||
		fail "a unit with a misspelt directive passed the check"
	# And so does a binary that is not where ExecStart says.
	mv "$root/usr/local/sbin/foliostat" "$T/foliostat.moved"
	! unit_problems "$root" foliostat.service >/dev/null ||
		fail "the unit passed the check without its binary"
	mv "$T/foliostat.moved" "$root/usr/local/sbin/foliostat"
	rm "$unit_dir/foliostat-misspelt.service"
	echo "ok: a misspelt directive and a missing binary fail the check"

	# The sandbox as systemd scores it (0 is the most confined, 100 not at all; this unit is
	# about 2.0): a larger figure means a hardening line was lost.
	systemd-analyze security --offline=yes --root="$root" --threshold=30 foliostat.service \
		>"$T/security.out" 2>&1 || { cat "$T/security.out"; fail "exposure over 3.0"; }
	grep 'Overall exposure level' "$T/security.out"

	make install DESTDIR="$T/opt" PREFIX=/opt/foliostat >"$T/install.log" 2>&1 ||
		{ cat "$T/install.log"; fail "make install PREFIX=/opt/foliostat failed"; }
	assert_eq "$(grep '^ExecStart=' "$T/opt/opt/foliostat/lib/systemd/system/foliostat.service")" \
		"ExecStart=/opt/foliostat/sbin/foliostat --listen 127.0.0.1:10140" \
		"ExecStart installed with PREFIX=/opt/foliostat"
	assert_eq "$(grep '^ExecStart=/' "$T/opt/opt/foliostat/share/foliostat/systemd/foliostat-self.conf")" \
		"ExecStart=/opt/foliostat/sbin/foliostat --listen 127.0.0.1:10140 --self" \
		"the drop-in's ExecStart installed with PREFIX=/opt/foliostat"

	make uninstall DESTDIR="$root" PREFIX=/usr/local >"$T/uninstall.log" 2>&1 ||
		{ cat "$T/uninstall.log"; fail "make uninstall failed"; }
	[ ! -e "$unit_dir/foliostat.service" ] || fail "make uninstall left foliostat.service"
	[ ! -e "$root/usr/local/share/foliostat" ] || fail "make uninstall left share/foliostat"
	echo "ok: make uninstall removes the unit and the dashboard"
}

# assert_metrics_documented FILE: every metric named in FILE (one per line) is one
# foliostat-metrics(7) lists (as a ".B name" line); the host-wide series of a per-group metric is
# its name with foliostat_system_.
assert_metrics_documented() {
	local metric
	while read -r metric; do
		grep -qx "\\.B $metric" man/foliostat-metrics.7 ||
			grep -qx "\\.B foliostat_${metric#foliostat_system_}" man/foliostat-metrics.7 ||
			fail "$metric is not in foliostat-metrics(7)"
	done <"$1"
}

# The dashboard imports as Grafana expects (tests/dashboard_queries.py --check), every query
# parses as PromQL (promtool check rules parses each rule's expression the way Prometheus
# does; promtool 2.42 has no command that parses a bare expression), and each metric it asks
# for is one foliostat-metrics(7) documents.
test_grafana_dashboard_is_well_formed() {
	python3 tests/dashboard_queries.py --check || fail "dashboard_queries.py --check"
	python3 tests/dashboard_queries.py >"$T/queries" || fail "dashboard_queries.py"

	# Histograms' series are the metric's name with _bucket, _count or _sum; the host-wide
	# series of a per-group metric its name with foliostat_system_ (foliostat-metrics(7) lists
	# each metric as a ".B name" line).
	cut -f2 "$T/queries" | grep -o 'foliostat_[a-z_]*' | sed -E 's/_(bucket|count|sum)$//' |
		sort -u >"$T/metrics" || fail "no metric in the dashboard's queries"
	assert_metrics_documented "$T/metrics"
	echo "ok: the $(wc -l <"$T/metrics") metrics the dashboard uses are in foliostat-metrics(7)"

	command -v promtool >/dev/null || skip "no promtool (package prometheus) to parse the queries"
	python3 -c '
import json, sys
rules = [{"record": "dashboard:query_%d" % n, "expr": line.rstrip("\n").split("\t", 1)[1]}
         for n, line in enumerate(sys.stdin, 1)]
json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, sys.stdout, indent=1)
' <"$T/queries" >"$T/rules.json" || fail "cannot write the queries as rules"
	# (JSON is YAML, so promtool reads the file as a rule file.)
	promtool check rules "$T/rules.json" >"$T/promtool.out" 2>&1 || {
		cat "$T/promtool.out"
		echo "queries, numbered as the rules:"
		cat -n "$T/queries"
		fail "promtool could not parse a dashboard query"
	}
	echo "ok: promtool parses all $(wc -l <"$T/queries") queries"
}

# The Prometheus rules (contrib/prometheus/): promtool checks them, their unit tests pass on
# synthetic series of two hosts (each recording rule's value, and each alert firing where it
# should and not before), every alert has a test that fires it, and every metric they ask for
# (but Prometheus's own up) is one foliostat-metrics(7) documents.
test_prometheus_rules_check_and_pass_their_tests() {
	command -v promtool >/dev/null || skip "no promtool (package prometheus)"
	local dir=contrib/prometheus alert
	promtool check rules "$dir/foliostat-rules.yml" || fail "promtool check rules"
	(cd "$dir" && promtool test rules foliostat-rules.test.yml) || fail "promtool test rules"
	# (a test of an alert that fires lists its alerts under exp_alerts; one that must not,
	# exp_alerts: [])
	while read -r alert; do
		awk -v name="$alert" '$1 == "-" && $2 == "alertname:" { current = $3 }
			$1 == "exp_alerts:" && $2 != "[]" && current == name { found = 1 }
			END { exit !found }' "$dir/foliostat-rules.test.yml" || fail "no test fires $alert"
	done < <(sed -n 's/^ *- alert: //p' "$dir/foliostat-rules.yml")
	# (not the recorded series, level:foliostat_name:operations)
	grep -oP '(?<![:\w])foliostat_\w+(?![:\w])' "$dir/foliostat-rules.yml" | sort -u >"$T/metrics"
	assert_metrics_documented "$T/metrics"
	echo "ok: $(wc -l <"$T/metrics") metrics, each in foliostat-metrics(7); every alert fired by a test"
}

# Bash completion (contrib/bash-completion/foliostat, as make install installs it), in a
# non-interactive bash with Debian's bash-completion: every option of --help is offered, and
# option values complete as what they name.
test_bash_completion() {
	need_root
	[ -r /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	local root cg
	make -s install DESTDIR="$T/dest" PREFIX=/usr || fail "make install"
	[ -r "$T/dest/usr/share/bash-completion/completions/foliostat" ] || fail "completion not installed"
	root=$(cgroup_mount cgroup2)
	cg=$root/foliostat-complete.$$
	[ -n "$root" ] && { mkdir "$cg" || fail "cannot create $cg"; }
	touch "$T/a-file"
	# shellcheck disable=SC2016 # for the inner bash
	bash -c '
		. /usr/share/bash-completion/bash_completion
		. "$0"
		complete_line() {
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE=${LINE:-$*}; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
			_foliostat 2>/dev/null
			printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "; echo
		}
		echo "options: $(complete_line foliostat -)"
		echo "--cg: $(complete_line foliostat --cg)"
		echo "by: $(complete_line foliostat --by c)"
		echo "command: $(complete_line foliostat -j -- tru)"
		echo "output: $(complete_line foliostat -o "$1/a-fi")"
		echo "cgroup: $(complete_line foliostat -c "/${2##*/}")"
		# As readline splits it: the address at its colon (COMP_WORDBREAKS).
		echo "listen: $(LINE="foliostat --listen 127.0.0.1:" complete_line foliostat --listen 127.0.0.1 :)"
		echo "listen-start: $(complete_line foliostat --listen "[")"
	' "$T/dest/usr/share/bash-completion/completions/foliostat" "$T" "$cg" >"$T/completions"
	[ -n "$root" ] && rmdir "$cg"
	cat "$T/completions"
	local option
	for option in $("$FOLIOSTAT" --help | grep -oE '(^|[ ,(])--?[a-zA-Z]([a-z.-]*[a-z])?' | tr -d ' ,('); do
		grep -q "^options: .* $option " <(sed 's/^options: /options:  /' "$T/completions") ||
			fail "option $option of --help is not completed"
	done
	assert_eq "$(sed -n 's/^--cg: //p' "$T/completions")" "--cgroup " "completion of --cg"
	assert_eq "$(sed -n 's/^by: //p' "$T/completions")" "cgroup comm " "completion of --by c"
	grep -q '^command: .*\btrue\b' "$T/completions" || fail "no 'true' for a command after --"
	assert_eq "$(sed -n 's/^output: //p' "$T/completions")" "$T/a-file " "completion of an output file"
	assert_eq "$(sed -n 's/^listen: //p' "$T/completions")" "10140 " "completion of --listen 127.0.0.1:"
	assert_eq "$(sed -n 's/^listen-start: //p' "$T/completions")" "[::1]:10140 [::]:10140 " \
		"completion of --listen ["
	[ -z "$root" ] || assert_eq "$(sed -n 's/^cgroup: //p' "$T/completions")" "/${cg##*/}/ " \
		"completion of a cgroup, as /proc/PID/cgroup writes it"
}
