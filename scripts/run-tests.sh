#!/bin/sh
# The one command to test foliostat: install what is missing, build, run every test (unit tests,
# and integration tests on the live kernel, which need root). Ends with
# "N passed, N failed, N skipped".
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
make -s
exec make -s check
