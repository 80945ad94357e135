/* SPDX-License-Identifier: GPL-2.0 */
/* Freeing the BPF tables' slots of threads and processes that were reported and are done
 * (exited, or idle for a whole window), without losing a count. */
#ifndef FS_EVICT_H
#define FS_EVICT_H

#include "loader.h"
#include "snapshot.h"

/*
 * Delete the slots of `now`'s samples marked for eviction (carried samples have no slot of
 * their own). Each slot is read as it is deleted, in one step: counts that reached it after
 * `now` was read go into `carry`, to be counted with the next window (snapshot_absorb()).
 * Returns 0 or -ENOMEM.
 */
int evict_slots(const struct loader *loader, const struct snapshot *now, struct snapshot *carry);

#endif
