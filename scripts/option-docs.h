/* SPDX-License-Identifier: GPL-2.0 */
/* gen-docs' parts made from the option rows (scripts/option-docs.c). */
#ifndef FS_OPTION_DOCS_H
#define FS_OPTION_DOCS_H

#include <stdio.h>

void man_options(FILE *out);	    /* foliostat(8)'s OPTIONS, group by group */
void readme_options(FILE *out);	    /* README.md's options tables */
void completion_options(FILE *out); /* the bash completion's options and their values */

#endif
