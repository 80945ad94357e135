# shellcheck shell=bash
# Other kernels and architectures: make vmtest (scripts/vmtest.sh) boots Debian 12's Linux 6.1
# under QEMU, x86 and arm64, and checks foliostat's figures for a known workload there.

# Another kernel: Debian 12's Linux 6.1 (older folio layout, THP always, other tracepoint
# arguments) booted under QEMU, with foliostat's figures for the workload checked there.
test_vmtest_on_debian_linux_6_1() {
	run_vmtest x86
}

# arm64: a cross-built static foliostat on Debian 12's arm64 kernel (no fault tracepoints, and a
# tlb_flush tracepoint nothing calls) on QEMU's emulated arm64 board.
test_vmtest_on_debian_linux_6_1_arm64() {
	run_vmtest arm64
}

run_vmtest() {
	need_root
	# make vmtest-suite runs this suite in that very VM, with no QEMU or registry inside.
	grep -q 'vmsuite\.filter=' /proc/cmdline && skip "in make vmtest-suite's VM"
	command -v apt-get >/dev/null || skip "needs Debian's packages"
	local status=0
	scripts/vmtest.sh "$1" >"$T/vmtest" 2>&1 || status=$?
	grep '^vmtest:' "$T/vmtest"
	assert_eq "$status" 0 "make vmtest's exit status"
}
