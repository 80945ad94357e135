// SPDX-License-Identifier: GPL-2.0
/* Command-line parsing, and --help, from the option rows (option_rows.c). Kept free of side
 * effects other than printing help/version to `out`, so the unit tests can drive it with any
 * argv. */
#include "options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <limits.h>
#include <stddef.h>
#include <sys/un.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "foliostat.h"
#include "option_rows.h"
#include "series.h"

/*
 * getopt_long's table and short-option string, made from the option rows once: each row's
 * name, its alias, and its letter. (Room for 64 rows; the unit tests check there are fewer.)
 */
static struct option long_options[2 * 64 + 1];
static char short_options[1 + 3 * 64 + 1];

static void make_getopt_tables(void)
{
	size_t n = 0, s = 0;

	if (long_options[0].name)
		return;
	short_options[s++] = ':'; /* a missing value is ':', not '?' */
	for (int i = 0; i < nr_option_rows && n + 2 < sizeof(long_options) / sizeof(*long_options);
	     i++) {
		const struct option_row *row = &option_rows[i];
		int has_arg = row->arg ? required_argument : no_argument;

		long_options[n++] = (struct option){row->name, has_arg, NULL, row->id};
		if (row->alias)
			long_options[n++] = (struct option){row->alias, has_arg, NULL, row->id};
		if (option_has_letter(row) && s + 3 < sizeof(short_options)) {
			short_options[s++] = (char)row->id;
			if (row->arg)
				short_options[s++] = ':';
		}
	}
}

/* "  -n, --comm, --name NAME": the option's names and value, as --help shows them. */
static int usage_names(const struct option_row *row, char *text, size_t len)
{
	char letter[8] = "    ";

	if (option_has_letter(row))
		snprintf(letter, sizeof(letter), "-%c, ", row->id);
	return snprintf(text, len, "  %s--%s%s%s%s%s", letter, row->name, row->alias ? ", --" : "",
			row->alias ? row->alias : "", row->arg ? " " : "",
			row->arg ? row->arg : "");
}

