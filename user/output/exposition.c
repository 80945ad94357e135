// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus exposition (see exposition.h). A family's samples must be together, so the text
 * is written family by family (the registry's rows, metric_families.c), each over every group;
 * each group's labels are made once. A family's name, HELP and TYPE come from its row alone
 * (expo_family()); its samples from the writer of its kind (exposition_families.c).
 * Counters appear once nonzero (as most exporters do), except the system's, which are always
 * there: a dashboard's system panel has a line from the first scrape.
 */
#include "exposition.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "cgroup_labels.h"
#include "cgroup_names.h"
#include "exposition_text.h"
#include "figures.h"
#include "process_start.h"
#include "resident_report.h"
#include "sanitize.h"


/* Room for `more` bytes at the end of the text (and its terminating NUL). */
static bool reserve(struct exposition *e, size_t more)
{
	if (!e->failed && array_reserve(&e->text, &e->cap, e->len, more + 1, 1))
		e->failed = true;
	return !e->failed;
}

void expo_emit(struct exposition *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(e, (size_t)n)) {
		e->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(e->text + e->len, e->cap - e->len, fmt, ap);
	va_end(ap);
	e->len += (size_t)n;
}

/* Append name="value": every label value of the exposition is quoted by label_value_quoted(),
 * the one rule for them (sanitize.h). */
void expo_label_add(struct label_text *l, const char *name, const char *value)
{
	char quoted[LABEL_VALUE_QUOTED_SIZE];
	size_t len = label_value_quoted(value, quoted), name_len = strlen(name);

	if (l->failed || array_reserve(&l->text, &l->cap, l->len, name_len + len + 3, 1)) {
		l->failed = true;
		return;
	}
	if (l->len > l->start)
		l->text[l->len++] = ',';
	memcpy(l->text + l->len, name, name_len);
	l->len += name_len;
	l->text[l->len++] = '=';
	memcpy(l->text + l->len, quoted, len + 1);
	l->len += len;
}

/* The same into a fixed buffer, for the short labels of a sample (enum and counter names):
 * the whole pair or nothing (false), never a value cut inside its quotes. */
bool expo_label_pair(char *out, size_t size, const char *name, const char *value)
{
	size_t used = strlen(out);
	char quoted[LABEL_VALUE_QUOTED_SIZE];
	int n;

	label_value_quoted(value, quoted);
	n = snprintf(out + used, size - used, "%s%s=%s", used ? "," : "", name, quoted);
	if (n < 0 || (size_t)n >= size - used) {
		out[used] = '\0';
		return false;
	}
	return true;
}


/* HELP and TYPE of family m (its system's family where `system`), its whole name into name: the
 * one place the exposition writes a HELP line, always the registry's (metric_families.c).
 * OpenMetrics names a counter's family without its _total, and an info family without _info. */
void expo_family(struct expo *x, enum metric_id m, bool system, char *name, size_t size)
{
	static const char *const types[] = {[METRIC_COUNTER] = "counter", [METRIC_GAUGE] = "gauge",
					    [METRIC_HISTOGRAM] = "histogram",
					    [METRIC_INFO] = "gauge"};
	const struct metric_family *f = &metric_families[m];
	const char *type = types[f->type], *help = f->help;
	size_t len;

	snprintf(name, size, "foliostat_%s%s",
		 system && f->section == SECTION_GROUPS ? "system_" : "", f->name);
	if (system && f->system_help)
		help = f->system_help;
	len = strlen(name);
	if (x->om && f->type == METRIC_COUNTER && len > 6 && !strcmp(name + len - 6, "_total"))
		len -= 6;
	if (x->om && f->type == METRIC_INFO && len > 5 && !strcmp(name + len - 5, "_info")) {
		len -= 5;
		type = "info";
	}
	expo_emit(x->e, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help, (int)len, name,
		  type);
}


/* name{labels,extra} value */
static void put(struct exposition *e, const char *text, size_t len)
{
	memcpy(e->text + e->len, text, len);
	e->len += len;
}

/*
 * name{labels,extra} value: the line a scrape repeats tens of thousands of times, so it is put
 * together by hand rather than by printf, which parsed its format and measured its strings for
 * each (a third of a scrape's time with a thousand groups).
 */
void expo_sample(struct expo *x, const char *name, const char *labels, const char *extra,
		   unsigned long long value)
{
	size_t name_len = strlen(name), labels_len = strlen(labels), extra_len = strlen(extra);
	char digits[24];
	int n = (int)sizeof(digits);

	if (!reserve(x->e, name_len + labels_len + extra_len + sizeof(digits) + 5))
		return;
	do
		digits[--n] = (char)('0' + value % 10);
	while ((value /= 10));
	put(x->e, name, name_len);
	if (labels_len || extra_len) {
		put(x->e, "{", 1);
		put(x->e, labels, labels_len);
		if (labels_len && extra_len)
			put(x->e, ",", 1);
		put(x->e, extra, extra_len);
		put(x->e, "}", 1);
	}
	put(x->e, " ", 1);
	put(x->e, digits + n, sizeof(digits) - n);
	put(x->e, "\n", 1);
}

void expo_sample_real(struct expo *x, const char *name, const char *labels, double value)
{
	if (labels[0])
		expo_emit(x->e, "%s{%s} %.9g\n", name, labels, value);
	else
		expo_emit(x->e, "%s %.9g\n", name, value);
}


/* Whether the cgroup paths start at the hierarchy's root, where the unit, container and pod
 * labels are read from (else a namespace's or a subtree's path could pass for a pod's). */
bool expo_paths_from_root(const struct fs_report *r)
{
	return r->cgroup_names && r->cgroup_names->from_root;
}

/* What identifies a group under --by, as labels: a store group's, or --resident's row's. */
void expo_identity_labels(enum fs_row_kind by, const char *name, __u32 pid, __u64 start_ns,
			    const char *cgroup_path, bool from_root, struct label_text *labels)
{
	struct cgroup_labels cl;
	char pid_text[16], start[FS_START_TIME_LEN];

	switch (by) {
	case FS_BY_CGROUP:
		expo_label_add(labels, "cgroup", name);
		cgroup_labels_parse(from_root ? name : "", &cl);
		if (cl.unit[0])
			expo_label_add(labels, "unit", cl.unit);
		if (cl.runtime[0])
			expo_label_add(labels, "container_runtime", cl.runtime);
		if (cl.container_id[0])
			expo_label_add(labels, "container_id", cl.container_id);
		if (cl.pod_uid[0])
			expo_label_add(labels, "pod_uid", cl.pod_uid);
		if (cl.qos_class[0])
			expo_label_add(labels, "qos_class", cl.qos_class);
		break;
	case FS_BY_PROCESS:
		snprintf(pid_text, sizeof(pid_text), "%u", pid);
		expo_label_add(labels, "pid", pid_text);
		/* With the pid, which process: one that took an exited one's pid is another. */
		format_start_time(start_ns, start);
		expo_label_add(labels, "start_time_s", start);
		expo_label_add(labels, "comm", name);
		if (cgroup_path)
			expo_label_add(labels, "cgroup", cgroup_path);
		break;
	case FS_BY_COMM:
		expo_label_add(labels, "comm", name);
		break;
	}
}

static void group_labels(const struct series_store *s, const struct series_row *g, bool from_root,
			 struct label_text *labels)
{
	expo_identity_labels(s->by, g->name, g->pid, g->start, g->cgroup_path, from_root, labels);
}


int render_exposition(struct exposition *e, const struct fs_report *r, const struct series_store *s,
		      const struct exposition_health *health, bool openmetrics)
{
	const struct system_totals *sys = &s->system;
	struct expo x = {.e = e, .r = r, .s = s, .om = openmetrics};
	struct expo_subject system = {.labels = "", .totals = &sys->total, .always = true};
	struct label_text labels = {0};
	size_t n = 0, *starts;

	e->len = 0;
	e->failed = false;
	x.subjects = calloc(s->nr + 5, sizeof(*x.subjects));
	starts = calloc(s->nr + 1, sizeof(*starts));
	if (!x.subjects || !starts) {
		free(x.subjects);
		free(starts);
		return -ENOMEM;
	}
	/* Each group's labels are made once per exposition, for all its samples, all in one
	 * buffer (an allocation per group was most of a scrape's time). */
	for (size_t i = 0; i < s->nr && !labels.failed; i++) {
		labels.start = starts[i] = labels.len;
		group_labels(s, s->rows[i], expo_paths_from_root(r), &labels);
		if (!labels.failed && !array_reserve(&labels.text, &labels.cap, labels.len, 1, 1))
			labels.text[labels.len++] = '\0';
		else
			labels.failed = true;
	}
	if (labels.failed) {
		e->failed = true;
		goto out;
	}
	for (size_t i = 0; i < s->nr; i++)
		x.subjects[n++] = (struct expo_subject){.labels = labels.text + starts[i],
							.totals = &s->rows[i]->totals,
							.proc = &s->rows[i]->proc,
							.thp = &s->rows[i]->proc.thp};
	x.subjects[n++] = (struct expo_subject){.labels = "group=\"other\"",
						.totals = &s->other,
						.proc = &s->other_proc,
						.thp = &s->other_proc.thp};
	x.subjects[n++] =
	    (struct expo_subject){.labels = "group=\"interrupt\"", .totals = &sys->interrupt};
	x.subjects[n++] = (struct expo_subject){
	    .labels = "group=\"untracked\"", .totals = &sys->untracked, .thp = &sys->thp_untracked};
	x.subjects[n++] =
	    (struct expo_subject){.labels = "group=\"unselected\"", .totals = &sys->unselected};
	x.subjects[n++] = (struct expo_subject){.labels = "group=\"unattributed\"",
						.thp = &sys->thp_unattributed};
	x.nr_subjects = n;
	x.system = &system;

	x.health = health;
	expo_write_families(&x);
	if (openmetrics)
		expo_emit(e, "# EOF\n");
out:
	free(labels.text);
	free(starts);
	free(x.subjects);
	return e->failed ? -ENOMEM : 0;
}

void exposition_free(struct exposition *e)
{
	free(e->text);
	memset(e, 0, sizeof(*e));
}

/* Accept: application/openmetrics-text; version=1.0.0, text/plain;q=0.5, ... (Prometheus asks
 * for OpenMetrics first when it can read it). A q=0 entry is a refusal. */
bool accepts_openmetrics(const char *accept)
{
	const char *p = accept;

	while (p && *p) {
		const char *end = strchr(p, ','), *q;
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (*p == ' ')
			p++, len--;
		if (len >= 28 && !strncasecmp(p, "application/openmetrics-text", 28)) {
			q = strstr(p, "q=");
			if (!q || q >= p + len || strtod(q + 2, NULL) > 0)
				return true;
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}

