// SPDX-License-Identifier: GPL-2.0
/*
 * --files: page-cache additions per file (see files.h). A program of its own on
 * mm_filemap_add_to_page_cache, loaded only with --files, so that without it the hot path is
 * what it always was.
 *
 * The counts go to one of two sides, the one fs_files_side names. At each read the loader
 * flips the side, waits for an RCU grace period (no program still writes the old side), then
 * reads the old side and empties it: every addition is read exactly once, and the table holds
 * only the files of one read.
 */
#include "maps.bpf.h"
#include "files.h"

#include <bpf/bpf_tracing.h>

/* Sized by the loader: --max-files per side; one entry each when --files is off. */
#define FS_FILES_MAP(name)                       \
	struct {                                 \
		__uint(type, BPF_MAP_TYPE_HASH); \
		__uint(max_entries, 1);          \
		__type(key, struct fs_file_key); \
		__type(value, struct fs_file);   \
	} name SEC(".maps")

#define FS_FILE_DEVS_MAP(name)                     \
	struct {                                   \
		__uint(type, BPF_MAP_TYPE_HASH);   \
		__uint(max_entries, 1);            \
		__type(key, __u32);                \
		__type(value, struct fs_file_dev); \
	} name SEC(".maps")

FS_FILES_MAP(fs_files_0);
FS_FILES_MAP(fs_files_1);
FS_FILE_DEVS_MAP(fs_file_devs_0);
FS_FILE_DEVS_MAP(fs_file_devs_1);

/* The side programs write: 0 or 1, flipped by the loader. */
__u32 fs_files_side;
/* Per side: additions the devices map had no room for either. */
struct fs_file_dev fs_files_lost[2];
/* The value a new entry starts from (never written). */
struct fs_file fs_file_blank;
struct fs_file_dev fs_file_dev_blank;

/* The dentry fields the name walk reads. Both layouts have them (6.1's d_name is a plain
 * member, newer kernels' one of an anonymous union). */
struct dentry___name {
	struct dentry *d_parent;
	struct qstr d_name;
} __attribute__((preserve_access_index));

/*
 * Name the file from its inode's first dentry and the dentry's parents, the file's own name
 * first, up to FS_FILE_NAME_DEPTH components; a dentry that is its own parent is the file
 * system's root. Only when the entry is made, so once per file and read.
 */
static __always_inline void name_file(struct fs_file *file, struct inode *inode)
{
	struct hlist_node *alias = BPF_CORE_READ(inode, i_dentry.first);
	struct dentry___name *d, *parent;

	if (!alias)
		return; /* no dentry: an anonymous inode, a block device's cache */
	d = (void *)alias - bpf_core_field_offset(struct dentry, d_u.d_alias);
	file->flags |= FS_FILE_NAMED;
	for (int i = 0; i <= FS_FILE_NAME_DEPTH; i++) {
		parent = (struct dentry___name *)BPF_CORE_READ(d, d_parent);
		if (parent == d) {
			file->flags |= FS_FILE_AT_ROOT;
			break;
		}
		if (i == FS_FILE_NAME_DEPTH || !parent)
			break;
		bpf_probe_read_kernel_str(file->name[i], FS_FILE_NAME_LEN,
					  BPF_CORE_READ(d, d_name.name));
		if (BPF_CORE_READ(d, d_name.len) >= FS_FILE_NAME_LEN)
			file->flags |= FS_FILE_TRUNCATED;
		file->depth = i + 1;
		d = parent;
	}
}

/* An addition of a file the table had no room for: to its device's count, or the side's lost
 * count if the devices map is full too. */
static __always_inline void count_untracked(void *devs, __u32 side, __u32 dev, unsigned int order)
{
	struct fs_file_dev *d = bpf_map_lookup_elem(devs, &dev);

	if (!d) {
		bpf_map_update_elem(devs, &dev, &fs_file_dev_blank, BPF_NOEXIST);
		d = bpf_map_lookup_elem(devs, &dev);
	}
	if (!d)
		d = &fs_files_lost[side & 1];
	__sync_fetch_and_add(&d->folios[order], 1);
}

/* The entry of a file on this read's side, made (and named, and its mapping's allowed orders
 * taken) by whoever comes first; NULL when the table is full. */
static __always_inline struct fs_file *file_entry(void *files, struct fs_file_key *key,
						  struct inode *host)
{
	struct fs_file *file = bpf_map_lookup_elem(files, key);
	long err;

	if (file)
		return file;
	/* A new file: its entry, named by whoever made it (another CPU may have). */
	err = bpf_map_update_elem(files, key, &fs_file_blank, BPF_NOEXIST);
	file = bpf_map_lookup_elem(files, key);
	if (file && !err) {
		name_file(file, host);
		file->orders = mapping_folio_orders(host->i_mapping);
	}
	return file;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(fs_file_add, struct folio *folio)
{
	unsigned int order = order_bucket(folio_order_of(folio));
	/* Typed pointers from the tracepoint on: plain loads, relocated by CO-RE and guarded by
	 * the JIT, cheaper than bpf_probe_read_kernel() calls on a path taken at every addition. */
	struct inode *host = folio->mapping->host;
	__u32 side = fs_files_side & 1;
	void *files = side ? (void *)&fs_files_1 : (void *)&fs_files_0;
	struct fs_file_key key = {};
	struct fs_file *file;

	if (!host)
		return 0;
	key.dev = host->i_sb->s_dev;
	key.ino = host->i_ino;
	file = file_entry(files, &key, host);
	if (file)
		__sync_fetch_and_add(&file->folios[order], 1);
	else
		count_untracked(side ? (void *)&fs_file_devs_1 : (void *)&fs_file_devs_0, side,
				key.dev, order);
	return 0;
}

/*
 * The folio order readahead chose for a file (Linux 6.16 and later trace it, once per
 * readahead that may use large folios, not per folio): the largest of the read is kept. Two
 * CPUs reading ahead in the same file at once may keep the smaller of their two; a file the
 * full table has no room for is not counted.
 */
SEC("tp_btf/page_cache_ra_order")
int BPF_PROG(fs_file_ra_order, struct inode *inode, unsigned long index, struct file_ra_state *ra)
{
	__u32 side = fs_files_side & 1;
	void *files = side ? (void *)&fs_files_1 : (void *)&fs_files_0;
	struct fs_file_key key = {};
	struct fs_file *file;
	__u32 order;

	if (!inode || !ra || !bpf_core_field_exists(struct file_ra_state___order, order))
		return 0;
	order = ((struct file_ra_state___order *)ra)->order + 1;
	key.dev = inode->i_sb->s_dev;
	key.ino = inode->i_ino;
	file = file_entry(files, &key, inode);
	if (file && file->readahead_order < order)
		file->readahead_order = order;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
