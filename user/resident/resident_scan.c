// SPDX-License-Identifier: GPL-2.0
/*
 * One process's resident folios (see resident.h). Each mapping's pages are read from pagemap in
 * virtual order; consecutive pages whose frames are consecutive frames of one large folio are a
 * run, one mapping of that folio: whole or partial, aligned or not. A folio's extent comes from
 * the frames' flags: its head (KPF_COMPOUND_HEAD) and the tails after it (KPF_COMPOUND_TAIL).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "words.h"
#include "resident.h"

/* pagemap's entry (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)

/* /proc/kpageflags' bits (include/uapi/linux/kernel-page-flags.h). */
#define KPF_ANON (1ULL << 12)
#define KPF_SWAPBACKED (1ULL << 14)
#define KPF_COMPOUND_HEAD (1ULL << 15)
#define KPF_COMPOUND_TAIL (1ULL << 16)
#define KPF_HUGE (1ULL << 17) /* hugetlbfs: not the folios the page allocator's orders are */
/* A frame without a struct page: a driver's (VM_PFNMAP, VM_MIXEDMAP). */
#define KPF_NOPAGE (1ULL << 20)
#define KPF_ZERO_PAGE (1ULL << 24)

/* pagemap entries read at a time: one page of them. */
#define BATCH 512

/* The PAGEMAP_SCAN ioctl of pagemap (include/uapi/linux/fs.h, Linux 6.7; Debian 12's headers
 * are older): the regions of a range whose pages are in given categories. */
