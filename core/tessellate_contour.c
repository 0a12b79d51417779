/* Marching squares over an alpha image (core/tessellate_impl.h): the outline
 * of {alpha > threshold} as closed rings, for the silhouette mode.
 *
 * The samples are the pixel centres, framed by a ring of uncovered samples
 * outside the image so every contour closes. A cell joins 4 centres; where
 * its corners differ the contour crosses the cell's edges at their midpoints
 * (the pixel boundaries: a binary field has no better crossing), oriented so
 * the covered corners lie on its left with y up, so outer boundaries run
 * counter-clockwise and holes clockwise. A saddle (two diagonal corners
 * covered) joins them when the cell's mean alpha, the bilinear value at its
 * centre, is above the threshold, and separates them otherwise.
 *
 * Rings are traced cell to cell without storing the segments: a visited bit
 * per (cell, entry edge) is the only memory besides the ring being traced,
 * and points on a straight run are merged as they come. Rings enclosing less
 * than the caller's min_area are dropped as they close (detail under the
 * mesh's resolution: an image of a million specks costs the scan, not a
 * million rings). Scan and trace orders are fixed: the same image gives the
 * same rings.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/tessellate.h"
#include "core/tessellate_impl.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

struct field {
	const uint8_t *alpha;
	long w, h;
	uint8_t threshold;
};

static unsigned alpha_at(const struct field *fd, long i, long j)
{
	if (i < 0 || j < 0 || i >= fd->w || j >= fd->h)
		return 0;
	return fd->alpha[j * fd->w + i];
}

/* Corners of cell (i, j), in centre indices (column, row from the top):
 * 0 top-left (i, j), 1 top-right, 2 bottom-right, 3 bottom-left. Edge k
 * joins corners k and k + 1: 0 top, 1 right, 2 bottom, 3 left. */
static const int corner_di[4] = {0, 1, 1, 0}, corner_dj[4] = {0, 0, 1, 1};

/* Twice the pixel coordinates (x right, y down, the image's top-left corner
 * at 0) of corner k and of edge k's midpoint, relative to cell (0, 0). */
static const long corner_x2[4] = {1, 3, 3, 1}, corner_y2[4] = {1, 1, 3, 3};
static const long edge_x2[4] = {2, 3, 2, 1}, edge_y2[4] = {1, 2, 3, 2};

/* The cell across edge k, and the edge it enters by. */
static const int across_di[4] = {0, 1, 0, -1}, across_dj[4] = {-1, 0, 1, 0};

struct segment {
	int from, to; /* edges */
};

/* (from, to) between edges a and b with corner k on the left (y up) when
 * want_left, else on the right. */
static struct segment orient(int a, int b, int k, bool want_left)
{
	/* y down in these coordinates: flip y for the cross product */
	long ax = edge_x2[a], ay = -edge_y2[a], bx = edge_x2[b], by = -edge_y2[b];
	long px = corner_x2[k], py = -corner_y2[k];
	long cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
	bool left = cross > 0;
	return left == want_left ? (struct segment){a, b} : (struct segment){b, a};
}

/* The cell's segments (0, 1 or 2). */
static int cell_segments(const struct field *fd, long i, long j, struct segment seg[2])
{
	bool on[4];
	int n_on = 0;
	unsigned sum = 0;
	for (int k = 0; k < 4; k++) {
		unsigned a = alpha_at(fd, i + corner_di[k], j + corner_dj[k]);
		on[k] = a > fd->threshold;
		n_on += on[k];
		sum += a;
	}
	if (n_on == 0 || n_on == 4)
		return 0;
	if (n_on == 2 && on[0] == on[2]) {
		/* a saddle: corner k's edges are k - 1 and k */
		bool join = sum > 4u * fd->threshold;
		int n = 0;
		for (int k = 0; k < 4; k++)
			if (on[k] != join)
				seg[n++] = orient((k + 3) % 4, k, k, !join);
		return n;
	}
	int edges[2], n = 0, some_on = 0;
	for (int k = 0; k < 4; k++) {
		if (on[k] != on[(k + 1) % 4])
			edges[n++] = k;
		if (on[k])
			some_on = k;
	}
	seg[0] = orient(edges[0], edges[1], some_on, true);
	return 1;
}

/* A ring in twice-pixel integer coordinates, growing. */
struct ring2 {
	long *xy;
	size_t n, cap;
};

static bool collinear_forward(const long *a, const long *b, const long *c)
{
	long ux = b[0] - a[0], uy = b[1] - a[1], vx = c[0] - b[0], vy = c[1] - b[1];
	return ux * vy - uy * vx == 0 && ux * vx + uy * vy > 0;
}

