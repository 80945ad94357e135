# shellcheck shell=bash
# --files: page-cache additions per file and per file system. Files of known sizes, dropped
# from the page cache and read whole, must show exactly their pages, under their real paths and
# on the file system findmnt names; without the option nothing per file is loaded at all.

FILES_PROBE=filemap:mm_filemap_add_to_page_cache/files

# make_files_of MIB...: a file of each size in MiB beside make_uncached_file's (a disk file
# system: tmpfs cannot drop its pages), removed when the test ends; paths in FILES.
make_files_of() {
	local mib i=0
	FILES=()
	for mib in "$@"; do
		FILES+=("/var/tmp/foliostat-files.$$.$i")
		head -c $((mib << 20)) /dev/zero >"${FILES[i]}"
		at_exit "rm -f '${FILES[i]}'"
		i=$((i + 1))
	done
	sync "${FILES[@]}"
}

# file_row FILE: the Python expression of FILE's row in the first record (by device and inode).
file_row() {
	echo "[f for f in recs[0]['files'] if f['dev'] == '$(stat -c '%Hd:%Ld' "$1")' and f['ino'] == $(stat -c %i "$1")]"
}

# fs_row FILE: the same for the file system FILE is on.
fs_row() {
	echo "[s for s in recs[0]['filesystems'] if s['dev'] == '$(stat -c '%Hd:%Ld' "$1")']"
}

# assert_file_systems_add_up OUT: in every record, each file system's pages are its files' plus
# those of files the table had no room for (every file is listed: --top 0).
assert_file_systems_add_up() {
	assert_eq "$(query "$1" "all(s['pages'] == sum(f['pages'] for f in r['files'] if f['dev'] == s['dev']) + s['untracked_pages'] and s['files'] == sum(1 for f in r['files'] if f['dev'] == s['dev']) for r in recs for s in r['filesystems'])")" \
		true "file systems' pages = their files' + untracked, in every record"
	assert_eq "$(query "$1" "all(f['pages'] == sum(n << int(o) for o, n in f['folios'].items()) for r in recs for f in r['files'])")" \
		true "each file's pages = its folios by order"
}

# Two files of 3 and 5 MiB read whole after a drop from the cache: each has exactly its size
# in pages, its real path, and its file system (mount point and type as findmnt says), whose
# total holds both.
test_files_counts_each_files_pages_and_names_it() {
	need_root
	make_files_of 3 5
	start_foliostat "$T/out" -j --files --top 0
	"$WORKLOAD" read "${FILES[0]}" >"$T/read0" || fail "reading ${FILES[0]} failed"
	"$WORKLOAD" read "${FILES[1]}" >"$T/read1" || fail "reading ${FILES[1]} failed"
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "recs[0]['probes']['$FILES_PROBE']")" '"attached"' "the files probe"
	local i file row pages
	for i in 0 1; do
		file=${FILES[i]}
		row=$(file_row "$file")
		pages=$(($(stat -c %s "$file") / 4096))
		assert_eq "$(json_field "$(cat "$T/read$i")" resident_before)" 0 "pages of $file cached before the read"
		assert_eq "$(query "$T/out" "len($row)")" 1 "rows of $file"
		assert_eq "$(query "$T/out" "${row}[0]['pages']")" "$pages" "pages added to $file"
		assert_eq "$(query "$T/out" "${row}[0]['path']")" "\"$(realpath "$file")\"" "path of $file"
		assert_eq "$(query "$T/out" "${row}[0]['path_complete']")" true "path of $file complete"
	done
	local fs
	fs=$(fs_row "${FILES[0]}")
	assert_eq "$(query "$T/out" "len($fs)")" 1 "rows of the file system"
	assert_eq "$(query "$T/out" "${fs}[0]['mount']")" "\"$(findmnt -n -o TARGET -T "${FILES[0]}")\"" "mount point"
	assert_eq "$(query "$T/out" "${fs}[0]['fstype']")" "\"$(findmnt -n -o FSTYPE -T "${FILES[0]}")\"" "file system type"
	assert_between "$(query "$T/out" "${fs}[0]['pages']")" $(((3 + 5) << 8)) 100000000 "the file system's pages"
	assert_between "$(query "$T/out" "${fs}[0]['files']")" 2 100000000 "the file system's files"
	assert_file_systems_add_up "$T/out"
	# The table names the files too.
	start_foliostat "$T/table" --files
	"$WORKLOAD" read "${FILES[0]}" >/dev/null || fail "reading ${FILES[0]} failed"
	stop_foliostat "$T/table"
	grep -qE "^  $(realpath "${FILES[0]}") +768 +3\.0 " "$T/table" || fail "no table row of ${FILES[0]}: $(cat "$T/table")"
	grep -q "^FILE SYSTEMS " "$T/table" || fail "no file systems in the table"
	assert_eq "$(sed -n '/^PAGE-CACHE FILES/,/^$/p; /^FILE SYSTEMS/,/^$/p' "$T/table" | awk 'length > 100' | wc -l)" \
		0 "lines of the files' sections over 100 columns"
}

