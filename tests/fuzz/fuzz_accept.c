// SPDX-License-Identifier: GPL-2.0
/*
 * A scrape's Accept header (accepts_openmetrics, user/output/exposition.c): the exposition
 * format is chosen from it. Any header gets an answer; a header with no OpenMetrics entry never
 * gets OpenMetrics.
 */
#include <strings.h>

#include "exposition.h"
#include "fuzz.h"

static bool names_openmetrics(const char *accept)
{
	for (const char *p = accept; *p; p++)
		if (!strncasecmp(p, "application/openmetrics-text", 28))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = fuzz_string(data, size);

	if (accepts_openmetrics(accept))
		FUZZ_CHECK(names_openmetrics(accept));
	free(accept);
	return 0;
}
