#!/usr/bin/env python3
"""Reads an OCI image archive (`podman save --format oci-archive`) the way a container runtime
would, without one:

  oci_image.py ARCHIVE config          the image's configuration (JSON: architecture, os,
                                       config.Labels, config.Entrypoint, ...)
  oci_image.py ARCHIVE rootfs DIR      its root file system: every layer, in order, unpacked
                                       into DIR (whiteouts applied)

So the tests check what the image holds, not the build tree it was made from. Exit 1 with a
message when the archive is not an OCI image; 2 on a usage error.
"""
import json
import os
import shutil
import sys
import tarfile


def blob(archive, digest):
    algorithm, _, hexdigest = digest.partition(":")
    member = archive.extractfile(f"blobs/{algorithm}/{hexdigest}")
    if member is None:
        raise SystemExit(f"oci_image.py: no blob {digest}")
    return member


def manifest(archive):
    index = json.load(archive.extractfile("index.json"))
    manifests = index.get("manifests") or []
    if len(manifests) != 1:
        raise SystemExit(f"oci_image.py: {len(manifests)} manifests in index.json, not one")
    return json.load(blob(archive, manifests[0]["digest"]))


def unpack(archive, layer, root):
    with tarfile.open(fileobj=blob(archive, layer["digest"]), mode="r:*") as tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name).lstrip("/")
            if name.startswith(".."):
                raise SystemExit(f"oci_image.py: a layer writes outside the root: {member.name}")
            base = os.path.basename(name)
            if base.startswith(".wh."):
                gone = os.path.join(root, os.path.dirname(name), base[len(".wh."):])
                if os.path.isdir(gone) and not os.path.islink(gone):
                    shutil.rmtree(gone)
                elif os.path.lexists(gone):
                    os.remove(gone)
                continue
            tar.extract(member, root, set_attrs=True, numeric_owner=True)


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("config", "rootfs") or \
            (sys.argv[2] == "rootfs") != (len(sys.argv) == 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with tarfile.open(sys.argv[1]) as archive:
        m = manifest(archive)
        if sys.argv[2] == "config":
            print(json.dumps(json.load(blob(archive, m["config"]["digest"])), indent=1))
            return
        os.makedirs(sys.argv[3], exist_ok=True)
        for layer in m["layers"]:
            unpack(archive, layer, sys.argv[3])


if __name__ == "__main__":
    main()
