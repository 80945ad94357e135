// SPDX-License-Identifier: GPL-2.0
/* Command-line parsing. Kept free of side effects other than printing help/version to `out`,
 * so the unit tests can drive it with any argv. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "foliostat.h"

enum { OPT_MAX_TASKS = 0x100, OPT_SELF, OPT_CHECK, OPT_BY };

static const struct option long_options[] = {
    {"duration", required_argument, NULL, 'd'},
    {"json", no_argument, NULL, 'j'},
    {"pid", required_argument, NULL, 'p'},
    /* As in libbpf-tools: -c a cgroup, -n a command's name, -r the rows shown (filetop). */
    {"cgroup", required_argument, NULL, 'c'},
    {"comm", required_argument, NULL, 'n'},
    {"name", required_argument, NULL, 'n'},
    {"top", required_argument, NULL, 'r'},
    {"rows", required_argument, NULL, 'r'},
    {"output", required_argument, NULL, 'o'},
    {"by", required_argument, NULL, OPT_BY},
    {"max-tasks", required_argument, NULL, OPT_MAX_TASKS},
    {"self", no_argument, NULL, OPT_SELF},
    {"check", no_argument, NULL, OPT_CHECK},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {},
};

void print_usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: foliostat [OPTIONS] [INTERVAL [COUNT]]\n"
	    "       foliostat [OPTIONS] [INTERVAL] -- COMMAND [ARGS...]\n"
	    "Per-process folio activity of the memory-management subsystem, from BPF tracepoints.\n"
	    "\n"
	    "Without INTERVAL, collect until --duration passes or SIGINT/SIGTERM, then print one\n"
	    "summary. With INTERVAL (seconds, fractions allowed), print a record every INTERVAL,\n"
	    "COUNT times (default: until SIGINT/SIGTERM).\n"
	    "With -- COMMAND, run COMMAND (as the invoking user under sudo) and count only it and\n"
	    "the processes it forks, until it exits; exit with its exit status.\n"
	    "\n"
	    "Options:\n"
	    "  -d, --duration SECS  one-shot: stop after SECS seconds\n"
	    "  -j, --json           one JSON object per record (NDJSON) instead of tables\n"
	    "  -p, --pid PID        only this process (thread-group id); repeatable\n"
	    "  -c, --cgroup PATH    only tasks in cgroup PATH or below it (a cgroup v2 directory,\n"
	    "                       or its path as /proc/PID/cgroup writes it); repeatable\n"
	    "  -n, --comm NAME      only processes named exactly NAME (also --name)\n"
	    "  -r, --top N          at most N processes per record (default %d, 0: all; also\n"
	    "                       --rows)\n"
	    "      --by KIND        rows per process (the default), per cgroup (with the unit,\n"
	    "                       container and pod it belongs to), or per comm (name)\n"
	    "  -o, --output FILE    write each record to FILE instead, replacing it whole (a\n"
	    "                       reader sees the last record, never part of one)\n"
	    "      --max-tasks N    capacity of the in-kernel thread and process tables, and the\n"
	    "                       processes a record of several reads keeps (one-shot, or\n"
	    "                       INTERVAL over 10 s) (default %d)\n"
	    "      --check          report, probe by probe, what this kernel offers, then exit\n"
	    "                       (0: the required probes attach; 1: they do not)\n"
	    "      --self           add foliostat's own cost to each record (turns on the\n"
	    "                       kernel's BPF run-time statistics while it runs)\n"
	    "  -v, --verbose        show libbpf's own messages\n"
	    "  -h, --help           show this help and exit\n"
	    "  -V, --version        show the version and exit\n"
	    "\n"
	    "Examples:\n"
	    "  foliostat -d 10          summary of the next 10 seconds\n"
	    "  foliostat -j 1           a JSON record every second until Ctrl-C\n"
	    "  foliostat -p 1234 5 12   process 1234, every 5 s, for a minute\n"
	    "  foliostat -- make -j8    the build's processes, summary when it ends\n",
	    FS_DEFAULT_TOP, FS_DEFAULT_MAX_TASKS);
}

