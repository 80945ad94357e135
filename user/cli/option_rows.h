/* SPDX-License-Identifier: GPL-2.0 */
/*
 * foliostat's options as data: one row per option. The rows make getopt_long's table and
 * short-option string (options.c), --help, and, through `make docs` (scripts/option-docs.c),
 * foliostat(8)'s OPTIONS, the README's options table and the bash completion's list of options.
 * An option is added here, and its value parsed in options.c's switch: nowhere else.
 */
#ifndef FS_OPTION_ROWS_H
#define FS_OPTION_ROWS_H

#include <stdbool.h>
#include <stddef.h>

/* What getopt_long returns for an option without a short letter (a letter is its own id). */
enum option_id {
	OPT_MAX_TASKS = 0x100,
	OPT_SELF,
	OPT_CHECK,
	OPT_BY,
	OPT_FORMAT,
	OPT_LISTEN,
	OPT_MAX_SERIES,
	OPT_SERIES_GRACE,
	OPT_FILES,
	OPT_RESIDENT,
	OPT_RESIDENT_BUDGET,
	OPT_MAX_FILES,
	OPT_WEB_CONFIG,
	OPT_REPLACE,
	OPT_OUTPUT_MODE,
	OPT_SORT,
	OPT_FULL,
	OPT_TEST_ESCAPE,
	NR_OPTION_IDS,
};

/* The groups of --help and of the man page's OPTIONS, in the order they are shown. */
enum option_group {
	OPTIONS_WATCHED,  /* what to watch: the selection and what it costs */
	OPTIONS_OUTPUT,	  /* how records are written, and where */
	OPTIONS_EXPORTER, /* --listen and its settings */
	OPTIONS_VIEWS,	  /* extra views a record may add */
	OPTIONS_OTHER,
	NR_OPTION_GROUPS,
};
extern const char *const option_group_titles[NR_OPTION_GROUPS];

/* What an option's value is (the bash completion completes it so). */
enum option_value {
	VALUE_NONE, /* a flag */
	VALUE_NUMBER,
	VALUE_PID,
	VALUE_COMM,
	VALUE_CGROUP,
	VALUE_FILE,
	VALUE_CHOICE,  /* one of the row's choices */
	VALUE_ADDRESS, /* --listen's */
	VALUE_MODE,    /* an octal file mode */
	NR_OPTION_VALUES,
};

struct option_row {
	const char *name;  /* the long name */
	const char *alias; /* another long name for the same option (an older one), or NULL */
	int id;		   /* its short letter, or an enum option_id (no short letter) */
	enum option_group group;
	enum option_value value;
	const char *arg;		   /* the value's name in --help (SECS); NULL: a flag */
	const char *const *choices;	   /* VALUE_CHOICE: the values, NULL-terminated */
	bool repeatable;		   /* each value adds to a list; else one value at most */
	bool hidden;			   /* test builds' own: in no help and no page */
	const char *help;		   /* --help's text, one paragraph; "%g": help_default */
	double help_default;		   /* the default --help gives (as %g) */
	const char *man_arg;		   /* the man page heading's value, roff, if not arg */
	const char *man;		   /* foliostat(8)'s text of it, roff */
};

extern const struct option_row option_rows[];
extern const int nr_option_rows;

/* The row of the option getopt_long returned as `id`, or NULL. */
const struct option_row *option_row_of(int id);
/* Whether the row has a short letter. */
static inline bool option_has_letter(const struct option_row *row)
{
	return row->id > 0 && row->id < 0x100;
}
/* Its help text with its default filled in. */
void option_help_text(const struct option_row *row, char *text, size_t len);

#endif
