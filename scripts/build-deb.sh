#!/bin/sh
# make deb: the Debian package (debian/), built by dpkg-buildpackage from a copy of the tree's
# tracked files (what a clone holds; the tree's own build/ is left alone), unsigned, binary only.
# Usage: scripts/build-deb.sh [DIR]: the copy and the .deb go in DIR (default build/deb); prints
# the .deb's path. Needs dpkg-dev, debhelper and the build's packages
# (scripts/install-deps.sh --tests).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build/deb}
version=$(sed -n 's/^VERSION := //p' Makefile)
src=$dir/foliostat-$version
rm -rf "$src"
mkdir -p "$src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$src"
(cd "$src" && dpkg-buildpackage -us -uc -b >../build.log 2>&1) || {
	tail -n 40 "$dir/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (the log: $dir/build.log)" >&2
	exit 1
}
echo "$dir/foliostat_${version}_$(dpkg --print-architecture).deb"
