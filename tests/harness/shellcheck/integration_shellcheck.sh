# shellcheck shell=bash
# Valid bash that shellcheck refuses (SC2086: $T unquoted).

test_unquoted() {
	[ -d $T ] || fail "no test folder"
}
