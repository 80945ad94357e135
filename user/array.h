/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays: the one way the loader's tables make room. */
#ifndef FS_ARRAY_H
#define FS_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Make room for one more item in an array of `nr` items of `item_size` bytes whose capacity is
 * *cap, doubling it when full. `items_ptr` is the address of the array pointer (any pointer
 * type). Returns 0, or -ENOMEM with the array untouched.
 */
int array_reserve_one(void *items_ptr, size_t *cap, size_t nr, size_t item_size);
/* The same for `more` items at once. */
int array_reserve(void *items_ptr, size_t *cap, size_t nr, size_t more, size_t item_size);

/* Set the capacity to exactly `new_cap` items (the caller keeps it at or above the items
 * held), for an array whose size is bounded and known: no doubling past the bound. Returns 0,
 * or -ENOMEM with the array untouched. */
int array_resize(void *items_ptr, size_t *cap, size_t new_cap, size_t item_size);

/* Give memory back after a burst (process churn): when the array holds far fewer items than it
 * has room for, shrink it to twice its items. Never fails (a refused shrink keeps it as is).
 * Returns whether it shrank. */
bool array_shrink(void *items_ptr, size_t *cap, size_t nr, size_t item_size);

#endif
