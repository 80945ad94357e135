#!/usr/bin/env python3
"""Runs a program from an image's root file system as a container runtime would run a
container's process, without the runtime (which some hosts refuse):

  container_run.py ROOT CAPS [--read-only] [--no-new-privs] -- PROGRAM ARGS...

In a mount namespace of its own (run it under `unshare --mount --propagation private`): the
host's /proc, /sys and /dev bound into ROOT, ROOT read-only with --read-only, then chroot into
ROOT, every capability but CAPS (comma-separated names without CAP_, e.g. BPF,PERFMON) dropped
from the bounding set, no_new_privs with --no-new-privs (Kubernetes' allowPrivilegeEscalation:
false), and PROGRAM executed as root: its capabilities are then CAPS alone. The process stays
the same one throughout: the caller's pid for this script is PROGRAM's.
"""
import ctypes
import os
import subprocess
import sys

PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
# The capability numbers of <linux/capability.h> that a container's list may name.
CAPS = {"CHOWN": 0, "DAC_OVERRIDE": 1, "DAC_READ_SEARCH": 2, "FOWNER": 3, "FSETID": 4, "KILL": 5,
        "SETGID": 6, "SETUID": 7, "SETPCAP": 8, "NET_BIND_SERVICE": 10, "NET_RAW": 13,
        "IPC_LOCK": 14, "SYS_CHROOT": 18, "SYS_PTRACE": 19, "SYS_ADMIN": 21,
        "SYS_RESOURCE": 24, "MKNOD": 27, "AUDIT_WRITE": 29, "SETFCAP": 31, "PERFMON": 38,
        "BPF": 39, "CHECKPOINT_RESTORE": 40}


def main():
    if "--" not in sys.argv or sys.argv.index("--") < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    split = sys.argv.index("--")
    root, caps, flags, argv = sys.argv[1], sys.argv[2], sys.argv[3:split], sys.argv[split + 1:]
    keep = set()
    for name in filter(None, caps.split(",")):
        if name not in CAPS:
            sys.exit(f"container_run.py: unknown capability {name}")
        keep.add(CAPS[name])
    # Read-only first: a bind of ROOT onto itself would hide what is mounted below it.
    if "--read-only" in flags:
        subprocess.run(["mount", "--bind", root, root], check=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", root], check=True)
    for d in ("proc", "sys", "dev"):
        subprocess.run(["mount", "--rbind", f"/{d}", os.path.join(root, d)], check=True)
    os.chroot(root)
    os.chdir("/")
    libc = ctypes.CDLL(None, use_errno=True)
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last + 1):
        if cap not in keep and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0):
            sys.exit(f"container_run.py: PR_CAPBSET_DROP {cap}: {os.strerror(ctypes.get_errno())}")
    if "--no-new-privs" in flags and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
        sys.exit(f"container_run.py: PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}")
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
