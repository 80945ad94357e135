# shellcheck shell=bash
# A test that passes, leaving two foliostats running (stand-ins: sleep under that name, in the
# test's folder, so that no real foliostat is started).

test_leaves_two_foliostats() {
	cp /bin/sleep "$T/foliostat" || fail "cannot copy sleep"
	"$T/foliostat" 600 &
	echo "$!" >>"$T/foliostat.pid"
	"$T/foliostat" 600 &
	echo "started two foliostats"
}
