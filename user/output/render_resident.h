/* SPDX-License-Identifier: GPL-2.0 */
/* --resident in a record: the table's RESIDENT section, and the JSON record's "resident". */
#ifndef FS_RENDER_RESIDENT_H
#define FS_RENDER_RESIDENT_H

#include <stdio.h>

#include "json_writer.h"
#include "report.h"

void print_resident(FILE *out, const struct fs_report *r);
void resident_json(struct json_writer *w, const struct fs_report *r);

#endif