# Without --files the program is not even loaded, the probe says why, and records have no
# files; with it, its program is loaded and linked to the tracepoint.
test_files_off_loads_nothing_per_file() {
	need_root
	make_files_of 1
	start_foliostat "$T/out" -j 0.3
	# (A failure of bpftool leaves the count empty, where grep -c would say 0.)
	assert_eq "$(bpftool prog show >"$T/progs" && grep -c ' name fs_file_add ' "$T/progs")" 0 \
		"fs_file_add programs loaded"
	assert_eq "$(grep -c ' name fs_file_ra_order ' "$T/progs")" 0 "fs_file_ra_order programs loaded"
	assert_eq "$(bpftool prog show >"$T/progs" && grep -c ' name fs_pagecache_add ' "$T/progs")" 1 \
		"fs_pagecache_add programs loaded"
	assert_eq "$(bpftool map show name fs_files_0 -j | python3 -c 'import json,sys; print(json.load(sys.stdin)["max_entries"])')" \
		1 "fs_files_0's entries without --files"
	"$WORKLOAD" read "${FILES[0]}" >/dev/null || fail "reading ${FILES[0]} failed"
	wait_next_record "$T/out"
	stop_foliostat "$T/out"
	assert_eq "$(query "$T/out" "any('files' in r or 'filesystems' in r for r in recs)")" false "files in the records"
	assert_eq "$(query "$T/out" "recs[0]['probes']['$FILES_PROBE']")" '"not needed: --files is off"' "the files probe"
	if probe_offered readahead:page_cache_ra_order; then
		assert_eq "$(query "$T/out" "recs[0]['probes']['readahead:page_cache_ra_order']")" \
			'"not needed: --files is off"' "the readahead probe"
	else
		assert_eq "$(query "$T/out" "recs[0]['probes']['readahead:page_cache_ra_order'].startswith('unavailable')")" \
			true "the readahead probe where the kernel has no such tracepoint"
	fi
	"$FOLIOSTAT" --check -j >"$T/check" || fail "--check: exit status $?"
	assert_eq "$(query "$T/check" "recs[0]['check']['probes']['$FILES_PROBE']")" '"not needed: --files is off"' "--check's files probe"
	"$FOLIOSTAT" --check --files -j >"$T/check" || fail "--check --files: exit status $?"
	assert_eq "$(query "$T/check" "recs[0]['check']['probes']['$FILES_PROBE']")" '"attached"' "--check --files' files probe"
	# The positive control: with --files the program is there, on a link of its own.
	start_foliostat "$T/on" -j 0.3 --files
	local id
	id=$(bpftool prog show -j | python3 -c 'import json,sys; print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name") == "fs_file_add"))')
	assert_between "$id" 1 100000000 "the id of the one fs_file_add program"
	assert_eq "$(bpftool link show -j | python3 -c "import json,sys; print(sum(1 for l in json.load(sys.stdin) if l.get('prog_id') == $id))")" \
		1 "links of fs_file_add"
	stop_foliostat "$T/on"
	assert_nothing_attached
}

# A table of one file: the other file's additions, and any other's, are counted on their file
# system as untracked, so every file system's pages are still its files' plus the untracked.
test_files_bound_counts_the_rest_as_untracked() {
	need_root
	make_files_of 3 5
	start_foliostat "$T/out" -j --files --max-files 1 --top 0
	"$WORKLOAD" read "${FILES[0]}" >/dev/null || fail "reading ${FILES[0]} failed"
	"$WORKLOAD" read "${FILES[1]}" >/dev/null || fail "reading ${FILES[1]} failed"
	stop_foliostat "$T/out"
	assert_between "$(query "$T/out" "len(recs[0]['files'])")" 1 1 "files in the record"
	local fs
	fs=$(fs_row "${FILES[0]}")
	assert_between "$(query "$T/out" "${fs}[0]['pages']")" $(((3 + 5) << 8)) 100000000 "the file system's pages"
	# At most one of the two has the table's one entry: the 3 MiB one's pages at least are not.
	assert_between "$(query "$T/out" "${fs}[0]['untracked_pages']")" $((3 << 8)) 100000000 "untracked pages"
	assert_file_systems_add_up "$T/out"
}

