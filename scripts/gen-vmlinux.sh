#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux.h from a kernel's BTF. The header is checked in so that a
# build needs no BTF of its own; CO-RE relocations adapt the programs to the running kernel.
# Usage: scripts/gen-vmlinux.sh [BTF_FILE [ARCH]]   (defaults: the running kernel, x86)
set -eu
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/vmlinux/$arch/vmlinux.h"
if [ ! -r "$btf" ]; then
	echo "gen-vmlinux: cannot read $btf: the kernel needs CONFIG_DEBUG_INFO_BTF=y" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "gen-vmlinux: wrote $out from $btf ($(uname -r))"
