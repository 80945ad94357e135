# shellcheck shell=bash
# Cgroup labels (unit, container_runtime, container_id, pod_uid, qos_class) on the live cgroup2
# hierarchy: given where the kubelet and systemd lay cgroups out from the root, never to a
# look-alike made in a user's delegated subtree, nor from paths that start below the root.

# labels_pod_and_look_alikes: the cgroups both tests use, made at the hierarchy's root (see
# make_root_cgroups): a pod's container as the kubelet's systemd driver names it, and in a
# user's delegated-looking subtree (user@N.service) the same pod and container spelt as the
# cgroupfs driver and as the systemd driver name them; also x/sshd.service, below a directory
# that is no slice of systemd's. Sets POD_UID, CID, USER_N and the paths below the mount: POD_CG,
# USER_CG, FAKE_FS_CG (cgroupfs look-alike), FAKE_SD_CG (systemd look-alike) and SSHD_CG.
labels_pod_and_look_alikes() {
	POD_UID=$(python3 -c 'import uuid; print(uuid.uuid4())')
	CID=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	USER_N=$((3000000 + $$ % 1000000)) # no real user's
	local qos=kubepods.slice/kubepods-besteffort.slice
	local pod=$qos/kubepods-besteffort-pod${POD_UID//-/_}.slice
	POD_CG=/$pod/cri-containerd-$CID.scope
	USER_CG=/user.slice/user-$USER_N.slice/user@$USER_N.service
	FAKE_FS_CG=$USER_CG/kubepods/besteffort/pod$POD_UID/$CID
	FAKE_SD_CG=$USER_CG/$pod/cri-containerd-$CID.scope
	SSHD_CG=/foliostat-test-x.$$/sshd.service
	make_root_cgroups kubepods.slice "$qos" "$pod" "$POD_CG" \
		user.slice "user.slice/user-$USER_N.slice" "$USER_CG" \
		"$USER_CG/kubepods" "$USER_CG/kubepods/besteffort" "$USER_CG/kubepods/besteffort/pod$POD_UID" \
		"$FAKE_FS_CG" "$USER_CG/kubepods.slice" "$USER_CG/$qos" "$USER_CG/$pod" "$FAKE_SD_CG" \
		"${SSHD_CG%/*}" "$SSHD_CG"
}

# The exposition (--listen): the kubelet-laid pod's container has its pod's UID, its container id
# and runtime, its QoS class and its scope as unit; the same pod and container spelt in a user's
# subtree, by either driver's layout, are the user's manager (unit user@N.service) and nothing
# more; x/sshd.service is no unit sshd.service. Each cgroup's series are there (a workload ran in
# each), so the labels a series lacks are not just a series missing.
test_cgroup_labels_only_where_the_kubelet_lays_them_out() {
	need_root
	local cg series
	labels_pod_and_look_alikes
	start_endpoint -c "$CGROUP_ROOT/kubepods.slice" -c "$CGROUP_ROOT$USER_CG" \
		-c "$CGROUP_ROOT${SSHD_CG%/*}"
	for cg in "$POD_CG" "$FAKE_FS_CG" "$FAKE_SD_CG" "$SSHD_CG"; do
		"$WORKLOAD" --in-cgroup "$CGROUP_ROOT$cg" pages 1000 >"$T/workload" || fail "the workload in $cg"
	done
	# Until a scrape has the four cgroups' series (foliostat reads its maps every second at most).
	for _ in $(seq 300); do
		scrape "$T/metrics"
		series=0
		for cg in "$POD_CG" "$FAKE_FS_CG" "$FAKE_SD_CG" "$SSHD_CG"; do
			[ "$(expo "$T/metrics" --count "foliostat_page_faults_total{cgroup=\"$cg\"}")" -gt 0 ] &&
				series=$((series + 1))
		done
		[ "$series" = 4 ] && break
		sleep 0.1
	done
	assert_eq "$series" 4 "cgroups of the four with series"
	python3 - "$T/metrics" "$POD_CG" "$FAKE_FS_CG" "$FAKE_SD_CG" "$SSHD_CG" "$POD_UID" "$CID" "$USER_N" <<-'EOF' ||
		import re, sys
		sys.path.insert(0, "tests")
		from exposition import parse
		metrics, pod, fake_fs, fake_sd, sshd, uid, cid, n = sys.argv[1:]
		names = ("unit", "container_runtime", "container_id", "pod_uid", "qos_class")
		want = {
		    pod: {"unit": f"cri-containerd-{cid}.scope", "container_runtime": "containerd",
		          "container_id": cid, "pod_uid": uid, "qos_class": "besteffort"},
		    fake_fs: {"unit": f"user@{n}.service"},
		    fake_sd: {"unit": f"user@{n}.service"},
		    sshd: {},
		}
		seen = {cg: 0 for cg in want}
		for name, labels, _ in parse(metrics):
		    cg = labels.get("cgroup")
		    if cg not in want:
		        continue
		    got = {k: labels[k] for k in names if k in labels}
		    assert got == want[cg], f"{name} of {cg}: {got}, expected {want[cg]}"
		    seen[cg] += 1
		assert all(seen.values()), seen
		print("ok: series checked:", {cg.rsplit("/", 1)[-1][:24]: k for cg, k in seen.items()})
	EOF
		fail "a cgroup's labels are not where the kubelet laid it out"
	stop_foliostat "$T/endpoint"
}

# The JSON record (--by cgroup), with the hierarchy's mount showing the user's subtree only (a
# bind mount of it over the mount, in a mount namespace of foliostat's own): the user's
# look-alike then reads /kubepods/besteffort/pod<uid>/<id>, the cgroupfs driver's layout from
# the root. Its row has no pod's labels, for the mount is no root; outside that namespace, the
# same run's look-alike and pod rows read as from the root, and a slice's own cgroup has no
# unit (a slice is none: services and scopes are).
test_cgroup_labels_not_from_a_mount_of_a_subtree() {
	need_root
	command -v unshare >/dev/null || skip "no unshare (util-linux)"
	local inside slice=/fstest$$.slice
	labels_pod_and_look_alikes
	make_root_cgroups "$slice"
	inside=${FAKE_FS_CG#"$USER_CG"}
	start_foliostat "$T/plain" -j --by cgroup -r 0 0.5
	local plain=$FS_PID
	# shellcheck disable=SC2016 # the inner shell's own $1..$3
	unshare --mount --propagation private sh -c 'mount --bind "$1$2" "$1" && exec "$3" -j --by cgroup -r 0 0.5' \
		_ "$CGROUP_ROOT" "$USER_CG" "$FOLIOSTAT" >"$T/bound" 2>"$T/bound.err" &
	FS_PID=$!
	track_foliostat "$FS_PID"
	wait_attached "$FS_PID" "$T/bound.err"
	"$WORKLOAD" --in-cgroup "$CGROUP_ROOT$FAKE_FS_CG" pages 1000 >"$T/workload" || fail "the workload in $FAKE_FS_CG"
	"$WORKLOAD" --in-cgroup "$CGROUP_ROOT$POD_CG" pages 1000 >"$T/workload" || fail "the workload in $POD_CG"
	"$WORKLOAD" --in-cgroup "$CGROUP_ROOT$slice" pages 1000 >"$T/workload" || fail "the workload in $slice"
	wait_next_record "$T/bound"
	wait_next_record "$T/bound"
	stop_foliostat "$T/bound"
	FS_PID=$plain
	wait_next_record "$T/plain"
	stop_foliostat "$T/plain"
	python3 - "$T/bound" "$T/plain" "$inside" "$FAKE_FS_CG" "$POD_CG" "$POD_UID" "$slice" <<-'EOF' ||
		import json, sys
		bound, plain, inside, fake, pod, uid, slice = sys.argv[1:]
		names = ("unit", "container_runtime", "container_id", "pod_uid", "qos_class")
		def rows(path, cgroup):
		    found = [row for line in open(path) for row in json.loads(line)["cgroups"]
		             if row["cgroup"] == cgroup]
		    assert found, f"no row of {cgroup} in {path}"
		    return found
		for row in rows(bound, inside):
		    got = {k: row[k] for k in names if row[k] is not None}
		    assert got == {}, f"{inside} under the bound mount: {got}"
		for row in rows(plain, fake):
		    got = {k: row[k] for k in names if row[k] is not None}
		    assert got == {"unit": fake.split("/")[3]}, f"{fake}: {got}"
		for row in rows(plain, pod):
		    assert row["pod_uid"] == uid and row["qos_class"] == "besteffort", row
		for row in rows(plain, slice):
		    assert row["unit"] is None and row["pod_uid"] is None, row
		print(f"ok: {inside} under the bound mount has no labels; from the root, the look-alike"
		      " is its user's and the pod is the pod")
	EOF
		fail "labels read off paths that do not start at the root"
}
