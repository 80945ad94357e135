// SPDX-License-Identifier: GPL-2.0
/* The figure registry's two views of the same counters agree: each exposition family names the
 * record figures it exposes (figures.c, record_layout.c), and is shown exactly where one of them
 * is measured; and every measured figure of a record is exposed by a family that is shown, but
 * the two the exposition leaves to JSON. */
#include <stdlib.h>

#include "figures.h"
#include "record_layout.h"
#include "unit.h"

/* Figures only records have: whether the multi-generational LRU is on (a fact, not a count),
 * and the folios of reclaim's writes (the exposition has their pages). */
static const char *const json_only[] = {"lru.mglru", "reclaim.vmscan.written.folios"};
/* Record figures the exposition writes with families of their own, not the registry's: the
 * host's free blocks by node, zone and order (foliostat_free_*, exposition.c). */
static const char *const exposed_apart[] = {"free_memory"};

/* Every family, of the per-group counters (group_figures) and the others (families): its name,
 * the record figures it exposes, and whether it is shown with these measures. */
#define NR_ALL_FAMILIES (nr_group_figures + NR_FAMILY_LAYOUTS)

static const char *family_metric(int k)
{
	return k < nr_group_figures ? group_figures[k].metric
				    : families[k - nr_group_figures].metric;
}

static const char *family_record(int k)
{
	return k < nr_group_figures ? group_figures[k].record
				    : families[k - nr_group_figures].record;
}

static bool family_is_shown(int k, const bool measured[NR_MEASURES])
{
	return k < nr_group_figures ? figure_measured(&group_figures[k], measured)
				    : family_shown(k - nr_group_figures, measured);
}

/* Calls each(i, arg) for the registry row of each path family k names; false if one is not. */
static bool family_rows(int k, bool (*each)(int i, void *arg), void *arg)
{
	char paths[1024], *save = NULL;

	snprintf(paths, sizeof(paths), "%s", family_record(k));
	for (char *p = strtok_r(paths, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		int i = record_figure_find(p);

		if (i < 0) {
			fprintf(stderr, "    foliostat_%s: no record figure %s\n", family_metric(k), p);
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
	for (int k = 0; k < NR_ALL_FAMILIES; k++)
		if (!ASSERT_TRUE(family_record(k) && family_record(k)[0]) ||
		    !family_rows(k, known, NULL))
			return false;
	for (size_t j = 0; j < sizeof(json_only) / sizeof(json_only[0]); j++)
		if (!ASSERT_TRUE(record_figure_find(json_only[j]) >= 0))
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

/* Over random probe states and host facts, and what they measure: a family is
 * shown only where a figure it exposes is measured, and every measured figure of a record (but
 * json_only's) is exposed by a family that is shown. */
static bool families_are_shown_where_their_figures_are_measured(void)
{
	struct probe_status probes[NR_PROBES];
	bool measured[NR_MEASURES];

	srand(26);
	for (int round = 0; round < 2000; round++) {
		struct measure_facts facts = {rand() % 2, rand() % 2, rand() % 2};

		for (int p = 0; p < NR_PROBES; p++)
			probes[p] = (struct probe_status){.attached = rand() % 3 != 0};
		measures_derive(probes, &facts, measured);
		for (int k = 0; k < NR_ALL_FAMILIES; k++) {
			struct measured_search s = {measured, -1, false};

			family_rows(k, look, &s);
			if (family_is_shown(k, measured) && !s.found) {
				fprintf(stderr, "    foliostat_%s shown, none of its figures measured\n",
					family_metric(k));
				return false;
			}
		}
		for (int i = 0; i < nr_record_figures; i++) {
			bool exposed = false;
			char path[256];

			record_figure_path(i, path, sizeof(path));
			if (record_figures[i].kind == RK_OBJECT || record_figures[i].kind == RK_GROUP ||
			    !record_figure_measured(i, measured))
				continue;
			for (size_t j = 0; j < sizeof(json_only) / sizeof(json_only[0]); j++)
				exposed |= !strcmp(path, json_only[j]);
			for (size_t j = 0; j < sizeof(exposed_apart) / sizeof(exposed_apart[0]); j++)
				exposed |= !strcmp(path, exposed_apart[j]);
			for (int k = 0; k < NR_ALL_FAMILIES && !exposed; k++) {
				struct measured_search s = {measured, i, false};

				family_rows(k, look, &s);
				exposed = s.found && family_is_shown(k, measured);
			}
			if (!exposed) {
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
