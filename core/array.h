/* Growing a malloc'd array by doubling: the one helper for the lists core and
 * the api build item by item (diff runs, bindings' parts). */
#ifndef RIG_ARRAY_H
#define RIG_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room for one more item of `size` bytes in *items (count used, *cap
 * allocated; 16 at first, then doubling). Returns true when there is room,
 * false when out of memory (*items and *cap unchanged). */
bool rig_array_grow(void **items, size_t *cap, size_t count, size_t size);

#endif
