// SPDX-License-Identifier: GPL-2.0
/*
 * gen-docs FILE: FILE with its generated parts made anew, on standard output: from the figure
 * registry (user/output/record_layout.c, metric_families.c) in the man pages and
 * docs/prometheus.md, from the option rows (user/cli/option_rows.c, scripts/option-docs.c) in
 * foliostat(8), README.md and the bash completion. A generated part lies between a line
 * `generated: NAME` and a line `end of generated: NAME`, each in the file's own comment (`.\" `,
 * `<!-- ... -->` or `# `).
 * gen-docs --schema-figures: the JSON Schema of the record's figures, by where they appear
 * ({"row": ..., "group": ..., "system": ...}), which scripts/gen-schema.py puts into the frame
 * of the record's schema.
 * `make docs` writes both back, and tests/integration_docs.sh fails when the checked-in copies
 * differ from what they make.
 */
#include <stdio.h>
#include <string.h>

#include "figures.h"
#include "metric_families.h"
#include "json_writer.h"
#include "loader.h"
#include "option-docs.h"
#include "record_layout.h"

/* " In records: folios.alloc_movable, ...": the record figures family m exposes, with those of
 * the other rows of its name (a family two rows make, as faults by kind and by mode). */
static void record_paths(FILE *out, enum metric_id m)
{
	int n = 0, shown[256], nr_shown = 0;

	for (int i = 0; i < nr_record_figures; i++) {
		const unsigned char *by = record_figures[i].exposed_by;
		bool exposes = false;
		char path[256];

		for (int k = 0; k < 3 && by[k] != MF_NONE; k++)
			exposes |= !strcmp(metric_families[by[k]].name, metric_families[m].name);
		for (int k = 0; k < nr_shown && exposes; k++)
			exposes = shown[k] != i;
		if (!exposes || nr_shown == 256)
			continue;
		shown[nr_shown++] = i;
		record_figure_path(i, path, sizeof(path));
		fprintf(out, "%s\\fB%s\\fR", n++ ? ", " : " In records: ", path);
	}
	if (n)
		fputc('.', out);
}

/* Whether family m is the first row of its name (a family two rows make is listed once). */
static bool first_of_its_name(enum metric_id m)
{
	for (int k = MF_NONE + 1; k < (int)m; k++)
		if (!strcmp(metric_families[k].name, metric_families[m].name))
			return false;
	return true;
}

/* Family m's label names, as foliostat-metrics(7) says them (dim: the dimensions' docs) or as
 * docs/prometheus.md does (each in backquotes): its dimensions', or its own. */
