#!/usr/bin/env python3
"""Copy the kernel's BTF out of a kernel image (an arm64 Image, as Debian ships it in
/boot/vmlinuz-*, gzip-compressed or not), where no ELF section says where it is.

The image holds the .BTF section as loaded: one blob that starts with the BTF header (magic
0xeB9F, version 1, a 24-byte header) and ends after its type and string sections.
Usage: extract-btf.py IMAGE OUT"""
import gzip
import struct
import sys

HEADER = struct.Struct("<HBBIIIII")  # magic, version, flags, hdr_len, type/str offsets and lengths


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract-btf.py IMAGE OUT")
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    start = data.find(struct.pack("<HBBI", 0xEB9F, 1, 0, HEADER.size))
    if start < 0:
        sys.exit(f"extract-btf: no BTF in {sys.argv[1]} (a kernel built without CONFIG_DEBUG_INFO_BTF?)")
    _, _, _, hdr_len, type_off, type_len, str_off, str_len = HEADER.unpack_from(data, start)
    end = start + hdr_len + max(type_off + type_len, str_off + str_len)
    if end > len(data):
        sys.exit(f"extract-btf: the BTF header in {sys.argv[1]} runs past the image's end")
    open(sys.argv[2], "wb").write(data[start:end])


if __name__ == "__main__":
    main()
