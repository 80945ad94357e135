// SPDX-License-Identifier: GPL-2.0
/* The command line: what is accepted, what is refused, and the message a user gets. */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/un.h>
#include <unistd.h>

#include "option_rows.h"
#include "options.h"
#include "unit.h"

static char err[256];
static struct fs_options opts;

/* Parse a NULL-terminated list of arguments (program name implied), help text discarded. */
#define PARSE(...)                                                                              \
	({                                                                                      \
		char *_argv[] = {"foliostat", __VA_ARGS__, NULL};                               \
		FILE *_null = fopen("/dev/null", "w");                                          \
		enum fs_parse_result _r = parse_options(sizeof(_argv) / sizeof(_argv[0]) - 1,   \
							_argv, &opts, err, sizeof(err), _null); \
		fclose(_null);                                                                  \
		_r;                                                                             \
	})

static bool no_arguments_is_a_one_shot_summary(void)
{
	char *argv[] = {"foliostat", NULL};

	return ASSERT_EQ(parse_options(1, argv, &opts, err, sizeof(err), stdout), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.interval_s == 0) && ASSERT_EQ(opts.count, 0) &&
	       ASSERT_EQ(opts.top, FS_DEFAULT_TOP) && ASSERT_TRUE(!opts.json);
}

static bool interval_and_count_mean_streaming(void)
{
	return ASSERT_EQ(PARSE("-j", "0.5", "3"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.interval_s == 0.5) && ASSERT_EQ(opts.count, 3) &&
	       ASSERT_TRUE(opts.json);
}

static bool long_options_are_understood(void)
{
	return ASSERT_EQ(PARSE("--duration", "2.5", "--json", "--top", "0", "--comm", "bash",
			       "--max-tasks", "1024", "--verbose", "--self"),
			 FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.self) && ASSERT_TRUE(opts.duration_s == 2.5) &&
	       ASSERT_EQ(opts.top, 0) && ASSERT_STREQ(opts.comm, "bash") &&
	       ASSERT_EQ(opts.max_tasks, 1024) && ASSERT_TRUE(opts.verbose);
}

/* The short options libbpf-tools users would guess: -c a cgroup, -n a name, -r rows; the long
 * spellings of before still work. */
static bool short_options_follow_libbpf_tools(void)
{
	return ASSERT_EQ(PARSE("-c", "/a", "-c", "/b", "-n", "bash", "-r", "5"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.nr_cgroups, 2) && ASSERT_STREQ(opts.cgroups[1], "/b") &&
	       ASSERT_STREQ(opts.comm, "bash") && ASSERT_EQ(opts.top, 5) &&
	       ASSERT_EQ(PARSE("--name", "sh", "--rows", "0", "--cgroup", "/c"), FS_PARSE_RUN) &&
	       ASSERT_STREQ(opts.comm, "sh") && ASSERT_EQ(opts.top, 0) &&
	       ASSERT_STREQ(opts.cgroups[0], "/c");
}

static bool rows_by_process_cgroup_or_name(void)
{
	return ASSERT_EQ(PARSE("-j"), FS_PARSE_RUN) && ASSERT_EQ(opts.by, FS_BY_PROCESS) &&
	       ASSERT_EQ(PARSE("--by", "cgroup"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.by, FS_BY_CGROUP) && ASSERT_EQ(PARSE("--by", "comm"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.by, FS_BY_COMM) &&
	       ASSERT_EQ(PARSE("--by", "banana"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "invalid --by 'banana'");
}

static bool pids_are_repeatable(void)
{
	return ASSERT_EQ(PARSE("-p", "1", "--pid", "42"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.nr_pids, 2) && ASSERT_EQ(opts.pids[0], 1) &&
	       ASSERT_EQ(opts.pids[1], 42);
}

static bool bad_intervals_are_usage_errors(void)
{
	return ASSERT_EQ(PARSE("0"), FS_PARSE_USAGE) && ASSERT_CONTAINS(err, "invalid interval") &&
	       ASSERT_EQ(PARSE("abc"), FS_PARSE_USAGE) && ASSERT_EQ(PARSE("1s"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("nan"), FS_PARSE_USAGE) && ASSERT_EQ(PARSE("inf"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-1"), FS_PARSE_USAGE);
}

static bool bad_counts_are_usage_errors(void)
{
	return ASSERT_EQ(PARSE("1", "0"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "invalid count") &&
	       ASSERT_EQ(PARSE("1", "x"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("1", "2", "3"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "unexpected argument '3'");
}

static bool duration_with_interval_is_refused(void)
{
	return ASSERT_EQ(PARSE("-d", "5", "1"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--duration") && ASSERT_EQ(PARSE("-d", "0"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-d", "-3"), FS_PARSE_USAGE);
}

static bool bad_values_name_the_option(void)
{
	return ASSERT_EQ(PARSE("-p", "0"), FS_PARSE_USAGE) && ASSERT_CONTAINS(err, "invalid PID") &&
	       ASSERT_EQ(PARSE("-p", "12x"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-r", "-1"), FS_PARSE_USAGE) && ASSERT_CONTAINS(err, "--top") &&
	       ASSERT_EQ(PARSE("--max-tasks", "1"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-n", "a-name-longer-than-15"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "process name");
}

static bool unknown_and_incomplete_options_are_named(void)
{
	return ASSERT_EQ(PARSE("--bogus"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "unknown option '--bogus'") &&
	       ASSERT_EQ(PARSE("-x"), FS_PARSE_USAGE) && ASSERT_STREQ(err, "unknown option '-x'") &&
	       ASSERT_EQ(PARSE("-d"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "option '-d' needs a value") &&
	       ASSERT_EQ(PARSE("--pid"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "option '--pid' needs a value");
}

static bool check_takes_no_interval(void)
{
	return ASSERT_EQ(PARSE("--check", "-j"), FS_PARSE_RUN) && ASSERT_TRUE(opts.check) &&
	       ASSERT_EQ(PARSE("--check", "2"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--check takes no INTERVAL");
}

static bool help_and_version_exit_successfully(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	char *help[] = {"foliostat", "--help", NULL};
	char *version[] = {"foliostat", "-V", NULL};
	bool ok = ASSERT_EQ(parse_options(2, help, &opts, err, sizeof(err), out), FS_PARSE_EXIT) &&
		  ASSERT_EQ(parse_options(2, version, &opts, err, sizeof(err), out), FS_PARSE_EXIT);

	fclose(out);
	ok = ok && ASSERT_CONTAINS(text, "Usage: foliostat [OPTIONS] [INTERVAL [COUNT]]") &&
	     ASSERT_CONTAINS(text, "foliostat " FOLIOSTAT_VERSION);
	free(text);
	return ok;
}

/* Everything after "--" is the command, options of its own included; foliostat's end there. */
static bool a_command_follows_the_separator(void)
{
	return ASSERT_EQ(PARSE("-j", "0.5", "--", "make", "-j", "8"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.interval_s == 0.5) && ASSERT_TRUE(opts.json) &&
	       ASSERT_STREQ(opts.command[0], "make") && ASSERT_STREQ(opts.command[1], "-j") &&
	       ASSERT_STREQ(opts.command[2], "8") && ASSERT_TRUE(opts.command[3] == NULL) &&
	       ASSERT_EQ(opts.top, 0) && ASSERT_EQ(PARSE("-r", "3", "--", "true"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.top, 3) && ASSERT_EQ(PARSE("-j"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.command == NULL);
}

static bool a_command_is_refused_where_it_makes_no_sense(void)
{
	return ASSERT_EQ(PARSE("-j", "--"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "'--' needs a COMMAND") &&
	       ASSERT_EQ(PARSE("-d", "1", "--", "true"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "the run ends when the command does") &&
	       ASSERT_EQ(PARSE("1", "2", "--", "true"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--check", "--", "true"), FS_PARSE_USAGE);
}

static bool listen_takes_port_address_or_both(void)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&opts.listen_addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&opts.listen_addr;

	return ASSERT_EQ(PARSE("--listen", "9999"), FS_PARSE_RUN) &&
	       ASSERT_EQ(in->sin_family, AF_INET) && ASSERT_EQ(ntohs(in->sin_port), 9999) &&
	       ASSERT_EQ(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK) &&
	       /* Exporting: by cgroup, counts since the start. */
	       ASSERT_EQ(opts.format, FS_FORMAT_PROMETHEUS) && ASSERT_EQ(opts.by, FS_BY_CGROUP) &&
	       ASSERT_EQ(PARSE("--listen", "0.0.0.0:80"), FS_PARSE_RUN) &&
	       ASSERT_EQ(ntohs(in->sin_port), 80) && ASSERT_EQ(in->sin_addr.s_addr, 0) &&
	       ASSERT_EQ(PARSE("--listen", ":"), FS_PARSE_RUN) &&
	       ASSERT_EQ(ntohs(in->sin_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_EQ(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK) &&
	       ASSERT_EQ(PARSE("--listen", "[::1]:", "--by", "process"), FS_PARSE_RUN) &&
	       ASSERT_EQ(in6->sin6_family, AF_INET6) &&
	       ASSERT_EQ(ntohs(in6->sin6_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_TRUE(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) &&
	       ASSERT_EQ(opts.by, FS_BY_PROCESS) &&
	       ASSERT_EQ(PARSE("--listen", "[::]"), FS_PARSE_RUN) &&
	       ASSERT_EQ(in6->sin6_family, AF_INET6) &&
	       ASSERT_EQ(ntohs(in6->sin6_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_TRUE(IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr));
}

/* As other exporters take theirs: a host alone (default port), no value at all (the default
 * address, whether --listen is last or another option follows), a name resolved (localhost,
 * from /etc/hosts: no network asked). */
static bool listen_takes_what_exporters_take(void)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&opts.listen_addr;

	return ASSERT_EQ(PARSE("--listen", "0.0.0.0"), FS_PARSE_RUN) &&
	       ASSERT_EQ(in->sin_family, AF_INET) && ASSERT_EQ(in->sin_addr.s_addr, 0) &&
	       ASSERT_EQ(ntohs(in->sin_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_EQ(PARSE("--listen"), FS_PARSE_RUN) && ASSERT_EQ(in->sin_family, AF_INET) &&
	       ASSERT_EQ(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK) &&
	       ASSERT_EQ(ntohs(in->sin_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_EQ(PARSE("--listen", "-d", "5"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.duration_s == 5) && ASSERT_EQ(in->sin_family, AF_INET) &&
	       ASSERT_EQ(ntohs(in->sin_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_EQ(PARSE("--listen", "--by", "process"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.by, FS_BY_PROCESS) && ASSERT_TRUE(opts.listen != NULL) &&
	       ASSERT_EQ(PARSE("--listen", "localhost:10141"), FS_PARSE_RUN) &&
	       ASSERT_EQ(in->sin_family, AF_INET) &&
	       ASSERT_EQ(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK) &&
	       ASSERT_EQ(ntohs(in->sin_port), 10141) &&
	       ASSERT_EQ(PARSE("--listen", "localhost"), FS_PARSE_RUN) &&
	       ASSERT_EQ(ntohs(in->sin_port), FS_DEFAULT_LISTEN_PORT) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "--listen"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--listen given twice");
}

static bool listen_takes_a_unix_socket(void)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&opts.listen_addr;
	char long_path[200];

	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = 'u', long_path[1] = 'n', long_path[2] = 'i', long_path[3] = 'x';
	long_path[4] = ':', long_path[sizeof(long_path) - 1] = '\0';
	return ASSERT_EQ(PARSE("--listen", "unix:/run/foliostat/metrics.sock"), FS_PARSE_RUN) &&
	       ASSERT_EQ(un->sun_family, AF_UNIX) &&
	       ASSERT_STREQ(un->sun_path, "/run/foliostat/metrics.sock") &&
	       ASSERT_EQ(opts.listen_addr_len, offsetof(struct sockaddr_un, sun_path) +
						   sizeof("/run/foliostat/metrics.sock")) &&
	       ASSERT_EQ(PARSE("--listen", "unix:"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", long_path), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "invalid --listen");
}

static bool web_config_is_for_the_endpoint(void)
{
	return ASSERT_EQ(PARSE("--listen", "9999", "--web.config.file", "/etc/web.yml"),
			 FS_PARSE_RUN) &&
	       ASSERT_STREQ(opts.web_config, "/etc/web.yml") &&
	       ASSERT_EQ(PARSE("--web.config.file", "/etc/web.yml", "-d", "1"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--web.config.file is the access control of --listen") &&
	       ASSERT_EQ(PARSE("--listen", "9999", "--web.config.file", ""), FS_PARSE_USAGE);
}

static bool listen_refuses_what_does_not_parse(void)
{
	static const char *const bad[] = {"",	    "0",	 "65536",      "1.2.3:80", "::1:80",
					  "[::1",   "[nope]:80", "1.2.3.4:-1", "host:0",   "host:x",
					  "[::1]x", "[]:80",	 "1.2.3.4.5"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!ASSERT_EQ(PARSE("--listen", (char *)bad[i]), FS_PARSE_USAGE) ||
		    !ASSERT_CONTAINS(err, "invalid --listen"))
			return false;
	/* Serving has no records: no INTERVAL, -o, -j or command. */
	return ASSERT_EQ(PARSE("--listen", "9999", "1"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "-o", "x"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "-j"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "--", "true"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "-d", "5"), FS_PARSE_RUN);
}

static bool format_names_the_output(void)
{
	return ASSERT_EQ(PARSE("--format", "json"), FS_PARSE_RUN) && ASSERT_TRUE(opts.json) &&
	       ASSERT_EQ(opts.by, FS_BY_PROCESS) &&
	       ASSERT_EQ(PARSE("--format", "prometheus", "--replace", "f.prom", "5"),
			 FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.replace) && ASSERT_STREQ(opts.output, "f.prom") &&
	       ASSERT_EQ(opts.format, FS_FORMAT_PROMETHEUS) && ASSERT_TRUE(!opts.json) &&
	       ASSERT_EQ(opts.by, FS_BY_CGROUP) &&
	       ASSERT_EQ(PARSE("--format", "xml"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "table, json or prometheus") &&
	       ASSERT_EQ(PARSE("--max-series", "0"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--series-grace", "-1"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--max-series", "5", "--series-grace", "2.5"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.max_series, 5) && ASSERT_TRUE(opts.series_grace_s == 2.5);
}

/* --files is off by default; --max-files sizes its table, and needs it; no files in the
 * exposition. */
static bool files_are_asked_for(void)
{
	return ASSERT_EQ(PARSE("-j"), FS_PARSE_RUN) && ASSERT_TRUE(!opts.files) &&
	       ASSERT_EQ(opts.max_files, FS_DEFAULT_MAX_FILES) &&
	       ASSERT_EQ(PARSE("--files", "--max-files", "16", "-j", "1"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.files) && ASSERT_EQ(opts.max_files, 16) &&
	       ASSERT_EQ(PARSE("--max-files", "16"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--files") &&
	       ASSERT_EQ(PARSE("--files", "--max-files", "0"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "invalid --max-files '0'") &&
	       ASSERT_EQ(PARSE("--files", "--max-files", "2000000"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--files", "--listen", "9999"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--files", "--format", "prometheus"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--files is for table and JSON records");
}

/* --resident: off by default; in one-shot summaries, streaming records (not in a line: with
 * --full or -j), --listen and the exposition; never with a COMMAND (its processes have ended by
 * the end). --resident-budget: a percent of one CPU, for the sweep alone. */
static bool resident_where_it_can_read(void)
{
	return ASSERT_EQ(PARSE("-j"), FS_PARSE_RUN) && ASSERT_TRUE(!opts.resident) &&
	       ASSERT_EQ(PARSE("--resident", "-j", "-d", "1", "-n", "x"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.resident) &&
	       ASSERT_EQ(opts.resident_budget, FS_DEFAULT_RESIDENT_BUDGET) &&
	       ASSERT_EQ(PARSE("--resident", "1"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "add --full or --json") &&
	       ASSERT_EQ(PARSE("--resident", "--full", "1"), FS_PARSE_RUN) &&
	       ASSERT_EQ(PARSE("--resident", "-j", "1", "--resident-budget", "0.5"),
			 FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.resident_budget == 0.5) &&
	       ASSERT_EQ(PARSE("--resident", "--listen", "9999"), FS_PARSE_RUN) &&
	       ASSERT_EQ(PARSE("--resident", "--format", "prometheus"), FS_PARSE_RUN) &&
	       ASSERT_EQ(PARSE("--resident", "--", "true"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "not with a COMMAND") &&
	       ASSERT_EQ(PARSE("--resident", "-j", "1", "--resident-budget", "0"),
			 FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "invalid --resident-budget '0'") &&
	       ASSERT_EQ(PARSE("--resident", "-j", "1", "--resident-budget", "101"),
			 FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--resident", "-j", "1", "--resident-budget", "5%"),
			 FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--resident", "-j", "1", "--resident-budget", "nan"),
			 FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--resident", "-j", "--resident-budget", "5"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "give --resident with an INTERVAL or --listen") &&
	       ASSERT_EQ(PARSE("-j", "1", "--resident-budget", "5"), FS_PARSE_USAGE);
}

/* -o appends (a log); --replace keeps the last record; one of them; expositions only
 * replaced (several in one file are no exposition). */
static bool output_appends_and_replace_replaces(void)
{
	return ASSERT_EQ(PARSE("-j", "1", "-o", "log"), FS_PARSE_RUN) &&
	       ASSERT_STREQ(opts.output, "log") && ASSERT_TRUE(!opts.replace) &&
	       ASSERT_EQ(PARSE("-j", "1", "--replace", "last"), FS_PARSE_RUN) &&
	       ASSERT_STREQ(opts.output, "last") && ASSERT_TRUE(opts.replace) &&
	       ASSERT_EQ(PARSE("-o", "a", "--replace", "b"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "give one of them") &&
	       ASSERT_EQ(PARSE("--format", "prometheus", "-o", "f.prom", "5"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "use --replace FILE") &&
	       ASSERT_EQ(PARSE("--replace", ""), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--listen", "9999", "--replace", "f"), FS_PARSE_USAGE);
}

/* --output-mode: an octal mode of permission bits, for a file -o or --replace writes; the
 * default (-1) leaves the choice to output_file.c. */
static bool output_mode_is_octal_permission_bits(void)
{
	return ASSERT_EQ(PARSE("-j", "1", "-o", "log"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.output_mode, -1) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "0640"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.output_mode, 0640) &&
	       ASSERT_EQ(PARSE("--replace", "f", "--output-mode", "600"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.output_mode, 0600) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "0"), FS_PARSE_RUN) &&
	       ASSERT_EQ(opts.output_mode, 0) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "0800"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "invalid --output-mode '0800': expected an octal mode from 0 to "
				 "0777, as 0640") &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "4755"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "1777"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "u=rw"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", ""), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "-1"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "log", "--output-mode", "0600", "--output-mode", "0640"),
			 FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-j", "1", "--output-mode", "0600"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "give one of them");
}

/* A second value of a one-value option would silently replace the first: refused. Flags may
 * be repeated, and -p and -c add up. */
static bool one_value_options_are_given_once(void)
{
	return ASSERT_EQ(PARSE("-n", "a", "-n", "b"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "--comm given twice: it takes one value") &&
	       ASSERT_EQ(PARSE("-n", "a", "--name", "b"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-d", "1", "-d", "2"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "--duration given twice") &&
	       ASSERT_EQ(PARSE("-r", "1", "--rows", "2"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--by", "comm", "--by", "cgroup"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-o", "a", "-o", "b"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("--format", "json", "--format", "table"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-j", "--format", "table"), FS_PARSE_USAGE) &&
	       ASSERT_CONTAINS(err, "-j is --format json") &&
	       ASSERT_EQ(PARSE("--format", "table", "-j"), FS_PARSE_USAGE) &&
	       ASSERT_EQ(PARSE("-j", "--format", "json", "-j"), FS_PARSE_RUN) &&
	       ASSERT_EQ(PARSE("-v", "-v", "--self", "--self"), FS_PARSE_RUN) &&
	       ASSERT_EQ(PARSE("-p", "1", "-p", "2", "-c", "/a", "-c", "/b"), FS_PARSE_RUN);
}

/* Long options by their whole names only: a prefix that is unique today (--dur) would break
 * a script the day an option shares it. The error says what was meant. */
static bool long_options_are_spelled_out(void)
{
	return ASSERT_EQ(PARSE("--dur", "5"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "unknown option '--dur' (did you mean --duration?)") &&
	       ASSERT_EQ(PARSE("--dur=5"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "unknown option '--dur' (did you mean --duration?)") &&
	       ASSERT_EQ(PARSE("--max", "5"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "unknown option '--max' (did you mean --max-series, --max-tasks, "
				 "--max-threads, --max-files?)") &&
	       ASSERT_EQ(PARSE("--js"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "unknown option '--js' (did you mean --json?)") &&
	       ASSERT_EQ(PARSE("--json=yes"), FS_PARSE_USAGE) &&
	       ASSERT_STREQ(err, "option '--json' takes no value") &&
	       ASSERT_EQ(PARSE("--duration=5", "--comm", "x"), FS_PARSE_RUN) &&
	       ASSERT_TRUE(opts.duration_s == 5) && ASSERT_STREQ(opts.comm, "x") &&
	       /* a value that looks like a prefix is a value */
	       ASSERT_EQ(PARSE("-o", "--dur"), FS_PARSE_RUN) && ASSERT_STREQ(opts.output, "--dur");
}

/* The option rows: one per option, each name and letter once, each row complete. */
static bool option_rows_name_each_option_once(void)
{
	const char *names[2 * 64];
	int nr_names = 0;

	if (!ASSERT_TRUE(nr_option_rows > 0 && nr_option_rows <= 64))
		return false;
	for (int i = 0; i < nr_option_rows; i++) {
		const struct option_row *row = &option_rows[i];
		const char *percent = row->help ? strchr(row->help, '%') : NULL;

		names[nr_names++] = row->name;
		if (row->alias)
			names[nr_names++] = row->alias;
		for (int j = 0; j < i; j++) {
			if (option_rows[j].id == row->id) {
				fprintf(stderr, "    --%s and --%s: the same id or letter\n",
					option_rows[j].name, row->name);
				return false;
			}
		}
		if (!ASSERT_TRUE(row->id > 0 && row->id < NR_OPTION_IDS) ||
		    !ASSERT_TRUE(row->group < NR_OPTION_GROUPS) ||
		    !ASSERT_TRUE(!row->arg == (row->value == VALUE_NONE)) ||
		    !ASSERT_TRUE(!row->choices == (row->value != VALUE_CHOICE)) ||
		    !ASSERT_TRUE(!row->repeatable || row->arg))
			return false;
		if (row->hidden)
			continue;
		/* Shown rows have a help text (one %g at most, for the default) and a man text. */
		if (!row->help || !row->help[0] || !row->man || !row->man[0] ||
		    (percent && (strncmp(percent, "%g", 2) || strchr(percent + 1, '%')))) {
			fprintf(stderr, "    --%s: help or man text missing or malformed\n",
				row->name);
			return false;
		}
	}
	for (int i = 0; i < nr_names; i++) {
		for (int j = 0; j < i; j++) {
			if (!strcmp(names[i], names[j])) {
				fprintf(stderr, "    --%s: two rows\n", names[i]);
				return false;
			}
		}
	}
	return true;
}

/* --help names every option, alias and letter, under its group's title, groups in order. */
static bool help_shows_every_option_in_its_group(void)
{
	char *text = NULL, spelling[80];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	char *help[] = {"foliostat", "-h", NULL};
	bool ok = ASSERT_EQ(parse_options(2, help, &opts, err, sizeof(err), out), FS_PARSE_EXIT);
	const char *title[NR_OPTION_GROUPS];

	fclose(out);
	for (int g = 0; ok && g < NR_OPTION_GROUPS; g++) {
		snprintf(spelling, sizeof(spelling), "\n%s:\n", option_group_titles[g]);
		title[g] = strstr(text, spelling);
		ok = ASSERT_TRUE(title[g]) && ASSERT_TRUE(!g || title[g] > title[g - 1]);
	}
	for (int i = 0; ok && i < nr_option_rows; i++) {
		const struct option_row *row = &option_rows[i];
		const char *at, *end;

		if (row->hidden)
			continue;
		snprintf(spelling, sizeof(spelling), "--%s%s", row->name,
			 row->alias ? ", --" : (row->arg ? " " : ""));
		at = strstr(title[row->group], spelling);
		end = row->group + 1 < NR_OPTION_GROUPS ? title[row->group + 1] : text + len;
		if (!at || at > end) {
			fprintf(stderr, "    --%s is not in --help's %s\n", row->name,
				option_group_titles[row->group]);
			ok = false;
			break;
		}
		if (option_has_letter(row)) {
			snprintf(spelling, sizeof(spelling), "  -%c, --%s", row->id, row->name);
			ok = ASSERT_CONTAINS(text, spelling);
		}
		if (row->alias) {
			snprintf(spelling, sizeof(spelling), "--%s, --%s", row->name, row->alias);
			ok = ok && ASSERT_CONTAINS(text, spelling);
		}
	}
	free(text);
	return ok;
}

/* The bash completion as checked in (tests run from the source tree, or from build/ beside it). */
static char *read_completion(void)
{
	static const char *const paths[] = {"contrib/bash-completion/foliostat",
					    "../contrib/bash-completion/foliostat",
					    "../../contrib/bash-completion/foliostat"};
	char exe[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *text = NULL;
	size_t len = 0;

	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	for (size_t i = 0; i < 2 * sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s%s%s", i % 2 ? exe : "", i % 2 ? "/" : "",
			 paths[i / 2]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (getdelim(&text, &len, '\0', f) < 0) {
			free(text);
			text = NULL;
		}
		fclose(f);
		return text;
	}
	return NULL;
}

/* Whether `word` is a whole word (between blanks or quotes) of `text`'s first `len` bytes. */
static bool has_word(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (const char *at = text; (at = memmem(at, len - (size_t)(at - text), word, n));
	     at++) {
		if (strchr(" \n'|(", at == text ? ' ' : at[-1]) && strchr(" \n')", at[n]))
			return true;
	}
	return false;
}

/* contrib/bash-completion/foliostat offers every option and completes every option's value. */
static bool bash_completion_lists_every_option(void)
{
	char *text = read_completion(), *list, *end, *values, spelling[80];
	bool ok = ASSERT_TRUE(text);

	list = ok ? strstr(text, "_foliostat_options='") : NULL;
	end = list ? strchr(list + strlen("_foliostat_options='"), '\'') : NULL;
	values = ok ? strstr(text, "_foliostat_value()") : NULL;
	ok = ok && ASSERT_TRUE(end) && ASSERT_TRUE(values);
	for (int i = 0; ok && i < nr_option_rows; i++) {
		const struct option_row *row = &option_rows[i];
		const char *spellings[3] = {row->name, row->alias};

		if (row->hidden)
			continue;
		for (int s = 0; ok && s < 3; s++) {
			if (s == 2 && option_has_letter(row))
				snprintf(spelling, sizeof(spelling), "-%c", row->id);
			else if (spellings[s])
				snprintf(spelling, sizeof(spelling), "--%s", spellings[s]);
			else
				continue;
			if (!has_word(list, (size_t)(end - list), spelling) ||
			    (row->arg && !has_word(values, strlen(values), spelling))) {
				fprintf(stderr, "    %s is not completed\n", spelling);
				ok = false;
			}
		}
	}
	free(text);
	return ok;
}

/* getopt_long's table is the rows': every spelling of every row is an option, taking a value
 * exactly when its row has one. */
static bool every_spelling_of_every_row_is_taken(void)
{
	for (int i = 0; i < nr_option_rows; i++) {
		const struct option_row *row = &option_rows[i];
		const char *names[2] = {row->name, row->alias};
		char spelling[80];

		for (int s = -1; s < 2; s++) {
			if (s < 0 && !option_has_letter(row))
				continue;
			if (s >= 0 && !names[s])
				continue;
			if (s < 0)
				snprintf(spelling, sizeof(spelling), "-%c", row->id);
			else
				snprintf(spelling, sizeof(spelling), "--%s", names[s]);
			/* A value that no option takes (and no address to look up): refused for
			 * what it is, not as an option. */
			if (row->arg)
				PARSE(spelling, row->value == VALUE_ADDRESS ? "[" : "\x01");
			else
				PARSE(spelling);
			if (strstr(err, "unknown option") || strstr(err, "needs a value") ||
			    strstr(err, "takes no value")) {
				fprintf(stderr, "    %s: %s\n", spelling, err);
				return false;
			}
		}
	}
	return true;
}

const struct unit_test options_tests[] = {
    UNIT_TEST(output_appends_and_replace_replaces),
    UNIT_TEST(output_mode_is_octal_permission_bits),
    UNIT_TEST(one_value_options_are_given_once),
    UNIT_TEST(long_options_are_spelled_out),
    UNIT_TEST(files_are_asked_for),
    UNIT_TEST(resident_where_it_can_read),
    UNIT_TEST(listen_takes_port_address_or_both),
    UNIT_TEST(listen_takes_what_exporters_take),
    UNIT_TEST(listen_refuses_what_does_not_parse),
    UNIT_TEST(listen_takes_a_unix_socket),
    UNIT_TEST(web_config_is_for_the_endpoint),
    UNIT_TEST(format_names_the_output),
    UNIT_TEST(a_command_follows_the_separator),
    UNIT_TEST(a_command_is_refused_where_it_makes_no_sense),
    UNIT_TEST(no_arguments_is_a_one_shot_summary),
    UNIT_TEST(interval_and_count_mean_streaming),
    UNIT_TEST(long_options_are_understood),
    UNIT_TEST(short_options_follow_libbpf_tools),
    UNIT_TEST(rows_by_process_cgroup_or_name),
    UNIT_TEST(pids_are_repeatable),
    UNIT_TEST(bad_intervals_are_usage_errors),
    UNIT_TEST(bad_counts_are_usage_errors),
    UNIT_TEST(duration_with_interval_is_refused),
    UNIT_TEST(bad_values_name_the_option),
    UNIT_TEST(unknown_and_incomplete_options_are_named),
    UNIT_TEST(check_takes_no_interval),
    UNIT_TEST(help_and_version_exit_successfully),
    UNIT_TEST(option_rows_name_each_option_once),
    UNIT_TEST(every_spelling_of_every_row_is_taken),
    UNIT_TEST(help_shows_every_option_in_its_group),
    UNIT_TEST(bash_completion_lists_every_option),
    {},
};
