// SPDX-License-Identifier: GPL-2.0
/*
 * The resident scan (user/resident/resident_scan.c) over made-up /proc files: a maps text,
 * pagemap entries at the offsets of their addresses, kpageflags at those of their frames, and
 * smaps_rollup's PMD-mapped bytes. Each case maps folios in one way and expects its counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resident.h"
#include "unit.h"

#define PAGE 4096ULL
#define PRESENT (1ULL << 63)
#define ANON (1ULL << 12)
#define SWAPBACKED (1ULL << 14)
#define HEAD (1ULL << 15)
#define TAIL (1ULL << 16)
#define ZERO_PAGE (1ULL << 24)

struct fake_proc {
	int maps, pagemap, smaps_rollup, kpageflags;
};

static int temp_file(void)
{
	char path[] = "/tmp/foliostat-unit-resident.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static bool fake_open(struct fake_proc *p, const char *maps, const char *rollup)
{
	p->maps = temp_file();
	p->pagemap = temp_file();
	p->smaps_rollup = temp_file();
	p->kpageflags = temp_file();
	return p->maps >= 0 && p->pagemap >= 0 && p->smaps_rollup >= 0 && p->kpageflags >= 0 &&
	       write(p->maps, maps, strlen(maps)) == (ssize_t)strlen(maps) &&
	       lseek(p->maps, 0, SEEK_SET) == 0 &&
	       write(p->smaps_rollup, rollup, strlen(rollup)) == (ssize_t)strlen(rollup);
}

static void fake_close(struct fake_proc *p)
{
	close(p->maps);
	close(p->pagemap);
	close(p->smaps_rollup);
	close(p->kpageflags);
}

/* `nr` pages from `vaddr` on mapped to frames from `pfn` on. */
static bool map_pages(struct fake_proc *p, __u64 vaddr, __u64 pfn, __u64 nr)
{
	for (__u64 i = 0; i < nr; i++) {
		__u64 entry = PRESENT | (pfn + i);

		if (pwrite(p->pagemap, &entry, sizeof(entry), (off_t)((vaddr / PAGE + i) * 8)) != 8)
			return false;
	}
	return true;
}

/* A folio of 2^order frames from `pfn` on (order 0: a single page), with `flags`. */
static bool make_folio(struct fake_proc *p, __u64 pfn, int order, __u64 flags)
{
	for (__u64 i = 0; i < 1ULL << order; i++) {
		__u64 f = flags | (order ? (i ? TAIL : HEAD) : 0);

		if (pwrite(p->kpageflags, &f, sizeof(f), (off_t)((pfn + i) * 8)) != 8)
			return false;
	}
	return true;
}

static struct resident_host host_of(const struct fake_proc *p)
{
	return (struct resident_host){
	    .kpageflags = p->kpageflags, .page_size = PAGE, .pmd_order = 9};
}

static bool scan(struct fake_proc *p, struct resident_counts *c, int expect)
{
	struct resident_host host = host_of(p);
	struct resident_files files = {p->maps, p->pagemap, p->smaps_rollup};

	memset(c, 0, sizeof(*c));
	return ASSERT_EQ(resident_scan(&host, &files, NULL, c, NULL), expect);
}

#define ROLLUP(anon_kb)                                                 \
	"40000000-7fff0000 ---p 00000000 00:00 0 [rollup]\nRss: 1 kB\n" \
	"AnonHugePages: " #anon_kb " kB\nShmemPmdMapped: 0 kB\nFilePmdMapped: 0 kB\n"

/* 4 MiB of anonymous memory in two THPs, one mapped by a PMD (as smaps_rollup says), the other
 * by page-table entries: both order 9, whole and aligned. */
