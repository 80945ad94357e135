/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each layer below the command line is told of the options: the loader, the window's and
 * --resident's selection of processes, the exporter's series. Each takes a small struct of its
 * own, so that none of them knows struct fs_options (scripts/check-layers.py).
 */
#ifndef FS_SETTINGS_H
#define FS_SETTINGS_H

#include "loader.h"
#include "options.h"
#include "resident_report.h"
#include "series.h"
#include "row_table.h"

struct loader_settings loader_settings_of(const struct fs_options *opts);
/* -p and -n: the processes a record's rows come from. */
struct process_filter process_filter_of(const struct fs_options *opts);
struct series_settings series_settings_of(const struct fs_options *opts);
/* The settings point into opts, which outlives them. */
struct resident_settings resident_settings_of(const struct fs_options *opts);

#endif
