#!/bin/bash
# make vmtest-suite [NAME=filter]: run the integration suite (tests/run-tests.sh) on Debian 12's
# own kernel (Linux 6.1, the cloud flavour scripts/vmtest.sh boots) with a Debian 12 userland,
# under QEMU with software emulation: the proof that the suite derives what it expects from the
# host it runs on. Needs root (debootstrap, chroot, mke2fs -d) and Debian's package registry.
# Prints every test's result as it comes, then the summary, and exits 0 if the suite passed,
# 1 if not. Slow: see README.md (Testing) for how long the whole suite takes there.
# Usage: scripts/vmtest-suite.sh [NAME-FILTER[,NAME-FILTER...]]   (as tests/run-tests.sh's filter,
# one run each); VERBOSE=1 as
# for tests/run-tests.sh (every test's log, on the console and in build/vmsuite/console.log).
# VMSUITE_DIR: where it works (build/vmsuite); VMSUITE_TIMEOUT: seconds the VM may run (6 h);
# VMSUITE_MEM: the VM's memory (4G); VMSUITE_NODES=2: split into two NUMA nodes of a CPU each
# (allocations by node on 6.1: test_allocations_by_node_are_where_the_kernel_put_them).
set -euo pipefail
cd "$(dirname "$0")/.."
FILTER=${1:-}
WORK=${VMSUITE_DIR:-build/vmsuite}
VM_TIMEOUT=${VMSUITE_TIMEOUT:-21600}
MEM=${VMSUITE_MEM:-4G}
NODES=${VMSUITE_NODES:-1}
NUMA=()
case $NODES in
1) ;;
2)
	half=$(($(numfmt --from=iec "$MEM") / 2 / 1048576))M
	# shellcheck disable=SC2054 # QEMU's options take commas
	NUMA=(-object "memory-backend-ram,size=$half,id=m0" -object "memory-backend-ram,size=$half,id=m1"
		-numa node,memdev=m0,cpus=0,nodeid=0 -numa node,memdev=m1,cpus=1,nodeid=1)
	;;
*) echo "vmtest-suite: VMSUITE_NODES: 1 or 2" >&2; exit 2 ;;
esac
ROOTFS=$WORK/rootfs
KERNEL_DIR=build/vmtest/kernel # scripts/vmtest.sh's: fetched once for both

fail() {
	echo "vmtest-suite: FAIL: $*"
	exit 1
}

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mke2fs -d)"
scripts/install-deps.sh --vmtest x86 >/dev/null
mkdir -p "$WORK"

# Debian's kernel package, unpacked (never installed), as scripts/vmtest.sh fetches it.
if [ ! -d "$KERNEL_DIR" ]; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' |
		awk '{ print $1 }' | sort -V | tail -1)
	[ -n "$pkg" ] || fail "no linux-image-6.1.*-cloud-amd64-unsigned package (apt-get update?)"
	echo "vmtest-suite: fetching $pkg"
	rm -rf "$WORK/download" "$KERNEL_DIR.tmp" && mkdir -p "$WORK/download" "${KERNEL_DIR%/*}"
	(cd "$WORK/download" && apt-get download -qq "$pkg:amd64") || fail "apt-get download $pkg failed"
	dpkg -x "$WORK"/download/*.deb "$KERNEL_DIR.tmp" || fail "dpkg -x $pkg failed"
	mv "$KERNEL_DIR.tmp" "$KERNEL_DIR"
	rm -rf "$WORK/download"
fi
vmlinuz=$(ls "$KERNEL_DIR"/boot/vmlinuz-*)
kver=${vmlinuz##*/vmlinuz-}

# The userland, cached between runs: debootstrap's Debian 12, with what
# `scripts/install-deps.sh --tests` installs, installed by that script itself in a chroot (again
# whenever the script changes, so a package added there is in the next run).
in_chroot() {
	local status=0
	mount -t proc proc "$ROOTFS/proc"
	chroot "$ROOTFS" "$@" || status=$?
	umount "$ROOTFS/proc"
	return "$status"
}
if [ ! -d "$ROOTFS" ]; then
	echo "vmtest-suite: debootstrap bookworm (a few minutes, once)"
	rm -rf "$ROOTFS.tmp"
	debootstrap --variant=minbase --include=procps,kmod,iproute2,sudo,ca-certificates \
		bookworm "$ROOTFS.tmp" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 ||
		fail "debootstrap failed: see $WORK/debootstrap.log"
	mv "$ROOTFS.tmp" "$ROOTFS"
