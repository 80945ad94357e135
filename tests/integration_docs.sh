# shellcheck shell=bash
# The documentation that the figure registry (user/output/figures.c) generates: the checked-in copies
# must be what `make docs` writes from the registry, so that a figure's name, labels or meaning
# changed in one place is changed everywhere.

# foliostat(8)'s generated parts (between `.\" generated: NAME` and `.\" end of generated:
# NAME`) are what build/gen-docs makes of the registry now.
test_docs_man_page_generated_parts_are_current() {
	make -s build/gen-docs >/dev/null || fail "cannot build build/gen-docs"
	local parts
	parts=$(grep -c '^\.\\" generated: ' man/foliostat.8) || fail "no generated part in foliostat(8)"
	assert_between "$parts" 1 100 "generated parts of foliostat(8)"
	build/gen-docs man/foliostat.8 >"$T/man" || fail "gen-docs failed"
	diff -u man/foliostat.8 "$T/man" >"$T/diff" ||
		fail "foliostat(8) differs from what the registry generates (run make docs): $(head -40 "$T/diff")"
	echo "ok: $parts generated parts of foliostat(8) as the registry makes them"
	# Each generated family is one the exporter's registry names: every .B line inside.
	local families
	families=$(awk '/^\.\\" generated: per-group families/,/^\.\\" end of generated/' man/foliostat.8 |
		grep -c '^\.B foliostat_') || fail "no family in the generated list"
	assert_between "$families" 10 1000 "families in the generated per-group list"
}

# docs/foliostat.schema.json is what scripts/gen-schema.py makes of its frame and of the figures
# build/gen-docs lists from the registry, in each of the three places a group's figures are
# written; and foliostat(8) lists each of them.
test_docs_schema_is_generated_from_the_registry() {
	make -s build/gen-docs >/dev/null || fail "cannot build build/gen-docs"
	build/gen-docs --schema-figures >"$T/figures.json" || fail "gen-docs --schema-figures failed"
	scripts/gen-schema.py scripts/schema-frame.json "$T/figures.json" >"$T/schema.json" ||
		fail "gen-schema.py failed"
	diff -u docs/foliostat.schema.json "$T/schema.json" >"$T/diff" ||
		fail "the schema differs from what the registry generates (run make docs): $(head -40 "$T/diff")"
	echo "ok: docs/foliostat.schema.json as the registry makes it"
	# A figure object in every generated scope, and the man page's list: one entry per row.
	python3 - "$T/figures.json" <<'PY' || fail "generated figures incomplete"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["row"]["required"] == ["folios", "faults", "tlb", "lru", "thp", "reclaim"], g["row"]["required"]
assert g["group"]["required"] == ["folios", "faults", "tlb", "lru", "thp"], g["group"]["required"]
assert g["system"]["required"][-4:] == ["interrupt", "untracked", "unselected", "processes"]
PY
	local entries
	entries=$(awk '/^\.\\" generated: record figures/,/^\.\\" end of generated/' man/foliostat.8 |
		grep -c '^\.TP') || fail "no entry in the generated record figures"
	assert_between "$entries" 80 1000 "entries in the generated record figures"
}
