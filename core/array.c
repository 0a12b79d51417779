/* rig_array_grow of array.h. */
#include "core/array.h"

#include <stdint.h>
#include <stdlib.h>

bool rig_array_grow(void **items, size_t *cap, size_t count, size_t size)
{
	if (count < *cap)
		return true;
	size_t n = *cap ? 2 * *cap : 16;
	if (n > SIZE_MAX / size)
		return false;
	void *p = realloc(*items, n * size);
	if (!p)
		return false;
	*items = p;
	*cap = n;
	return true;
}
