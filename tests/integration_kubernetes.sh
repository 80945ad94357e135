# shellcheck shell=bash
# Kubernetes (contrib/kubernetes/, docs/kubernetes.md): the manifests against the API's schemas,
# offline; the DaemonSet's container run as a runtime would run it, from the image's own root;
# and the documented join with kube-state-metrics' kube_pod_info on real series.

# k8s_validator: tests/kubernetes/ with its npm packages (from the lock file) in $T/validate;
# echoes that folder.
k8s_validator() {
	command -v npm >/dev/null || skip "no npm (scripts/install-deps.sh --tests)"
	mkdir -p "$T/validate"
	cp tests/kubernetes/package.json tests/kubernetes/package-lock.json tests/kubernetes/validate.mjs "$T/validate/"
	(cd "$T/validate" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1) ||
		{ tail -n 20 "$T/validate/npm.log"; fail "npm ci of tests/kubernetes/ failed"; }
	echo "$T/validate"
}

# Every manifest passes the Kubernetes and Prometheus Operator schemas and TypeScript's check of
# its fields against the API's types; a wrong type and a misspelt field are each caught (so the
# checks are not idle); the kustomizations list files that exist; and what foliostat needs is
# there: the image of the Makefile's version, hostPID, the host's cgroup hierarchy read-only,
# capabilities rather than privileged, probes on /metrics at the port the Service and the
# PodMonitor name, requests and a memory limit.
set_test_timeout test_kubernetes_manifests_match_the_api_schemas 900
test_kubernetes_manifests_match_the_api_schemas() {
	local dir manifests
	dir=$(k8s_validator)
	mapfile -t manifests < <(find "$PWD/contrib/kubernetes" -name '*.yaml' | sort)
	node "$dir/validate.mjs" "${manifests[@]}" || fail "the manifests do not match the API's schemas"
	sed 's/hostPID: true/hostPID: "yes"/' contrib/kubernetes/daemonset.yaml >"$T/wrong-type.yaml"
	sed 's/readOnlyRootFilesystem: true/readOnlyRootFilesytem: true/' contrib/kubernetes/daemonset.yaml >"$T/misspelt.yaml"
	for bad in wrong-type misspelt; do
		! node "$dir/validate.mjs" "$T/$bad.yaml" >"$T/$bad.out" 2>&1 || fail "the validator passed $bad.yaml"
		grep -E '^problem: .*(hostPID must be boolean|readOnlyRootFilesytem)' "$T/$bad.out" ||
			fail "the validator did not name the fault in $bad.yaml: $(cat "$T/$bad.out")"
	done
	python3 - "$(sed -n 's/^VERSION := //p' Makefile)" <<-'EOF' || fail "the manifests miss what foliostat needs"
		import glob, os, sys, yaml
		version = sys.argv[1]
		docs = {}
		for path in glob.glob("contrib/kubernetes/**/*.yaml", recursive=True):
		    for doc in yaml.safe_load_all(open(path)):
		        if doc.get("kind") == "Kustomization":
		            for r in doc["resources"]:
		                assert os.path.exists(os.path.join(os.path.dirname(path), r)), f"{path}: no {r}"
		            for image in doc.get("images", []):
		                assert image["name"] == "foliostat" and image["newTag"] == version, f"{path}: {image}"
		        docs[doc["kind"]] = doc
		ds = docs["DaemonSet"]
		pod = ds["spec"]["template"]["spec"]
		(c,) = pod["containers"]
		assert c["image"] == f"foliostat:{version}", c["image"]
		assert pod["hostPID"] is True
		sc = c["securityContext"]
		assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True, sc
		assert sc["capabilities"] == {"drop": ["ALL"], "add": ["BPF", "PERFMON", "SETUID", "SETGID", "SETPCAP"]}, sc
		(mount,) = c["volumeMounts"]
		(volume,) = pod["volumes"]
		assert mount["mountPath"] == "/sys/fs/cgroup" and mount["readOnly"] and volume["hostPath"]["path"] == "/sys/fs/cgroup"
		port = {p["name"]: p["containerPort"] for p in c["ports"]}["metrics"]
		assert c["args"] == ["--listen", f"$(POD_IP):{port}"], c["args"]
		for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
		    assert c[probe]["httpGet"] == {"path": "/metrics", "port": "metrics"}, probe
		assert c["resources"]["requests"]["cpu"] and c["resources"]["requests"]["memory"] and c["resources"]["limits"]["memory"]
		labels = ds["spec"]["template"]["metadata"]["labels"]
		assert ds["spec"]["selector"]["matchLabels"].items() <= labels.items()
		svc = docs["Service"]["spec"]
		assert svc["selector"].items() <= labels.items() and svc["ports"][0]["targetPort"] == "metrics"
		pm = docs["PodMonitor"]["spec"]
		assert pm["selector"]["matchLabels"].items() <= labels.items() and pm["podMetricsEndpoints"][0]["port"] == "metrics"
		print(f"ok: image foliostat:{version}, capabilities {sc['capabilities']['add']}, port {port}, probes on /metrics")
	EOF
}

