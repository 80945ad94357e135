# shellcheck shell=bash
# The mode of the files records go to: -o's records name other users' processes, cgroups and
# (with --files) files in directories they keep to themselves, so a new -o file is the owner's
# alone; --replace's is read by node_exporter's textfile collector, another user, so it stays
# 0644; --output-mode sets either exactly, whatever the umask. As stat(1) tells it.

test_output_files_are_private_unless_replaced() {
	need_root
	mkdir "$T/out" || fail "setup"
	(umask 022 && "$FOLIOSTAT" -j -d 0.2 -o "$T/out/log.ndjson") || fail "-o: exit status $?"
	assert_eq "$(stat -c %a "$T/out/log.ndjson")" 600 "mode of -o's new file (umask 022)"
	assert_records_valid "$T/out/log.ndjson"
	(umask 022 && "$FOLIOSTAT" -j -d 0.2 --files -o "$T/out/files.ndjson") ||
		fail "-o --files: exit status $?"
	assert_eq "$(stat -c %a "$T/out/files.ndjson")" 600 "mode of -o's new file with --files"
	(umask 022 && "$FOLIOSTAT" -j -d 0.2 --replace "$T/out/latest.json") ||
		fail "--replace: exit status $?"
	assert_eq "$(stat -c %a "$T/out/latest.json")" 644 "mode of --replace's file (umask 022)"
	assert_records_valid "$T/out/latest.json"
	# An existing log keeps the mode its owner gave it.
	chmod 0640 "$T/out/log.ndjson"
	(umask 022 && "$FOLIOSTAT" -j -d 0.2 -o "$T/out/log.ndjson") || fail "-o again: exit status $?"
	assert_eq "$(stat -c %a "$T/out/log.ndjson")" 640 "mode of an existing -o file"
	assert_eq "$(wc -l <"$T/out/log.ndjson")" 2 "records in the log after two runs"
}

test_output_mode_is_exact() {
	need_root
	mkdir "$T/out" || fail "setup"
	(umask 077 && "$FOLIOSTAT" -j -d 0.2 --output-mode 0640 -o "$T/out/log.ndjson") ||
		fail "-o: exit status $?"
	assert_eq "$(stat -c %a "$T/out/log.ndjson")" 640 "mode of -o's file with --output-mode 0640 (umask 077)"
	(umask 022 && "$FOLIOSTAT" -j --output-mode 0600 --replace "$T/out/latest.json" 0.1 3) ||
		fail "--replace: exit status $?"
	assert_eq "$(stat -c %a "$T/out/latest.json")" 600 "mode of --replace's file with --output-mode 0600"
	assert_records_valid "$T/out/latest.json"
	assert_eq "$(find "$T/out" -mindepth 1 -printf "%f\n" | sort | tr "\n" " ")" "latest.json log.ndjson " "files left"
	local args status
	for args in "--output-mode 0640" "-o x --output-mode 0800" "-o x --output-mode 4755" \
		"-o x --output-mode rw" "--replace x --output-mode 600 --output-mode 640"; do
		status=0
		# shellcheck disable=SC2086 # split on purpose
		"$FOLIOSTAT" $args >/dev/null 2>"$T/err" || status=$?
		assert_eq "$status" 2 "exit status for '$args'"
		grep -q '^foliostat: ' "$T/err" || fail "no message for '$args'"
	done
}
