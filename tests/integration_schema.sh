# shellcheck shell=bash
# The record schema (docs/foliostat.schema.json) and its validator (tests/validate_records.py):
# records of every kind foliostat writes pass, and records that break it do not, so that the
# validation lib.sh applies to every test's records can fail.

# Every row kind, --self, and a run with every optional probe off (so every member that may be
# null is null): each record matches the schema, and holds the rows it says it has.
test_schema_accepts_records_of_every_kind() {
	need_root
	local by
	local -A rows=([process]=processes [cgroup]=cgroups [comm]=comms)
	for by in process cgroup comm; do
		"$FOLIOSTAT" -j -d 1 --top 0 --by "$by" >"$T/$by" || fail "--by $by: exit status $?"
		assert_records_valid "$T/$by"
		assert_eq "$(query "$T/$by" "[recs[0]['by'], len(recs[0]['${rows[$by]}']) > 0]")" \
			"[\"$by\", true]" "--by $by: its rows"
	done
	"$FOLIOSTAT" -j -d 1 --self >"$T/self" || fail "--self: exit status $?"
	assert_records_valid "$T/self"
	assert_eq "$(query "$T/self" "'self' in recs[0]")" true "--self: its object"
	# Every probe but the two foliostat cannot run without.
	local optional
	optional=$(query "$T/self" "','.join(p for p in recs[0]['probes'] if p not in ('kmem:mm_page_alloc', 'sched:sched_process_exit'))")
	optional=${optional//\"/}
	FOLIOSTAT_DISABLE_PROBES=$optional "$FOLIOSTAT" -j -d 1 --self >"$T/bare" ||
		fail "with only the required probes: exit status $?"
	assert_records_valid "$T/bare"
	assert_eq "$(query "$T/bare" "[recs[0]['system']['tlb'], recs[0]['system']['faults']['user'], recs[0]['system']['folios']['free']]")" \
		"[null, null, null]" "TLB flushes, faults and frees with only the required probes"
}

# mutate_record SOURCE DEST STATEMENT: DEST holds SOURCE's first record, then that record after
# the Python STATEMENT has changed it (as r): a broken record on line 2.
mutate_record() {
	head -1 "$1" >"$2"
	python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
exec(sys.argv[2])
print(json.dumps(r))' "$1" "$3" >>"$2" || fail "cannot change the record: $3"
}

# assert_rejected FILE WHAT EXPECTED: the validator refuses FILE (status 1), saying EXPECTED.
assert_rejected() {
	local status=0 message
	message=$(python3 tests/validate_records.py "$1" 2>&1) || status=$?
	assert_eq "$status" 1 "validator's exit status for $2"
	case $message in
	*"$3"*) echo "ok: $2: $message" ;;
	*) fail "$2: the validator said '$message', not '$3'" ;;
	esac
}

# A live record with one thing wrong: a member missing, a wrong type, a negative count, null
# where the renderer never writes one, a member the schema does not know, rows in the wrong
# array. Each is refused, at its line and JSON path.
test_schema_rejects_broken_records() {
	need_root
	"$FOLIOSTAT" -j -d 0.5 >"$T/rec" || fail "exit status $?"
	assert_records_valid "$T/rec"
	mutate_record "$T/rec" "$T/bad" "del r['system']['faults']['user']"
	assert_rejected "$T/bad" "a member removed" "$T/bad:2: \$.system.faults: 'user' is a required property"
	mutate_record "$T/rec" "$T/bad" "r['processes'][0]['pid'] = str(r['processes'][0]['pid'])"
	assert_rejected "$T/bad" "a pid as a string" "$T/bad:2: \$.processes[0].pid: "
	mutate_record "$T/rec" "$T/bad" "r['system']['processes'] = -1"
	assert_rejected "$T/bad" "a negative count" "$T/bad:2: \$.system.processes: "
	mutate_record "$T/rec" "$T/bad" "r['system']['lru']['mglru'] = None"
	assert_rejected "$T/bad" "null where no probe is missing" "$T/bad:2: \$.system.lru.mglru: "
	mutate_record "$T/rec" "$T/bad" "r['processes'][0]['rss'] = 0"
	assert_rejected "$T/bad" "an unknown member" "$T/bad:2: \$.processes[0]: "
	mutate_record "$T/rec" "$T/bad" "r['system']['folios']['alloc']['16'] = 1"
	assert_rejected "$T/bad" "an order past 15" "$T/bad:2: \$.system.folios.alloc: "
	mutate_record "$T/rec" "$T/bad" "r['by'] = 'comm'"
	assert_rejected "$T/bad" "process rows under --by comm" "$T/bad:2: \$: "
}