static bool thps_by_pmd_and_by_ptes(void)
{
	struct fake_proc p;
	struct resident_counts c;
	bool ok;

	ok =
	    ASSERT_TRUE(fake_open(&p, "40000000-40400000 rw-p 00000000 00:00 0\n", ROLLUP(2048))) &&
	    make_folio(&p, 0x1000, 9, ANON) && make_folio(&p, 0x1200, 9, ANON) &&
	    map_pages(&p, 0x40000000, 0x1000, 1024) && scan(&p, &c, 0) &&
	    ASSERT_EQ(c.folios[RESIDENT_ANON][9], 2) &&
	    ASSERT_EQ(c.pages[RESIDENT_ANON][9], 1024) &&
	    ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PMD], 1) &&
	    ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PTE], 1) &&
	    ASSERT_EQ(c.pages[RESIDENT_ANON][0], 0);
	fake_close(&p);
	return ok;
}

/* 64 kB folios (order 4): one whole at its alignment, one whole a page off it, one half mapped
 * (the other half not present); a file page, a shmem page, the zero page and an absent page. */
static bool mthp_mappings_and_types(void)
{
	struct fake_proc p;
	struct resident_counts c;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p,
				   "40000000-40010000 rw-p 00000000 00:00 0\n"
				   "40011000-40021000 rw-p 00000000 00:00 0\n"
				   "40030000-40040000 rw-p 00000000 00:00 0\n"
				   "50000000-50004000 r--s 00000000 08:01 12 /some file\n",
				   ROLLUP(0))) &&
	     make_folio(&p, 0x2000, 4, ANON) && map_pages(&p, 0x40000000, 0x2000, 16) &&
	     make_folio(&p, 0x2010, 4, ANON) && map_pages(&p, 0x40011000, 0x2010, 16) &&
	     make_folio(&p, 0x2020, 4, ANON) && map_pages(&p, 0x40030000, 0x2020, 8) &&
	     make_folio(&p, 0x3000, 0, 0) && make_folio(&p, 0x3001, 0, SWAPBACKED) &&
	     make_folio(&p, 0x3002, 0, ZERO_PAGE) && map_pages(&p, 0x50000000, 0x3000, 3) &&
	     scan(&p, &c, 0) && ASSERT_EQ(c.folios[RESIDENT_ANON][4], 3) &&
	     ASSERT_EQ(c.pages[RESIDENT_ANON][4], 40) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PTE], 1) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PTE_UNALIGNED], 1) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PARTIAL], 1) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PMD], 0) &&
	     ASSERT_EQ(c.pages[RESIDENT_FILE][0], 1) && ASSERT_EQ(c.pages[RESIDENT_SHMEM][0], 1) &&
	     ASSERT_EQ(c.pages[RESIDENT_ANON][0], 0);
	fake_close(&p);
	return ok;
}

/* A folio's frames mapped at consecutive addresses but not in order are no whole mapping;
 * frames of the next folio after a whole one start another folio. */
static bool runs_follow_frames(void)
{
	struct fake_proc p;
	struct resident_counts c;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p, "40000000-40004000 rw-p 00000000 00:00 0\n", ROLLUP(0))) &&
	     make_folio(&p, 0x4000, 1, ANON) && make_folio(&p, 0x4002, 1, ANON) &&
	     map_pages(&p, 0x40000000, 0x4000, 2) && map_pages(&p, 0x40002000, 0x4003, 1) &&
	     map_pages(&p, 0x40003000, 0x4002, 1) && scan(&p, &c, 0) &&
	     ASSERT_EQ(c.folios[RESIDENT_ANON][1], 3) && ASSERT_EQ(c.pages[RESIDENT_ANON][1], 4) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PTE], 1) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PARTIAL], 2);
	fake_close(&p);
	return ok;
}

/* A tail frame whose head is gone (the folio split or freed meanwhile) counts as a small page;
 * a folio of the largest order foliostat knows has its extent found in a few probes. */
