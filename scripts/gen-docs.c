// SPDX-License-Identifier: GPL-2.0
/*
 * gen-docs MAN-PAGE: the man page with its generated parts made anew from the figure registry
 * (user/output/figures.c), on standard output. A generated part lies between a line
 * `.\" generated: NAME` and a line `.\" end of generated: NAME`; `make docs` writes the result
 * back, and tests/integration_docs.sh fails when the checked-in page differs from it.
 */
#include <stdio.h>
#include <string.h>

#include "figures.h"

/* PROMETHEUS METRICS, "Per group, and system-wide": one entry per family, in the registry's
 * order (a family that two rows make, as faults by kind or by mode, once: its first row). */
static void group_families(FILE *out)
{
	for (int i = 0; i < nr_group_figures; i++) {
		const struct figure *f = &group_figures[i];
		bool seen = false;
		int nr_labels = 0;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(group_figures[j].metric, f->metric);
		if (seen)
			continue;
		fprintf(out, ".TP\n.B foliostat_%s\n", f->metric);
		for (int d = 0; d < 2; d++) {
			const struct figure_dim_info *dim = &figure_dims[d ? f->dim_b : f->dim_a];

			if (!dim->label)
				continue;
			fputs(nr_labels++ ? ", " : "Labels: ", out);
			if (dim->doc)
				fputs(dim->doc, out);
			else if (dim->label2)
				fprintf(out, "%s, %s", dim->label, dim->label2);
			else
				fputs(dim->label, out);
		}
		fprintf(out, "%s%s\n", nr_labels ? ". " : "", f->doc ? f->doc : f->help);
	}
}

static const struct {
	const char *name;
	void (*write)(FILE *out);
} parts[] = {
    {"per-group families", group_families},
};

int main(int argc, char **argv)
{
	char line[4096], end[256];
	const char *skipping = NULL;
	FILE *in;

	if (argc != 2 || !(in = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: gen-docs MAN-PAGE\n");
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		if (skipping) {
			if (strcmp(line, end))
				continue;
			skipping = NULL;
		}
		fputs(line, stdout);
		for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			char begin[256];

			snprintf(begin, sizeof(begin), ".\\\" generated: %s\n", parts[p].name);
			if (strcmp(line, begin))
				continue;
			parts[p].write(stdout);
			snprintf(end, sizeof(end), ".\\\" end of generated: %s\n", parts[p].name);
			skipping = parts[p].name;
		}
	}
	fclose(in);
	if (skipping) {
		fprintf(stderr, "gen-docs: no end of the generated part '%s'\n", skipping);
		return 1;
	}
	return 0;
}
