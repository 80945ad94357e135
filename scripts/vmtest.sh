#!/bin/bash
# make vmtest [ARCH=arm64]: boot Debian 12's own kernel (Linux 6.1, whose folios, THP mode and
# LRU differ from newer kernels') for x86-64 or arm64 under QEMU with software emulation, run a
# static foliostat there around the test workload, and check the workload's figures as the host
# tests do. Needs root (to install packages) and a minute or two; prints "vmtest: PASS" or
# "vmtest: FAIL: why" and exits 0 or 1.
# Usage: scripts/vmtest.sh [x86|arm64]   (default x86)
# VMTEST_DIR: where it works (build/vmtest, build/vmtest-arm64); VMTEST_TIMEOUT: seconds a boot
# may take (240).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=${1:-x86}
VM_TIMEOUT=${VMTEST_TIMEOUT:-240} # seconds; the VM takes 10-20

fail() {
	echo "vmtest: FAIL: $*"
	exit 1
}

# Per architecture: Debian's kernel package and architecture, QEMU's machine, the console, and
# where the static programs are built. arm64: the `virt` board, and pointer authentication by
# QEMU's own cheap algorithm (the architected one makes the emulation several times slower).
case $ARCH in
x86)
	WORK=${VMTEST_DIR:-build/vmtest}
	KERNEL_FLAVOUR=cloud-amd64 DEB_ARCH=amd64
	QEMU=(qemu-system-x86_64 -accel tcg -cpu max)
	CONSOLE=ttyS0
	STATIC_OUT=build/static
	;;
arm64)
	WORK=${VMTEST_DIR:-build/vmtest-arm64}
	KERNEL_FLAVOUR=cloud-arm64 DEB_ARCH=arm64
	# shellcheck disable=SC2054 # one argument: a CPU model and its option
	QEMU=(qemu-system-aarch64 -accel tcg -M virt -cpu max,pauth-impdef=on)
	CONSOLE=ttyAMA0
	STATIC_OUT=build/arm64
	;;
*) fail "unknown architecture '$ARCH' (x86 or arm64)" ;;
esac
mkdir -p "$WORK"

# What the VM needs from Debian: QEMU, a static busybox for the initramfs, cpio, and for arm64
# the cross toolchain and libraries (installed only when this runs, never by the quick start).
if [ "$ARCH" = arm64 ]; then
	scripts/install-deps.sh --cross arm64 --vmtest arm64 >/dev/null
else
	scripts/install-deps.sh --vmtest x86 >/dev/null
fi

