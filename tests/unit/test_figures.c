// SPDX-License-Identifier: GPL-2.0
/* The figure registry's two views of the same counters agree: each exposition family names the
 * record figures it exposes (figures.c, record_layout.c), and is shown exactly where one of them
 * is measured; and every figure of a row's counter group has a family. */
#include <stdlib.h>

#include "figures.h"
#include "record_layout.h"
#include "unit.h"

/* Calls each(i, arg) for the registry row of each path in f's list; false if one is unknown. */
static bool family_rows(const struct figure *f, bool (*each)(int i, void *arg), void *arg)
{
	char paths[512], *save = NULL;

	snprintf(paths, sizeof(paths), "%s", f->record);
	for (char *p = strtok_r(paths, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		int i = record_figure_find(p);

		if (i < 0) {
			fprintf(stderr, "    foliostat_%s: no record figure %s\n", f->metric, p);
			return false;
		}
		if (each && !each(i, arg))
			return false;
	}
	return true;
}

static bool known(int i, void *arg)
{
	(void)i, (void)arg;
	return true;
}

static bool families_name_record_figures_that_exist(void)
{
	for (int k = 0; k < nr_group_figures; k++)
		if (!ASSERT_TRUE(group_figures[k].record && group_figures[k].record[0]) ||
		    !family_rows(&group_figures[k], known, NULL))
			return false;
	return true;
}

struct measured_search {
	const bool *measured;
	int row;    /* a row to look for (-1: any measured one) */
	bool found;
};

static bool look(int i, void *arg)
{
	struct measured_search *s = arg;

	if (s->row < 0 ? record_figure_measured(i, s->measured) : i == s->row)
		s->found = true;
	return true;
}

/* Over random sets of measures (every combination the rules could give, and more): a family is
 * shown only where a figure it exposes is measured, and every measured figure of a row's counter
 * group is exposed by a family that is shown. */
static bool families_are_shown_where_their_figures_are_measured(void)
{
	bool measured[NR_MEASURES];

	srand(26);
	for (int round = 0; round < 2000; round++) {
		for (int m = 0; m < NR_MEASURES; m++)
			measured[m] = m != MEASURE_NONE && rand() % 3 != 0;
		for (int k = 0; k < nr_group_figures; k++) {
			struct measured_search s = {measured, -1, false};

			family_rows(&group_figures[k], look, &s);
			if (figure_measured(&group_figures[k], measured) && !s.found) {
				fprintf(stderr, "    foliostat_%s shown, none of its figures measured\n",
					group_figures[k].metric);
				return false;
			}
		}
		for (int i = 0; i < nr_record_figures; i++) {
			bool exposed = false;
			char path[256];

			if (record_figures[i].scopes != IN_ALL || record_figures[i].kind == RK_OBJECT ||
			    !record_figure_measured(i, measured))
				continue;
			for (int k = 0; k < nr_group_figures && !exposed; k++) {
				struct measured_search s = {measured, i, false};

				family_rows(&group_figures[k], look, &s);
				exposed = s.found && figure_measured(&group_figures[k], measured);
			}
			if (!exposed) {
				record_figure_path(i, path, sizeof(path));
				fprintf(stderr, "    %s measured, exposed by no family shown\n", path);
				return false;
			}
		}
	}
	return true;
}

const struct unit_test figures_tests[] = {
    UNIT_TEST(families_name_record_figures_that_exist),
    UNIT_TEST(families_are_shown_where_their_figures_are_measured),
    {},
};
