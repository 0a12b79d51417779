/* A skin's stored form (skin_bytes.h). */
#include "storage/skin_bytes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"

/* On a little-endian host the stored layout is the memory layout: whole
 * arrays move with memcpy; elsewhere every value goes through the byte-wise
 * helpers below. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_IS_LE 1
#else
#define HOST_IS_LE 0
#endif

unsigned char *rig_blob_joints_encode(size_t *out_size, const struct rig_skin_def *def)
{
	const char *method = rig_skin_method_name(def->method);
	size_t records = def->n_joints * RIG_JOINT_RECORD_BYTES;
	size_t with_method = records +
			     (def->method != RIG_SKIN_LBS ? RIG_SKIN_METHOD_TRAILER_BYTES : 0) +
			     (def->has_uvs ? RIG_SKIN_METHOD_TRAILER_BYTES : 0);
	if (!method)
		return NULL;
	unsigned char *pins = NULL;
	size_t n_pins = 0;
	if (def->puppet && !(pins = rig_puppet_pins_encode(def->puppet, &n_pins)))
		return NULL;
	*out_size = with_method + n_pins;
	unsigned char *buf = calloc(1, *out_size ? *out_size : 1);
	if (!buf) {
		free(pins);
		return NULL;
	}
	if (def->method != RIG_SKIN_LBS) /* NUL-padded: calloc'd */
		memcpy(buf + records, method, strnlen(method, RIG_SKIN_METHOD_TRAILER_BYTES - 1));
	if (def->has_uvs)
		memcpy(buf + with_method - RIG_SKIN_METHOD_TRAILER_BYTES, RIG_SKIN_UVS_TRAILER,
		       sizeof RIG_SKIN_UVS_TRAILER - 1);
	if (pins)
		memcpy(buf + with_method, pins, n_pins);
	free(pins);
	for (size_t j = 0; j < def->n_joints; j++) {
		unsigned char *r = buf + j * RIG_JOINT_RECORD_BYTES;
		memcpy(r, def->joints[j].id, strnlen(def->joints[j].id, RIG_ID_MAX));
		memcpy(r + RIG_ID_MAX + 1, def->joints[j].layer_id,
		       strnlen(def->joints[j].layer_id, RIG_ID_MAX));
		for (int e = 0; e < 6; e++)
			rig_le_put_f64(r + 2 * (RIG_ID_MAX + 1) + 8 * e, def->joints[j].bind.m[e]);
	}
	return buf;
}

unsigned char *rig_blob_source_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = def->n_verts * 16;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->source, *out_size);
	else
		for (size_t i = 0; i < 2 * def->n_verts; i++)
			rig_le_put_f64(buf + 8 * i, def->source[i]);
	return buf;
}

unsigned char *rig_blob_triangles_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = def->n_tris * 12;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->triangles, *out_size);
	else
		for (size_t i = 0; i < 3 * def->n_tris; i++)
			rig_le_put_u32(buf + 4 * i, def->triangles[i]);
	return buf;
}

unsigned char *rig_blob_offsets_encode(size_t *out_size, const struct rig_skin_def *def)
{
	*out_size = (def->n_weight_lists + 1) * 4;
	unsigned char *buf = malloc(*out_size);
	if (!buf)
		return NULL;
	if (HOST_IS_LE)
		memcpy(buf, def->weight_offsets, *out_size);
	else
		for (size_t i = 0; i <= def->n_weight_lists; i++)
			rig_le_put_u32(buf + 4 * i, def->weight_offsets[i]);
	return buf;
}

unsigned char *rig_blob_influences_encode(size_t *out_size, const struct rig_skin_def *def)
{
	size_t n = def->weight_offsets[def->n_weight_lists];
	*out_size = n * RIG_INFLUENCE_RECORD_BYTES;
	unsigned char *buf = malloc(*out_size ? *out_size : 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char *r = buf + RIG_INFLUENCE_RECORD_BYTES * i;
		if (HOST_IS_LE) {
			memcpy(r, &def->influences[i].joint, 4);
			memcpy(r + 4, &def->influences[i].weight, 8);
		} else {
			rig_le_put_u32(r, def->influences[i].joint);
			rig_le_put_f64(r + 4, def->influences[i].weight);
		}
	}
	return buf;
}

/* The method of a joints part's trailer (t, RIG_SKIN_METHOD_TRAILER_BYTES
 * bytes): 0, or -1 unless it is a known method's name, NUL-padded, other than
 * lbs (which never has one). */
