# shellcheck shell=bash
# A file whose sourcing fails half-way: the second test is never defined.

test_defined_before() {
	true
}

[ -e /nonexistent/foliostat-harness ] || return 1

test_defined_after() {
	true
}