static bool changed_folios_and_large_orders(void)
{
	struct fake_proc p;
	struct resident_counts c;
	__u64 tail = TAIL | ANON;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p,
				   "40000000-40001000 rw-p 00000000 00:00 0\n"
				   "80000000-88000000 rw-p 00000000 00:00 0\n",
				   ROLLUP(0))) &&
	     ASSERT_EQ(pwrite(p.kpageflags, &tail, 8, 0x5003 * 8), 8) &&
	     map_pages(&p, 0x40000000, 0x5003, 1) && make_folio(&p, 0x8000, 15, ANON) &&
	     map_pages(&p, 0x80000000, 0x8000, 1 << 15) && scan(&p, &c, 0) &&
	     ASSERT_EQ(c.pages[RESIDENT_ANON][0], 1) && ASSERT_EQ(c.folios[RESIDENT_ANON][15], 1) &&
	     ASSERT_EQ(c.pages[RESIDENT_ANON][15], 1 << 15) &&
	     ASSERT_EQ(c.large[RESIDENT_ANON][MAPPED_PTE], 1);
	fake_close(&p);
	return ok;
}

/* pagemap without frame numbers (opened without CAP_SYS_ADMIN): an error, not zeroes. */
static bool hidden_frames_are_an_error(void)
{
	struct fake_proc p;
	struct resident_counts c;
	__u64 entry = PRESENT;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p, "40000000-40001000 rw-p 00000000 00:00 0\n", ROLLUP(0))) &&
	     ASSERT_EQ(pwrite(p.pagemap, &entry, 8, 0x40000000 / PAGE * 8), 8) &&
	     scan(&p, &c, -EPERM);
	fake_close(&p);
	return ok;
}

/* The pace function: called before every batch of pages (a batch is 512 pages), its error
 * ending the scan at once. */
struct pace_count {
	int calls, stop_at;
};

static int count_paces(void *ctx)
{
	struct pace_count *p = ctx;

	return ++p->calls == p->stop_at ? -ECANCELED : 0;
}

static bool scans_are_paced_batch_by_batch(void)
{
	struct fake_proc p;
	struct resident_counts c = {0};
	struct pace_count paces = {0}, stopped = {.stop_at = 2};
	struct resident_pace pace = {count_paces, &paces}, stop = {count_paces, &stopped};
	struct resident_host host;
	struct resident_files files;
	bool ok;

	/* 4 MiB: 1,024 pages, two batches; and a page of its own. */
	ok = ASSERT_TRUE(fake_open(&p,
				   "40000000-40400000 rw-p 00000000 00:00 0\n"
				   "50000000-50001000 rw-p 00000000 00:00 0\n",
				   ROLLUP(0))) &&
	     make_folio(&p, 0x1000, 9, ANON) && make_folio(&p, 0x1200, 9, ANON) &&
	     map_pages(&p, 0x40000000, 0x1000, 1024);
	if (ok) {
		host = host_of(&p);
		files = (struct resident_files){p.maps, p.pagemap, p.smaps_rollup};
		ok = ASSERT_EQ(resident_scan(&host, &files, &pace, &c, NULL), 0) &&
		     ASSERT_EQ(paces.calls, 3) && ASSERT_EQ(c.folios[RESIDENT_ANON][9], 2);
		lseek(p.maps, 0, SEEK_SET);
		ok = ok && ASSERT_EQ(resident_scan(&host, &files, &stop, &c, NULL), -ECANCELED) &&
		     ASSERT_EQ(stopped.calls, 2);
	}
	fake_close(&p);
	return ok;
}

/*
 * smaps' Rss: a mapping of Rss 0 is not read (pages pagemap shows there, as a stale file
 * would, are not counted); a mapping of 1 TiB whose Rss is its first two pages is read no
 * further than the batch that holds them (and its figures are whole: not cut short).
 */