static int trailer_method(enum rig_skin_method *out, const unsigned char *t)
{
	char name[RIG_SKIN_METHOD_TRAILER_BYTES];
	memcpy(name, t, sizeof name);
	if (name[sizeof name - 1] != '\0')
		return -1;
	for (size_t i = strlen(name); i < sizeof name; i++)
		if (name[i] != '\0')
			return -1;
	if (rig_skin_method_parse(out, name) != 0 || *out == RIG_SKIN_LBS)
		return -1;
	return 0;
}

/* Whether the bytes at p (n of them) begin a pins trailer. */
static bool is_pins_trailer(const unsigned char *p, size_t n)
{
	return n >= sizeof RIG_SKIN_PINS_TAG - 1 &&
	       memcmp(p, RIG_SKIN_PINS_TAG, sizeof RIG_SKIN_PINS_TAG - 1) == 0;
}

/* True when the n bytes at p start with the uvs' trailer. */
static bool is_uvs_trailer(const unsigned char *p, size_t n)
{
	static const unsigned char trailer[RIG_SKIN_METHOD_TRAILER_BYTES] = RIG_SKIN_UVS_TRAILER;
	return n >= sizeof trailer && memcmp(p, trailer, sizeof trailer) == 0;
}

int rig_blob_joints_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size)
{
	size_t at = n * RIG_JOINT_RECORD_BYTES;
	enum rig_skin_method method = RIG_SKIN_LBS;
	if (size < at)
		return -1;
	/* A method's trailer, the uvs' and the pins' (each only when there is one). */
	if (size > at && !is_pins_trailer(p + at, size - at) &&
	    !is_uvs_trailer(p + at, size - at)) {
		if (size - at < RIG_SKIN_METHOD_TRAILER_BYTES ||
		    trailer_method(&method, p + at) != 0)
			return -1;
		at += RIG_SKIN_METHOD_TRAILER_BYTES;
	}
	bool has_uvs = is_uvs_trailer(p + at, size - at);
	if (has_uvs)
		at += RIG_SKIN_METHOD_TRAILER_BYTES;
	struct rig_puppet_def *pins = NULL;
	if (size > at && (!is_pins_trailer(p + at, size - at) ||
			  !(pins = rig_puppet_pins_decode(p + at, size - at))))
		return -1;
	def->method = method;
	def->has_uvs = has_uvs;
	def->puppet = pins;
	def->joints = calloc(n ? n : 1, sizeof *def->joints);
	if (!def->joints)
		return -1;
	def->n_joints = n;
	for (size_t j = 0; j < n; j++) {
		const unsigned char *r = p + j * RIG_JOINT_RECORD_BYTES;
		memcpy(def->joints[j].id, r, RIG_ID_MAX);
		memcpy(def->joints[j].layer_id, r + RIG_ID_MAX + 1, RIG_ID_MAX);
		for (int e = 0; e < 6; e++)
			def->joints[j].bind.m[e] = rig_le_get_f64(r + 2 * (RIG_ID_MAX + 1) + 8 * e);
	}
	return 0;
}

int rig_blob_source_decode(struct rig_skin_def *def, size_t n, const unsigned char *p, size_t size)
{
	if (size != n * 16)
		return -1;
	def->source = malloc(n ? n * 16 : 1);
	if (!def->source)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->source, p, size);
	else
		for (size_t i = 0; i < 2 * n; i++)
			def->source[i] = rig_le_get_f64(p + 8 * i);
	def->n_verts = n;
	return 0;
}

int rig_blob_triangles_decode(struct rig_skin_def *def, size_t n, const unsigned char *p,
			      size_t size)
{
	if (size != n * 12)
		return -1;
	def->triangles = malloc(n ? n * 12 : 1);
	if (!def->triangles)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->triangles, p, size);
	else
		for (size_t i = 0; i < 3 * n; i++)
			def->triangles[i] = rig_le_get_u32(p + 4 * i);
	def->n_tris = n;
	return 0;
}

