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

unsigned char *rig_chunks_weights_encode(const struct rig_skin_def *def, size_t *size,
					 size_t **bounds, size_t *n)
{
	size_t lists = def->n_weight_lists;
	size_t total = lists ? def->weight_offsets[lists] : 0;
	*size = lists + total * RIG_INFLUENCE_RECORD_BYTES;
	*n = rig_chunks_count(lists, RIG_CHUNK_WEIGHTS);
	*bounds = malloc((*n + 1) * sizeof **bounds);
	unsigned char *buf = malloc(*size ? *size : 1);
	if (!buf || !*bounds) {
		free(buf);
		free(*bounds);
		*bounds = NULL;
		return NULL;
	}
	unsigned char *p = buf;
	for (size_t v = 0; v < lists; v++) {
		if (v % RIG_CHUNK_WEIGHTS == 0)
			(*bounds)[v / RIG_CHUNK_WEIGHTS] = (size_t)(p - buf);
		uint32_t a = def->weight_offsets[v], b = def->weight_offsets[v + 1];
		if (b < a || b - a > 255) {
			free(buf);
			free(*bounds);
			*bounds = NULL;
			return NULL;
		}
		*p++ = (unsigned char)(b - a);
		for (uint32_t k = a; k < b; k++, p += RIG_INFLUENCE_RECORD_BYTES) {
			rig_le_put_u32(p, def->influences[k].joint);
			rig_le_put_f64(p + 4, def->influences[k].weight);
		}
	}
	(*bounds)[*n] = *size;
	return buf;
}

int rig_chunks_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *p,
			      size_t size)
{
	/* First pass: counts and the total, so the arrays are allocated once. */
	size_t total = 0, at = 0;
	for (size_t v = 0; v < n_verts; v++) {
		if (at >= size)
			return -1;
		total += p[at];
		at += 1 + (size_t)p[at] * RIG_INFLUENCE_RECORD_BYTES;
	}
	if (at != size)
		return -1;
	def->weight_offsets = malloc((n_verts + 1) * sizeof *def->weight_offsets);
	def->influences = malloc(total ? total * sizeof *def->influences : 1);
	if (!def->weight_offsets || !def->influences)
		return -1;
	size_t k = 0;
	at = 0;
	for (size_t v = 0; v < n_verts; v++) {
		def->weight_offsets[v] = (uint32_t)k;
		size_t count = p[at++];
		for (size_t i = 0; i < count; i++, k++, at += RIG_INFLUENCE_RECORD_BYTES) {
			def->influences[k].joint = rig_le_get_u32(p + at);
			def->influences[k].weight = rig_le_get_f64(p + at + 4);
		}
	}
	def->weight_offsets[n_verts] = (uint32_t)k;
	def->n_weight_lists = n_verts;
	return 0;
}

const enum rig_chunk_part rig_chunks_skin_parts[RIG_SKIN_N_PARTS] = {
	RIG_PART_JOINTS, RIG_PART_SOURCE, RIG_PART_TRIANGLES, RIG_PART_WEIGHTS};

/* A fixed-stride part, encoded by encode and cut every step bytes. */
static int encode_fixed(struct rig_chunk_bytes *out,
			unsigned char *(*encode)(size_t *, const struct rig_skin_def *),
			const struct rig_skin_def *def, size_t step)
{
	out->data = encode(&out->size, def);
	out->bounds = out->data ? rig_chunks_fixed_bounds(out->size, step, &out->n) : NULL;
	return out->bounds ? 0 : -RIG_INTERNAL;
}

int rig_chunks_skin_part_encode(struct rig_chunk_bytes *out, enum rig_chunk_part part,
				const struct rig_skin_def *def)
{
	memset(out, 0, sizeof *out);
	out->part = part;
	switch (part) {
	case RIG_PART_JOINTS:
		return encode_fixed(out, rig_blob_joints_encode, def,
				    RIG_CHUNK_JOINTS * RIG_JOINT_RECORD_BYTES);
	case RIG_PART_SOURCE:
		return encode_fixed(out, rig_blob_source_encode, def, RIG_CHUNK_VERTS * 16);
	case RIG_PART_TRIANGLES:
		return encode_fixed(out, rig_blob_triangles_encode, def, RIG_CHUNK_TRIS * 12);
	case RIG_PART_WEIGHTS:
		out->data = rig_chunks_weights_encode(def, &out->size, &out->bounds, &out->n);
		return out->data ? 0 : -RIG_INTERNAL;
	case RIG_PART_ARRAYS:
		break;
	}
	return -RIG_INTERNAL;
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

size_t rig_chunks_skin_part_count(enum rig_chunk_part part, size_t n_verts, size_t n_tris,
				  size_t n_joints)
{
	switch (part) {
	case RIG_PART_JOINTS:
		return rig_chunks_count(n_joints, RIG_CHUNK_JOINTS);
	case RIG_PART_SOURCE:
		return rig_chunks_count(n_verts, RIG_CHUNK_VERTS);
	case RIG_PART_TRIANGLES:
		return rig_chunks_count(n_tris, RIG_CHUNK_TRIS);
	case RIG_PART_WEIGHTS:
		return rig_chunks_count(n_verts, RIG_CHUNK_WEIGHTS);
	case RIG_PART_ARRAYS:
		break;
	}
	return 0;
}

int rig_chunks_skin_decode(struct rig_skin_def *def, size_t n_verts, size_t n_tris,
			   unsigned char **source, size_t n_source, unsigned char **tris,
			   size_t n_tri_bytes, const unsigned char *weights, size_t n_weights)
{
	if (n_source != n_verts * 16 || n_tri_bytes != n_tris * 12 ||
	    rig_blob_source_take(def, n_verts, source) ||
	    rig_blob_triangles_take(def, n_tris, tris) ||
	    rig_chunks_weights_decode(def, n_verts, weights, n_weights))
		return -1;
	return 0;
}
