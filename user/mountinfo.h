/* SPDX-License-Identifier: GPL-2.0 */
/* Reading /proc/self/mountinfo, which cgroups.c and file_table.c both parse. */
#ifndef FS_MOUNTINFO_H
#define FS_MOUNTINFO_H

/* Undo mountinfo's escapes in a field, in place: space, tab, newline and backslash are written
 * as \ooo (octal). */
void mountinfo_unescape(char *field);

#endif /* FS_MOUNTINFO_H */