int rig_blob_weights_decode(struct rig_skin_def *def, size_t n_verts, const unsigned char *offsets,
			    size_t offsets_size, const unsigned char *influences,
			    size_t influences_size)
{
	if (offsets_size != (n_verts + 1) * 4)
		return -1;
	size_t n = influences_size / RIG_INFLUENCE_RECORD_BYTES;
	if (influences_size % RIG_INFLUENCE_RECORD_BYTES ||
	    rig_le_get_u32(offsets + 4 * n_verts) != n)
		return -1;
	def->weight_offsets = malloc(offsets_size);
	def->influences = malloc(n ? n * sizeof *def->influences : 1);
	if (!def->weight_offsets || !def->influences)
		return -1;
	if (HOST_IS_LE)
		memcpy(def->weight_offsets, offsets, offsets_size);
	else
		for (size_t i = 0; i <= n_verts; i++)
			def->weight_offsets[i] = rig_le_get_u32(offsets + 4 * i);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *r = influences + RIG_INFLUENCE_RECORD_BYTES * i;
		if (HOST_IS_LE) {
			memcpy(&def->influences[i].joint, r, 4);
			memcpy(&def->influences[i].weight, r + 4, 8);
		} else {
			def->influences[i].joint = rig_le_get_u32(r);
			def->influences[i].weight = rig_le_get_f64(r + 4);
		}
	}
	def->n_weight_lists = n_verts;
	return 0;
}

int rig_blob_source_take(struct rig_skin_def *def, size_t n, unsigned char **buf)
{
	if (!HOST_IS_LE)
		return rig_blob_source_decode(def, n, *buf, n * 16);
	def->source = (double *)(void *)*buf; /* malloc'd: suitably aligned */
	def->n_verts = n;
	*buf = NULL;
	return 0;
}

int rig_blob_triangles_take(struct rig_skin_def *def, size_t n, unsigned char **buf)
{
	if (!HOST_IS_LE)
		return rig_blob_triangles_decode(def, n, *buf, n * 12);
	def->triangles = (uint32_t *)(void *)*buf;
	def->n_tris = n;
	*buf = NULL;
	return 0;
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

/* The source part: the positions, then the uvs when the skin has them. */
static unsigned char *source_part_encode(size_t *out_size, const struct rig_skin_def *def)
{
	if (def->has_uvs && !def->uvs)
		return NULL;
	size_t positions = 0;
	unsigned char *buf = rig_blob_source_encode(&positions, def);
	if (!buf || !def->has_uvs) {
		*out_size = positions;
		return buf;
	}
	unsigned char *grown = realloc(buf, positions ? 2 * positions : 1);
	if (!grown) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < 2 * def->n_verts; i++)
		rig_le_put_f64(grown + positions + 8 * i, def->uvs[i]);
	*out_size = 2 * positions;
	return grown;
}

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
	case RIG_PART_JOINTS: {
		/* Cut at the records; a method's trailer ends the last chunk, so the
		 * chunk count stays the records' (rig_chunks_skin_part_count). */
		int rc = encode_fixed(out, rig_blob_joints_encode, def,
				      RIG_CHUNK_JOINTS * RIG_JOINT_RECORD_BYTES);
		size_t n_records = rig_chunks_count(def->n_joints, RIG_CHUNK_JOINTS);
		if (rc == 0 && n_records > 0 && out->n > n_records) {
			out->n = n_records;
			out->bounds[out->n] = out->size;
		}
		return rc;
	}
	case RIG_PART_SOURCE:
		return encode_fixed(out, source_part_encode, def, RIG_CHUNK_VERTS * 16);
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

size_t rig_chunks_skin_part_count(enum rig_chunk_part part, size_t n_verts, size_t n_tris,
				  size_t n_joints, bool has_uvs)
{
	switch (part) {
	case RIG_PART_JOINTS:
		return rig_chunks_count(n_joints, RIG_CHUNK_JOINTS);
	case RIG_PART_SOURCE:
		return rig_chunks_count(has_uvs ? 2 * n_verts : n_verts, RIG_CHUNK_VERTS);
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
	size_t positions = n_verts * 16;
	if (n_source != (def->has_uvs ? 2 : 1) * positions || n_tri_bytes != n_tris * 12)
		return -1;
	if (def->has_uvs) {
		if (!(def->uvs = malloc(positions ? positions : 1)))
			return -1;
		for (size_t i = 0; i < 2 * n_verts; i++)
			def->uvs[i] = rig_le_get_f64(*source + positions + 8 * i);
		unsigned char *shrunk = realloc(*source, positions ? positions : 1);
		if (shrunk)
			*source = shrunk;
	}
	if (rig_blob_source_take(def, n_verts, source) ||
	    rig_blob_triangles_take(def, n_tris, tris) ||
	    rig_chunks_weights_decode(def, n_verts, weights, n_weights))
		return -1;
	return 0;
}
