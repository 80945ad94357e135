# shellcheck shell=bash
# A background workload that fails before the others are started (issue 25's reproduction).

# (tests/lib.sh before start_workload: the same workloads, with & alone.)
command -v start_workload >/dev/null || start_workload() { "$@" & }

test_early_failure_of_a_workload() {
	start_workload sleep 1
	start_workload sh -c 'exit 3'
	sleep 0.3
	start_workload sleep 1
	wait_workloads
}