struct pm_scan_arg {
	__u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
	__u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct page_region {
	__u64 start, end, categories;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_HUGE (1 << 6) /* mapped by a PMD (a THP), or hugetlb */
/* Regions asked for at a time. */
#define REGIONS 256

/*
 * The flags of the frames a batch of pagemap entries maps, read ahead where they cluster: the
 * kernel computes the flags of every frame a read covers (a read of 512 costs about 512 times
 * one), and small folios' frames are scattered, but often a few apart. Clusters of at least
 * PREFETCH_MIN frames no more than PREFETCH_GAP apart are read whole; the rest one by one.
 */
#define PREFETCH_GAP 16
#define PREFETCH_MIN 4
#define PREFETCH_MAX (BATCH * PREFETCH_GAP)

struct prefetch {
	size_t nr_windows, used;
	struct window {
		__u64 first, n; /* frames [first, first + n), their flags at flags[at] */
		size_t at;
	} windows[BATCH];
	__u64 flags[PREFETCH_MAX];
};

static int compare_pfns(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void prefetch(struct prefetch *p, int kpageflags, __u64 *pfns, size_t n)
{
	p->nr_windows = p->used = 0;
	qsort(pfns, n, sizeof(*pfns), compare_pfns);
	for (size_t i = 0, j; i < n; i = j) {
		size_t frames = 1;
		__u64 span;
		ssize_t got;

		for (j = i + 1; j < n && pfns[j] - pfns[j - 1] <= PREFETCH_GAP; j++)
			frames += pfns[j] != pfns[j - 1];
		span = pfns[j - 1] - pfns[i] + 1;
		if (frames < PREFETCH_MIN || span > PREFETCH_MAX - p->used)
			continue;
		got = pread(kpageflags, p->flags + p->used, span * sizeof(__u64),
			    (off_t)(pfns[i] * sizeof(__u64)));
		if (got <= 0)
			continue;
		p->windows[p->nr_windows++] = (struct window){
		    .first = pfns[i], .n = (__u64)got / sizeof(__u64), .at = p->used};
		p->used += (size_t)got / sizeof(__u64);
	}
}

/* One frame's flags: 0, -ERANGE beyond the last frame, or a negative errno; from the batch's
 * windows (sorted by frame) where one holds it, else read alone. */
static int frame_flags(const struct prefetch *p, int kpageflags, __u64 pfn, __u64 *flags)
{
	size_t low = 0, high = p ? p->nr_windows : 0;
	ssize_t got;

	while (low < high) {
		size_t mid = (low + high) / 2;
		const struct window *w = &p->windows[mid];

		if (pfn < w->first) {
			high = mid;
		} else if (pfn >= w->first + w->n) {
			low = mid + 1;
		} else {
			*flags = p->flags[w->at + (pfn - w->first)];
			return 0;
		}
	}
	got = pread(kpageflags, flags, sizeof(*flags), (off_t)(pfn * sizeof(__u64)));
	if (got < 0)
		return -errno;
	return got == sizeof(*flags) ? 0 : -ERANGE;
}

/* A folio being mapped page after page. */
struct run {
	bool on;
	enum resident_type type;
	__u64 head, nr;	   /* the folio's frames */
	__u64 first_pfn;   /* the frame the run began at, and its address */
	__u64 first_vaddr; /* (the address of the folio's head, when the run began with it) */
	__u64 next_pfn;	   /* the frame the next page must have to be in the run */
	__u64 mapped;	   /* pages of the run */
	bool by_pmd;	   /* in a range PAGEMAP_SCAN says a PMD maps */
};

/* One mapping of smaps (or maps): its range, and its Rss where smaps gives it. */
struct mapping {
	bool on;
	unsigned long long start, end;
	__u64 rss_pages; /* UINT64_MAX: not given */
};

/* Mappings larger than the entries a scan has left, read after the others: at most these many
 * (more are read in their turn). */
#define DEFERRED 16

struct scan {
	const struct resident_host *host;
	const struct resident_pace *pace; /* NULL: none */
	int kpageflags;
	struct prefetch *ahead; /* the current batch's frames */
	/* Frames of small folios looked up in the last batch: where there were many, the next
	 * batch's frames are read ahead; large folios' runs need few lookups, and none ahead. */
	size_t small_lookups;
	struct resident_counts *counts;
	__u64 entries;	/* pagemap entries read so far (host->max_entries) */
	bool cut_short; /* at max_entries: read no more */
	/* Pages of the mapping being read that smaps' Rss says are still to come (UINT64_MAX:
	 * unknown): at 0 the rest of the mapping is holes, and is not read. */
	__u64 rss_left;
	struct mapping deferred[DEFERRED];
	size_t nr_deferred;
	bool by_pmd; /* the range being read is mapped by PMDs (PAGEMAP_SCAN's PAGE_IS_HUGE) */
	/* Without PAGEMAP_SCAN: the whole, aligned PMD-size folios, which smaps_rollup says how
	 * many of are mapped by a PMD (pmd_mapped()). */
	__u64 pmd_whole_aligned[NR_RESIDENT_TYPES];
};

static int order_of(__u64 nr)
{
	int order = 0;

	while (order + 1 < FS_NR_ORDERS && (1ULL << order) < nr)
		order++;
	return order;
}

static enum resident_type type_of(__u64 flags)
{
	if (flags & KPF_ANON)
		return RESIDENT_ANON;
	return flags & KPF_SWAPBACKED ? RESIDENT_SHMEM : RESIDENT_FILE;
}

static void end_run(struct scan *s, struct run *r)
{
	int order = order_of(r->nr);
	struct resident_counts *c = s->counts;
	__u64 bytes = r->nr * (__u64)s->host->page_size;

	if (!r->on)
		return;
	r->on = false;
	c->pages[r->type][order] += r->mapped;
	c->folios[r->type][order]++;
	if (r->mapped < r->nr) {
		c->large[r->type][MAPPED_PARTIAL]++;
	} else if (r->first_pfn == r->head && !(r->first_vaddr % bytes)) {
		c->large[r->type][r->by_pmd ? MAPPED_PMD : MAPPED_PTE]++;
		if (order == s->host->pmd_order && !s->host->pagemap_scan)
			s->pmd_whole_aligned[r->type]++;
	} else {
		c->large[r->type][MAPPED_PTE_UNALIGNED]++;
	}
}

/*
 * Where the large folio of frame `pfn` (flags `flags`) begins and how many frames it has. A
 * folio of order K is 2^K frames aligned to 2^K: its head is the first frame with
 * KPF_COMPOUND_HEAD among pfn aligned down to 2, 4, 8, ... (those before are its tails), and K
 * the first k for which head + 2^k is no tail of it (no other folio's tail can follow a folio).
 * A few reads for any order. Returns 0 with nr 0 where no head is found: the folio changed
 * meanwhile (split, freed), and the page counts as order 0.
 */
static int folio_extent(struct scan *s, __u64 pfn, __u64 flags, __u64 *head, __u64 *nr)
{
	__u64 f = flags;
	int k, err;

	*head = pfn;
	*nr = 0;
	for (k = 1; !(f & KPF_COMPOUND_HEAD); k++) {
		if (k >= FS_NR_ORDERS)
			return 0;
		*head = pfn & ~((1ULL << k) - 1);
		if ((err = frame_flags(s->ahead, s->kpageflags, *head, &f)))
			return err == -ERANGE ? 0 : err;
	}
	/* head + 2^k is a tail for every k below the order. */
	for (k = 0; k < FS_NR_ORDERS - 1; k++) {
		err = frame_flags(s->ahead, s->kpageflags, *head + (1ULL << k), &f);
		if (err == -ERANGE || (!err && !(f & KPF_COMPOUND_TAIL)))
			break;
		if (err)
			return err;
	}
	*nr = 1ULL << k;
	return 0;
}

/* One present page at `vaddr`, of frame `pfn`. */
static int page(struct scan *s, struct run *r, __u64 vaddr, __u64 pfn)
{
	__u64 flags, head, nr;
	int err;

	if (r->on && pfn == r->next_pfn && pfn < r->head + r->nr) {
		r->mapped++;
		r->next_pfn++;
		s->rss_left--;
		return 0;
	}
	end_run(s, r);
	err = frame_flags(s->ahead, s->kpageflags, pfn, &flags);
	if (err)
		return err == -ERANGE ? 0 : err;
	/* The shared zero page is no memory of the process's, nor a device's frames; hugetlb is
	 * apart. (smaps' Rss counts none of them either.) */
	if (flags & (KPF_ZERO_PAGE | KPF_HUGE | KPF_NOPAGE))
		return 0;
	s->rss_left--;
	if (!(flags & (KPF_COMPOUND_HEAD | KPF_COMPOUND_TAIL))) {
		s->small_lookups++;
		s->counts->pages[type_of(flags)][0]++;
		s->counts->folios[type_of(flags)][0]++;
		return 0;
	}
	if ((err = folio_extent(s, pfn, flags, &head, &nr)))
		return err;
	if (!nr || (head != pfn && frame_flags(s->ahead, s->kpageflags, head, &flags))) {
		s->counts->pages[type_of(flags)][0]++; /* it changed meanwhile */
		s->counts->folios[type_of(flags)][0]++;
		return 0;
	}
	*r = (struct run){.on = true,
			  .type = type_of(flags),
			  .head = head,
			  .nr = nr,
			  .first_pfn = pfn,
			  .first_vaddr = vaddr,
			  .next_pfn = pfn + 1,
			  .mapped = 1,
			  .by_pmd = s->by_pmd && nr == 1ULL << s->host->pmd_order};
	return 0;
}

/* Whether the mapping being read has no more to read: all its Rss seen, or the scan at its
 * limit of entries (which marks it cut short). */
static bool mapping_done(struct scan *s)
{
	const __u64 max = s->host->max_entries;

	if (max && s->entries >= max)
		s->cut_short = true;
	return s->cut_short || !s->rss_left;
}

/* The pages of [start, end), from pagemap. */
static int scan_range(struct scan *s, int pagemap, __u64 start, __u64 end)
{
	__u64 entries[BATCH], pfns[BATCH], page_size = (__u64)s->host->page_size;
	const __u64 max = s->host->max_entries;
	struct run r = {0};
	int err = 0;

	for (__u64 at = start; at < end && !err && !mapping_done(s);) {
		size_t want = (end - at) / page_size < BATCH ? (end - at) / page_size : BATCH;
		ssize_t got;

		if (max && want > max - s->entries)
			want = max - s->entries;
		if (s->pace && (err = s->pace->fn(s->pace->ctx)))
			break;
		got = pread(pagemap, entries, want * sizeof(__u64),
			    (off_t)(at / page_size * sizeof(__u64)));

		if (got < 0) {
			err = errno == ESRCH ? -ESRCH : -errno;
			break;
		}
		if (!got)
			break; /* past what pagemap covers (a [vsyscall] page) */
		s->entries += (__u64)got / sizeof(__u64);
		if (s->ahead) {
			size_t n = 0;

			s->ahead->nr_windows = 0;
			for (size_t i = 0; i < (size_t)got / sizeof(__u64); i++)
				if ((entries[i] & PM_PRESENT) && (entries[i] & PM_PFN_MASK))
					pfns[n++] = entries[i] & PM_PFN_MASK;
			if (s->small_lookups >= PREFETCH_MIN * 2)
				prefetch(s->ahead, s->kpageflags, pfns, n);
			s->small_lookups = 0;
		}
		for (size_t i = 0; i < (size_t)got / sizeof(__u64) && !err && s->rss_left;
		     i++, at += page_size) {
			if (!(entries[i] & PM_PRESENT)) {
				end_run(s, &r);
				continue;
			}
			if (!(entries[i] & PM_PFN_MASK))
				return -EPERM; /* frame numbers hidden: no CAP_SYS_ADMIN */
			err = page(s, &r, at, entries[i] & PM_PFN_MASK);
		}
	}
	end_run(s, &r);
	return err;
}

/* With PAGEMAP_SCAN: the present parts of [start, end), each read from pagemap, and those a
 * PMD maps known to be. */
static int scan_present(struct scan *s, int pagemap, __u64 start, __u64 end)
{
	struct page_region regions[REGIONS];
	struct pm_scan_arg arg = {.size = sizeof(arg),
				  .start = start,
				  .end = end,
				  .vec = (__u64)(uintptr_t)regions,
				  .vec_len = REGIONS,
				  .category_mask = PAGE_IS_PRESENT,
				  .return_mask = PAGE_IS_PRESENT | PAGE_IS_HUGE};
	int err = 0;

	while (!err && arg.start < end && !mapping_done(s)) {
		int n = ioctl(pagemap, PAGEMAP_SCAN, &arg);

		if (n < 0 && errno == EFAULT)
			break; /* a range beyond user addresses (a [vsyscall] page): nothing in pagemap */
		if (n < 0)
			return errno == ESRCH ? -ESRCH : -errno;
		for (int i = 0; i < n && !err && !mapping_done(s); i++) {
			s->by_pmd = regions[i].categories & PAGE_IS_HUGE;
			err = scan_range(s, pagemap, regions[i].start, regions[i].end);
		}
		if (arg.walk_end <= arg.start)
			break; /* (no progress: never seen, but no loop without end) */
		arg.start = arg.walk_end;
	}
	s->by_pmd = false;
	return err;
}

bool resident_pagemap_scan_works(void)
{
	struct page_region region;
	long page_size = sysconf(_SC_PAGESIZE);
	/* A page of foliostat's own stack, present. */
	__u64 at = (__u64)(uintptr_t)&region & ~(__u64)(page_size - 1);
	struct pm_scan_arg arg = {.size = sizeof(arg),
				  .start = at,
				  .end = at + (__u64)page_size,
				  .vec = (__u64)(uintptr_t)&region,
				  .vec_len = 1,
				  .category_mask = PAGE_IS_PRESENT,
				  .return_mask = PAGE_IS_PRESENT};
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return false;
	n = ioctl(fd, PAGEMAP_SCAN, &arg); /* ENOTTY before Linux 6.7 */
	close(fd);
	return n == 1;
}

/* smaps_rollup's "NAME: N kB", in bytes (0 where absent). */
static __u64 rollup_bytes(const char *text, const char *name)
{
	const char *at = strstr(text, name);

	return at ? strtoull(at + strlen(name), NULL, 10) * 1024 : 0;
}

/* Of the whole, aligned PMD-size folios, those smaps_rollup counts as mapped by a PMD. */
static int pmd_mapped(struct scan *s, int smaps_rollup)
{
	static const char *const names[NR_RESIDENT_TYPES] = {
	    [RESIDENT_ANON] = "\nAnonHugePages:",
	    [RESIDENT_FILE] = "\nFilePmdMapped:",
	    [RESIDENT_SHMEM] = "\nShmemPmdMapped:",
	};
	__u64 pmd_bytes = (__u64)s->host->page_size << s->host->pmd_order;
	char text[4096];
	ssize_t n = pread(smaps_rollup, text, sizeof(text) - 1, 0);

	if (n < 0)
		return -errno;
	text[n] = '\0';
	for (int t = 0; t < NR_RESIDENT_TYPES; t++) {
		__u64 pmd = rollup_bytes(text, names[t]) / pmd_bytes;
		__u64 *pte = &s->counts->large[t][MAPPED_PTE];

		/* (Read after the page tables: a THP mapped meanwhile is not among the folios.) */
		if (pmd > s->pmd_whole_aligned[t])
			pmd = s->pmd_whole_aligned[t];
		s->counts->large[t][MAPPED_PMD] += pmd;
		*pte -= pmd;
	}
	return 0;
}

/* Read the mapping, unless its Rss says it has nothing to read; or, where it alone could take
 * what is left of the scan's entries, later (may_defer): after the others, so that a reading
 * cut short in a reservation's holes has every other mapping's pages still. */
static int scan_mapping(struct scan *s, const struct resident_files *files, struct mapping *m,
			bool may_defer)
{
	const __u64 max = s->host->max_entries;
	int err = 0;

	if (!m->on || !m->rss_pages)
		return 0;
	m->on = false;
	if (may_defer && max && !s->host->pagemap_scan && s->nr_deferred < DEFERRED &&
	    (m->end - m->start) / (__u64)s->host->page_size > max - s->entries) {
		s->deferred[s->nr_deferred] = *m;
		s->deferred[s->nr_deferred++].on = true;
		return 0;
	}
	s->rss_left = m->rss_pages;
	if (s->host->pagemap_scan)
		err = scan_present(s, files->pagemap, m->start, m->end);
	else
		err = scan_range(s, files->pagemap, m->start, m->end);
	return err;
}

/* smaps' "Rss:          12 kB" line, in pages; else UINT64_MAX. */
static __u64 rss_pages(const char *line, long page_size)
{
	unsigned long long kb;

	if (sscanf(line, "Rss: %llu kB", &kb) != 1)
		return UINT64_MAX;
	return (__u64)kb * 1024 / (__u64)page_size;
}

int resident_scan(const struct resident_host *host, const struct resident_files *files,
		  const struct resident_pace *pace, struct resident_counts *counts,
		  struct resident_reading *reading)
{
	struct scan s = {.host = host,
			 .pace = pace,
			 .kpageflags = host->kpageflags,
			 .ahead = malloc(sizeof(struct prefetch)),
			 .small_lookups = PREFETCH_MIN * 2, /* (the first batch: read ahead) */
			 .counts = counts};
	struct mapping m = {0};
	char *line = NULL;
	size_t size = 0;
	FILE *mappings;
	int fd = dup(files->mappings), err = 0;

	if (fd < 0 || !(mappings = fdopen(fd, "r"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		free(s.ahead);
		return err;
	}
	/* A mapping's line, "START-END PERMS OFFSET DEV INODE [PATH]" (whole lines whatever the
	 * path: only the range matters, the frames' flags say the rest), then smaps' fields of it,
	 * "Name: value" each: its Rss among them. It is read at the next mapping's line. */
	while (!err && !s.cut_short && getline(&line, &size, mappings) > 0) {
		const char *space = strpbrk(line, " \t");
		unsigned long long start, end;

		if (space && space > line && space[-1] == ':') {
			if (m.on && !strncmp(line, "Rss:", 4))
				m.rss_pages = rss_pages(line, host->page_size);
			continue;
		}
		if (sscanf(line, "%llx-%llx ", &start, &end) != 2 || start >= end)
			continue;
		err = scan_mapping(&s, files, &m, true);
		m = (struct mapping){
		    .on = true, .start = start, .end = end, .rss_pages = UINT64_MAX};
	}
	if (!err && !s.cut_short)
		err = scan_mapping(&s, files, &m, true);
	for (size_t i = 0; i < s.nr_deferred && !err && !s.cut_short; i++)
		err = scan_mapping(&s, files, &s.deferred[i], false);
	if (!err && ferror(mappings))
		err = errno == ESRCH ? -ESRCH : -EIO;
	free(line);
	fclose(mappings);
	/* (smaps_rollup walks the page tables again: read only when it can tell something) */
	if (!err && words_sum(s.pmd_whole_aligned, NR_RESIDENT_TYPES))
		err = pmd_mapped(&s, files->smaps_rollup);
	free(s.ahead); /* (without it, every frame is read alone) */
	if (reading)
		*reading =
		    (struct resident_reading){.entries = s.entries, .cut_short = s.cut_short};
	return err;
}
