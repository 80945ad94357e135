/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus exposition of the exporter's counts (series.h): text format 0.0.4, or
 * OpenMetrics 1.0. Its families are the rows of metric_families.c, written in their order by one
 * writer per kind of row; foliostat-metrics(7) documents them, generated from the same rows.
 */
#ifndef FS_EXPOSITION_H
#define FS_EXPOSITION_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "series.h"

#define FS_PROMETHEUS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define FS_OPENMETRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* foliostat's own figures that are not in the report. */
struct exposition_health {
	double start_time;   /* Unix seconds */
	double loader_cpu_s; /* since the start */
	long loader_rss_bytes;
	/* program runs since the start, and the bounded structures' counts (bounds.h) */
	const struct self_cost *bpf;
	bool bpf_run_time;	     /* bpf's runs and run time are counted (--self) */
	__u64 scrapes;		     /* expositions made before this one */
	double last_duration_s;	     /* how long the previous one took */
};

struct exposition {
	char *text;
	size_t len, cap;
	bool failed; /* out of memory */
};

/*
 * Write the exposition of `s` into e (replacing what it held), with the names and the probes'
 * states from `r` (r->system and r->rows are not used: the store has the counts).
 * Returns 0 or -ENOMEM.
 */
int render_exposition(struct exposition *e, const struct fs_report *r, const struct series_store *s,
		      const struct exposition_health *health, bool openmetrics);
void exposition_free(struct exposition *e);

/* Does an HTTP Accept header ask for OpenMetrics? */
bool accepts_openmetrics(const char *accept);

#endif /* FS_EXPOSITION_H */