/* An option's help text, wrapped into the column that starts at `indent`, to 80 columns. */
static void usage_text(FILE *out, const char *text, int column, int indent)
{
	const int width = 80;

	while (*text) {
		size_t word = strcspn(text, " ");

		if (column > indent && column + 1 + (int)word > width) {
			fprintf(out, "\n%*s", indent, "");
			column = indent;
		} else if (column > indent) {
			fputc(' ', out);
			column++;
		} else {
			fprintf(out, "%*s", indent - column, "");
			column = indent;
		}
		fprintf(out, "%.*s", (int)word, text);
		column += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* The options of --help, by group, from the option rows. */
static void usage_options(FILE *out)
{
	const int indent = 23;

	for (enum option_group g = 0; g < NR_OPTION_GROUPS; g++) {
		fprintf(out, "\n%s:\n", option_group_titles[g]);
		for (int i = 0; i < nr_option_rows; i++) {
			const struct option_row *row = &option_rows[i];
			char names[128], help[1024];
			int column;

			if (row->group != g || row->hidden)
				continue;
			column = usage_names(row, names, sizeof(names));
			fputs(names, out);
			if (column > indent - 2) {
				fputc('\n', out);
				column = 0;
			}
			option_help_text(row, help, sizeof(help));
			usage_text(out, help, column, indent);
		}
	}
}

void print_usage(FILE *out)
{
	fputs(
	    "Usage: foliostat [OPTIONS] [INTERVAL [COUNT]]\n"
	    "       foliostat [OPTIONS] [INTERVAL] -- COMMAND [ARGS...]\n"
	    "       foliostat [OPTIONS] --listen [HOST][:PORT] [--web.config.file FILE]\n"
	    "Per-process folio activity of the memory-management subsystem, from BPF tracepoints.\n"
	    "\n"
	    "Without INTERVAL, collect until --duration passes or SIGINT/SIGTERM, then print one\n"
	    "summary. With INTERVAL (seconds, fractions allowed), print a record every INTERVAL,\n"
	    "COUNT times (default: until SIGINT/SIGTERM).\n"
	    "With -- COMMAND, run COMMAND (as the invoking user under sudo) and count only it and\n"
	    "the processes it forks, until it exits; exit with its exit status.\n"
	    "With --listen, serve Prometheus metrics (counts since the start) at /metrics until\n"
	    "SIGINT/SIGTERM.\n",
	    out);
	usage_options(out);
	fputs("\n"
	      "Examples:\n"
	      "  foliostat -d 10          summary of the next 10 seconds\n"
	      "  foliostat -j 1           a JSON record every second until Ctrl-C\n"
	      "  foliostat -p 1234 5 12   process 1234, every 5 s, for a minute\n"
	      "  foliostat -- make -j8    the build's processes, summary when it ends\n"
	      "  foliostat --listen 9999  Prometheus metrics at http://127.0.0.1:9999/metrics\n",
	      out);
}

static void set_error(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
}

/* A finite number over 0 and at most max, nothing trailing. */
static bool parse_positive(const char *text, double max, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(text, &end);
	return errno == 0 && end != text && *end == '\0' && isfinite(*value) && *value > 0 &&
	       *value <= max;
}

/* Seconds (at most a year). */
static bool parse_seconds(const char *text, double *value)
{
	return parse_positive(text, 365.0 * 24 * 3600, value);
}

static bool parse_long(const char *text, long min, long max, long *value)
{
	char *end;

	errno = 0;
	*value = strtol(text, &end, 10);
	return errno == 0 && end != text && *end == '\0' && *value >= min && *value <= max;
}

/* An octal file mode of permission bits only (0 to 0777), nothing trailing. */
static bool parse_octal_mode(const char *text, int *mode)
{
	char *end;
	long value;

	if (strspn(text, "01234567") != strlen(text) || !*text)
		return false;
	errno = 0;
	value = strtol(text, &end, 8);
	if (errno || *end || value > 0777)
		return false;
	*mode = (int)value;
	return true;
}

/*
 * --listen's HOST (empty: 127.0.0.1) with PORT into addr. An address is taken as written (an
 * IPv6 one only from brackets); anything else is a name, resolved to its first address, IPv4
 * first. Returns NULL, or why not.
 */
static const char *listen_host(const char *host, bool bracketed, unsigned short port,
			       struct sockaddr_storage *addr, socklen_t *len)
{
	struct sockaddr_in *in = (struct sockaddr_in *)addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *found, *pick;
	static char why[320];

	if (bracketed) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1
			   ? NULL
			   : "an IPv6 address in the brackets";
	}
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	*len = sizeof(*in);
	if (inet_pton(AF_INET, host[0] ? host : "127.0.0.1", &in->sin_addr) == 1)
		return NULL;
	/* Digits and dots are an address or nothing (getaddrinfo would take 1.2.3 as 1.2.0.3). */
	if (strspn(host, "0123456789.") == strlen(host))
		return "an IPv4 address of four numbers";
	int err = getaddrinfo(host, NULL, &hints, &found);

	if (err) {
		snprintf(why, sizeof(why), "a host name that resolves ('%s': %s)", host,
			 gai_strerror(err));
		return why;
	}
	for (pick = found; pick && pick->ai_family != AF_INET; pick = pick->ai_next)
		;
	if (!pick)
		pick = found;
	memcpy(addr, pick->ai_addr, pick->ai_addrlen);
	*len = pick->ai_addrlen;
	if (pick->ai_family == AF_INET6)
		in6->sin6_port = htons(port);
	else
		in->sin_port = htons(port);
	freeaddrinfo(found);
	return NULL;
}

/*
 * --listen's address, as Prometheus exporters take theirs: HOST:PORT, [IPV6]:PORT, :PORT, PORT
 * alone (on 127.0.0.1), HOST alone (on the default port), or nothing at all (127.0.0.1 on the
 * default port); unix:PATH is a Unix socket's path. HOST is an IPv4 address, an IPv6 one in
 * brackets, or a name, resolved here once: the first address it has, IPv4 first (as Go's
 * exporters do), so that "localhost" is 127.0.0.1. Returns NULL, or why `text` is refused.
 */
static const char *parse_listen(const char *text, struct sockaddr_storage *addr, socklen_t *len)
{
	char host[256];
	const char *port_text = "", *close;
	long port = FS_DEFAULT_LISTEN_PORT;

	memset(addr, 0, sizeof(*addr));
	if (!strncmp(text, "unix:", 5)) {
		struct sockaddr_un *un = (struct sockaddr_un *)addr;
		size_t path_len = strlen(text + 5);

		/* A path, not one of Linux's abstract names: they have no permissions. */
		if (!path_len || path_len >= sizeof(un->sun_path))
			return "a Unix socket's path of 1 to 107 bytes";
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, text + 5, path_len + 1);
		*len = offsetof(struct sockaddr_un, sun_path) + path_len + 1;
		return NULL;
	}
	if (!*text)
		return "an address, a port or both";
	if (text[0] == '[') {
		close = strchr(text, ']');
		if (!close || (close[1] && close[1] != ':'))
			return "an IPv6 address in brackets, then :PORT or nothing";
		snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
		port_text = close[1] ? close + 2 : "";
		if (!host[0])
			return "an IPv6 address in the brackets";
	} else if (strchr(text, ':') != strrchr(text, ':')) {
		return "an IPv6 address in brackets, as [::1]:PORT";
	} else if (strchr(text, ':')) {
		snprintf(host, sizeof(host), "%.*s", (int)(strchr(text, ':') - text), text);
		port_text = strchr(text, ':') + 1;
	} else if (strspn(text, "0123456789") == strlen(text)) {
		host[0] = '\0';
		port_text = text;
	} else {
		snprintf(host, sizeof(host), "%s", text);
	}
	if (*port_text && !parse_long(port_text, 1, 65535, &port))
		return "a port from 1 to 65535";
	if (strlen(host) >= sizeof(host) - 1)
		return "a shorter host name";
	return listen_host(host, text[0] == '[', (unsigned short)port, addr, len);
}

