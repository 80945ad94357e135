# shellcheck shell=bash
# The OCI image (make image, scripts/build-image.sh): both architectures built with podman, and
# read back from the image archives as a runtime would (tests/oci_image.py), never from the
# build tree. `podman run` is refused on some hosts (the OCI runtime's setrlimit, cgroup v1/v2
# hybrids), so the x86-64 image's root file system runs under chroot, on the live kernel.

# needed_closure ROOT FILE: every shared library FILE (a path inside ROOT) loads, recursively,
# each as "soname path-in-ROOT" (path "missing" where ROOT has none), the dynamic loader first.
needed_closure() {
	python3 - "$1" "$2" <<-'EOF'
		import os, re, subprocess, sys
		root, first = sys.argv[1], sys.argv[2]
		def readelf(flag, path):
		    return subprocess.run(["readelf", flag, path], capture_output=True, text=True, check=True).stdout
		interp = re.search(r"Requesting program interpreter: (\S+)\]", readelf("-l", root + first))
		print("interpreter", interp.group(1) if interp and os.path.exists(root + interp.group(1)) else "missing")
		dirs = [d for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		                    "/usr/lib/aarch64-linux-gnu", "/lib64", "/lib")]
		seen, queue = set(), [first]
		while queue:
		    path = queue.pop()
		    for soname in re.findall(r"\(NEEDED\).*\[(.+)\]", readelf("-d", root + path)):
		        if soname in seen:
		            continue
		        seen.add(soname)
		        found = next((d + "/" + soname for d in dirs if os.path.exists(root + d + "/" + soname)), None)
		        print(soname, found or "missing")
		        if found:
		            queue.append(found)
	EOF
}

# The labels of the OCI image spec each image has: its version, commit, licence, source.
check_image_config() {
	local archive=$1 goarch=$2 version=$3 source=$4
	python3 tests/oci_image.py "$archive" config >"$T/config.$goarch" || fail "$archive is no OCI image"
	python3 - "$T/config.$goarch" "$goarch" "$version" "$(git rev-parse HEAD)" "$source" <<-'EOF' || fail "$archive's configuration"
		import json, sys
		config, goarch, version, revision, source = json.load(open(sys.argv[1])), *sys.argv[2:]
		labels = config["config"]["Labels"]
		want = {"org.opencontainers.image.version": version, "org.opencontainers.image.revision": revision,
		        "org.opencontainers.image.licenses": "GPL-2.0-only", "org.opencontainers.image.source": source,
		        "org.opencontainers.image.title": "foliostat"}
		for key, value in want.items():
		    assert labels.get(key) == value, f"{key}: {labels.get(key)!r}, not {value!r}"
		assert labels.get("org.opencontainers.image.created", "").endswith("Z"), labels
		assert config["architecture"] == goarch and config["os"] == "linux", (config["architecture"], config["os"])
		assert config["config"]["Entrypoint"] == ["/usr/sbin/foliostat"], config["config"]
		print(f"ok: {goarch}: labels {sorted(k.rsplit('.', 1)[1] for k in labels)}, entrypoint {config['config']['Entrypoint']}")
	EOF
}

