# shellcheck shell=bash
# The documentation that the figure registry (user/output/record_layout.c, metric_families.c)
# generates: the checked-in copies must be what `make docs` writes from the registry, so that a
# figure's name, labels or meaning changed in one place is changed everywhere. And foliostat(8)'s
# options, against --help.

# The man pages' generated parts (between `.\" generated: NAME` and `.\" end of generated:
# NAME`) and docs/prometheus.md's (between `<!-- generated: NAME -->` and `<!-- end of generated:
# NAME -->`) are what build/gen-docs makes of the registry now: foliostat-metrics(7)'s families,
# every one of them, and the Markdown tables of them; foliostat-json(5)'s record figures;
# foliostat(8) has only its OPTIONS (from the option rows, below), and says where the others are.
test_docs_man_page_generated_parts_are_current() {
	make -s build/gen-docs >/dev/null || fail "cannot build build/gen-docs"
	local page parts
	for page in man/foliostat.8 man/foliostat-json.5 man/foliostat-metrics.7 docs/prometheus.md; do
		parts=$(grep -c '^\.\\" generated: \|^<!-- generated: ' "$page")
		build/gen-docs "$page" >"$T/man" || fail "gen-docs $page failed"
		diff -u "$page" "$T/man" >"$T/diff" ||
			fail "$page differs from what the registry generates (run make docs): $(head -40 "$T/diff")"
		echo "ok: $parts generated parts of $page as the registry makes them"
	done
	assert_eq "$(grep -c '^\.\\" generated: ' man/foliostat-metrics.7)" 5 "generated parts of foliostat-metrics(7)"
	assert_eq "$(grep -c '^<!-- generated: ' docs/prometheus.md)" 5 "generated tables of docs/prometheus.md"
	# Every family the metrics page lists is generated: no .B foliostat_ entry outside a part.
	awk '/^\.\\" generated: /{g=1} /^\.\\" end of generated: /{g=0} !g && /^\.TP$/{getline; print}' \
		man/foliostat-metrics.7 | grep '^\.B foliostat_' &&
		fail "foliostat-metrics(7) has a family written by hand (move it to metric_families.c)"
	assert_eq "$(grep -c '^\.\\" generated: ' man/foliostat-json.5)" 1 "generated parts of foliostat-json(5)"
	grep -q '^\.BR foliostat\\-json (5)' man/foliostat.8 && grep -q '^\.BR foliostat\\-metrics (7)' man/foliostat.8 ||
		fail "foliostat(8) does not name the pages its records and metrics moved to"
	# Each generated family is one the exporter's registry names: every .B line inside.
	local families
	families=$(awk '/^\.\\" generated: per-group families/,/^\.\\" end of generated/' man/foliostat-metrics.7 |
		grep -c '^\.B foliostat_') || fail "no family in the generated list"
	assert_between "$families" 10 1000 "families in the generated per-group list"
}

# The options' docs are what build/gen-docs makes of the option rows (user/cli/option_rows.c):
# foliostat(8)'s OPTIONS, README.md's options tables and the bash completion's options and
# values; each has an entry for every option --help shows, and only those.
test_docs_options_are_generated_from_the_rows() {
	make -s build/gen-docs >/dev/null || fail "cannot build build/gen-docs"
	local file help
	for file in man/foliostat.8 README.md contrib/bash-completion/foliostat; do
		build/gen-docs "$file" >"$T/file" || fail "gen-docs $file failed"
		diff -u "$file" "$T/file" >"$T/diff" ||
			fail "$file differs from what the option rows generate (run make docs): $(head -40 "$T/diff")"
	done
	assert_eq "$(grep -c '^\.\\" generated: options$' man/foliostat.8)" 1 "options part of foliostat(8)"
	assert_eq "$(grep -c '^<!-- generated: options table -->$' README.md)" 1 "options part of README.md"
	assert_eq "$(grep -c '^# generated: completion options$' contrib/bash-completion/foliostat)" 1 \
		"options part of the bash completion"
	# The long options --help lists (its lines that begin with an option), each once in each.
	"$FOLIOSTAT" --help >"$T/help" || fail "--help"
	help=$(grep -E '^  (-[a-zA-Z], |    )--' "$T/help" | sed -E 's/^ +(-[a-zA-Z], )?--([a-z.-]+).*/\2/' | sort)
	assert_between "$(echo "$help" | wc -l)" 25 100 "options in --help"
	assert_eq "$(awk '/^\.\\" generated: options/,/^\.\\" end of generated/' man/foliostat.8 |
		grep -A1 '^\.TP' | sed -nE 's/^\.B[IR]? (\\-[a-zA-Z] ", " )?\\-\\-([a-z.-]+).*/\2/p' | sort)" \
		"$help" "options of foliostat(8)'s OPTIONS"
	# shellcheck disable=SC2016 # (backquotes of Markdown)
	assert_eq "$(sed -nE 's/^\| (`-[a-zA-Z]`, )?`--([a-z.-]+).*/\2/p' README.md | sort)" "$help" \
		"options of README.md's tables"
	local name
	for name in $help; do
		sed -n "/^_foliostat_options='/,/'\$/p" contrib/bash-completion/foliostat | grep -qE -- "(^|[ '])--$name( |'|\$)" ||
			fail "--$name is not in the bash completion's options"
	done
	echo "ok: $(echo "$help" | wc -l) options alike in --help, foliostat(8), README.md and the completion"
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
assert g["system"]["required"][-5:] == ["interrupt", "untracked", "unselected", "processes", "free_memory"]
PY
	local entries
	entries=$(awk '/^\.\\" generated: record figures/,/^\.\\" end of generated/' man/foliostat-json.5 |
		grep -c '^\.TP') || fail "no entry in the generated record figures"
	assert_between "$entries" 80 1000 "entries in the generated record figures"
}

