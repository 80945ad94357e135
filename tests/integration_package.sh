# shellcheck shell=bash
# The Debian package (debian/, make deb): built from a copy of the tracked files by
# dpkg-buildpackage, inspected with lintian and dpkg-deb, and run from a root it is unpacked in.

# make deb builds a .deb whose version is the Makefile's; lintian reports no error and no
# warning on it; it holds the binary, the three man pages, the bash completion, the exporter's
# unit (which its maintainer scripts neither enable nor start), the dashboard, the rules and
# the schema; and its binary, unpacked into a throw-away root, says its version and passes
# --check on the live kernel (with the host's libraries, which its Depends name).
set_test_timeout test_debian_package_builds_clean_and_runs 900
test_debian_package_builds_clean_and_runs() {
	need_root
	local tool deb version arch root
	for tool in dpkg-buildpackage dh lintian; do
		command -v "$tool" >/dev/null || skip "no $tool (scripts/install-deps.sh --tests)"
	done
	version=$(sed -n 's/^VERSION := //p' Makefile)
	assert_eq "$(dpkg-parsechangelog -l debian/changelog -S Version)" "$version" \
		"debian/changelog's version, the Makefile's"
	deb=$(scripts/build-deb.sh "$T/deb") || fail "make deb failed"
	[ -f "$deb" ] || fail "make deb made no $deb"
	arch=$(dpkg --print-architecture)
	assert_eq "$(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')" \
		"Package: foliostat Version: $version Architecture: $arch " "the package's control fields"
	lintian --fail-on error,warning --tag-display-limit 0 "$deb" >"$T/lintian" 2>&1 ||
		{ cat "$T/lintian"; fail "lintian found errors or warnings"; }
	! grep -E '^(E|W): ' "$T/lintian" || fail "lintian found errors or warnings"
	echo "ok: lintian: $(grep -c . "$T/lintian") remarks, none an error or a warning"
	dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$T/contents"
	for path in /usr/sbin/foliostat /usr/share/man/man8/foliostat.8.gz \
		/usr/share/man/man5/foliostat-json.5.gz /usr/share/man/man7/foliostat-metrics.7.gz \
		/usr/share/bash-completion/completions/foliostat /lib/systemd/system/foliostat.service \
		/usr/share/foliostat/grafana/foliostat.json \
		/usr/share/foliostat/prometheus/foliostat-rules.yml \
		/usr/share/foliostat/foliostat.schema.json /usr/share/doc/foliostat/copyright; do
		grep -qx "$path" "$T/contents" || fail "the package has no $path"
	done
	echo "ok: the package holds the binary, man pages, completion, unit, dashboard, rules, schema"
	# Not enabled nor started: the maintainer scripts enable the unit again only where it was
	# enabled before (an upgrade), and start nothing.
	dpkg-deb -e "$deb" "$T/control"
	# (dh_installsystemd --no-enable: an enable only under "debian-installed", an upgrade's)
	awk '/debian-installed/ { upgrade = 1 } /deb-systemd-helper( --quiet)? enable/ && !upgrade { bad = 1; print }
		/deb-systemd-invoke .*(start|restart)/ { bad = 1; print } END { exit bad }' "$T"/control/post* ||
		fail "the package's maintainer scripts enable or start the unit"
	grep -q '^ExecStart=/usr/sbin/foliostat ' <(dpkg-deb --fsys-tarfile "$deb" |
		tar -xOf - ./lib/systemd/system/foliostat.service) || fail "the unit does not run /usr/sbin/foliostat"
	root=$T/root
	dpkg-deb -x "$deb" "$root"
	assert_eq "$("$root/usr/sbin/foliostat" --version)" "foliostat $version" "the packaged binary's version"
	"$root/usr/sbin/foliostat" --check >"$T/check" 2>&1 || { cat "$T/check"; fail "the packaged binary's --check"; }
	tail -n 1 "$T/check"
}