# The schema's rule of evolution (foliostat(8), JSON record): within one "schema" number later
# versions may add members, which a reader ignores. So a record with members this version does
# not write validates against the published schema (--as-published, as a reader would), and
# fails foliostat's own tests (the objects marked x-closed are closed there); a member removed,
# or changed in type, fails both. Each record names the foliostat that wrote it.
test_schema_is_open_to_members_later_versions_add() {
	need_root
	"$FOLIOSTAT" -j -d 0.5 >"$T/rec" || fail "exit status $?"
	assert_eq "$(query "$T/rec" "recs[0]['version']")" "\"$("$FOLIOSTAT" --version | cut -d' ' -f2)\"" \
		"the record's version vs foliostat --version"
	mutate_record "$T/rec" "$T/later" "r['later'] = {'x': 1}; r['system']['later'] = 2
r['system']['folios']['later'] = [3]; r['processes'][0]['later'] = 'four'; r['host']['later'] = 5"
	python3 tests/validate_records.py --as-published "$T/later" ||
		fail "a record with members a later version adds is refused by the published schema"
	echo "ok: members a later version adds pass the published schema"
	assert_rejected "$T/later" "members this version does not write, in its own tests" "$T/later:2: \$"
	local change
	for change in "del r['version']" "r['system']['faults']['user'] = 'many'"; do
		mutate_record "$T/rec" "$T/bad" "$change"
		assert_rejected "$T/bad" "$change (closed)" "$T/bad:2: \$"
		local status=0
		python3 tests/validate_records.py --as-published "$T/bad" 2>/dev/null || status=$?
		assert_eq "$status" 1 "the published schema's verdict on: $change"
	done
}

# What is not one record per line is refused before the schema is asked, and usage errors are
# told apart from invalid records. Needs no root: no record of foliostat's is involved.
test_schema_validator_refuses_what_is_not_a_record() {
	local status=0
	: >"$T/empty"
	python3 tests/validate_records.py "$T/empty" || fail "a file without records: exit status $?"
	printf '{"schema": 1}\n' >"$T/bad"
	assert_rejected "$T/bad" "a record of one member" "$T/bad:1: \$: "
	printf '{"schema": 1, "schema": 1}\n' >"$T/bad"
	assert_rejected "$T/bad" "a member twice" 'member "schema" appears twice'
	printf '{"interval_s": NaN}\n' >"$T/bad"
	assert_rejected "$T/bad" "NaN" "NaN is not JSON"
	printf '{"schema": 1' >"$T/bad"
	assert_rejected "$T/bad" "a line cut short" "no newline at the end"
	printf '\n' >"$T/bad"
	assert_rejected "$T/bad" "an empty line" "an empty line"
	printf '{"comm": "\xff"}\n' >"$T/bad"
	assert_rejected "$T/bad" "invalid UTF-8" "invalid UTF-8"
	status=0
	printf 'x\n' | python3 tests/validate_records.py - 2>"$T/err" || status=$?
	assert_eq "$status" 1 "exit status for an invalid record on standard input"
	grep -q '^-:1: invalid JSON' "$T/err" || fail "message for standard input: $(cat "$T/err")"
	local args
	for args in "" "--bogus" "$T/no-such-file"; do
		status=0
		# shellcheck disable=SC2086 # split on purpose
		python3 tests/validate_records.py $args 2>/dev/null || status=$?
		assert_eq "$status" 2 "exit status for '$args'"
	done
}
