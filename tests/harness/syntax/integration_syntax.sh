# shellcheck shell=bash
# A syntax error between two tests: sourcing stops there, and the second is never defined.

test_before_the_error() {
	true
}

if then

test_after_the_error() {
	true
}
