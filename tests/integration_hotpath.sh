# shellcheck shell=bash
# The hot path as the kernel holds it: the settings known before load are read-only data
# (bpf/maps.bpf.h), so the verifier drops from each program the branches they rule out. Read
# from the programs themselves (bpftool's dump of their translated instructions): a setting
# moved back to writable memory keeps both sides of every test of it, and these checks fail.

# hotpath_program_dump NAME FILE: the translated instructions of the running foliostat's program
# NAME (subprograms included) into FILE, one per line.
hotpath_program_dump() {
	local id
	id=$(bpftool prog show -j | python3 -c '
import json, sys
ids = [p["id"] for p in json.load(sys.stdin) if p.get("name") == sys.argv[1]]
if len(ids) != 1:
    sys.exit(f"{len(ids)} programs named {sys.argv[1]}")
print(ids[0])' "$1") || fail "no single program $1 loaded"
	bpftool prog dump xlated id "$id" >"$2" || fail "bpftool prog dump xlated id $id"
	[ -s "$2" ] || fail "an empty dump of $1"
}

# hotpath_instructions FILE: how many instructions a dump holds (numbered lines "  N: (op) ...").
hotpath_instructions() {
	grep -cE '^ *[0-9]+: \(' "$1"
}

# On a kernel that never preempts a tracepoint program, the LRU insertion program (every page
# an anonymous fault maps, on every architecture) keeps only plain adds: its two counts by
# fs_count() lose their atomic side. Without sched_switch (lookups, no records), the records'
# code goes too, and the same program is smaller.
test_hotpath_settings_prune_the_loaded_programs() {
	need_root
	local records lookups
	start_foliostat "$T/out" -j 0.2
	hotpath_program_dump fs_lru_insert "$T/records.xlated"
	stop_foliostat "$T/out"
	"$FOLIOSTAT" --check -j >"$T/check" || fail "foliostat --check"
	assert_eq "$(python3 -c 'import json,sys; a = json.load(open(sys.argv[1]))["check"]["attribution"]; print(a["method"], a["preemptible"])' "$T/check")" \
		"records False" "attribution on this host"
	assert_eq "$(grep -c 'lock .* += ' "$T/records.xlated")" 0 \
		"atomic adds in fs_lru_insert where no program is preempted"

	export FOLIOSTAT_DISABLE_PROBES=sched:sched_switch
	start_foliostat "$T/lookups" -j 0.2
	hotpath_program_dump fs_lru_insert "$T/lookups.xlated"
	stop_foliostat "$T/lookups"
	records=$(hotpath_instructions "$T/records.xlated")
	lookups=$(hotpath_instructions "$T/lookups.xlated")
	assert_between "$lookups" 1 $((records - 1)) \
		"fs_lru_insert's instructions with lookups, below its $records with records"
}