static void set_error(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

/* A finite number of seconds > 0 (at most a year), nothing trailing. */
static bool parse_seconds(const char *text, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(text, &end);
	return errno == 0 && end != text && *end == '\0' && isfinite(*value) && *value > 0 &&
	       *value <= 365.0 * 24 * 3600;
}

static bool parse_long(const char *text, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && *value >= min && *value <= max;
}

/* A repeatable option given `nr` times already: may it be given once more? */
static bool room_for(int nr, int max, const char *option, char *err, size_t err_len)
{
	if (nr < max)
		return true;
	set_error(err, err_len, "at most %d %s options", max, option);
	return false;
}

/* The option as the user wrote it: a long one from argv, a short one from getopt's optopt. */
static const char *option_name(char **argv, int short_opt, char buf[3])
{
	const char *arg = argv[optind - 1];

	if (strncmp(arg, "--", 2) == 0 || !short_opt)
		return arg;
	buf[0] = '-';
	buf[1] = (char)short_opt;
	buf[2] = '\0';
	return buf;
}

enum fs_parse_result parse_options(int argc, char **argv, struct fs_options *opts, char *err,
				   size_t err_len, FILE *out)
{
	char name[3];
	bool top_given = false;
	long value;
	int opt;

	memset(opts, 0, sizeof(*opts));
	opts->top = FS_DEFAULT_TOP;
	opts->max_tasks = FS_DEFAULT_MAX_TASKS;
	err[0] = '\0';
	optind = 1;
	opterr = 0;
	/* Everything after "--" is the command: foliostat's own arguments end there. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			opts->command = argv + i + 1;
			argc = i;
			break;
		}
	}

	while ((opt = getopt_long(argc, argv, ":d:jp:c:n:r:o:vhV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!parse_seconds(optarg, &opts->duration_s)) {
				set_error(err, err_len,
					  "invalid duration '%s': expected seconds > 0", optarg);
				return FS_PARSE_USAGE;
			}
			break;
		case 'j':
			opts->json = true;
			break;
		case 'p':
			if (!parse_long(optarg, 1, INT_MAX, &value)) {
				set_error(err, err_len, "invalid PID '%s'", optarg);
				return FS_PARSE_USAGE;
			}
			if (!room_for(opts->nr_pids, FS_MAX_PID_FILTERS, "--pid", err, err_len))
				return FS_PARSE_USAGE;
			opts->pids[opts->nr_pids++] = value;
			break;
		case 'n':
			if (strlen(optarg) == 0 || strlen(optarg) >= FS_COMM_LEN) {
				set_error(err, err_len,
					  "invalid process name '%s': 1 to %d bytes (the kernel "
					  "keeps %d)",
					  optarg, FS_COMM_LEN - 1, FS_COMM_LEN - 1);
				return FS_PARSE_USAGE;
			}
			opts->comm = optarg;
			break;
		case 'r':
			top_given = true;
			if (!parse_long(optarg, 0, INT_MAX, &opts->top)) {
				set_error(err, err_len, "invalid --top '%s': expected a count >= 0",
					  optarg);
				return FS_PARSE_USAGE;
			}
			break;
		case 'o':
			if (!optarg[0]) {
				set_error(err, err_len,
					  "invalid --output '': expected a file name");
				return FS_PARSE_USAGE;
			}
			opts->output = optarg;
			break;
		case 'c':
			if (!optarg[0]) {
				set_error(err, err_len, "invalid --cgroup '': expected a path");
				return FS_PARSE_USAGE;
			}
			if (!room_for(opts->nr_cgroups, FS_MAX_CGROUP_FILTERS, "--cgroup", err,
				      err_len))
				return FS_PARSE_USAGE;
			opts->cgroups[opts->nr_cgroups++] = optarg;
			break;
		case OPT_BY:
			if (strcmp(optarg, "process") == 0)
				opts->by = FS_BY_PROCESS;
			else if (strcmp(optarg, "cgroup") == 0)
				opts->by = FS_BY_CGROUP;
			else if (strcmp(optarg, "comm") == 0)
				opts->by = FS_BY_COMM;
			else {
				set_error(err, err_len,
					  "invalid --by '%s': expected process, cgroup or comm",
					  optarg);
				return FS_PARSE_USAGE;
			}
			break;
		case OPT_MAX_TASKS:
			if (!parse_long(optarg, 64, 1 << 22, &opts->max_tasks)) {
				set_error(err, err_len,
					  "invalid --max-tasks '%s': expected 64 to %d", optarg,
					  1 << 22);
				return FS_PARSE_USAGE;
			}
			break;
		case OPT_SELF:
			opts->self = true;
			break;
		case OPT_CHECK:
			opts->check = true;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'h':
			print_usage(out);
			return FS_PARSE_EXIT;
		case 'V':
			fprintf(out, "foliostat %s\n", FOLIOSTAT_VERSION);
			return FS_PARSE_EXIT;
		case ':':
			set_error(err, err_len, "option '%s' needs a value",
				  option_name(argv, optopt, name));
			return FS_PARSE_USAGE;
		default:
			set_error(err, err_len, "unknown option '%s'",
				  option_name(argv, optopt, name));
			return FS_PARSE_USAGE;
		}
	}

	if (optind < argc && !parse_seconds(argv[optind], &opts->interval_s)) {
		set_error(err, err_len, "invalid interval '%s': expected seconds > 0",
			  argv[optind]);
		return FS_PARSE_USAGE;
	}
	if (optind + 1 < argc && !parse_long(argv[optind + 1], 1, LONG_MAX, &opts->count)) {
		set_error(err, err_len, "invalid count '%s': expected a count >= 1",
			  argv[optind + 1]);
		return FS_PARSE_USAGE;
	}
	if (optind + 2 < argc) {
		set_error(err, err_len, "unexpected argument '%s'", argv[optind + 2]);
		return FS_PARSE_USAGE;
	}
	if (opts->check && (opts->interval_s > 0 || opts->duration_s > 0 || opts->output)) {
		set_error(err, err_len, "--check takes no INTERVAL, --duration or --output");
		return FS_PARSE_USAGE;
	}
	if (opts->command && !opts->command[0]) {
		set_error(err, err_len, "'--' needs a COMMAND to run");
		return FS_PARSE_USAGE;
	}
	if (opts->command && (opts->check || opts->duration_s > 0 || opts->count)) {
		set_error(err, err_len,
			  "with -- COMMAND the run ends when the command does: no --check, "
			  "--duration or COUNT");
		return FS_PARSE_USAGE;
	}
	/* A command's processes are few and all of interest: every one of them, unless -n. */
	if (opts->command && !top_given)
		opts->top = 0;
	if (opts->interval_s > 0 && opts->duration_s > 0) {
		set_error(err, err_len,
			  "--duration is for the one-shot summary; with an INTERVAL use COUNT");
		return FS_PARSE_USAGE;
	}
	return FS_PARSE_RUN;
}