static bool smaps_rss_skips_what_has_nothing_to_read(void)
{
	struct fake_proc p;
	struct resident_counts c = {0};
	struct resident_reading reading;
	struct resident_host host;
	struct resident_files files;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p,
				   "40000000-40004000 rw-p 00000000 00:00 0\n"
				   "Size:                 16 kB\nRss:                   0 kB\n"
				   "10000000000-20000000000 rw-p 00000000 00:00 0\n"
				   "Size:         1073741824 kB\nRss:                   8 kB\n"
				   "AnonHugePages:         0 kB\n",
				   ROLLUP(0))) &&
	     make_folio(&p, 0x3000, 0, ANON) && make_folio(&p, 0x3001, 0, ANON) &&
	     make_folio(&p, 0x3002, 0, ANON) && map_pages(&p, 0x40000000, 0x3000, 1) &&
	     map_pages(&p, 0x10000000000, 0x3001, 2) &&
	     /* (pagemap as long as the mapping: its last entry, absent) */
	     ASSERT_EQ(pwrite(p.pagemap, &(__u64){0}, 8, (off_t)(0x20000000000 / PAGE * 8 - 8)), 8);
	if (ok) {
		host = host_of(&p);
		files = (struct resident_files){p.maps, p.pagemap, p.smaps_rollup};
		ok = ASSERT_EQ(resident_scan(&host, &files, NULL, &c, &reading), 0) &&
		     ASSERT_EQ(c.pages[RESIDENT_ANON][0], 2) && ASSERT_EQ(reading.entries, 512) &&
		     ASSERT_TRUE(!reading.cut_short);
	}
	fake_close(&p);
	return ok;
}

/* At max_entries the scan stops, cut short, with what it read: of a mapping without Rss
 * (maps) of 4,096 pages, a page at each end, only the first is read with a limit of 1,024; a
 * mapping after it, of a page, is read first (a mapping that alone could take what is left is
 * read last). */
static bool scans_stop_at_their_limit_cut_short(void)
{
	struct fake_proc p;
	struct resident_counts c = {0};
	struct resident_reading reading;
	struct resident_host host;
	struct resident_files files;
	bool ok;

	ok = ASSERT_TRUE(fake_open(&p,
				   "40000000-41000000 rw-p 00000000 00:00 0\n"
				   "50000000-50001000 rw-p 00000000 00:00 0\n",
				   ROLLUP(0))) &&
	     make_folio(&p, 0x3000, 0, ANON) && make_folio(&p, 0x3001, 0, ANON) &&
	     make_folio(&p, 0x3002, 0, ANON) && map_pages(&p, 0x40000000, 0x3000, 1) &&
	     map_pages(&p, 0x40fff000, 0x3001, 1) && map_pages(&p, 0x50000000, 0x3002, 1);
	if (ok) {
		host = host_of(&p);
		host.max_entries = 1024;
		files = (struct resident_files){p.maps, p.pagemap, p.smaps_rollup};
		ok = ASSERT_EQ(resident_scan(&host, &files, NULL, &c, &reading), 0) &&
		     ASSERT_EQ(c.pages[RESIDENT_ANON][0], 2) && ASSERT_EQ(reading.entries, 1024) &&
		     ASSERT_TRUE(reading.cut_short);
		host.max_entries = 0;
		lseek(p.maps, 0, SEEK_SET);
		memset(&c, 0, sizeof(c));
		ok = ok && ASSERT_EQ(resident_scan(&host, &files, NULL, &c, &reading), 0) &&
		     ASSERT_EQ(c.pages[RESIDENT_ANON][0], 3) && ASSERT_EQ(reading.entries, 4097) &&
		     ASSERT_TRUE(!reading.cut_short);
	}
	fake_close(&p);
	return ok;
}

const struct unit_test resident_tests[] = {
    UNIT_TEST(smaps_rss_skips_what_has_nothing_to_read),
    UNIT_TEST(scans_stop_at_their_limit_cut_short),
    UNIT_TEST(thps_by_pmd_and_by_ptes),
    UNIT_TEST(mthp_mappings_and_types),
    UNIT_TEST(runs_follow_frames),
    UNIT_TEST(changed_folios_and_large_orders),
    UNIT_TEST(hidden_frames_are_an_error),
    UNIT_TEST(scans_are_paced_batch_by_batch),
    {},
};
