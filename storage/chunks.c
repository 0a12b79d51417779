/* A binding's parts and their chunk boundaries: chunks.h. */
#include "storage/chunks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"

size_t *rig_chunks_fixed_bounds(size_t size, size_t step, size_t *n)
{
	*n = rig_chunks_count(size, step);
	size_t *b = malloc((*n + 1) * sizeof *b);
	if (!b)
		return NULL;
	for (size_t i = 0; i < *n; i++)
		b[i] = i * step;
	b[*n] = size;
	return b;
}

void rig_chunk_bytes_release(struct rig_chunk_bytes *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(parts[i].data);
		free(parts[i].bounds);
		parts[i].data = NULL;
		parts[i].bounds = NULL;
		parts[i].size = parts[i].n = 0;
	}
}
