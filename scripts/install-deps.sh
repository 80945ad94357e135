#!/bin/sh
# Install what foliostat needs, from the distribution's packages. Idempotent: only missing
# packages are installed. Debian and Ubuntu are handled; elsewhere it prints the list to install
# by hand.
# Usage: scripts/install-deps.sh [--tests] [--cross ARCH] [--vmtest ARCH]
#   (none)          build and run on this host
#   --tests         also the peers the tests check foliostat against (scripts/run-tests.sh)
#   --cross arm64   also a cross build for arm64 (`make ARCH=arm64`, and the dynamic one of the
#                   arm64 image): Debian's cross compiler and the arm64 multiarch libraries
#                   (adds the arm64 architecture to dpkg)
#   --vmtest ARCH   also what `make vmtest ARCH=...` boots the kernel with (QEMU, cpio), and
#                   debootstrap for `make vmtest-suite`'s Debian userland
# The quick start (scripts/run-summary.sh) installs the first group only.
set -eu

# Build and run (what the quick start installs): clang/llvm for BPF, bpftool for skeletons,
# libbpf/libelf/zlib/libcap-ng and libmicrohttpd (the --listen endpoint; libyaml and libcrypt
# for its --web.config.file) for the loader.
PACKAGES="clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcap-ng-dev libmicrohttpd-dev
libyaml-dev libcrypt-dev pkg-config make gcc libc6-dev"
# Tests (--tests): jansson (the unit tests read foliostat's JSON back with it; foliostat does
# not link it), libclang-rt-dev (libFuzzer and the sanitizers' runtimes of the default clang,
# for the fuzz targets: clang only recommends it), python3 (JSON parsing), linux-perf (independent counts), bash-completion (the
# completion's test); bpftrace for the benchmark's peer configuration.
# The exporter's real peers: Prometheus (server and promtool), node_exporter (the
# textfile collector), systemd-analyze (the unit), curl (scrapes), python3-jsonschema (records
# against docs/foliostat.schema.json). Installed, never started: the tests start their own on
# loopback, on free ports.
# openssl (a self-signed certificate) and apache2-utils (htpasswd -B: bcrypt hashes made by
# another implementation than libcrypt's) for --web.config.file. shellcheck: tests/run-tests.sh
# checks every shell file with it before a run. bc: the exporter's flood tests add up their
# counts with it. python3-matplotlib: the docs' pictures are drawn with it (make pictures), and
# the tests draw them again. dpkg-dev, debhelper and lintian: the Debian package is built and
# checked (make deb). podman: the OCI image is built (make image; its test cross-builds the
# arm64 image too, and installs --cross arm64 for it). python3-yaml: the Kubernetes tests read
# the manifests.
TEST_PACKAGES="libjansson-dev libclang-rt-dev python3 linux-perf bpftrace bash-completion
prometheus prometheus-node-exporter systemd curl python3-jsonschema openssl apache2-utils
shellcheck bc python3-matplotlib dpkg-dev debhelper lintian podman python3-yaml"
no_services=""
foreign_arch=""

while [ $# -gt 0 ]; do
	case "$1" in
	--tests)
		PACKAGES="$PACKAGES $TEST_PACKAGES"
		# Node.js and npm: the Kubernetes manifests are validated with the API's schemas
		# from npm packages (tests/kubernetes/). Debian's, unless a Node.js with its own npm
		# is installed already (NodeSource's, which Debian's npm would conflict with).
		command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs npm"
		no_services=1
		shift
		;;
	--cross)
		[ "${2:-}" = arm64 ] || { echo "install-deps: --cross: only arm64 is known" >&2; exit 2; }
		# Libraries of the target architecture: Multi-Arch "same", so they install beside the
		# host's without replacing anything. (Programs of another architecture would replace
		# the host's: none is installed, vmtest unpacks busybox:arm64 with dpkg -x instead.)
		PACKAGES="$PACKAGES gcc-aarch64-linux-gnu libc6-dev-arm64-cross libc6-dev:arm64
libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libcap-ng-dev:arm64 libmicrohttpd-dev:arm64
libyaml-dev:arm64 libcrypt-dev:arm64"
		foreign_arch=arm64
		shift 2
		;;
	--vmtest)
		case "${2:-}" in
		x86) PACKAGES="$PACKAGES qemu-system-x86 busybox-static cpio debootstrap" ;;
		arm64) PACKAGES="$PACKAGES qemu-system-arm cpio" ;;
		*) echo "install-deps: --vmtest: x86 or arm64" >&2; exit 2 ;;
		esac
		shift 2
		;;
	*)
		echo "usage: install-deps.sh [--tests] [--cross arm64] [--vmtest x86|arm64]" >&2
		exit 2
		;;
	esac
done

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
	echo "install-deps: all packages are present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (sudo $0) to install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$foreign_arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign_arch"; then
	dpkg --add-architecture "$foreign_arch"
fi
apt-get update -qq
# The test peers are servers whose packages would start them as services (Prometheus on :9090):
# a policy-rc.d that refuses every start keeps them stopped while they install, as in a chroot.
policy=/usr/sbin/policy-rc.d
if [ -n "$no_services" ] && [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 0755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