# fetch PACKAGE DIR: Debian's PACKAGE unpacked into DIR (once), with apt-get download and dpkg -x:
# never installed, since a package of another architecture would replace the host's programs.
fetch() {
	[ -d "$2" ] && return 0
	echo "vmtest: fetching $1"
	local tmp="$WORK/download"
	rm -rf "$tmp" && mkdir -p "$tmp"
	(cd "$tmp" && apt-get download -qq "$1" 2>/dev/null) || fail "apt-get download $1 failed"
	dpkg -x "$tmp"/*.deb "$2.tmp" && mv "$2.tmp" "$2"
	rm -rf "$tmp"
}

kernel_pkg=$(apt-cache search --names-only "^linux-image-6\.1\.0-[0-9]+-$KERNEL_FLAVOUR-unsigned\$" |
	awk '{ print $1 }' | sort -V | tail -1)
[ -n "$kernel_pkg" ] || fail "no linux-image-6.1.*-$KERNEL_FLAVOUR-unsigned package (apt-get update?)"
fetch "$kernel_pkg:$DEB_ARCH" "$WORK/kernel"
vmlinuz=$(ls "$WORK"/kernel/boot/vmlinuz-*)
if [ "$ARCH" = arm64 ]; then
	fetch busybox-static:arm64 "$WORK/busybox"
	busybox="$WORK/busybox/bin/busybox"
else
	busybox=/bin/busybox
fi

# Static programs: they must run in an initramfs with no C library.
if [ "$ARCH" = arm64 ]; then
	make -s ARCH=arm64 "$STATIC_OUT/foliostat" "$STATIC_OUT/workload"
else
	make -s STATIC=1 OUTPUT="$STATIC_OUT" BINARY="$STATIC_OUT/foliostat" \
		"$STATIC_OUT/foliostat" "$STATIC_OUT/workload"
fi

root="$WORK/initramfs"
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp,ramfs}
cp "$busybox" "$root/bin/busybox"
for tool in sh mount sleep kill cat ls grep wc echo poweroff mkdir seq dd mkfifo sed cp; do
	ln -s busybox "$root/bin/$tool"
done
cp "$STATIC_OUT/foliostat" "$STATIC_OUT/workload" "$root/bin/"
cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
# Before sysfs is mounted the kernel's BTF is out of reach: foliostat must say so and exit 1.
foliostat -d 1 >/dev/null 2>/tmp/nobtf
echo "vmtest: without BTF: exit $? $(cat /tmp/nobtf)"
mount -t sysfs sysfs /sys
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
echo "vmtest: kernel $(cat /proc/sys/kernel/osrelease)"
echo "vmtest: thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
/bin/foliostat --check
# One-shot, as users run it: one JSON record of the whole run at SIGINT; with --files, whose
# program must load on this kernel too, and --resident, what memory holds at the end.
foliostat -j --files --resident >/tmp/records 2>/tmp/errors &
fs=$!
# Until its start-up is done (no_new_privs), however slow the emulation is on this host: the
# VM's own timeout bounds the wait.
while ! grep -q 'NoNewPrivs:.*1' /proc/$fs/status 2>/dev/null && [ -d /proc/$fs ]; do
	sleep 0.1
done
workload pages 4096 >/tmp/workload
workload thp 16 >>/tmp/workload
workload tlbflip 1000 >>/tmp/workload
# Two NUMA nodes (qemu's -numa): a child bound to node 1 touches 4096 pages and holds them while
# its numa_maps, the kernel's word of where they are, is read.
mkfifo /tmp/go
workload bound 1,4096,hold </tmp/go >/tmp/bound &
bound=$!
exec 3>/tmp/go
while [ ! -s /tmp/bound ]; do sleep 0.1; done
cp "/proc/$(sed -n 's/{"held":\([0-9]*\).*/\1/p' /tmp/bound)/numa_maps" /tmp/numa_maps
echo go >&3
exec 3>&-
wait $bound
# THP faults that find no free huge page (the workload fragments memory and has hugetlb hold
# every free 2 MiB block): with defrag "never" they fall back at once, with "always" they
# compact first, for order 9. Hugetlb's failures leave compaction deferred for the next 64
# tries at most: the workload goes on, up to 256 attempts, until a fault has compacted.
echo never >/sys/kernel/mm/transparent_hugepage/defrag
workload scarce 256,16 >>/tmp/workload
echo always >/sys/kernel/mm/transparent_hugepage/defrag
# ftrace counts the compaction runs independently (the kernel may defer or skip them).
mount -t tracefs tracefs /sys/kernel/tracing
echo 1 >/sys/kernel/tracing/events/compaction/mm_compaction_begin/enable
workload scarce 256,16,512 >>/tmp/workload
echo 0 >/sys/kernel/tracing/events/compaction/mm_compaction_begin/enable
# ramfs (tmpfs would not do: shmem has a page-cache path of its own) puts what is written in
# the page cache, on the unevictable LRU list: 2048 pages by dd.
mount -t ramfs ramfs /ramfs
dd if=/dev/zero of=/ramfs/file bs=4096 count=2048 2>/dev/null
# What memory holds at the end (--resident): 16 MiB of THPs mapped by PMDs, and 8 MiB of THPs of
# which the second half of each is unmapped, held until the VM ends; and what smaps_rollup says
# of the first once foliostat has read it.
workload --linger 600 thp 16 >/tmp/held &
held=$!
workload --linger 600 thphalf 8 >/tmp/half &
while [ ! -s /tmp/held ] || [ ! -s /tmp/half ]; do sleep 0.1; done
sleep 1
kill -INT $fs
wait $fs
echo "vmtest: foliostat exit $?"
echo "vmtest-resident-begin"; cat /tmp/held /tmp/half
grep -E '^(Rss|AnonHugePages):' /proc/$held/smaps_rollup; echo "vmtest-resident-end"
echo "vmtest-errors-begin"; cat /tmp/errors; echo "vmtest-errors-end"
echo "vmtest-workload-begin"; cat /tmp/workload; echo "vmtest-workload-end"
echo "vmtest-records-begin"; cat /tmp/records; echo "vmtest-records-end"
echo "vmtest-trace-begin"; grep mm_compaction_begin: /sys/kernel/tracing/trace; echo "vmtest-trace-end"
echo "vmtest-buddyinfo-begin"; cat /proc/buddyinfo; echo "vmtest-buddyinfo-end"
echo "vmtest-bound-begin"; cat /tmp/bound; echo "vmtest-bound-end"
echo "vmtest-numa-begin"; cat /tmp/numa_maps; echo "vmtest-numa-end"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.gz"

# boot_vm: run the VM to its end, or for at most VM_TIMEOUT seconds; false if it had not
# finished by then.
boot_vm() {
	echo "vmtest: booting $(basename "$vmlinuz") under qemu (tcg)"
	local status=0
	# Two NUMA nodes: node 0 with both CPUs and 2 GiB, as the VM had before it had nodes, and
	# node 1 of 512 MiB of memory alone (as CXL memory is): allocations by node (workload bound).
	# (Two nodes of a CPU each, 1 or 1.5 GiB, had the fragmenting workloads, scarce, OOM-killed
	# now and then on both architectures.)
	timeout "$VM_TIMEOUT" "${QEMU[@]}" -smp 2 -m 2560M -nographic -no-reboot \
		-object memory-backend-ram,size=2G,id=m0 -object memory-backend-ram,size=512M,id=m1 \
		-numa node,memdev=m0,cpus=0-1,nodeid=0 -numa node,memdev=m1,nodeid=1 \
		-kernel "$vmlinuz" -initrd "$WORK/initramfs.gz" \
		-append "console=$CONSOLE panic=-1 quiet transparent_hugepage=always" \
		>"$WORK/console.log" 2>&1 || status=$?
	[ "$status" -ne 124 ]
}

# The emulated machine has been seen to stall once in a dozen runs (the guest's RCU reporting
# a CPU starved for minutes; the same image then passed nine times in a row): one more boot
# after a stall, keeping the stalled one's log for whoever looks into it.
rm -f "$WORK/console.stalled.log"
if ! boot_vm; then
	mv "$WORK/console.log" "$WORK/console.stalled.log"
	echo "vmtest: the VM did not finish in $VM_TIMEOUT s (its log: $WORK/console.stalled.log); booting it again"
	boot_vm || true
fi
grep '^vmtest:' "$WORK/console.log" || true

python3 - "$WORK/console.log" "$ARCH" <<'CHECK' || fail "see $WORK/console.log"
import json, sys

log = open(sys.argv[1], errors="replace").read().replace("\r", "")
arch = sys.argv[2]

def section(name):
    start, end = f"vmtest-{name}-begin\n", f"vmtest-{name}-end"
    if start not in log:
        sys.exit(f"vmtest: no {name} in the console log (did the VM boot?)")
    return log.split(start, 1)[1].split(end, 1)[0]

errors = section("errors").strip()
# (the console may put terminal control sequences before the first line)
nobtf = [l[l.index("vmtest: without BTF: "):] for l in log.splitlines() if "vmtest: without BTF: " in l]
if not nobtf or not nobtf[0].startswith("vmtest: without BTF: exit 1 foliostat: failed to find kernel BTF"):
    sys.exit(f"vmtest: no clear error without BTF: {nobtf}")
print(nobtf[0])
workloads = [json.loads(l) for l in section("workload").splitlines() if l.strip()]
records = [json.loads(l) for l in section("records").splitlines() if l.strip()]
if len(records) != 1:
    sys.exit(f"vmtest: {len(records)} records from a one-shot run; foliostat said: {errors}")
probes = records[0]["probes"]
missing = {k: v for k, v in probes.items() if v != "attached"}
print(f"vmtest: {len(probes) - len(missing)} of {len(probes)} probes attached; not attached: {missing}")

def hist(pid, name):
    total = {}
    for r in records:
        for p in r["processes"]:
            if p["pid"] == pid and p["folios"][name]:
                for order, n in p["folios"][name].items():
                    total[order] = total.get(order, 0) + n
    return total

pages, thp, tlbflip, scarce_never, scarce_always = workloads
ok = True
order0 = hist(pages["pid"], "alloc_movable").get("0", 0)
print(f"vmtest: pages 4096: {order0} order-0 movable folios")
ok &= 4096 <= order0 <= 6000
order9 = hist(thp["pid"], "alloc").get("9", 0)
print(f"vmtest: thp 16 MiB: {order9} order-9 folios")
ok &= order9 == 8
def faults_of(pid, kind):
    counts = [p["faults"][kind] for r in records for p in r["processes"] if p["pid"] == pid]
    return None if None in counts else sum(counts)
faults = faults_of(pages["pid"], "user")
writes = faults_of(pages["pid"], "write")
not_present = faults_of(pages["pid"], "not_present")
print(f"vmtest: pages 4096: {faults} user faults, {json.dumps(writes)} writes, {json.dumps(not_present)} not present")
# Every touched page is a user-mode fault: the host's bound (tests/integration_faults.sh) is the
# pages, plus at most 1,000 of start-up.
ok &= faults is not None and 4096 <= faults <= 4096 + 1000
if arch == "x86":
    # The exceptions tracepoints count faults on this kernel too (its verifier once refused
    # the programs), with their cause: each touched page is a write to a page not present.
    sources = [probes.get(f"exceptions:page_fault_{mode}") for mode in ("user", "kernel")]
    ok &= sources == ["attached", "attached"]
    ok &= writes is not None and not_present is not None
    ok &= 4096 <= (writes or 0) <= faults and 4096 <= (not_present or 0) <= faults
else:
    # No fault tracepoints: perf's page-fault event counts them by mode, and the access and
    # cause, which it cannot tell, are null rather than 0.
    sources = [probes.get("software:page-faults")]
    ok &= sources == ["attached"] and writes is None and not_present is None
print(f"vmtest: fault probes: {sources}")

def of_pid(pid):
    return [p for r in records for p in r["processes"] if p["pid"] == pid]

def of_comm(comm):
    return [p for r in records for p in r["processes"] if p["comm"] == comm]

if arch == "x86":
    # TLB: each of 1000 protection flips sends a shootdown to the reader thread's CPU (fewer
    # when that CPU was briefly idle or running something else); the reader suffers them.
    sent = sum(p["tlb"]["flushes"].get("remote_send_ipi", 0) for p in of_pid(tlbflip["pid"]))
    suffered = sum(p["tlb"]["flushes"].get("remote_shootdown", 0) for p in of_pid(tlbflip["pid"]))
    print(f"vmtest: tlbflip 1000: {sent} shootdown IPIs sent, {suffered} suffered")
    ok &= 1000 <= sent <= 2100 and sent / 2 <= suffered <= sent
else:
    # arm64 flushes by broadcast instructions and never calls the tlb_flush tracepoint: the
    # figures are null, with the reason, not a silent 0.
    tlb = {p["tlb"] is None for p in of_pid(tlbflip["pid"])}
    reason = probes.get("tlb:tlb_flush", "")
    print(f"vmtest: tlbflip 1000: tlb figures {'null' if tlb == {True} else tlb}; tlb:tlb_flush {reason}")
    ok &= tlb == {True} and "not emitted on this architecture" in reason

# Exactly the fields README's table says this kernel and architecture lack are null: the
# workload's process row, path by path.
def null_paths(o, path=""):
    if o is None:
        return [path[1:]]
    return [n for k, v in o.items() for n in null_paths(v, f"{path}.{k}")] if isinstance(o, dict) else []
expected = {"faults.file", "thp.collapse_file", "thp.migrate.large_folio_split",
            "thp.fault_alloc"}
if arch == "arm64":
    expected |= {f"faults.{k}" for k in ("read", "write", "exec", "not_present", "protection")} | {"tlb"}
nulls = {n for p in of_pid(pages["pid"]) for n in null_paths(p)}
# The process's cgroup, taken in the kernel and named from the cgroup2 mount: the root here.
cgroups = {p["cgroup"] for p in of_pid(pages["pid"])}
print(f"vmtest: pages 4096: cgroup {cgroups}")
ok &= cgroups == {"/"}
print(f"vmtest: null fields: {', '.join(sorted(nulls))}")
if nulls != expected:
    print(f"vmtest: expected null: {', '.join(sorted(expected))}")
    ok = False

# Page cache and LRU: dd's 2048 pages into ramfs, order-0 page-cache folios on the
# unevictable list (a per-CPU batch of at most 15 may drain in another task).
dd = of_comm("dd")
cached = sum((p["folios"]["pagecache"] or {}).get("0", 0) for p in dd)
unevictable = sum(p["lru"]["insert"]["unevictable"]["pages"] for p in dd)
print(f"vmtest: dd 2048 pages into ramfs: {cached} order-0 page-cache folios, "
      f"{unevictable} pages onto the unevictable LRU")
ok &= cached == 2048 and 2048 - 30 <= unevictable <= 2048 + 30
# --files: the same 2048 pages under dd's file, named from its dentry and the mount table.
ramfs = [f for f in records[0]["files"] if f["path"] == "/ramfs/file"]
fs = [f for f in records[0]["filesystems"] if f["mount"] == "/ramfs"]
print(f"vmtest: --files: /ramfs/file {[f['pages'] for f in ramfs]} pages; file system "
      f"{[(f['fstype'], f['pages']) for f in fs]}; probe "
      f"{probes.get('filemap:mm_filemap_add_to_page_cache/files')}")
ok &= [f["pages"] for f in ramfs] == [2048] and [f["fstype"] for f in fs] == ["ramfs"]
ok &= fs[0]["pages"] == 2048 if fs else False

# Completed faults, major and minor (perf's events on every architecture): each touched page is
# one minor fault, and every completed fault was a hardware fault first.
minor, major = faults_of(pages["pid"], "minor"), faults_of(pages["pid"], "major")
print(f"vmtest: pages 4096: {minor} minor faults, {major} major")
all_faults = faults + faults_of(pages["pid"], "kernel")
ok &= minor is not None and 4096 <= minor <= all_faults and major == 0

# THP faults with no free huge page: on 6.1 (no memcg:count_memcg_events) the huge pages got
# are null, and each attempt without a block is an order-9 allocation that returned none.
def order9(pid, name):
    return hist(pid, name).get("9", 0)
failed = order9(scarce_never["pid"], "alloc_failed")
got = [p["thp"]["fault_alloc"] for p in of_pid(scarce_never["pid"])]
print(f"vmtest: scarce, defrag never: {scarce_never['attempts']} THP attempts, "
      f"{scarce_never['huge_pages']} huge pages (smaps), {failed} order-9 allocations found "
      f"none, {order9(scarce_never['pid'], 'discarded')} discarded, fault_alloc {got}; "
      f"hugetlb took {scarce_never['hugetlb_taken']}")
ok &= failed >= 1 and failed == scarce_never["attempts"] - scarce_never["huge_pages"]
ok &= order9(scarce_never["pid"], "discarded") == 0 and set(got) == {None}
ok &= "no such tracepoint" in probes.get("memcg:count_memcg_events", "")
# With defrag "always" the attempts compact first, unless the kernel skips compaction (a zone
# that looks able to serve) or defers it after failures: ftrace's count of the process's
# compaction runs says how many ran, at least one (the workload went on past the deferral),
# and every one is a stall charged to order 9.
comp = [p["thp"]["compaction"] for p in of_pid(scarce_always["pid"])]
stalls = sum(c["stalls"] for c in comp)
by9 = sum(c["by_order"].get("9", {}).get("stalls", 0) for c in comp)
traced = sum(1 for l in section("trace").splitlines()
             if l.split()[:1] and l.split()[0].endswith(f"-{scarce_always['pid']}"))
print(f"vmtest: scarce, defrag always: {scarce_always['attempts']} THP attempts, "
      f"{scarce_always['huge_pages']} huge pages, {stalls} compaction stalls, {by9} of them for "
      f"order 9; ftrace: {traced} runs; compact_stall +{scarce_always['compact_stalls']}, "
      f"{scarce_always['compaction_scanned']} pages scanned")
ok &= traced >= 1 and by9 == stalls == traced

# --resident at the end: the holders' THPs as smaps_rollup and the holders themselves say (6.1
# has no PAGEMAP_SCAN: pagemap read whole, smaps_rollup for the PMD mappings).
lines = section("resident").strip().splitlines()
held, half = json.loads(lines[0]), json.loads(lines[1])
rollup = {l.split(":")[0]: int(l.split()[1]) for l in lines[2:]}
resident = records[0]["resident"]
def memory(pid):
    rows = [p["memory"] for p in resident["processes"] if p["pid"] == pid]
    return rows[0] if len(rows) == 1 else None
m, h = memory(held["pid"]), memory(half["pid"])
print(f"vmtest: --resident ({resident['method']}, {resident['processes_read']} processes): "
      f"thp 16: {m and m['anon']['large_folios']} of {held['huge_pages']} huge pages, "
      f"{m and sum(sum(m[t]['pages'].values()) for t in m) * 4} kB against smaps_rollup's {rollup}; "
      f"thphalf 8: {h and h['anon']['large_folios']} of {half['huge_pages']} huge pages")
ok &= resident["method"] == "pagemap" and m is not None and h is not None
ok &= m is not None and 1 <= held["huge_pages"] == m["anon"]["large_folios"]["pmd"]
ok &= m is not None and m["anon"]["large_folios"]["pmd"] * 2048 == rollup.get("AnonHugePages")
ok &= m is not None and sum(sum(m[t]["pages"].values()) for t in m) * 4 == rollup.get("Rss")
ok &= h is not None and 1 <= half["huge_pages"] == h["anon"]["large_folios"]["partial"]
ok &= h is not None and h["anon"]["large_folios"]["pmd"] == 0

# Free memory by block size: the zones and orders /proc/buddyinfo lists (read after the run),
# each zone's fewest blocks of an order never above its last count, the unusable shares in
# [0, 1], and by migrate type (foliostat was root when it opened pagetypeinfo).
buddy = {}
for l in section("buddyinfo").splitlines():
    w = l.replace(",", " ").split()
    if w[:1] == ["Node"]:
        buddy[(int(w[1]), w[3])] = len(w) - 4
free = records[0]["system"]["free_memory"]
zones = {(z["node"], z["zone"]): z for z in free["zones"]} if free else {}
print(f"vmtest: free memory: zones {sorted(zones)} (buddyinfo {sorted(buddy)}), "
      f"{free and free['samples']} samples, by migrate type {free and sorted(free['zones'][0]['by_migrate_type'] or {})}")
ok &= free is not None and set(zones) == set(buddy)
ok &= all(len(z["free_blocks"]) == buddy.get(k) and
          all(z["fewest_free_blocks"][o] <= z["free_blocks"][o] for o in z["free_blocks"]) and
          all(0 <= u <= 1 for u in z["unusable"].values()) and z["by_migrate_type"]
          for k, z in zones.items())

# What a file could hold: ramfs's mappings take no large folio, and 6.1 says so
# (AS_LARGE_FOLIO_SUPPORT clear): the largest order allowed is 0, file and file system.
ram = [f for f in records[0]["files"] if f["path"] == "/ramfs/file"]
print(f"vmtest: --files, ramfs: folio_orders {ram and ram[0]['folio_orders']}, file system "
      f"{fs and fs[0]['max_folio_order_allowed']}")
ok &= len(ram) == 1 and ram[0]["folio_orders"] == {"min": 0, "max": 0}
ok &= bool(fs) and fs[0]["max_folio_order_allowed"] == 0

# Allocations by node: --check says both nodes are counted from page flags; the bound child's
# pages are on node 1 as numa_maps says, none of its folios on node 0; every object's figures
# by node add up to its allocations.
import re
check = [l for l in log.splitlines() if "memory nodes" in l]
print(f"vmtest: {check[0].strip() if check else 'no memory nodes line in --check'}")
ok &= bool(check) and "0, 1: allocations counted per node from page flags, checked on 2" in check[0]
held, bound = [json.loads(l) for l in section("bound").splitlines() if l.strip()]
touched = [l for l in section("numa").splitlines() if re.search(r"\banon=4096\b", l)]
on = {m[0]: int(m[1]) for m in re.findall(r"\bN(\d+)=(\d+)", touched[0])} if len(touched) == 1 else {}
rows = [p for p in records[0]["processes"] if p["pid"] == bound["child"]]
by = rows[0]["folios"]["alloc_by_node"] if rows else None
print(f"vmtest: bound to node 1: numa_maps {on}, foliostat {by}")
ok &= on.get("1") == 4096 and by is not None and by["1"]["pages"] >= 4096 and by["0"]["folios"] == 0
for name, o in [("system", records[0]["system"])] + [(p["pid"], p) for p in records[0]["processes"]]:
    f = o["folios"]
    alloc = f["alloc"] or {}
    got = (sum(v["folios"] for v in f["alloc_by_node"].values()), sum(v["pages"] for v in f["alloc_by_node"].values()))
    if sorted(f["alloc_by_node"]) != ["0", "1"] or got != (sum(alloc.values()), sum(n << int(k) for k, n in alloc.items())):
        print(f"vmtest: {name}: by node {f['alloc_by_node']} vs alloc {alloc}")
        ok = False
ok &= sorted(records[0]["system"]["folios"]["alloc_by_node_and_order"]) == ["0", "1"]
# By node and order, per process too: the bound child's folios all on node 1, and for every
# process and the system, over the nodes, its allocations by order, but for those under way at
# the record's two reads (one per CPU at each, of the VM's 2: see tests/invariant.py).
by_order = rows[0]["folios"]["alloc_by_node_and_order"] if rows else None
print(f"vmtest: bound to node 1, by node and order: {by_order}")
ok &= by_order is not None and not by_order["0"] and sum(n << int(o) for o, n in by_order["1"].items()) >= 4096
for name, o in [("system", records[0]["system"])] + [(p["pid"], p) for p in records[0]["processes"]]:
    f = o["folios"]
    over = {}
    for hist in f["alloc_by_node_and_order"].values():
        for order, n in hist.items():
            over[order] = over.get(order, 0) + n
    alloc = f["alloc"] or {}
    if any(abs(over.get(k, 0) - alloc.get(k, 0)) > 2 * 2 for k in set(over) | set(alloc)):
        print(f"vmtest: {name}: by node and order {f['alloc_by_node_and_order']} vs alloc {f['alloc']}")
        ok = False
sys.exit(0 if ok else "vmtest: figures off")
CHECK
echo "vmtest: PASS"
