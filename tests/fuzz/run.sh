#!/bin/bash
# Runs each fuzz target of build/fuzz/ (`make fuzz` builds them) for SECONDS (60 unless given),
# from its seeds in tests/fuzz/corpus/NAME/ and what earlier runs found (build/fuzz/corpus/NAME/,
# where new inputs go: the seeds in the tree stay as they are). A crash, leak, undefined
# behaviour or broken promise stops a target with its input in build/fuzz/crashes/; the run
# ends with status 1 when any target did. Usage: tests/fuzz/run.sh [SECONDS [NAME...]]
set -u
cd "$(dirname "$0")/../.." || exit 1
seconds=${1:-60}
shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for bin in build/fuzz/fuzz_*; do
		[[ $bin == *.* ]] && continue # (the compiler's .d files)
		names+=("${bin#build/fuzz/fuzz_}")
	done
fi
failed=0
mkdir -p build/fuzz/crashes
for name in "${names[@]}"; do
	mkdir -p "build/fuzz/corpus/$name"
	echo "fuzz_$name: ${seconds}s"
	if ! "build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="build/fuzz/crashes/${name}-" -print_final_stats=1 \
		"build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"build/fuzz/$name.log" 2>&1; then
		echo "FAIL fuzz_$name (build/fuzz/$name.log):"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*broken promise|artifact_prefix)' \
			"build/fuzz/$name.log" | head -20 | sed 's/^/    /'
		failed=1
	fi
done
exit "$failed"