# The DaemonSet's container as a runtime runs it (tests/container_run.py), from the x86-64
# image's own root file system: the manifest's capabilities alone, no_new_privs, a read-only
# root, the manifest's arguments (POD_IP: loopback). Every probe a plain root run attaches is
# attached, /metrics answers what promtool accepts, and once started foliostat is user nobody
# with no capability.
set_test_timeout test_kubernetes_container_runs_with_the_manifests_privileges 900
test_kubernetes_container_runs_with_the_manifests_privileges() {
	need_root
	command -v podman >/dev/null || skip "no podman (scripts/install-deps.sh --tests)"
	command -v promtool >/dev/null || skip "no promtool (scripts/install-deps.sh --tests)"
	local archive caps args port pid status=0
	archive=$(scripts/build-image.sh x86 2>"$T/build.err") || { tail -n 20 "$T/build.err"; fail "make image"; }
	python3 tests/oci_image.py "$archive" rootfs "$T/root" || fail "the image's layers"
	caps=$(python3 -c 'import sys, yaml
c = yaml.safe_load(open("contrib/kubernetes/daemonset.yaml"))["spec"]["template"]["spec"]["containers"][0]
print(",".join(c["securityContext"]["capabilities"]["add"]))')
	port=$(free_port)
	# shellcheck disable=SC2016 # $(POD_IP) is the manifest's, for Python to replace
	mapfile -t args < <(python3 -c 'import sys, yaml
c = yaml.safe_load(open("contrib/kubernetes/daemonset.yaml"))["spec"]["template"]["spec"]["containers"][0]
print(*[a.replace("$(POD_IP)", "127.0.0.1").replace(":10140", ":" + sys.argv[1]) for a in c["args"]], sep="\n")' "$port")
	"$FOLIOSTAT" -j -d 0.2 >"$T/plain" || fail "a plain run"
	unshare --mount --propagation private python3 tests/container_run.py "$T/root" "$caps" --read-only --no-new-privs \
		-- /usr/sbin/foliostat "${args[@]}" >"$T/run.out" 2>"$T/run.err" &
	pid=$!
	# (no_new_privs is set from the start here: wait for the endpoint instead)
	for _ in $(seq 600); do
		curl -sf -o "$T/metrics" "http://127.0.0.1:$port/metrics" && break
		kill -0 "$pid" 2>/dev/null || { cat "$T/run.err"; fail "the container's foliostat exited"; }
		sleep 0.1
	done
	[ -s "$T/metrics" ] || { cat "$T/run.err"; fail "the container's foliostat did not answer"; }
	promtool check metrics <"$T/metrics" || fail "promtool rejected the container's exposition"
	python3 - "$T/plain" "$T/metrics" <<-'EOF' || fail "the container's foliostat attached less than a plain run"
		import json, re, sys
		plain = json.loads(open(sys.argv[1]).readline())["probes"]
		want = sorted(p for p, state in plain.items() if state == "attached")
		got = sorted(re.findall(r'^foliostat_probe_attached\{probe="([^"]+)"\} 1$', open(sys.argv[2]).read(), re.M))
		assert got == want, f"attached in the container: {got}; in a plain run: {want}"
		print(f"ok: {len(got)} probes attached, as in a plain run")
	EOF
	assert_eq "$(awk '/^Uid:/ { print $2 } /^CapEff:/ { print $2 } /^NoNewPrivs:/ { print $2 }' "/proc/$pid/status" | tr '\n' ' ')" \
		"65534 0000000000000000 1 " "the container's foliostat: uid, effective capabilities, no_new_privs"
	kill -TERM "$pid"
	wait "$pid" || status=$?
	assert_eq "$status" 0 "its exit status on SIGTERM"
}

# A pod's cgroup as the kubelet names it (systemd driver: kubepods-besteffort-pod<uid>.slice,
# the container's cri-containerd-<id>.scope) with a workload in it; kube_pod_info for that UID
# from node_exporter's textfile collector (as kube-state-metrics would serve it); one real
# Prometheus scraping both and foliostat. The join docs/kubernetes.md gives names the pod and
# gives exactly foliostat's bytes for that UID; the dashboard's Kubernetes panel names it too.
set_test_timeout test_kubernetes_pods_are_named_through_kube_pod_info 600
test_kubernetes_pods_are_named_through_kube_pod_info() {
	need_root
	command -v prometheus-node-exporter >/dev/null || skip "prometheus-node-exporter is not installed"
	local uid cid pod join node_port node diff page
	uid=$(python3 -c 'import uuid; print(uuid.uuid4())')
	cid=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	# From the hierarchy's root, where the kubelet makes them: labels are read nowhere else.
	pod="kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${uid//-/_}.slice"
	make_root_cgroups kubepods.slice kubepods.slice/kubepods-besteffort.slice "$pod" \
		"$pod/cri-containerd-$cid.scope"
	mkdir "$T/textfile"
	printf 'kube_pod_info{namespace="shop",pod="cart-0",uid="%s",node="%s"} 1\n' "$uid" "$(hostname)" \
		>"$T/textfile/kube.prom"
	node_port=$(free_port)
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$T/textfile" \
		--web.listen-address="127.0.0.1:$node_port" >"$T/node.log" 2>&1 &
	node=$!
	at_exit "kill $node 2>/dev/null"
	start_endpoint
	printf '  - job_name: foliostat\n    static_configs:\n      - targets: [%s]\n  - job_name: kube-state-metrics\n    static_configs:\n      - targets: [%s]\n' \
		"'127.0.0.1:$FS_PORT'" "'127.0.0.1:$node_port'" >"$T/jobs"
	start_prometheus "$T/jobs"
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" pages 4096' "$CGROUP_ROOT/$pod/cri-containerd-$cid.scope" "$WORKLOAD" \
		>"$T/workload" || fail "the workload in the pod's cgroup"
	# shellcheck disable=SC2016 # the query's own "$1"
	join=$(python3 -c 'import re; print(re.search(r"<!-- kube-pod-join -->\n```\n(.*?)\n```", open("docs/kubernetes.md").read(), re.S).group(1))')
	[ -n "$join" ] || fail "no join query in docs/kubernetes.md"
	# Until Prometheus has scraped the workload's allocations (a second at most: scrapes are).
	page=$(getconf PAGESIZE)
	for _ in $(seq 300); do
		[ "$(promql "$join" | awk '{ printf "%.0f", $NF }')" -ge $((4096 * page)) ] 2>/dev/null && break
		sleep 0.1
	done
	assert_eq "$(promql "$join" | sed -E 's/ [0-9.e+]+$//')" '{"namespace": "shop", "pod": "cart-0"}' \
		"the pods the documented join names"
	diff=$(promql "($join) - on () sum(foliostat_allocated_bytes_total{pod_uid=\"$uid\"})" | awk '{ print $NF }')
	assert_eq "$diff" 0 "the join's bytes less foliostat's for the pod's UID, in one query"
	assert_between "$(promql "$join" | awk '{ printf "%.0f", $NF }')" $((4096 * page)) 1000000000000 \
		"bytes the pod allocated (4096 pages touched)"
	python3 tests/dashboard_queries.py contrib/grafana/foliostat.json --var "instance=.+" --var "cgroup=.*" \
		--range 1m | awk -F'\t' '$2 ~ /kube_pod_info/ { print $2 }' >"$T/panel" || fail "dashboard_queries.py"
	assert_eq "$(wc -l <"$T/panel")" 1 "the dashboard's queries joining kube_pod_info"
	for _ in $(seq 300); do
		promql "$(cat "$T/panel")" | grep -q '"pod": "cart-0"' && break
		sleep 0.1
	done
	promql "$(cat "$T/panel")" | grep -q '"namespace": "shop", "pod": "cart-0"' ||
		fail "the dashboard's Kubernetes panel does not name the pod: $(promql "$(cat "$T/panel")")"
	stop_foliostat "$T/endpoint"
}
