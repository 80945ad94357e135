// SPDX-License-Identifier: GPL-2.0
/*
 * The command line (parse_options, user/cli/options.c): the input split at its NUL bytes into
 * argv[1..] (a unit file's or a wrapper script's arguments come from elsewhere than the person
 * who runs foliostat). Each command line runs, exits (--help, --version), or is a usage error
 * with a message.
 */
#include <netdb.h>

#include "fuzz.h"
#include "options.h"

#define MAX_ARGS 64

/*
 * --listen HOST:PORT resolves HOST: a fuzzer must not send a name to the host's resolver (DNS
 * queries off the machine, at thousands a second). This definition takes the place of libc's
 * in the fuzz target: "localhost" is loopback, every other name is unknown.
 */
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	static struct sockaddr_in loopback = {.sin_family = AF_INET,
					      .sin_addr = {.s_addr = 0x0100007f}};
	struct addrinfo *ai;

	(void)service, (void)hints;
	if (!node || strcmp(node, "localhost"))
		return EAI_NONAME;
	ai = calloc(1, sizeof(*ai) + sizeof(loopback));
	if (!ai)
		return EAI_MEMORY;
	ai->ai_family = AF_INET;
	ai->ai_socktype = SOCK_STREAM;
	ai->ai_addrlen = sizeof(loopback);
	ai->ai_addr = (struct sockaddr *)(ai + 1);
	memcpy(ai->ai_addr, &loopback, sizeof(loopback));
	*res = ai;
	return 0;
}

void freeaddrinfo(struct addrinfo *res)
{
	free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	char *argv[MAX_ARGS + 2] = {"foliostat"};
	int argc = 1;
	struct fs_options opts;
	char err[512];
	enum fs_parse_result r;

	if (!out)
		out = fopen("/dev/null", "w");
	FUZZ_CHECK(out);
	while (size && argc < MAX_ARGS + 1)
		argv[argc++] = fuzz_split(&data, &size);
	argv[argc] = NULL;
	err[0] = '\0';
	r = parse_options(argc, argv, &opts, err, sizeof(err), out);
	FUZZ_CHECK(r == FS_PARSE_RUN || r == FS_PARSE_EXIT || r == FS_PARSE_USAGE);
	FUZZ_CHECK(r != FS_PARSE_USAGE || err[0]);
	FUZZ_CHECK(opts.nr_pids >= 0 && opts.nr_pids <= FS_MAX_PID_FILTERS);
	FUZZ_CHECK(opts.nr_cgroups >= 0 && opts.nr_cgroups <= FS_MAX_CGROUP_FILTERS);
	FUZZ_CHECK(r != FS_PARSE_RUN || opts.top >= 0);
	for (int i = 1; i < argc; i++)
		free(argv[i]);
	return 0;
}
