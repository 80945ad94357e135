#!/bin/sh
# The one command to see foliostat work on this host: install what is missing, build, and print
# a summary of the next 10 seconds (or pass foliostat options, e.g. `-d 30` or `-j`).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s
if [ "$#" -eq 0 ]; then
	set -- -d 10
fi
exec ./foliostat "$@"
