// SPDX-License-Identifier: GPL-2.0
/* The lower layers' settings from the options (see settings.h). */
#include "settings.h"

struct loader_settings loader_settings_of(const struct fs_options *opts)
{
	return (struct loader_settings){
	    .max_tasks = opts->max_tasks,
	    .following = opts->command != NULL,
	    .files = opts->files,
	    .max_files = opts->max_files,
	    .verbose = opts->verbose,
	    .cgroup_refs = opts->cgroup_refs,
	    .nr_cgroups = opts->nr_cgroups,
	};
}

struct process_filter process_filter_of(const struct fs_options *opts)
{
	return (struct process_filter){
	    .pids = opts->pids,
	    .pid_started_before = opts->pid_started_before,
	    .nr_pids = opts->nr_pids,
	    .comm = opts->comm,
	};
}

struct series_settings series_settings_of(const struct fs_options *opts)
{
	return (struct series_settings){
	    .by = opts->by,
	    .max_series = opts->max_series,
	    .grace_s = opts->series_grace_s,
	    .top = opts->top,
	};
}

struct resident_settings resident_settings_of(const struct fs_options *opts)
{
	return (struct resident_settings){
	    .by = opts->by,
	    .verbose = opts->verbose,
	    .max_tasks = opts->max_tasks,
	    .filter = process_filter_of(opts),
	    .cgroup_refs = opts->cgroup_refs,
	    .nr_cgroups = opts->nr_cgroups,
	};
}