# The schema knows the files' part of a record: a record with one thing wrong there is refused.
test_files_schema_rejects_broken_file_rows() {
	need_root
	make_files_of 1
	start_foliostat "$T/rec" -j --files
	"$WORKLOAD" read "${FILES[0]}" >/dev/null || fail "reading ${FILES[0]} failed"
	stop_foliostat "$T/rec"
	mutate_record "$T/rec" "$T/bad" "del r['filesystems']"
	assert_rejected "$T/bad" "files without filesystems" "'filesystems' is a required property"
	mutate_record "$T/rec" "$T/bad" "r['files'][0]['path'] = None; r['files'][0]['path_complete'] = True"
	assert_rejected "$T/bad" "a complete path that is null" "\$.files[0].path_complete"
	mutate_record "$T/rec" "$T/bad" "r['filesystems'][0]['dev'] = 2049"
	assert_rejected "$T/bad" "a device as a number" "\$.filesystems[0].dev"
	mutate_record "$T/rec" "$T/bad" "r['files'][0]['inode'] = r['files'][0].pop('ino')"
	assert_rejected "$T/bad" "a member the schema does not know" "\$.files[0]"
}

# file_folios FILE: how the page cache holds FILE now, read by the test itself: the file mapped
# and touched, its pages' frames from /proc/self/pagemap and their flags from /proc/kpageflags
# (a large folio is a head page and its tails, at consecutive frames), and mincore's residency:
# "LARGEST_ORDER RESIDENT_PAGES PAGES".
file_folios() {
	python3 - "$1" <<-'EOF' || fail "cannot read how the page cache holds $1"
		import ctypes, mmap, os, struct, sys
		HEAD, TAIL = 1 << 15, 1 << 16
		size = os.path.getsize(sys.argv[1])
		page = mmap.PAGESIZE
		n = size // page
		with open(sys.argv[1], "rb") as f:
		    # private, never written: its pages are the page cache's own
		    m = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
		addr = ctypes.addressof((ctypes.c_ubyte * size).from_buffer(m))
		for i in range(n):
		    m[i * page]  # fault every page in (the file's own folios: nothing is added)
		vec = (ctypes.c_ubyte * n)()
		libc = ctypes.CDLL(None, use_errno=True)
		if libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec):
		    sys.exit("mincore failed")
		resident = sum(v & 1 for v in vec)
		pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)
		flags = os.open("/proc/kpageflags", os.O_RDONLY)
		entries = os.pread(pagemap, 8 * n, (addr // page) * 8)
		largest, run, last = 0, 0, None
		for i in range(n):
		    entry = struct.unpack_from("<Q", entries, 8 * i)[0]
		    if not entry >> 63:
		        run, last = 0, None
		        continue
		    pfn = entry & ((1 << 55) - 1)
		    kpf = struct.unpack("<Q", os.pread(flags, 8, pfn * 8))[0]
		    if kpf & HEAD:
		        run = 1
		    elif kpf & TAIL and last is not None and pfn == last + 1 and run:
		        run += 1
		    else:
		        run = 0
		    last = pfn
		    if run:
		        largest = max(largest, (run - 1).bit_length() if run > 1 else 0)
		print(largest, resident, n)
	EOF
}

# What a file could hold, told apart from what it got: a file of ramfs (whose mappings take no
# large folio), a file of the file system /var/tmp is on, read after a drop from the cache, and
# a file of tmpfs with huge=always, each of 8 MiB. The largest order each got in foliostat's
# records is the largest folio the test finds of it in the page cache (pagemap and kpageflags),
# and never above the largest its mapping allows (folio_orders.max); ramfs's allows none
# (max 0, and its file system's max_folio_order_allowed 0) where the kernel says; on Linux 6.11
# and later, where mappings keep their orders, every file's orders are known. The order
# readahead chose for the disk file is the largest perf records of readahead:page_cache_ra_order
# for its inode (where the kernel has that tracepoint; null where it has not). tmpfs's folios
# are added without the tracepoint: its file is not listed, though the test finds its huge
# pages in the page cache.
test_files_say_what_each_file_system_could_hold() {
	need_root
	local ram=$T/ramfs huge=$T/huge disk
	mkdir -p "$ram" "$huge" || fail "mkdir"
	mount -t ramfs none "$ram" || fail "cannot mount ramfs"
	at_exit "umount '$ram'"
	mount -t tmpfs -o size=64m,huge=always none "$huge" || fail "cannot mount tmpfs"
	at_exit "umount '$huge'"
	make_files_of 8
	disk=${FILES[0]}
	local readahead=""
	probe_offered readahead:page_cache_ra_order && readahead=yes
	start_foliostat "$T/out" -j --files --top 0
	head -c $((8 << 20)) /dev/zero >"$ram/file" || fail "cannot write to ramfs"
	head -c $((8 << 20)) /dev/zero >"$huge/file" || fail "cannot write to tmpfs"
	[ -z "$readahead" ] || perf_record_begin ra readahead:page_cache_ra_order
	"$WORKLOAD" read "$disk" >"$T/read" || fail "reading $disk failed"
	[ -z "$readahead" ] || perf_record_end ra
	stop_foliostat "$T/out"
	assert_eq "$(json_field "$(cat "$T/read")" resident_before)" 0 "pages of $disk cached before the read"
	local file row got largest resident pages allowed kernel_says
	kernel_says=$(python3 -c 'import os; print(tuple(map(int, os.uname().release.split(".")[:2])) >= (6, 11))')
	for file in "$ram/file" "$disk"; do
		read -r largest resident pages <<<"$(file_folios "$file")"
		echo "$file ($(findmnt -n -o FSTYPE -T "$file")): largest folio order $largest, $resident of $pages pages resident (kpageflags, mincore)"
		assert_eq "$resident" "$pages" "pages of $file resident (mincore)"
		row=$(file_row "$file")
		assert_eq "$(query "$T/out" "len($row)")" 1 "rows of $file"
		got=$(query "$T/out" "max(int(o) for o in ${row}[0]['folios'])")
		assert_eq "$got" "$largest" "the largest order $file got, against the page cache's largest folio of it"
		allowed=$(query "$T/out" "${row}[0]['folio_orders']")
		if [ "$allowed" = null ]; then
			[ "$kernel_says" = False ] || fail "no folio_orders for $file on a kernel whose mappings keep them"
			echo "case: this kernel does not say what $file's mapping allows"
			continue
		fi
		assert_eq "$(query "$T/out" "${row}[0]['folio_orders']['max'] >= $got")" true \
			"the largest order $file got is one its mapping allows ($allowed)"
	done
	row=$(file_row "$disk")
	if [ -n "$readahead" ]; then
		local theirs
		theirs=$(python3 - "$T/ra.script" "$(printf %x "$(stat -c %i "$disk")")" <<-'EOF'
			import re, sys
			orders = []
			for line in open(sys.argv[1]):
			    m = re.search(r"ino=([0-9a-f]+) index=\d+ order=(\d+)", line)
			    if m and m.group(1) == sys.argv[2]:
			        orders.append(int(m.group(2)))
			print(max(orders) if orders else "null")
		EOF
		)
		assert_eq "$(query "$T/out" "${row}[0]['readahead_order']")" "$theirs" \
			"the largest order readahead chose for $disk, against perf's readahead:page_cache_ra_order"
	else
		assert_eq "$(query "$T/out" "${row}[0]['readahead_order']")" null \
			"readahead_order where the kernel does not trace readahead's order"
	fi
	row=$(file_row "$ram/file")
	if [ "$(query "$T/out" "${row}[0]['folio_orders']")" != null ]; then
		assert_eq "$(query "$T/out" "${row}[0]['folio_orders']['max']")" 0 "the largest order ramfs allows"
		assert_eq "$(query "$T/out" "$(fs_row "$ram/file")[0]['max_folio_order_allowed']")" 0 \
			"the largest order any file of the ramfs allows"
		assert_eq "$(query "$T/out" "$(fs_row "$ram/file")[0]['files_allowing_large_folios']")" 0 \
			"files of the ramfs that allow large folios"
	fi
	read -r largest resident pages <<<"$(file_folios "$huge/file")"
	echo "$huge/file (tmpfs, huge=always): largest folio order $largest (kpageflags)"
	assert_eq "$(query "$T/out" "len($(file_row "$huge/file"))")" 0 \
		"rows of the tmpfs file (its folios are added without the tracepoint)"
	assert_between "$largest" 1 15 "the largest folio of the tmpfs file with huge=always"
	assert_file_systems_add_up "$T/out"
}
