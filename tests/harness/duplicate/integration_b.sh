# shellcheck shell=bash
# One of two files that define the same test: the last one sourced replaces the other.

test_same() {
	echo "the definition in integration_b.sh"
}