# in_root ROOT: IN_ROOT, the command that runs foliostat (with the arguments that follow it) from
# ROOT's /usr/sbin under chroot, with the host's /proc, /sys and /dev bound in a mount namespace
# of its own (gone with it). unshare, sh, chroot and foliostat are one process, one after the
# other: started with &, $! is foliostat's pid.
in_root() {
	# shellcheck disable=SC2016 # the inner shell expands them
	IN_ROOT=(unshare --mount --propagation private sh -c 'for d in proc sys dev; do mount --rbind "/$d" "$0/$d" || exit 1; done
		exec chroot "$0" /usr/sbin/foliostat "$@"' "$1")
}

# make image builds both images; each is labelled per the OCI image spec, for its architecture;
# each root file system holds the binary and every shared library it loads, of its architecture,
# and nothing to run besides (no shell); the x86-64 one, unpacked from its archive, passes
# --check on the live kernel under chroot and serves /metrics that promtool accepts, with the
# probes attached, and stops cleanly on SIGTERM.
set_test_timeout test_container_image_runs_from_its_own_root_file_system 1500
test_container_image_runs_from_its_own_root_file_system() {
	need_root
	local version archives x86 arm64 root port pid status=0 source="file://$PWD" IN_ROOT
	command -v podman >/dev/null || skip "no podman (scripts/install-deps.sh --tests)"
	command -v promtool >/dev/null || skip "no promtool (scripts/install-deps.sh --tests)"
	scripts/install-deps.sh --cross arm64 >"$T/deps" 2>&1 || { cat "$T/deps"; fail "install-deps.sh --cross arm64"; }
	version=$(sed -n 's/^VERSION := //p' Makefile)
	archives=$(IMAGE_SOURCE=$source scripts/build-image.sh x86 arm64 2>"$T/build.err") ||
		{ tail -n 30 "$T/build.err"; fail "make image failed"; }
	x86=$(grep -- '-x86\.oci\.tar$' <<<"$archives")
	arm64=$(grep -- '-arm64\.oci\.tar$' <<<"$archives")
	[ -f "$x86" ] && [ -f "$arm64" ] || fail "make image made no archives: $archives"
	check_image_config "$x86" amd64 "$version" "$source"
	check_image_config "$arm64" arm64 "$version" "$source"
	assert_eq "$(podman manifest inspect "localhost/foliostat:$version" | python3 -c '
import json, sys
print(*sorted(m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"]))')" "amd64 arm64" \
		"the platforms of the manifest list localhost/foliostat:$version"
	for image in x86 arm64; do
		root=$T/root-$image
		python3 tests/oci_image.py "${!image}" rootfs "$root" || fail "the $image image's layers"
		needed_closure "$root" /usr/sbin/foliostat >"$T/needed.$image" || fail "readelf on the $image binary"
		! grep -w missing "$T/needed.$image" || fail "the $image image lacks a library its binary loads"
		local machine
		machine=$([ "$image" = x86 ] && echo 'Advanced Micro Devices X86-64' || echo AArch64)
		while read -r _ path; do
			readelf -h "$root$path" | grep -q "Machine: *$machine" || fail "$path in the $image image is not $machine"
		done < <(cat <(echo "binary /usr/sbin/foliostat") "$T/needed.$image")
		[ ! -e "$root/bin/sh" ] && [ ! -e "$root/usr/bin/sh" ] || fail "the $image image has a shell"
		[ -f "$root/usr/share/doc/foliostat/copyright" ] || fail "the $image image has no copyright file"
		echo "ok: $image: $(wc -l <"$T/needed.$image") libraries and the loader, $(du -sk "$root" | cut -f1) KiB in all"
	done
	# The x86-64 image's own root, on the live kernel.
	in_root "$T/root-x86"
	assert_eq "$("${IN_ROOT[@]}" --version)" "foliostat $version" "the image's foliostat --version"
	"${IN_ROOT[@]}" --check >"$T/check" 2>&1 || { cat "$T/check"; fail "the image's foliostat --check"; }
	tail -n 1 "$T/check"
	port=$(free_port)
	"${IN_ROOT[@]}" --listen "127.0.0.1:$port" >"$T/listen.out" 2>"$T/listen.err" &
	pid=$!
	wait_attached "$pid" "$T/listen.err"
	curl -fsS "http://127.0.0.1:$port/metrics" >"$T/metrics" || fail "no scrape of the image's /metrics"
	promtool check metrics <"$T/metrics" || fail "promtool check metrics rejected the image's exposition"
	[ "$(python3 tests/exposition.py "$T/metrics" --sum 'foliostat_probe_attached')" != 0 ] ||
		fail "no probe attached in the image's run"
	grep -q '^foliostat_folios_allocated_total{' "$T/metrics" || fail "no allocations in the image's exposition"
	kill -TERM "$pid"
	wait "$pid" || status=$?
	assert_eq "$status" 0 "the image's foliostat's exit status on SIGTERM"
	# Through the container runtime too, where this host lets podman start a container.
	local tag=localhost/foliostat:$version-x86
	if ! timeout 120 podman run --rm --network none "$tag" --version >"$T/run" 2>&1; then
		echo "note: podman run is refused on this host, the chroot run stands for it: $(tail -n 1 "$T/run")"
		return 0
	fi
	assert_eq "$(cat "$T/run")" "foliostat $version" "podman run's foliostat --version"
	timeout 300 podman run --rm --network none --pid host --privileged "$tag" --check >"$T/run" 2>&1 ||
		{ cat "$T/run"; fail "podman run's foliostat --check"; }
	tail -n 1 "$T/run"
}