/* The values of --format, in its enum's order; NULL-terminated (--by's and --sort's: rows.c). */
const char *const fs_format_names[] = {[FS_FORMAT_TABLE] = "table",
					   [FS_FORMAT_JSON] = "json",
					   [FS_FORMAT_PROMETHEUS] = "prometheus",
					   NULL};
/* One of `names`: its index in *value. */
static bool parse_choice(const char *text, const char *const *names, long *value)
{
	for (long i = 0; names[i]; i++) {
		if (strcmp(text, names[i]) == 0) {
			*value = i;
			return true;
		}
	}
	return false;
}

/* A repeatable option given `nr` times already: may it be given once more? */
static bool room_for(int nr, int max, const char *option, char *err, size_t err_len)
{
	if (nr < max)
		return true;
	set_error(err, err_len, "at most %d %s options", max, option);
	return false;
}

/* The long name of the option getopt returns as `opt`. */
static const char *long_name(int opt)
{
	const struct option_row *row = option_row_of(opt);

	return row ? row->name : "?";
}

/*
 * Options that take one value: a second one would silently replace the first (-n a -n b), so
 * it is refused. (Flags may be repeated; -p and -c add to a list.) -j is --format json.
 */
static bool single_value(int opt)
{
	const struct option_row *row = option_row_of(opt);

	return row && row->arg && !row->repeatable;
}

/*
 * The long option getopt_long matched at long_options[index], as the user wrote it: the
 * argument before optind, or the one before that when the value was given apart. getopt_long
 * also takes any unique prefix (--dur for --duration), which a later option could make
 * ambiguous and break a script: only whole names are accepted.
 */
static bool whole_long_name(char **argv, int index)
{
	const char *arg = argv[optind - 1], *name;
	size_t len;

	if (optarg && optarg == argv[optind - 1] && optind >= 2)
		arg = argv[optind - 2];
	if (strncmp(arg, "--", 2) != 0)
		return true; /* a short option */
	name = arg + 2;
	len = strcspn(name, "=");
	return len == strlen(long_options[index].name) &&
	       strncmp(name, long_options[index].name, len) == 0;
}

