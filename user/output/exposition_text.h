/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exposition's text as it is made, shared by its two halves: exposition.c, which makes the
 * text, the subjects (rows and groups) and their labels, and exposition_families.c, which writes
 * each family of the registry (metric_families.h) with the writer of its kind. Private to them.
 */
#ifndef FS_EXPOSITION_TEXT_H
#define FS_EXPOSITION_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "exposition.h"
#include "metric_families.h"

/* Label lists being made (comma-separated name="value" pairs, no braces), one after another
 * in one buffer, each ended by a NUL: the list being made begins at `start`. */
struct label_text {
	char *text;
	size_t len, cap, start;
	bool failed; /* out of memory */
};

/* Whose samples a family writes: each row of the store, then the groups that are no rows
 * (other, interrupt, untracked, unselected), and for collapse outcomes unattributed. */
struct expo_subject {
	const char *labels;
	const struct fs_totals *totals;	     /* NULL: none (unattributed) */
	const struct proc_totals *proc;	     /* NULL: none (interrupt, unselected, ...) */
	const struct fs_thp_results *thp;    /* NULL: none */
	bool always;			     /* shown even when zero */
};

struct expo {
	struct exposition *e;
	const struct fs_report *r;
	const struct series_store *s;
	bool om; /* OpenMetrics */
	struct expo_subject *subjects;
	size_t nr_subjects;
	const struct expo_subject *system;
	const struct exposition_health *health;
	struct metric_scalars scalars; /* foliostat's figures of one sample, gathered once */
};


/* Append to the text, printf's way. */
void expo_emit(struct exposition *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append name="value" to a label list being made (each value quoted as every label's is). */
void expo_label_add(struct label_text *l, const char *name, const char *value);
/* The same into a fixed buffer: the whole pair or nothing (false). */
bool expo_label_pair(char *out, size_t size, const char *name, const char *value);
/* HELP and TYPE of family m, of the rows and groups or of the system, and its whole name into name.
 */
void expo_family(struct expo *x, enum metric_id m, bool system, char *name, size_t size);
/* name{labels,extra} value, a count; and a real one (%.9g). */
void expo_sample(struct expo *x, const char *name, const char *labels, const char *extra,
		 unsigned long long value);
void expo_sample_real(struct expo *x, const char *name, const char *labels, double value);
/* Whether cgroup paths start at the hierarchy's root (the unit, container and pod labels are
 * read from them only then). */
bool expo_paths_from_root(const struct fs_report *r);
/* What identifies a group under --by, as labels: a store group's, or --resident's row's. */
void expo_identity_labels(enum fs_row_kind by, const char *name, __u32 pid, __u64 start_ns,
			  const char *cgroup_path, bool from_root, struct label_text *labels);
/* Every family of the registry that is shown, in its order (exposition_families.c). */
void expo_write_families(struct expo *x);

#endif /* FS_EXPOSITION_TEXT_H */
