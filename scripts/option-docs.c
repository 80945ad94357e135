// SPDX-License-Identifier: GPL-2.0
/*
 * gen-docs' parts made from the option rows (user/cli/option_rows.c): foliostat(8)'s OPTIONS
 * entries, the README's options tables and the bash completion's options with what each one's
 * value is. Each option is written in the order and the groups of --help.
 */
#include "option-docs.h"

#include <string.h>

#include "option_rows.h"

/* The heading of a .TP entry, as the page has always written them:
 * `.BR \-n ", " \-\-comm " \fINAME\fR" ", " \-\-name " \fINAME\fR"`. */
static void man_heading(FILE *out, const struct option_row *row)
{
	char value[256] = "";

	if (row->man_arg)
		snprintf(value, sizeof(value), " \" %s\"", row->man_arg);
	else if (row->arg)
		snprintf(value, sizeof(value), " \" \\fI%s\\fR\"", row->arg);
	if (!option_has_letter(row) && !row->alias) {
		if (!row->arg)
			fprintf(out, ".B \\-\\-%s\n", row->name);
		else if (!row->man_arg)
			fprintf(out, ".BI \\-\\-%s \" %s\"\n", row->name, row->arg);
		else
			fprintf(out, ".BR \\-\\-%s%s\n", row->name, value);
		return;
	}
	fputs(".BR", out);
	if (option_has_letter(row))
		fprintf(out, " \\-%c \", \"", row->id);
	fprintf(out, " \\-\\-%s%s", row->name, value);
	if (row->alias)
		fprintf(out, " \", \" \\-\\-%s%s", row->alias, value);
	fputc('\n', out);
}

void man_options(FILE *out)
{
	for (enum option_group g = 0; g < NR_OPTION_GROUPS; g++) {
		fprintf(out, ".SS \"%s\"\n", option_group_titles[g]);
		for (int i = 0; i < nr_option_rows; i++) {
			const struct option_row *row = &option_rows[i];

			if (row->group != g || row->hidden)
				continue;
			fputs(".TP\n", out);
			man_heading(out, row);
			fputs(row->man, out);
		}
	}
}

/* A table cell's text: a '|' would end the cell. */
static void markdown_cell(FILE *out, const char *text)
{
	for (; *text; text++) {
		if (*text == '|')
			fputc('\\', out);
		fputc(*text, out);
	}
}

void readme_options(FILE *out)
{
	for (enum option_group g = 0; g < NR_OPTION_GROUPS; g++) {
		fprintf(out, "%s**%s**\n\n| Option | Meaning |\n|---|---|\n", g ? "\n" : "",
			option_group_titles[g]);
		for (int i = 0; i < nr_option_rows; i++) {
			const struct option_row *row = &option_rows[i];
			char help[1024];

			if (row->group != g || row->hidden)
				continue;
			fputs("| ", out);
			if (option_has_letter(row))
				fprintf(out, "`-%c`, ", row->id);
			if (row->alias)
				fprintf(out, "`--%s`, ", row->name);
			fprintf(out, "`--%s%s%s` | ", row->alias ? row->alias : row->name,
				row->arg ? " " : "", row->arg ? row->arg : "");
			option_help_text(row, help, sizeof(help));
			markdown_cell(out, help);
			fputs(" |\n", out);
		}
	}
}

/* What _foliostat does with each kind of value (contrib/bash-completion/foliostat). */
static const char *const value_words[NR_OPTION_VALUES] = {
    [VALUE_NUMBER] = "number", [VALUE_PID] = "pid",	  [VALUE_COMM] = "comm",
    [VALUE_CGROUP] = "cgroup", [VALUE_FILE] = "file",	  [VALUE_CHOICE] = "choice",
    [VALUE_ADDRESS] = "address", [VALUE_MODE] = "mode",
};

/* `-p --pid`: an option's spellings, separated by `between`. */
static void completion_names(FILE *out, const struct option_row *row, const char *between)
{
	if (option_has_letter(row))
		fprintf(out, "-%c%s", row->id, between);
	fprintf(out, "--%s", row->name);
	if (row->alias)
		fprintf(out, "%s--%s", between, row->alias);
}

void completion_options(FILE *out)
{
	bool first = true;
	int column;

	fputs("# Every option, and what each one's value is (make docs writes them from\n"
	      "# user/cli/option_rows.c).\n"
	      "_foliostat_options='",
	      out);
	column = (int)strlen("_foliostat_options='");
	for (enum option_group g = 0; g < NR_OPTION_GROUPS; g++) {
		for (int i = 0; i < nr_option_rows; i++) {
			const struct option_row *row = &option_rows[i];
			char names[128];
			FILE *text;

			if (row->group != g || row->hidden)
				continue;
			text = fmemopen(names, sizeof(names), "w");
			if (!text)
				continue;
			completion_names(text, row, " ");
			fclose(text);
			if (!first && column + 1 + (int)strlen(names) > 96) {
				fputs("\n    ", out);
				column = 4;
			} else if (!first) {
				fputc(' ', out);
				column++;
			}
			first = false;
			fputs(names, out);
			column += (int)strlen(names);
		}
	}
	fputs("'\n\n"
	      "# _foliostat_value OPTION: what OPTION's value is (number, pid, comm, cgroup,\n"
	      "# file, address, mode, or choice and the values); fails for a flag or no option.\n"
	      "_foliostat_value()\n"
	      "{\n"
	      "    case $1 in\n",
	      out);
	for (int i = 0; i < nr_option_rows; i++) {
		const struct option_row *row = &option_rows[i];

		if (row->value == VALUE_NONE || row->hidden)
			continue;
		fputs("        ", out);
		completion_names(out, row, " | ");
		fprintf(out, ") echo '%s", value_words[row->value]);
		for (const char *const *c = row->choices; c && *c; c++)
			fprintf(out, " %s", *c);
		fputs("' ;;\n", out);
	}
	fputs("        *) return 1 ;;\n"
	      "    esac\n"
	      "}\n",
	      out);
}
