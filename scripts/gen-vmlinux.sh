#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux.h from a kernel's BTF. The header is checked in so that a
# build needs no BTF of its own; CO-RE relocations adapt the programs to the running kernel.
# Usage: scripts/gen-vmlinux.sh [SOURCE [ARCH]]   (defaults: the running kernel's BTF, x86)
# SOURCE is a BTF file (/sys/kernel/btf/vmlinux), a vmlinux ELF with a .BTF section, or a kernel
# image whose BTF has no section to name it (arm64's /boot/vmlinuz-*: scripts/extract-btf.py).
set -eu
src=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/vmlinux/$arch/vmlinux.h"
if [ ! -r "$src" ]; then
	echo "gen-vmlinux: cannot read $src: the kernel needs CONFIG_DEBUG_INFO_BTF=y" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
btf=$src
# Raw BTF starts with its magic (0xeB9F, little-endian); an ELF with "\177ELF".
case $(head -c 4 "$src" | od -An -tx1 | tr -d ' ') in
9feb* | 7f454c46) ;;
*)
	btf="$out.btf"
	"$top/scripts/extract-btf.py" "$src" "$btf"
	;;
esac
bpftool btf dump file "$btf" format c >"$out.tmp"
[ "$btf" = "$src" ] || rm -f "$btf"
mv "$out.tmp" "$out"
echo "gen-vmlinux: wrote $out from $src"