/* "unknown option '--ma'", and the options whose names begin so, if any. */
static void unknown_long_option(const char *arg, char *err, size_t err_len)
{
	size_t len = strcspn(arg + 2, "="), used;
	int nr = 0;

	used = (size_t)snprintf(err, err_len, "unknown option '%.*s'", (int)len + 2, arg);
	for (const struct option *o = long_options; o->name && len; o++) {
		if (strncmp(o->name, arg + 2, len) != 0 || used >= err_len)
			continue;
		used += (size_t)snprintf(err + used, err_len - used, "%s--%s",
					 nr++ ? ", " : " (did you mean ", o->name);
	}
	if (nr && used < err_len)
		snprintf(err + used, err_len - used, "?)");
}

/* A long option getopt_long refused: a flag given a value (--json=1), or a name that is no
 * option's (or the start of several). */
static void long_option_refused(const char *arg, char *err, size_t err_len)
{
	size_t len = strcspn(arg + 2, "=");

	for (const struct option *o = long_options; o->name; o++) {
		if (arg[2 + len] == '=' && o->has_arg == no_argument && strlen(o->name) == len &&
		    !strncmp(o->name, arg + 2, len)) {
			set_error(err, err_len, "option '--%s' takes no value", o->name);
			return;
		}
	}
	unknown_long_option(arg, err, err_len);
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

/* "invalid --by 'x': expected process, cgroup or comm": the values from the list the option
 * parses by (NULL-terminated), so that a new value is in the message too. */
static void invalid_choice(char *err, size_t err_len, const char *spelled, const char *const *names)
{
	char expected[256] = "";
	size_t len = 0;

	for (int i = 0; names[i] && len < sizeof(expected); i++)
		len += (size_t)snprintf(expected + len, sizeof(expected) - len, "%s%s",
					i == 0	       ? ""
					: names[i + 1] ? ", "
						       : " or ",
					names[i]);
	set_error(err, err_len, "invalid %s '%s': expected %s", spelled, optarg, expected);
}

/* What the options given so far say beyond their values: how often each one-value option was
 * given, and whether -j or --format was. */
struct given {
	unsigned char times[NR_OPTION_IDS];
	bool format;
};

/* The option getopt_long returned as `opt` (its value in optarg), into opts: FS_PARSE_RUN to
 * go on, FS_PARSE_EXIT after --help or --version, FS_PARSE_USAGE with the message in err. */
static enum fs_parse_result take_option(int opt, const char *spelled, char **argv,
					struct fs_options *opts, struct given *given, char *err,
					size_t err_len, FILE *out)
{
	bool listen_default = false;
	const char *why;
	char name[3];
	long value;

	switch (opt) {
	case 'd':
		if (!parse_seconds(optarg, &opts->duration_s)) {
			set_error(err, err_len,
				  "invalid duration '%s': expected seconds > 0", optarg);
			return FS_PARSE_USAGE;
		}
		break;
	case 'j':
		if (given->format && opts->format != FS_FORMAT_JSON) {
			set_error(err, err_len, "-j is --format json: give one of them");
			return FS_PARSE_USAGE;
		}
		opts->format = FS_FORMAT_JSON;
		given->format = true;
		break;
	case OPT_FORMAT:
		if (!parse_choice(optarg, fs_format_names, &value)) {
			invalid_choice(err, err_len, spelled, fs_format_names);
			return FS_PARSE_USAGE;
		}
		if (given->format && opts->format != value) {
			set_error(err, err_len, "-j is --format json: give one of them");
			return FS_PARSE_USAGE;
		}
		opts->format = value;
		given->format = true;
		break;
	case OPT_LISTEN:
		/* No value: the next option, not an address (none begins with '-'). */
		if (optarg[0] == '-' && optarg == argv[optind - 1]) {
			optind--;
			optarg = (char *)"";
			listen_default = true;
		}
		why =
		    listen_default
			? parse_listen(":", &opts->listen_addr, &opts->listen_addr_len)
			: parse_listen(optarg, &opts->listen_addr, &opts->listen_addr_len);
		if (why) {
			set_error(err, err_len, "invalid --listen '%s': expected %s",
				  optarg, why);
			return FS_PARSE_USAGE;
		}
		opts->listen = listen_default ? ":" : optarg;
		break;
	case OPT_WEB_CONFIG:
		if (!optarg[0]) {
			set_error(err, err_len,
				  "invalid --web.config.file '': expected a file name");
			return FS_PARSE_USAGE;
		}
		opts->web_config = optarg;
		break;
	case OPT_MAX_SERIES:
		if (!parse_long(optarg, 1, 1000000, &opts->max_series)) {
			set_error(err, err_len,
				  "invalid --max-series '%s': expected 1 to 1000000",
				  optarg);
			return FS_PARSE_USAGE;
		}
		break;
	case OPT_SERIES_GRACE:
		if (!parse_seconds(optarg, &opts->series_grace_s)) {
			set_error(err, err_len,
				  "invalid --series-grace '%s': expected seconds > 0",
				  optarg);
			return FS_PARSE_USAGE;
		}
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
		if (!parse_long(optarg, 0, INT_MAX, &opts->top)) {
			set_error(err, err_len, "invalid %s '%s': expected a count >= 0", spelled,
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
	case OPT_REPLACE:
		if (!optarg[0]) {
			set_error(err, err_len,
				  "invalid --replace '': expected a file name");
			return FS_PARSE_USAGE;
		}
		opts->output = optarg;
		opts->replace = true;
		break;
	case OPT_OUTPUT_MODE:
		/* Permission bits only: set-id and sticky bits mean nothing on a record. */
		if (!parse_octal_mode(optarg, &opts->output_mode)) {
			set_error(err, err_len,
				  "invalid --output-mode '%s': expected an octal mode from "
				  "0 to 0777, as 0640",
				  optarg);
			return FS_PARSE_USAGE;
		}
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
		if (!parse_choice(optarg, fs_row_kind_names, &value)) {
			invalid_choice(err, err_len, spelled, fs_row_kind_names);
			return FS_PARSE_USAGE;
		}
		opts->by = value;
		break;
	case OPT_SORT:
		if (!parse_choice(optarg, fs_sort_names, &value)) {
			invalid_choice(err, err_len, spelled, fs_sort_names);
			return FS_PARSE_USAGE;
		}
		opts->sort = value;
		break;
	case OPT_FULL:
		opts->full = true;
		break;
	case OPT_MAX_TASKS:
		if (!parse_long(optarg, 64, 1 << 22, &opts->max_tasks)) {
			set_error(err, err_len, "invalid %s '%s': expected 64 to %d", spelled,
				  optarg, 1 << 22);
			return FS_PARSE_USAGE;
		}
		break;
	case OPT_FILES:
		opts->files = true;
		break;
	case OPT_RESIDENT:
		opts->resident = true;
		break;
	case OPT_RESIDENT_BUDGET:
		if (!parse_positive(optarg, 100, &opts->resident_budget)) {
			set_error(
			    err, err_len,
			    "invalid --resident-budget '%s': expected a percent of one "
			    "CPU, over 0 and at most 100",
			    optarg);
			return FS_PARSE_USAGE;
		}
		break;
	case OPT_MAX_FILES:
		if (!parse_long(optarg, 1, FS_MAX_MAX_FILES, &opts->max_files)) {
			set_error(err, err_len,
				  "invalid --max-files '%s': expected 1 to %d", optarg,
				  FS_MAX_MAX_FILES);
			return FS_PARSE_USAGE;
		}
		break;
	case OPT_SELF:
		opts->self = true;
		break;
	case OPT_CHECK:
		opts->check = true;
		break;
#ifdef FOLIOSTAT_TEST_HOOKS
	case OPT_TEST_ESCAPE:
		opts->test_escape = optarg;
		break;
#endif
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
		/* --listen alone, last: the default address. */
		if (optopt == OPT_LISTEN) {
			if (given->times[OPT_LISTEN]++) {
				set_error(err, err_len,
					  "--listen given twice: it takes one value");
				return FS_PARSE_USAGE;
			}
			parse_listen(":", &opts->listen_addr, &opts->listen_addr_len);
			opts->listen = ":";
			break;
		}
		set_error(err, err_len, "option '%s' needs a value",
			  option_name(argv, optopt, name));
		return FS_PARSE_USAGE;
	default:
		if (!strncmp(argv[optind - 1], "--", 2))
			long_option_refused(argv[optind - 1], err, err_len);
		else
			set_error(err, err_len, "unknown option '%s'",
				  option_name(argv, optopt, name));
		return FS_PARSE_USAGE;
	}
	return FS_PARSE_RUN;
}

/* The options as a whole, once each is taken: the combinations refused, and the defaults that
 * depend on others. */
static enum fs_parse_result check_combinations(struct fs_options *opts, const struct given *given,
					       char *err, size_t err_len)
{
	if (opts->listen && (opts->interval_s > 0 || opts->output || opts->command || opts->check ||
			     (given->format && opts->format != FS_FORMAT_PROMETHEUS))) {
		set_error(err, err_len,
			  "--listen serves metrics until SIGINT/SIGTERM (or --duration): no "
			  "INTERVAL, --output, --check, -- COMMAND or other --format");
		return FS_PARSE_USAGE;
	}
	if (given->times[OPT_OUTPUT_MODE] && !opts->output) {
		set_error(err, err_len,
			  "--output-mode is the mode of the file -o or --replace writes: give one "
			  "of them");
		return FS_PARSE_USAGE;
	}
	if (given->times['o'] && given->times[OPT_REPLACE]) {
		set_error(err, err_len,
			  "-o appends each record to FILE, --replace keeps the last one only: give "
			  "one of them");
		return FS_PARSE_USAGE;
	}
	/* Expositions one after another in a file parse as none: the textfile collector reads
	 * one, replaced whole. */
	if (given->times['o'] && opts->format == FS_FORMAT_PROMETHEUS) {
		set_error(err, err_len,
			  "--format prometheus writes one exposition per record, which a file of "
			  "several would not be: use --replace FILE (node_exporter's textfile "
			  "collector reads it)");
		return FS_PARSE_USAGE;
	}
	if (opts->web_config && !opts->listen) {
		set_error(err, err_len,
			  "--web.config.file is the access control of --listen: give both");
		return FS_PARSE_USAGE;
	}
	if (opts->full && (opts->interval_s <= 0 || opts->format != FS_FORMAT_TABLE)) {
		set_error(err, err_len,
			  "--full prints whole tables at each INTERVAL: give an INTERVAL, in table "
			  "mode");
		return FS_PARSE_USAGE;
	}
	if (given->times[OPT_SORT] && (opts->listen || opts->format == FS_FORMAT_PROMETHEUS)) {
		set_error(err, err_len,
			  "--sort ranks the rows of tables and JSON records: not with --listen or "
			  "--format prometheus");
		return FS_PARSE_USAGE;
	}
	if (opts->listen)
		opts->format = FS_FORMAT_PROMETHEUS;
	opts->json = opts->format == FS_FORMAT_JSON;
	/* Dashboards group by container and service: by cgroup, unless asked otherwise. */
	if (opts->format == FS_FORMAT_PROMETHEUS && !given->times[OPT_BY])
		opts->by = FS_BY_CGROUP;
	if (opts->check && (opts->interval_s > 0 || opts->duration_s > 0 || opts->output)) {
		set_error(err, err_len,
			  "--check takes no INTERVAL, --duration, --output or --replace");
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
	if (opts->command && !given->times['r'])
		opts->top = 0;
	if (given->times[OPT_MAX_FILES] && !opts->files) {
		set_error(err, err_len, "--max-files sizes the table of --files: give both");
		return FS_PARSE_USAGE;
	}
	/* The exposition has no per-file families: files are for records. */
	if (opts->files && opts->format == FS_FORMAT_PROMETHEUS) {
		set_error(err, err_len,
			  "--files is for table and JSON records: not with --listen or --format "
			  "prometheus");
		return FS_PARSE_USAGE;
	}
	/* What memory holds: at the end of a one-shot run, while records stream, at scrapes. A
	 * COMMAND's processes have ended at the end, and are not known before. */
	if (opts->resident && opts->command) {
		set_error(err, err_len,
			  "--resident reads the memory of running processes: not with a COMMAND, "
			  "whose processes have ended by the end (use -p or -n while it runs)");
		return FS_PARSE_USAGE;
	}
	if (opts->resident && opts->interval_s > 0 && opts->format == FS_FORMAT_TABLE &&
	    !opts->full) {
		set_error(
		    err, err_len,
		    "--resident with an INTERVAL has no place in a line: add --full or --json");
		return FS_PARSE_USAGE;
	}
	if (given->times[OPT_RESIDENT_BUDGET] &&
	    !(opts->resident && (opts->interval_s > 0 || opts->listen))) {
		set_error(err, err_len,
			  "--resident-budget paces --resident's reads while records stream or "
			  "scrapes come: give --resident with an INTERVAL or --listen");
		return FS_PARSE_USAGE;
	}
	if (opts->interval_s > 0 && opts->duration_s > 0) {
		set_error(err, err_len,
			  "--duration is for the one-shot summary; with an INTERVAL use COUNT");
		return FS_PARSE_USAGE;
	}
	return FS_PARSE_RUN;
}

enum fs_parse_result parse_options(int argc, char **argv, struct fs_options *opts, char *err,
				   size_t err_len, FILE *out)
{
	struct given given = {0};
	enum fs_parse_result result;
	int opt;

	memset(opts, 0, sizeof(*opts));
	opts->top = FS_DEFAULT_TOP;
	opts->max_tasks = FS_DEFAULT_MAX_TASKS;
	opts->resident_budget = FS_DEFAULT_RESIDENT_BUDGET;
	opts->max_files = FS_DEFAULT_MAX_FILES;
	opts->max_series = FS_DEFAULT_MAX_SERIES;
	opts->series_grace_s = FS_DEFAULT_SERIES_GRACE_S;
	opts->output_mode = -1;
	err[0] = '\0';
	/* 0, not 1: getopt_long starts afresh, not inside a cluster of short options a parse
	 * before this one left ("-hv": -h returns at once), in that parse's argv. */
	optind = 0;
	opterr = 0;
	make_getopt_tables();
	/* Everything after "--" is the command: foliostat's own arguments end there. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			opts->command = argv + i + 1;
			argc = i;
			break;
		}
	}

	for (;;) {
		char spelled[64];
		int index = -1;

		opt = getopt_long(argc, argv, short_options, long_options, &index);
		if (opt == -1)
			break;
		if (index >= 0 && !whole_long_name(argv, index)) {
			unknown_long_option(
			    argv[optarg && optarg == argv[optind - 1] ? optind - 2 : optind - 1],
			    err, err_len);
			return FS_PARSE_USAGE;
		}
		/* its long name as the user spelled it (an alias names its row's option too); a
		 * short option's, its row's name */
		snprintf(spelled, sizeof(spelled), "--%s",
			 index >= 0 ? long_options[index].name
				    : (opt > 0 && opt < NR_OPTION_IDS ? long_name(opt) : "?"));
		if (opt > 0 && opt < NR_OPTION_IDS && single_value(opt) && given.times[opt]++) {
			if (index >= 0 && strcmp(long_options[index].name, long_name(opt)))
				set_error(err, err_len, "%s (--%s) given twice: it takes one value",
					  spelled, long_name(opt));
			else
				set_error(err, err_len, "--%s given twice: it takes one value",
					  long_name(opt));
			return FS_PARSE_USAGE;
		}
		result = take_option(opt, spelled, argv, opts, &given, err, err_len, out);
		if (result != FS_PARSE_RUN)
			return result;
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
	return check_combinations(opts, &given, err, err_len);
}