static void label_names(FILE *out, enum metric_id m, bool md)
{
	const struct metric_family *f = &metric_families[m];
	int n = 0;

	if (f->kind != MK_BY_DIMS) {
		char names[256], *save = NULL;

		if (!md) {
			fputs(f->labels, out);
			return;
		}
		snprintf(names, sizeof(names), "%s", f->labels);
		for (char *p = strtok_r(names, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
			fprintf(out, "%s`%s`", n++ ? ", " : "", p);
		return;
	}
	for (int d = 0; d < 2; d++) {
		const struct figure_dim_info *dim = &figure_dims[d ? f->dim_b : f->dim_a];

		if (!dim->label)
			continue;
		if (md)
			fprintf(out, "%s`%s`", n++ ? ", " : "", dim->label);
		else
			fprintf(out, "%s%s", n++ ? ", " : "", dim->doc ? dim->doc : dim->label);
		if (dim->label2)
			fprintf(out, md ? ", `%s`" : ", %s", dim->label2);
	}
}

static bool has_labels(enum metric_id m)
{
	const struct metric_family *f = &metric_families[m];

	return f->kind == MK_BY_DIMS ? f->dim_a != DIM_NONE : f->labels != NULL;
}

/* foliostat-metrics(7): an entry per family of a section, in the registry's order. */
static void man_families(FILE *out, enum metric_section section)
{
	for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
		const struct metric_family *f = &metric_families[m];

		if (f->section != section || !first_of_its_name(m))
			continue;
		fprintf(out, ".TP\n.B foliostat_%s\n", f->name);
		if (has_labels(m)) {
			fputs("Labels: ", out);
			label_names(out, m, false);
			fputs(". ", out);
		}
		fputs(f->doc ? f->doc : f->help, out);
		record_paths(out, m);
		fputc('\n', out);
	}
}

/* docs/prometheus.md: a table of the families of a section, in the registry's order. */
static void md_families(FILE *out, enum metric_section section)
{
	static const char *const types[] = {[METRIC_COUNTER] = "counter",
					    [METRIC_GAUGE] = "gauge",
					    [METRIC_HISTOGRAM] = "histogram",
					    [METRIC_INFO] = "gauge (1)"};

	fputs("| metric | type | labels | meaning |\n|---|---|---|---|\n", out);
	for (int m = MF_NONE + 1; m < NR_METRIC_FAMILIES; m++) {
		const struct metric_family *f = &metric_families[m];

		if (f->section != section || !first_of_its_name(m))
			continue;
		fprintf(out, "| `foliostat_%s` | %s |", f->name, types[f->type]);
		if (f->md_labels)
			fprintf(out, " %s |", f->md_labels);
		else if (has_labels(m)) {
			fputc(' ', out);
			label_names(out, m, true);
			fputs(" |", out);
		} else {
			fputs(" |", out);
		}
		fprintf(out, f->md_meaning ? " %s |\n" : " |\n", f->md_meaning);
	}
}

/* "Null unless ... attached.": when a measure's rule (figures.c) does not hold. */
static void null_condition(char *text, size_t len, enum fs_measure m)
{
	char needs[400];

	measure_needs(m, needs, sizeof(needs));
	snprintf(text, len, "Null unless %s.", needs);
}

/* What each kind of leaf is, as a definition of the schema's frame (scripts/schema-frame.json). */
static const char *const kind_definitions[NR_RECORD_KINDS] = {
    [RK_COUNT] = "count",
    [RK_MICROS] = "count",
    [RK_FAULTS] = "count",
    [RK_ORDERS] = "orderHistogram",
    [RK_STALL_HIST] = "stallHistogram",
    [RK_STALLS_BY_ORDER] = "compactionByOrder",
    [RK_SCAN_RESULTS] = "scanResults",
    [RK_TLB_REASONS] = "countPerReason",
    [RK_LIST_AMOUNTS] = "amountsPerList",
    [RK_LIST_PAGES] = "pagesPerList",
    [RK_VMSTAT] = "vmstat",
    [RK_MTHP] = "mthp",
    [RK_MGLRU] = "boolean",
    [RK_PROCESSES] = "count",
    [RK_GROUP] = "group",
    [RK_FREE_MEMORY] = "freeMemory",
    [RK_NODE_AMOUNTS] = "amountsPerNode",
    [RK_NODE_ORDERS] = "ordersPerNode",
};

/* A row's description: its meaning, and when it is null. */
static void description(struct json_writer *w, const struct record_figure *f)
{
	char text[1024], when[512];

	jw_key(w, "description");
	if (f->measure == MEASURE_NONE) {
		jw_string(w, f->doc);
		return;
	}
	null_condition(when, sizeof(when), f->measure);
	snprintf(text, sizeof(text), "%s %s", f->doc, when);
	jw_string(w, text);
}

static void schema_object(struct json_writer *w, int scope, int first,
			  const struct record_figure *self);

static void schema_member(struct json_writer *w, int scope, int i)
{
	const struct record_figure *f = &record_figures[i];
	char ref[128];

	if (f->kind == RK_OBJECT) {
		schema_object(w, scope, i + 1, f);
		return;
	}
	jw_object_begin(w);
	description(w, f);
	snprintf(ref, sizeof(ref), "#/definitions/%s", kind_definitions[f->kind]);
	jw_key(w, f->measure == MEASURE_NONE ? "allOf" : "anyOf");
	jw_array_begin(w);
	jw_object_begin(w);
	jw_key(w, "$ref");
	jw_string(w, ref);
	jw_object_end(w);
	if (f->measure != MEASURE_NONE) {
		jw_object_begin(w);
		jw_key(w, "type");
		jw_string(w, "null");
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

/* The closed object of the rows from `first` at its depth that appear in `scope`; self: the
 * row it is the value of (NULL: a group's object). */
static void schema_object(struct json_writer *w, int scope, int first,
			  const struct record_figure *self)
{
	int depth = record_figures[first].depth;

	jw_object_begin(w);
	if (self)
		description(w, self);
	jw_key(w, "type");
	if (self && self->measure != MEASURE_NONE) {
		jw_array_begin(w);
		jw_string(w, "object");
		jw_string(w, "null");
		jw_array_end(w);
	} else {
		jw_string(w, "object");
	}
	jw_key(w, "required");
	jw_array_begin(w);
	for (int i = first; i < nr_record_figures && record_figures[i].depth == depth;
	     i = record_figure_skip(i))
		if (record_figures[i].scopes & scope)
			jw_string(w, record_figures[i].key);
	jw_array_end(w);
	jw_key(w, "properties");
	jw_object_begin(w);
	for (int i = first; i < nr_record_figures && record_figures[i].depth == depth;
	     i = record_figure_skip(i)) {
		if (!(record_figures[i].scopes & scope))
			continue;
		jw_key(w, record_figures[i].key);
		schema_member(w, scope, i);
	}
	jw_object_end(w);
	/* Every member this version writes: closed in foliostat's own tests, open to readers. */
	jw_key(w, "x-closed");
	jw_bool(w, true);
	jw_object_end(w);
}

static int schema_figures(void)
{
	static const struct {
		const char *name;
		int scope;
	} scopes[] = {{"row", IN_ROW}, {"group", IN_GROUP}, {"system", IN_SYSTEM}};
	struct json_writer w = {0};

	jw_reset(&w);
	jw_object_begin(&w);
	for (size_t s = 0; s < sizeof(scopes) / sizeof(scopes[0]); s++) {
		jw_key(&w, scopes[s].name);
		schema_object(&w, scopes[s].scope, 0, NULL);
	}
	jw_object_end(&w);
	if (w.failed || fwrite(w.text, 1, w.len, stdout) != w.len || putchar('\n') == EOF)
		return 1;
	jw_free(&w);
	return 0;
}

/* Text for roff: a backslash doubled, a hyphen escaped. */
static void roff_text(FILE *out, const char *text)
{
	for (; *text; text++) {
		if (*text == '\\')
			fputs("\\e", out);
		else if (*text == '-')
			fputs("\\-", out);
		else
			fputc(*text, out);
	}
}

/* JSON record, "Every figure": each member of a group's object in the order it is written. */
static void record_figures_list(FILE *out)
{
	for (int i = 0; i < nr_record_figures; i++) {
		const struct record_figure *f = &record_figures[i];
		char path[256], when[512];

		record_figure_path(i, path, sizeof(path));
		fprintf(out, ".TP\n.B ");
		roff_text(out, path);
		fputc('\n', out);
		roff_text(out, f->doc);
		if (f->scopes == IN_SYSTEM)
			fputs(" System only.", out);
		else if (f->scopes == (IN_ROW | IN_SYSTEM))
			fputs(" In rows and the system only.", out);
		if (f->measure != MEASURE_NONE) {
			null_condition(when, sizeof(when), f->measure);
			fputc(' ', out);
			roff_text(out, when);
		}
		fputc('\n', out);
	}
}

/* Each generated part: its marker's name, and its writer (of a section's families where
 * `families` is set). */
static const struct {
	const char *name;
	void (*write)(FILE *out);
	void (*families)(FILE *out, enum metric_section section);
	enum metric_section section;
} parts[] = {
    {"per-group families", NULL, man_families, SECTION_GROUPS},
    {"system-only families", NULL, man_families, SECTION_SYSTEM},
    {"resident families", NULL, man_families, SECTION_RESIDENT},
    {"free memory families", NULL, man_families, SECTION_FREE_MEMORY},
    {"foliostat's own families", NULL, man_families, SECTION_SELF},
    {"record figures", record_figures_list, NULL, 0},
    {"table of the per-group families", NULL, md_families, SECTION_GROUPS},
    {"table of the system-only families", NULL, md_families, SECTION_SYSTEM},
    {"table of the resident families", NULL, md_families, SECTION_RESIDENT},
    {"table of the free memory families", NULL, md_families, SECTION_FREE_MEMORY},
    {"table of foliostat's own families", NULL, md_families, SECTION_SELF},
    {"options", man_options, NULL, 0},
    {"options table", readme_options, NULL, 0},
    {"completion options", completion_options, NULL, 0},
};

/* The comments a marker line may be in: a man page's, Markdown's, a shell script's. */
static const struct {
	const char *open, *close;
} comments[] = {{".\\\" ", ""}, {"<!-- ", " -->"}, {"# ", ""}};

/* The part whose marker `line` is (`what`: "generated" or "end of generated"), or -1. */
static int marker(const char *line, const char *what, int part)
{
	char text[256];

	for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
		for (size_t c = 0; c < sizeof(comments) / sizeof(comments[0]); c++) {
			if (part >= 0 && (int)p != part)
				continue;
			snprintf(text, sizeof(text), "%s%s: %s%s\n", comments[c].open, what,
				 parts[p].name, comments[c].close);
			if (!strcmp(line, text))
				return (int)p;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	char line[4096];
	int skipping = -1;
	FILE *in;

	if (argc == 2 && !strcmp(argv[1], "--schema-figures"))
		return schema_figures();
	if (argc != 2 || !(in = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: gen-docs FILE | gen-docs --schema-figures\n");
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		int part;

		if (skipping >= 0) {
			if (marker(line, "end of generated", skipping) < 0)
				continue;
			skipping = -1;
		}
		fputs(line, stdout);
		part = marker(line, "generated", -1);
		if (part >= 0) {
			if (parts[part].families)
				parts[part].families(stdout, parts[part].section);
			else
				parts[part].write(stdout);
			skipping = part;
		}
	}
	fclose(in);
	if (skipping >= 0) {
		fprintf(stderr, "gen-docs: no end of the generated part '%s'\n",
			parts[skipping].name);
		return 1;
	}
	return 0;
}
