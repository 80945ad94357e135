# shellcheck shell=bash
# The loader's layers depend one way (scripts/check-layers.py says which they are): main, runs
# -> serve, cli -> output -> group -> collect -> resident -> bpf, with user/'s small helpers as a
# base any of them may use; by their includes, and by the symbols their objects use. Needs no
# root: nothing runs.

# No file of user/ includes a header of a layer above its own or beside it, and no header
# includes itself through others.
test_layers_no_include_reaches_upward() {
	scripts/check-layers.py user >"$T/findings" ||
		fail "includes against the layers: $(cat "$T/findings")"
	cat "$T/findings"
}

# Nor does an object of user/ use a function or variable that a higher layer's object defines,
# declared in whichever header: what the includes do not show, the linker's symbols do.
test_layers_no_object_uses_a_higher_layer() {
	make -s foliostat >/dev/null || fail "cannot build foliostat"
	scripts/check-layers.py user --objects build >"$T/findings" ||
		fail "symbols against the layers: $(cat "$T/findings")"
	cat "$T/findings"
}

# The check resolves an include as the build does: the Makefile gives the compiler every folder
# of user/ (and bpf/) with -I, so `#include "options.h"` from anywhere is cli/'s options.h.
test_layers_makefile_includes_every_folder() {
	local dirs folder
	dirs=" $(sed -n 's/^USER_DIRS := //p' Makefile) "
	[ "$dirs" != "  " ] || fail "no USER_DIRS line in the Makefile"
	for folder in user user/*/; do
		folder=${folder%/}
		[[ $dirs == *" $folder "* ]] || fail "$folder is not in the Makefile's USER_DIRS:$dirs"
	done
	for folder in $dirs; do
		[ -d "$folder" ] || fail "USER_DIRS names $folder, which is no folder"
	done
	grep -q -- '-Ibpf ' Makefile || fail "the Makefile no longer gives -Ibpf"
	echo "ok: USER_DIRS is every folder of user/:$dirs"
}

# The check itself finds each kind of defect, in a small tree made for it: it is no use if it
# passes a tree that breaks the layers.
test_layers_check_finds_each_defect() {
	local tree=$T/tree
	make_tree() {
		rm -rf "$tree"
		mkdir -p "$tree/user/cli" "$tree/user/serve" "$tree/user/output" "$tree/user/group" \
			"$tree/user/collect" "$tree/user/resident" "$tree/bpf"
		echo '#include "shared.h"' >"$tree/user/resident/rss.h"
		echo '#include "rss.h"' >"$tree/user/collect/loader.h"
		printf '#include "loader.h"\n#include "array.h"\n' >"$tree/user/collect/loader.c"
		echo '#include "loader.h"' >"$tree/user/group/row_table.h"
		echo '#include "row_table.h"' >"$tree/user/cli/options.h"
		echo '#include "row_table.h"' >"$tree/user/serve/http.c"
		echo '#include "options.h"' >"$tree/user/runs.c"
		echo '#include "runs.h"' >"$tree/user/main.c"
		: >"$tree/user/runs.h"
		: >"$tree/user/array.h"
		: >"$tree/bpf/shared.h"
	}
	expect_findings() { # WHAT COUNT PATTERN: the check fails with COUNT findings, one of PATTERN
		local status=0
		scripts/check-layers.py "$tree/user" >"$T/out" || status=$?
		assert_eq "$status" 1 "the check's exit status on $1"
		grep -q -- "$3" "$T/out" || fail "$1: no finding '$3' in: $(cat "$T/out")"
		assert_eq "$(grep -c -v '^check-layers: ' "$T/out")" "$2" "findings on $1"
		echo "ok: $1 found: $(grep -- "$3" "$T/out")"
	}
	make_tree
	scripts/check-layers.py "$tree/user" >"$T/out" ||
		fail "a tree that keeps the layers fails: $(cat "$T/out")"
	echo '#include "options.h"' >>"$tree/user/collect/loader.c"
	expect_findings "collect/ including cli/" 1 "loader.c: includes .*cli/options.h (cli/ is above collect/)"
	# An angle include finds user/'s headers through -I too: held to the same order.
	make_tree
	echo '#include <options.h>' >>"$tree/user/collect/loader.c"
	echo '#include <stdio.h>' >>"$tree/user/collect/loader.c"
	expect_findings "collect/ including cli/ by <>" 1 "loader.c: includes .*cli/options.h (cli/ is above collect/)"
	make_tree
	echo '#include "runs.h"' >"$tree/user/output/render.c"
	expect_findings "output/ including the wiring" 1 "render.c: includes .*runs.h (top/ is above output/)"
	make_tree
	echo '#include "row_table.h"' >"$tree/user/array.c"
	expect_findings "the base including group/" 1 "array.c: includes .*group/row_table.h (group/ is above base/)"
	make_tree
	echo '#include "http.h"' >>"$tree/user/cli/options.h"
	: >"$tree/user/serve/http.h"
	expect_findings "cli/ including serve/" 1 "options.h: includes .*serve/http.h (serve/ is beside cli/)"
	make_tree
	echo '#include "row_table.h"' >"$tree/user/group/regroup.h"
	echo '#include "regroup.h"' >>"$tree/user/group/row_table.h"
	expect_findings "a header cycle" 1 "header cycle: .*regroup.h -> .*row_table.h -> .*regroup.h"
	make_tree
	: >"$tree/user/output/loader.h"
	expect_findings "a header name in two folders" 1 "loader.h: in .* and "
	make_tree
	echo '#include "nowhere.h"' >>"$tree/user/group/row_table.h"
	expect_findings "an include found nowhere" 1 'row_table.h: includes "nowhere.h", found in no folder'
	# A call to a function of cli/ from group/, declared where the includes cannot see it.
	make_tree
	mkdir -p "$tree/build/cli" "$tree/build/group"
	echo 'int parse_width(void) { return 80; }' >"$tree/user/cli/width.c"
	printf 'int parse_width(void);\nint window_width(void) { return parse_width(); }\n' \
		>"$tree/user/group/width.c"
	cc -c -o "$tree/build/cli/width.o" "$tree/user/cli/width.c" &&
		cc -c -o "$tree/build/group/width.o" "$tree/user/group/width.c" || fail "cc"
	scripts/check-layers.py "$tree/user" >"$T/out" ||
		fail "the includes alone fail the tree: $(cat "$T/out")"
	local status=0
	scripts/check-layers.py "$tree/user" --objects "$tree/build" >"$T/out" || status=$?
	assert_eq "$status" 1 "the check's exit status on group/ calling cli/"
	grep -q "group/width.c: uses parse_width, defined in .*cli/width.c (cli/ is above group/)" \
		"$T/out" || fail "no finding of group/ calling cli/ in: $(cat "$T/out")"
	echo "ok: group/ calling cli/ found by the objects' symbols"
	# No object where the sources say there should be: a finding, never a quiet pass.
	status=0
	scripts/check-layers.py "$tree/user" --objects "$tree/nowhere" >"$T/out" || status=$?
	assert_eq "$status" 1 "the check's exit status without objects"
	grep -q "no object of" "$T/out" || fail "no finding without objects in: $(cat "$T/out")"
	echo "ok: a folder without objects is a finding"
}
