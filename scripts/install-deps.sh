#!/bin/sh
# Install what foliostat needs to build and test, from the distribution's packages. Idempotent:
# only missing packages are installed. Debian and Ubuntu are handled; elsewhere it prints the
# list to install by hand.
set -eu

# Build: clang/llvm for BPF, bpftool for skeletons, libbpf/libelf/zlib/jansson/libcap-ng for
# the loader. Tests: python3 (JSON parsing), linux-perf (independent counts); bpftrace for the
# benchmark's peer configuration.
PACKAGES="clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libjansson-dev libcap-ng-dev
pkg-config make gcc libc6-dev python3 linux-perf bpftrace"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
	for pkg in $PACKAGES; do
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		case "$status" in
		*" installed") ;;
		*) missing="$missing $pkg" ;;
		esac
	done
else
	echo "install-deps: not a Debian/Ubuntu system; install the equivalents of:" >&2
	echo "  $PACKAGES" | tr '\n' ' ' >&2
	echo >&2
	exit 1
fi

if [ -z "$missing" ]; then
	echo "install-deps: all build and test packages are present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (sudo $0) to install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
