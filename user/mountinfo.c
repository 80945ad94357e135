// SPDX-License-Identifier: GPL-2.0
/* Reading /proc/self/mountinfo (see mountinfo.h). */
#include "mountinfo.h"

void mountinfo_unescape(char *field)
{
	char *out = field;

	for (char *s = field; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}