# Every example command line of the README, of docs/*.md (the guide, the records, the
# exporter) and of foliostat(8)'s EXAMPLES parses as foliostat parses its own
# (build/unit-tests --parse): an option renamed or refused fails here, not in a reader's shell.
# Needs no root: nothing runs.
test_docs_every_example_parses() {
	make -s build/unit-tests >/dev/null || fail "cannot build build/unit-tests"
	python3 - README.md docs/*.md man/foliostat.8 >"$T/examples" <<'PY' ||
import re, shlex, sys

def command(line):
    """foliostat's arguments in an example line, or None: after sudo and variables, before a
    comment or a pipe."""
    line = re.sub(r"\s#\s.*$", "", line).split(" | ")[0].strip()
    words = shlex.split(line)
    while words and (words[0] == "sudo" or re.match(r"^[A-Z_]+=", words[0])):
        words.pop(0)
    return words[1:] if words and words[0] in ("foliostat", "./foliostat") else None

for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    if path.endswith(".8"):
        section = text.split("\n.SH EXAMPLES\n", 1)[1].split("\n.SH ", 1)[0]
        lines = [l[3:].replace("\\-", "-") for l in section.split("\n") if l.startswith(".B ")]
    else:
        lines = [l for block in re.findall(r"```sh\n(.*?)```", text, re.S) for l in block.split("\n")]
    for line in lines:
        args = command(line)
        if args is not None:
            print(path + "\t" + "\t".join(args))
PY
		fail "cannot read the examples"
	local n=0 path args
	while IFS=$'\t' read -r path args; do
		local argv=()
		IFS=$'\t' read -r -a argv <<<"$args"
		build/unit-tests --parse "${argv[@]}" 2>"$T/err" ||
			fail "$path: the example 'foliostat ${argv[*]}' does not parse: $(cat "$T/err")"
		n=$((n + 1))
	done <"$T/examples"
	assert_between "$n" 20 1000 "example command lines checked"
	for path in README.md docs/reading-the-output.md man/foliostat.8; do
		grep -q "^$path"$'\t' "$T/examples" || fail "no example found in $path"
	done
}

# Every bounded structure (user/bounds.c) is listed, with its limit and rule, in foliostat(8)'s
# SECURITY, named in foliostat-json(5)'s self.bounds and foliostat-metrics(7), and allowed by the
# schema: a structure added in the code and not in the docs fails here.
test_docs_every_bound_is_documented() {
	local names name security
	names=$(sed -n 's/^ *\[BOUND_[A-Z_]*\] = {"\([a-z_]*\)",.*/\1/p' user/bounds.c)
	assert_between "$(echo "$names" | wc -w)" 6 100 "bounded structures found in user/bounds.c"
	security=$(awk '/^\.SH SECURITY/,/^\.SH NOTES/' man/foliostat.8)
	for name in $names; do
		echo "$security" | grep -qx "\.B $name" ||
			fail "$name: no .TP entry in foliostat(8) SECURITY"
		grep -q "$name" man/foliostat-json.5 || fail "$name: not in foliostat-json(5)"
		grep -q "$name" man/foliostat-metrics.7 || fail "$name: not in foliostat-metrics(7)"
		python3 -c "import json, sys
s = json.load(open('docs/foliostat.schema.json'))
names = s['definitions']['self']['properties']['bounds']['propertyNames']['enum']
sys.exit(0 if sys.argv[1] in names else 1)" "$name" || fail "$name: not in the schema's self.bounds"
	done
	echo "ok: $(echo "$names" | wc -w) bounded structures documented"
}

# No HELP text is written outside the registry of families (user/output/metric_families.c): the
# one "# HELP" of the user-space code is the line exposition.c's expo_family() writes from a row,
# and no writer passes it a text of its own (unit:every_help_line_is_its_registry_row_s checks the
# text written).
test_docs_no_help_text_outside_the_registry() {
	local hits
	hits=$(grep -rn --include='*.c' --include='*.h' '# HELP\|HELP %' user/) || true
	assert_eq "$(echo "$hits" | grep -c .)" 1 "places in user/ that write a HELP line: $hits"
	echo "$hits" | grep -q '^user/output/exposition.c:.*"# HELP %\.\*s %s\\n# TYPE' ||
		fail "the HELP line is not expo_family()'s: $hits"
	grep -rn --include='*.c' 'family(x, "' user/ && fail "a family written with a name and HELP of its own"
	echo "ok: one HELP line, from the registry's rows"
}

# Every option in --help is in the man page, and the man page names no other.
test_help_and_man_page_agree() {
	local help man
	help=$("$FOLIOSTAT" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	man=$(grep -oE -- '\\-\\-[a-z][a-z-]+|--[a-z][a-z-]+' man/foliostat.8 | sed 's/\\//g' | sort -u)
	assert_eq "$man" "$help" "long options in the man page vs --help"
}
