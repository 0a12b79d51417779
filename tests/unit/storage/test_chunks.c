/* A binding's parts and their chunk boundaries (storage/chunks.c), the bytes
 * every backend stores: a skin's four parts round-trip, each cut at item
 * boundaries under 16 KiB, the weights part self-contained per chunk. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"
#include "storage/chunks.h"
#include "storage/skin_bytes.h"

/* A strip of n vertices, the vertex v weighted to v % 9 joints' worth of
 * influences (0 to 8). */
static struct rig_skin_def strip(size_t n)
{
	struct rig_skin_def d = {0};
	d.n_verts = d.n_weight_lists = n;
	d.source = malloc(2 * n * sizeof(double));
	for (size_t i = 0; i < 2 * n; i++)
		d.source[i] = (double)i / 4.0;
	d.n_tris = n - 2;
	d.triangles = malloc(3 * d.n_tris * sizeof(uint32_t));
	for (size_t t = 0; t < 3 * d.n_tris; t++)
		d.triangles[t] = (uint32_t)(t / 3 + t % 3);
	d.n_joints = 70;
	d.joints = calloc(d.n_joints, sizeof *d.joints);
	for (size_t j = 0; j < d.n_joints; j++)
		snprintf(d.joints[j].id, sizeof d.joints[j].id, "j%zu", j);
	d.weight_offsets = malloc((n + 1) * sizeof(uint32_t));
	d.influences = malloc(8 * n * sizeof *d.influences);
	uint32_t k = 0;
	for (size_t v = 0; v < n; v++) {
		d.weight_offsets[v] = k;
		for (size_t i = 0; i < v % 9; i++, k++)
			d.influences[k] =
				(struct rig_skin_influence){(uint32_t)i, 1.0 / (double)(v % 9)};
	}
	d.weight_offsets[n] = k;
	return d;
}

Test(chunks, a_skin_round_trips_through_its_parts_cut_under_16_kib)
{
	const size_t n = 3000;
	struct rig_skin_def d = strip(n);
	struct rig_chunk_bytes parts[RIG_SKIN_N_PARTS];
	for (size_t i = 0; i < RIG_SKIN_N_PARTS; i++) {
		enum rig_chunk_part part = rig_chunks_skin_parts[i];
		cr_assert_eq(rig_chunks_skin_part_encode(&parts[i], part, &d), 0);
		cr_assert_eq(parts[i].part, part);
		cr_assert_eq(parts[i].n,
			     rig_chunks_skin_part_count(part, n, n - 2, d.n_joints, false));
		cr_assert_eq(parts[i].bounds[0], 0);
		cr_assert_eq(parts[i].bounds[parts[i].n], parts[i].size);
		for (size_t c = 0; c < parts[i].n; c++) {
			cr_assert_gt(parts[i].bounds[c + 1], parts[i].bounds[c]);
			cr_assert_leq(parts[i].bounds[c + 1] - parts[i].bounds[c], 16384);
		}
	}
	cr_assert_eq(rig_chunks_skin_parts[0], RIG_PART_JOINTS);
	cr_assert_eq(parts[1].size, 16 * n);
	cr_assert_eq(parts[2].size, 12 * (n - 2));

	struct rig_skin_def back = {0};
	cr_assert_eq(rig_blob_joints_decode(&back, d.n_joints, parts[0].data, parts[0].size), 0);
	cr_assert_eq(rig_chunks_skin_decode(&back, n, n - 2, &parts[1].data, parts[1].size,
					    &parts[2].data, parts[2].size, parts[3].data,
					    parts[3].size),
		     0);
	cr_assert_eq(memcmp(back.source, d.source, 16 * n), 0);
	cr_assert_eq(memcmp(back.triangles, d.triangles, 12 * (n - 2)), 0);
	cr_assert_eq(memcmp(back.weight_offsets, d.weight_offsets, (n + 1) * sizeof(uint32_t)), 0);
	for (uint32_t k = 0; k < d.weight_offsets[n]; k++) {
		cr_assert_eq(back.influences[k].joint, d.influences[k].joint);
		cr_assert_eq(back.influences[k].weight, d.influences[k].weight);
	}
	cr_assert_str_eq(back.joints[69].id, "j69");
	rig_chunk_bytes_release(parts, RIG_SKIN_N_PARTS);
	cr_assert_null(parts[3].data);
	rig_skin_def_release(&back);
	rig_skin_def_release(&d);
}

Test(chunks, each_weights_chunk_starts_at_a_vertex_and_holds_128_lists)
{
	const size_t n = 300;
	struct rig_skin_def d = strip(n);
	size_t size = 0, *bounds = NULL, n_chunks = 0;
	unsigned char *w = rig_chunks_weights_encode(&d, &size, &bounds, &n_chunks);
	cr_assert_not_null(w);
	cr_assert_eq(n_chunks, 3);
	/* a chunk decodes on its own: its lists, no more */
	struct rig_skin_def one = {0};
	cr_assert_eq(rig_chunks_weights_decode(&one, RIG_CHUNK_WEIGHTS, w + bounds[1],
					       bounds[2] - bounds[1]),
		     0);
	cr_assert_eq(one.weight_offsets[1] - one.weight_offsets[0],
		     (uint32_t)(RIG_CHUNK_WEIGHTS % 9));
	rig_skin_def_release(&one);
	struct rig_skin_def bad = {0};
	cr_assert_eq(rig_chunks_weights_decode(&bad, n + 1, w, size), -1, "one list too many");
	rig_skin_def_release(&bad);
	free(w);
	free(bounds);
	rig_skin_def_release(&d);
}

Test(chunks, a_part_that_does_not_hold_its_counts_is_refused)
{
	const size_t n = 10;
	struct rig_skin_def d = strip(n);
	struct rig_chunk_bytes p[RIG_SKIN_N_PARTS];
	for (size_t i = 0; i < RIG_SKIN_N_PARTS; i++)
		cr_assert_eq(rig_chunks_skin_part_encode(&p[i], rig_chunks_skin_parts[i], &d), 0);
	struct rig_skin_def back = {0};
	cr_assert_eq(rig_chunks_skin_decode(&back, n + 1, n - 2, &p[1].data, p[1].size, &p[2].data,
					    p[2].size, p[3].data, p[3].size),
		     -1);
	rig_skin_def_release(&back);
	struct rig_chunk_bytes mesh;
	cr_assert_eq(rig_chunks_skin_part_encode(&mesh, RIG_PART_ARRAYS, &d), -RIG_INTERNAL,
		     "a skin has no mesh part");
	rig_chunk_bytes_release(&mesh, 1);
	rig_chunk_bytes_release(p, RIG_SKIN_N_PARTS);
	rig_skin_def_release(&d);
}

Test(chunks, fixed_bounds_cut_every_step_and_end_at_the_size)
{
	size_t n = 0;
	size_t *b = rig_chunks_fixed_bounds(40000, RIG_CHUNK_ARRAY_BYTES, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(b[1], 16384);
	cr_assert_eq(b[2], 32768);
	cr_assert_eq(b[3], 40000);
	free(b);
	b = rig_chunks_fixed_bounds(0, RIG_CHUNK_ARRAY_BYTES, &n);
	cr_assert_eq(n, 0);
	cr_assert_eq(b[0], 0);
	free(b);
}