fi
if ! cmp -s scripts/install-deps.sh "$WORK/install-deps.done"; then
	echo "vmtest-suite: installing the test dependencies in the userland"
	cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
	cp scripts/install-deps.sh "$ROOTFS/tmp/install-deps.sh"
	in_chroot /bin/sh /tmp/install-deps.sh --tests >"$WORK/install-deps.log" 2>&1 ||
		fail "install-deps.sh --tests in the chroot failed: see $WORK/install-deps.log"
	in_chroot apt-get clean
	cp scripts/install-deps.sh "$WORK/install-deps.done"
fi

# /etc/hosts as Debian's installer writes it (debootstrap writes none): localhost resolves
# without a network, as on every installed host (--listen localhost:PORT is tested).
printf '127.0.0.1\tlocalhost\n127.0.1.1\tvmsuite\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
	>"$ROOTFS/etc/hosts"

# The kernel's modules, where a Debian host has them (modprobe works in the VM), and the
# virtio disk's in the initramfs, in the order modules.dep gives (dependencies first).
rm -rf "$ROOTFS/lib/modules" && mkdir -p "$ROOTFS/lib/modules"
cp -a "$KERNEL_DIR/lib/modules/$kver" "$ROOTFS/lib/modules/"
chroot "$ROOTFS" /sbin/depmod "$kver"
disk_modules=()
add_module() { # PATH (relative to the modules directory), after its dependencies
	local dep
	case " ${disk_modules[*]} " in *" $1 "*) return 0 ;; esac
	local deps
	deps=$(awk -F': *' -v m="$1" '$1 == m { print $2 }' "$ROOTFS/lib/modules/$kver/modules.dep")
	for dep in $deps; do
		add_module "$dep"
	done
	disk_modules+=("$1")
}
for m in virtio_pci virtio_blk; do
	add_module "$(awk -F: -v m="/$m.ko" 'index($1, m) == length($1) - length(m) + 1 { print $1 }' \
		"$ROOTFS/lib/modules/$kver/modules.dep")"
done
echo "vmtest-suite: disk modules: ${disk_modules[*]##*/}"

initramfs=$WORK/initramfs
rm -rf "$initramfs" && mkdir -p "$initramfs"/{bin,dev,proc,sys,newroot,modules}
cp /bin/busybox "$initramfs/bin/busybox"
for tool in sh mount insmod switch_root sleep cat echo; do
	ln -s busybox "$initramfs/bin/$tool"
done
for m in "${disk_modules[@]}"; do
	cp "$ROOTFS/lib/modules/$kver/$m" "$initramfs/modules/"
