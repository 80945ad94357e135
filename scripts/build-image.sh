#!/bin/bash
# make image: foliostat's OCI image for x86-64 and arm64, built with podman from a root file
# system this script assembles: the dynamic binary (it has the --listen endpoint), exactly the
# shared libraries it loads (found from its ELF dynamic section, recursively, in the target's
# multiarch folders), their Debian copyright files, and a passwd and group with user nobody (the
# user foliostat runs as once started). No base image, no shell: nothing runs at build time, so
# the arm64 image needs no emulator.
#
# Usage: scripts/build-image.sh [ARCH...] (x86, arm64; default both). Writes, per ARCH,
# build/image/foliostat-VERSION-ARCH.oci.tar (an OCI archive: `podman load -i`, or `skopeo copy
# oci-archive:... docker://REGISTRY/...`) and tags localhost/foliostat:VERSION-ARCH in podman's
# storage, and with both, the manifest list localhost/foliostat:VERSION of the two; prints each
# archive's path. The arm64 binary is cross-built (make ARCH=arm64
# STATIC=0) with the arm64 multiarch libraries: scripts/install-deps.sh --cross arm64.
#
# Labels (OCI image spec annotations): version, revision (the commit), created (the commit's
# time, so that two builds of a commit label alike), licenses, title, description, and source:
# IMAGE_SOURCE, or the git remote origin's URL; left out when neither is known.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^VERSION := //p' Makefile)
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86 arm64)
command -v podman >/dev/null || {
	echo "build-image: podman is not installed (scripts/install-deps.sh --tests)" >&2
	exit 1
}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
created=$(date -u -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)" +%Y-%m-%dT%H:%M:%SZ)
source_url=${IMAGE_SOURCE-$(git remote get-url origin 2>/dev/null || true)}

# needed FILE: the sonames FILE's dynamic section asks for, one per line.
needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'
}

# interpreter FILE: the dynamic loader FILE names.
interpreter() {
	readelf -l "$1" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p'
}

# find_library TRIPLET SONAME: the library's path on this host for that multiarch triplet.
find_library() {
	local dir
	for dir in "/lib/$1" "/usr/lib/$1"; do
		[ -e "$dir/$2" ] && { echo "$dir/$2"; return; }
	done
	echo "build-image: $2 ($1) not found: scripts/install-deps.sh --cross arm64?" >&2
	return 1
}

# copy_file ROOT PATH: PATH into ROOT at the same place, symbolic links followed (the soname's
# link becomes the file; a file already copied under another name, as the dynamic loader under
# /lib64 and its multiarch folder, becomes a link to that copy), with its package's copyright
# file.
declare -A copied
copy_file() {
	local root=$1 path=$2 real package
	real=$(readlink -f "$path")
	if [ -n "${copied[$root$real]:-}" ]; then
		mkdir -p "$(dirname "$root$path")"
		ln -sf "${copied[$root$real]}" "$root$path"
		return
	fi
	copied[$root$real]=$path
	install -D -m "$(stat -L -c %a "$path")" "$real" "$root$path"
	package=$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1) || true
	[ -z "$package" ] && package=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
	if [ -n "$package" ] && [ -f "/usr/share/doc/$package/copyright" ]; then
		install -D -m 0644 "/usr/share/doc/$package/copyright" \
			"$root/usr/share/doc/$package/copyright"
	fi
}

build_root() {
	local arch=$1 triplet strip binary root seen=" " queue soname path
	case "$arch" in
	x86)
		triplet=x86_64-linux-gnu
		strip="strip"
		make -s foliostat >&2
		binary=foliostat
		;;
	arm64)
		triplet=aarch64-linux-gnu
		strip=aarch64-linux-gnu-strip
		make -s ARCH=arm64 STATIC=0 OUTPUT=build/arm64-dynamic >&2
		binary=build/arm64-dynamic/foliostat
		;;
	*)
		echo "build-image: no architecture '$arch' (x86, arm64)" >&2
		exit 2
		;;
	esac
	root=build/image/$arch/rootfs
	rm -rf "$root"
	mkdir -p "$root"/{usr/sbin,etc,proc,sys,dev,tmp,usr/share/doc/foliostat}
	chmod 1777 "$root/tmp"
	# Without its symbols (gdb finds them in the build tree's binary): less than half its size.
	"${strip}" --strip-unneeded -o "$root/usr/sbin/foliostat" "$binary"
	chmod 0755 "$root/usr/sbin/foliostat"
	install -m 0644 debian/copyright "$root/usr/share/doc/foliostat/copyright"
	copy_file "$root" "$(interpreter "$binary")"
	queue=$(needed "$binary")
	while [ -n "$queue" ]; do
		soname=$(head -1 <<<"$queue")
		queue=$(tail -n +2 <<<"$queue")
		case "$seen" in *" $soname "*) continue ;; esac
		seen="$seen$soname "
		path=$(find_library "$triplet" "$soname")
		copy_file "$root" "$path"
		queue=$(printf '%s\n%s' "$queue" "$(needed "$path")" | sed '/^$/d')
	done
	printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	echo "$root"
}

for arch in "${archs[@]}"; do
	root=$(build_root "$arch")
	platform=linux/$([ "$arch" = x86 ] && echo amd64 || echo arm64)
	tag=localhost/foliostat:$version-$arch
	labels=(
		--label "org.opencontainers.image.title=foliostat"
		--label "org.opencontainers.image.description=Per-process folio, page-fault, THP, TLB and reclaim figures from BPF, as a Prometheus exporter"
		--label "org.opencontainers.image.version=$version"
		--label "org.opencontainers.image.revision=$revision"
		--label "org.opencontainers.image.created=$created"
		--label "org.opencontainers.image.licenses=GPL-2.0-only"
	)
	[ -n "$source_url" ] && labels+=(--label "org.opencontainers.image.source=$source_url")
	cat >"build/image/$arch/Containerfile" <<-EOF
		FROM scratch
		COPY rootfs/ /
		EXPOSE 10140
		ENTRYPOINT ["/usr/sbin/foliostat"]
		CMD ["--listen", "0.0.0.0:10140"]
	EOF
	podman build --quiet --platform "$platform" --format oci --timestamp "$(date -d "$created" +%s)" \
		"${labels[@]}" -t "$tag" -f "build/image/$arch/Containerfile" "build/image/$arch" >&2
	archive=build/image/foliostat-$version-$arch.oci.tar
	rm -f "$archive"
	podman save --quiet --format oci-archive -o "$archive" "$tag"
	echo "$archive"
done

# Both built: a manifest list of the two under the version's own tag, which `podman manifest
# push --all` sends to a registry as one multi-architecture image.
if [ "${#archs[@]}" -eq 2 ]; then
	list=localhost/foliostat:$version
	podman manifest rm "$list" >/dev/null 2>&1 || podman rmi "$list" >/dev/null 2>&1 || true
	podman manifest create "$list" >/dev/null
	for arch in "${archs[@]}"; do
		podman manifest add "$list" "containers-storage:localhost/foliostat:$version-$arch" >/dev/null
	done
fi
