// SPDX-License-Identifier: GPL-2.0
/* Growable arrays (see array.h). */
#include "array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool array_shrink(void *items_ptr, size_t *cap, size_t nr, size_t item_size)
{
	size_t new_cap = nr * 2 > 64 ? nr * 2 : 64;
	void *items, *shrunk;

	if (*cap <= new_cap * 2)
		return false;
	memcpy(&items, items_ptr, sizeof(items));
	shrunk = realloc(items, new_cap * item_size);
	if (!shrunk)
		return false;
	memcpy(items_ptr, &shrunk, sizeof(shrunk));
	*cap = new_cap;
	return true;
}

int array_resize(void *items_ptr, size_t *cap, size_t new_cap, size_t item_size)
{
	void *items, *resized;

	if (new_cap == *cap)
		return 0;
	memcpy(&items, items_ptr, sizeof(items));
	resized = realloc(items, (new_cap ? new_cap : 1) * item_size);
	if (!resized)
		return -ENOMEM;
	memcpy(items_ptr, &resized, sizeof(resized));
	*cap = new_cap;
	return 0;
}

int array_reserve(void *items_ptr, size_t *cap, size_t nr, size_t more, size_t item_size)
{
	size_t new_cap = *cap ? *cap : 16;
	void *items, *grown;

	if (nr + more <= *cap)
		return 0;
	while (new_cap < nr + more)
		new_cap *= 2;
	/* The caller's pointer has its own type: go through memcpy, not a cast to void **. */
	memcpy(&items, items_ptr, sizeof(items));
	grown = realloc(items, new_cap * item_size);
	if (!grown)
		return -ENOMEM;
	memcpy(items_ptr, &grown, sizeof(grown));
	*cap = new_cap;
	return 0;
}

int array_reserve_one(void *items_ptr, size_t *cap, size_t nr, size_t item_size)
{
	return array_reserve(items_ptr, cap, nr, 1, item_size);
}