done
{
	echo '#!/bin/sh'
	echo 'mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev'
	for m in "${disk_modules[@]}"; do
		echo "insmod /modules/${m##*/}"
	done
	cat <<'INIT'
for _ in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 /dev/vda /newroot || { echo "vmsuite: cannot mount the root disk"; echo o >/proc/sysrq-trigger; }
umount /proc /sys /dev
exec switch_root /newroot /sbin/vmsuite-init
INIT
} >"$initramfs/init"
chmod +x "$initramfs/init"
(cd "$initramfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$WORK/initramfs.gz"

# The init on the root disk: the file systems a Debian host mounts (systemd's), loopback up
# (the exporter's tests serve on it), then the suite as root, its output on the console.
# CI is unset: under CI=true a skipped test fails, and the two tests that boot this very VM
# (test_vmtest_*) cannot run in it (no QEMU and no registry inside): this script fails on any
# other skip instead, which is as strict as CI for every test that can run here.
cat >"$ROOTFS/sbin/vmsuite-init" <<'INIT'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
# What udev links on a Debian host: bash's process substitution opens /dev/fd/N.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 /sys/fs/cgroup
mount -t bpf -o mode=700 bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
# systemd enables every controller in the root cgroup's subtree: do the same.
for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
ip link set lo up
hostname vmsuite
filter=$(sed -n 's/.*vmsuite.filter=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "vmsuite: kernel $(uname -r), $(nproc) CPUs, thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
[ -n "$(sed -n 's/.*vmsuite.verbose=1.*/1/p' /proc/cmdline)" ] && export VERBOSE=1
echo "vmsuite: filter '${filter}'; start $(date -u +%s)"
cd /root/foliostat || exit 1
# The suite's output goes to a file on the disk, which the host reads after the power-off; the
# console gets a copy from a process of its own, since a write to the emulated serial port can
# block for minutes (seen under load), and must not hold up the suite.
log=/root/vmsuite.log
: >"$log"
tail -n +1 -f "$log" &
{
	echo vmsuite-begin
	unset CI
	# Several filters, comma-separated: one run of the suite each.
	status=0
	for f in ${filter//,/ }; do
		tests/run-tests.sh "$f" || status=1
	done
	[ -n "$filter" ] || tests/run-tests.sh || status=1
	echo "vmsuite: exit $status end $(date -u +%s)"
	echo vmsuite-end
} >>"$log" 2>&1
sync
sleep 2 # the copy's last lines
echo o >/proc/sysrq-trigger
sleep 60 # init must not exit before the power-off
INIT
chmod 0755 "$ROOTFS/sbin/vmsuite-init"

# The built tree (make check's products must be there: `make -j2 check`'s prerequisites), as
# it is here, times kept so that a test's make finds it up to date.
if [ ! -x foliostat ] || [ ! -x build/unit-tests ] || [ ! -x build/workload ]; then
	fail "build the tree first: make -j2 && make -j2 build/unit-tests build/irqcheck build/floor build/tlbcontrol && make -j2 TEST_HOOKS=1"
fi
rm -rf "$ROOTFS/root/foliostat" && mkdir -p "$ROOTFS/root/foliostat"
tar -c --exclude=./build/vmsuite --exclude='./build/vmtest*' --exclude=./.git . |
	tar -x -C "$ROOTFS/root/foliostat"

# The disk: ext4 (built into the kernel), with room for the tests' files (make_uncached_file
# writes to /var/tmp, which must be a disk file system: tmpfs cannot drop its pages).
image=$WORK/disk.img
rm -f "$image"
size_mib=$(($(du -sm "$ROOTFS" | cut -f1) + 3072))
mke2fs -q -t ext4 -d "$ROOTFS" "$image" "${size_mib}M" || fail "mke2fs -d failed"

# Under nice: other tests on this host measure time, and the emulation takes both CPUs.
# A kernel that locks up (no CPU scheduling for two minutes: emulation makes 20 s, the usual
# threshold, a mere slow compaction) or a task blocked for good panics with every CPU's stack
# on the console, which ends the VM and fails the run at once instead of at the timeout.
#
# One host thread runs both vCPUs (thread=single): with a thread each (QEMU 7.2's default), a
# vCPU was seen three times to loop for good at a tracepoint's int3 while the kernel patched it
# (attaching or detaching a program rewrites the tracepoint's static branch with text_poke_bp),
# the RCU grace-period kthread starved behind it, and the run hung or panicked: at
# trace_mm_page_alloc's site in __alloc_pages, at trace_softirq_exit's in handle_softirqs (on
# an idle host), and once in a start-up. Translated code that another vCPU's thread rewrites is
# QEMU's to invalidate; one thread for both leaves no such race. The guest still has two CPUs.
echo "vmtest-suite: booting $kver under qemu (tcg, one thread, 2 CPUs, $MEM, $NODES node(s)), filter '$FILTER'"
start=$(date +%s)
timeout "$VM_TIMEOUT" nice -n 19 qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 \
	-m "$MEM" "${NUMA[@]}" \
	-nographic -no-reboot -kernel "$vmlinuz" -initrd "$WORK/initramfs.gz" \
	-drive "file=$image,format=raw,if=virtio" \
	-append "console=ttyS0 panic=-1 loglevel=5 watchdog_thresh=60 softlockup_panic=1 softlockup_all_cpu_backtrace=1 hung_task_panic=1 vmsuite.filter=$FILTER vmsuite.verbose=${VERBOSE:-0}" \
	</dev/null >"$WORK/console.log" 2>&1 &
qemu=$!
# Progress: the results so far, read every half minute from the disk as the guest has written
# it back (for show only: the verdict is read once the VM is off).
# The host's load, every half minute: the emulator runs under nice, so anything else busy on the
# host can starve both vCPUs for minutes, which the guest's watchdog reports as a soft lockup
# (its clock runs on while it does not); a lockup with this load high is the host's doing.
# A guest that stops making progress (no result for twice the longest test's timeout, 1500 s)
# is hung where the guest's own watchdogs cannot tell (see above): it is stopped, and the run
# fails saying so, rather than at the timeout hours later.
shown=0
last_result=$(date +%s)
hung=
: >"$WORK/host-load"
while kill -0 "$qemu" 2>/dev/null; do
	sleep 30
	echo "$(($(date +%s) - start)) s: $(cut -d' ' -f1-4 /proc/loadavg)" >>"$WORK/host-load"
	debugfs -R "cat /root/vmsuite.log" "$image" 2>/dev/null |
		grep -aE "^(PASS |FAIL |SKIP |[0-9]+ passed${VERBOSE:+|    })" >"$WORK/progress" || true
	tail -n +$((shown + 1)) "$WORK/progress"
	if [ "$(wc -l <"$WORK/progress")" -gt "$shown" ]; then
		last_result=$(date +%s)
	elif [ $(($(date +%s) - last_result)) -gt 3000 ]; then
		hung=$(($(date +%s) - last_result))
		kill "$qemu" 2>/dev/null || true
	fi
	shown=$(wc -l <"$WORK/progress")
done
wait "$qemu" || true
elapsed=$(($(date +%s) - start))
echo "vmtest-suite: the VM ran $((elapsed / 60)) min $((elapsed % 60)) s (console: $WORK/console.log, suite: $WORK/suite.log)"

[ -z "$hung" ] || fail "no test finished in $((hung / 60)) min: the guest hung (see $WORK/console.log)"

# The suite's output from the disk (the console's copy may lag or be cut).
log=$WORK/suite.log
debugfs -R "cat /root/vmsuite.log" "$image" >"$log" 2>/dev/null || fail "cannot read the suite's log from $image"
if ! grep -q '^vmsuite-end$' "$log"; then
	grep -aE 'soft lockup|rcu: INFO' "$WORK/console.log" | head -3 || true
	echo "vmtest-suite: the host's load meanwhile (2 CPUs; $WORK/host-load):"
	awk '$3 + 0 > 2.5' "$WORK/host-load" | head -20
	fail "the suite did not finish (timeout ${VM_TIMEOUT}s?): see $log"
fi
grep -aE "^(PASS |FAIL |SKIP |[0-9]+ passed${VERBOSE:+|    })" "$log" | tail -n +$((shown + 1))
summary=$(sed -n '/^vmsuite-begin$/,/^vmsuite-end$/p' "$log" | awk '/^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
	p += $1; f += $3; s += $5; n++ } END { if (n) printf "%d passed, %d failed, %d skipped\n", p, f, s }')
[ -n "$summary" ] || fail "no summary from tests/run-tests.sh"
echo "vmtest-suite: $summary"
case $summary in "0 passed, 0 failed, "*) fail "no test matches '$FILTER'" ;; esac
skips=$(grep -E '^SKIP ' "$log" | grep -vE '^SKIP test_vmtest_on_debian_linux_6_1(_arm64)?:' || true)
[ -z "$skips" ] || fail "skipped here: $skips"
if ! grep -qx 'vmsuite: exit 0 end [0-9]*' "$log"; then
	grep -E '^(FAIL |    )' "$log"
	fail "tests/run-tests.sh failed (its whole output: $log)"
fi
echo "vmtest-suite: PASS"
