# shellcheck shell=bash
# Probes: what --check reports of the host (every probe, the figures that will be null here),
# and a run that loses a probe (disabled, or its program refused by the verifier): reported, the
# rest running, or a clear error when the probe is required.

# --check reports every probe and the host's modes, exit 0 when the required probes attach, 1
# when they do not (a required probe disabled, or no privileges); nothing stays attached.
test_check_reports_what_the_host_offers() {
	need_root
	"$FOLIOSTAT" --check -j >"$T/out" || fail "exit status $? on this host"
	assert_eq "$(query "$T/out" "recs[0]['check']['usable']")" true "usable"
	assert_probes_as_host_offers "$T/out" --check
	assert_eq "$(query "$T/out" "recs[0]['check']['attribution']['method']")" "$(host_attribution)" \
		"attribution"
	# THREAD_SIZE, measured at start-up: a power of two of at least 8 KiB.
	assert_eq "$(query "$T/out" "recs[0]['check']['kernel_stack']['measured']")" true "kernel stack size measured"
	assert_eq "$(query "$T/out" "(lambda b: b >= 8192 and b & (b - 1) == 0)(recs[0]['check']['kernel_stack']['bytes'])")" \
		true "kernel stack size a power of two of at least 8 KiB"
	assert_eq "$(query "$T/out" "recs[0]['check']['thp']['enabled']")" \
		"\"$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)\"" "THP mode"
	"$FOLIOSTAT" --check >"$T/check" && grep -q '^usable: ' "$T/check" ||
		fail "no verdict in the table"
	local status=0
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_alloc "$FOLIOSTAT" --check -j >"$T/out" || status=$?
	assert_eq "$status" 1 "exit status without a required probe"
	assert_eq "$(query "$T/out" "recs[0]['check']['usable']")" false "usable without a required probe"
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$FOLIOSTAT" --check \
		>"$T/out" 2>&1 || status=$?
	assert_eq "$status" 1 "exit status without privileges"
	grep -q 'CAP_BPF no' "$T/out" || fail "privileges not reported: $(cat "$T/out")"
	assert_nothing_attached
}

# --check names the record figures that will be null here, and what each needs: exactly the
# topmost nulls of a real run's system object with the same probes (the renderer's own walk of
# the registry, against the check's), with three probes refused and with none (where this
# host's kernel lacks a probe, the figures it measures).
test_check_names_the_figures_null_here() {
	need_root
	local probes
	for probes in kmem:mm_page_free,pagemap:mm_lru_activate,migrate:mm_migrate_pages ""; do
		FOLIOSTAT_DISABLE_PROBES=$probes "$FOLIOSTAT" --check -j >"$T/check" ||
			fail "check: exit $?"
		FOLIOSTAT_DISABLE_PROBES=$probes "$FOLIOSTAT" -j -d 0.3 >"$T/rec" || fail "run: exit $?"
		python3 - "$T/check" "$T/rec" "$probes" <<'PY' || fail "the check's null figures are not the record's"
import json, sys
check = json.load(open(sys.argv[1]))["check"]["null_figures"]
record = json.load(open(sys.argv[2]))["system"]
# (the system's groups are objects of their own, not its figures; thp.untracked is one)
GROUPS = ("interrupt", "untracked", "unselected")
def nulls(obj, path=""):
    for key, value in obj.items():
        where = path + key
        if value is None:
            yield where
        elif isinstance(value, dict) and (path or key not in GROUPS):
            yield from nulls(value, where + ".")
found = sorted(nulls(record))
print("refused: %r; null in the record: %s; in the check: %s" % (sys.argv[3], found, sorted(check)))
assert found == sorted(check), (found, sorted(check))
if sys.argv[3]:
    assert "folios.free" in check and "kmem:mm_page_free" in check["folios.free"], check
    assert "thp.migrate" not in check and "thp.migrate.succeeded" in check, check
    assert "pagemap:mm_lru_activate" in check["lru.activate"], check
PY
	done
}

# A probe that cannot be had is reported and the rest runs; without a core probe, a clear error.
test_missing_probe_degrades() {
	need_root
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_free,irq:softirq_exit,exceptions:page_fault_kernel \
		"$FOLIOSTAT" -j -d 0.5 >"$T/out" ||
		fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_free']")" '"disabled by FOLIOSTAT_DISABLE_PROBES"' "page_free state"
	assert_eq "$(query "$T/out" "recs[0]['probes']['irq:softirq_entry']")" '"not attached: needs irq:softirq_exit"' "softirq_entry state"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_alloc']")" '"attached"' "page_alloc state"
	assert_eq "$(query "$T/out" "recs[0]['system']['folios']['free']")" null "frees, not measured"
	# Without exceptions tracepoints (not x86), perf's software event counts both modes (asked
	# with the run's own FOLIOSTAT_DISABLE_PROBES).
	local kernel_null=false
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_free,irq:softirq_exit,exceptions:page_fault_kernel \
		faults_from_exceptions && kernel_null=true
	assert_eq "$(query "$T/out" "[recs[0]['system']['faults'][k] is None for k in ('user', 'kernel', 'read')]")" \
		"[false, $kernel_null, true]" "faults measured without the kernel-mode probe"
	local status=0
	FOLIOSTAT_DISABLE_PROBES=kmem:mm_page_alloc "$FOLIOSTAT" -d 0.5 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status without mm_page_alloc"
	grep -q '^foliostat: failed to attach kmem:mm_page_alloc: disabled by FOLIOSTAT_DISABLE_PROBES$' "$T/err" ||
		fail "unexpected message: $(cat "$T/err")"
	assert_nothing_attached
}

# A probe whose program the kernel's verifier refuses (as another kernel's might) is reported
# and the rest loads; a refused required probe is a clear error naming it (the test build's
# FOLIOSTAT_TEST_REFUSE_PROBE).
test_refused_program_degrades() {
	need_root
	use_test_build
	# (kmem:mm_page_free: an optional probe every kernel and architecture has)
	FOLIOSTAT_TEST_REFUSE_PROBE=kmem:mm_page_free "$FOLIOSTAT" -j -d 0.3 >"$T/out" || fail "exit status $?"
	assert_records_valid "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['probes']['kmem:mm_page_free'].startswith('failed to load: the kernel refused')")" \
		true "state of the refused probe"
	assert_eq "$(query "$T/out" "recs[0]['system']['folios']['free']")" null "its figures"
	# Every other probe as this host offers it: the refusal took nothing else with it.
	assert_probes_as_host_offers "$T/out" --except=kmem:mm_page_free
	local status=0
	FOLIOSTAT_TEST_REFUSE_PROBE=kmem:mm_page_alloc "$FOLIOSTAT" -d 0.3 >/dev/null 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status when a required probe is refused"
	grep -q '^foliostat: failed to load the program for kmem:mm_page_alloc: ' "$T/err" ||
		fail "message: $(cat "$T/err")"
	assert_nothing_attached
}