static int ring2_push(struct ring2 *r, long x, long y)
{
	long q[2] = {x, y};
	if (r->n >= 2 && collinear_forward(&r->xy[2 * (r->n - 2)], &r->xy[2 * (r->n - 1)], q)) {
		r->xy[2 * (r->n - 1)] = x;
		r->xy[2 * (r->n - 1) + 1] = y;
		return 0;
	}
	if (!rig_array_grow((void **)&r->xy, &r->cap, 2 * r->n + 1, sizeof *r->xy))
		return -1;
	r->xy[2 * r->n] = x;
	r->xy[2 * r->n + 1] = y;
	r->n++;
	return 0;
}

/* Appends the traced ring, in the output's coordinates, when it is large enough. */
static int keep_ring(struct rig_tess__rings *out, struct ring2 *r, const struct field *fd,
		     const struct rig_tess__frame *f, double min_area)
{
	/* the junction of the last and first points may be a straight run too */
	size_t first = 0;
	while (r->n - first >= 3 &&
	       collinear_forward(&r->xy[2 * (r->n - 2)], &r->xy[2 * (r->n - 1)], &r->xy[2 * first]))
		r->n--;
	while (r->n - first >= 3 && collinear_forward(&r->xy[2 * (r->n - 1)], &r->xy[2 * first],
						      &r->xy[2 * (first + 1)]))
		first++;
	size_t n = r->n - first;
	if (n < 3)
		return 0;
	double sx = f->w / (double)fd->w / 2, sy = f->h / (double)fd->h / 2;
	/* shoelace in twice-pixel units, exact in integers; y down flips the sign */
	long long a2 = 0;
	const long *p = &r->xy[2 * first];
	for (size_t k = 0; k < n; k++) {
		const long *a = &p[2 * k], *b = &p[2 * ((k + 1) % n)];
		a2 += (long long)a[0] * b[1] - (long long)b[0] * a[1];
	}
	double area = -(double)a2 / 2 * sx * sy;
	if (!(area >= min_area || -area >= min_area))
		return 0;
	if (!rig_array_grow((void **)&out->start, &out->cap_rings, out->n_rings + 1,
			    sizeof *out->start))
		return -1;
	while (out->cap_points < 2 * (out->n_points + n))
		if (!rig_array_grow((void **)&out->xy, &out->cap_points, out->cap_points,
				    sizeof *out->xy))
			return -1;
	if (out->n_rings == 0)
		out->start[0] = 0;
	for (size_t k = 0; k < n; k++) {
		double *q = &out->xy[2 * (out->n_points + k)];
		q[0] = f->x0 + (double)p[2 * k] * sx;
		q[1] = f->y0 + f->h - (double)p[2 * k + 1] * sy;
	}
	out->n_points += n;
	out->start[++out->n_rings] = out->n_points;
	return 0;
}

int rig_tess__contour(struct rig_tess__rings *out, const struct rig_alpha_image *img,
		      uint8_t threshold, const struct rig_tess__frame *f, double min_area)
{
	memset(out, 0, sizeof *out);
	struct field fd = {img->alpha, (long)img->width, (long)img->height, threshold};
	/* cells (i, j) for i in [-1, w - 1], j in [-1, h - 1] */
	size_t cw = img->width + 1, ch = img->height + 1;
	uint8_t *visited = calloc(cw * ch, 1);
	struct ring2 r = {0};
	if (!visited)
		return -2;
	int rc = 0;
	for (long j = -1; j < fd.h && rc == 0; j++) {
		for (long i = -1; i < fd.w && rc == 0; i++) {
			struct segment seg[2];
			int n = cell_segments(&fd, i, j, seg);
			for (int s = 0; s < n && rc == 0; s++) {
				if (visited[(size_t)(j + 1) * cw + (size_t)(i + 1)] &
				    (1u << seg[s].from))
					continue;
				/* trace from (i, j, seg[s].from) back to it */
				long ci = i, cj = j;
				int from = seg[s].from;
				r.n = 0;
				do {
					struct segment cs[2];
					int m = cell_segments(&fd, ci, cj, cs);
					/* the edge the previous cell left by is crossed here too */
					assert(m >= 1 && (cs[0].from == from ||
							  (m == 2 && cs[1].from == from)));
					(void)m;
					int to = cs[0].from == from ? cs[0].to : cs[1].to;
					visited[(size_t)(cj + 1) * cw + (size_t)(ci + 1)] |=
						(uint8_t)(1u << from);
					if (ring2_push(&r, 2 * ci + edge_x2[to],
						       2 * cj + edge_y2[to]) != 0) {
						rc = -2;
						break;
					}
					ci += across_di[to];
					cj += across_dj[to];
					from = (to + 2) % 4;
				} while (ci != i || cj != j || from != seg[s].from);
				if (rc == 0 && keep_ring(out, &r, &fd, f, min_area) != 0)
					rc = -2;
			}
		}
	}
	free(r.xy);
	free(visited);
	if (rc != 0)
		rig_tess__rings_release(out);
	return rc;
}

void rig_tess__rings_release(struct rig_tess__rings *r)
{
	free(r->xy);
	free(r->start);
	memset(r, 0, sizeof *r);
}
