/* The glTF export's animation (gltf.h): one animation holding every layer's
 * keyed channels, the constrained layers baked, and the mesh bindings'
 * morph weights.
 *
 * A glTF sampler has one interpolation, so a channel (or the pair glTF
 * animates together: position.x and .y as translation, scale.x and .y as
 * scale, pivot.x and .y as the pivot node's translation) is written
 *   - LINEAR at its keys' frames (the union of the pair's) when every segment
 *     is linear: exact, linear between the union's frames is the same line;
 *   - STEP at the same frames when every segment holds: exact;
 *   - otherwise (a bezier ease, or linear mixed with hold) LINEAR at the keys
 *     and at every frame of the shot's grid (frameStart + k) between them:
 *     exact on the grid, reported.
 * Rotation is a quaternion about z: slerp turns linearly in angle when two
 * neighbouring keys differ by less than 180°, so a segment of 180° or more is
 * split into equal parts below it, which keeps it exact. A layer in the
 * chain of a usable IK constraint moves as the solver says, not as its keys
 * say: its local transform is baked at every frame of [frameStart, frameEnd]
 * (rig_resolver_local, decomposed into translation, rotation and scale with
 * its pivot), reported; between the grid's frames glTF interpolates it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/interchange/gltf.h"
#include "core/rig.h"

/* The most grid frames one channel is sampled at: past it, sampling stops
 * at the keys (reported). */
#define GLTF_MAX_SAMPLES 100000

enum mode { MODE_LINEAR, MODE_STEP, MODE_SAMPLED };

/* A growable list of shot frames (with values alongside, filled later). */
struct frames {
	double *f;
	size_t n, cap;
};

static int frames_add(struct frames *fr, double f)
{
	if (fr->n == fr->cap) {
		size_t cap = fr->cap ? 2 * fr->cap : 64;
		double *p = realloc(fr->f, cap * sizeof *p);
		if (!p)
			return -1;
		fr->f = p;
		fr->cap = cap;
	}
	fr->f[fr->n++] = f;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void frames_sort_unique(struct frames *fr)
{
	qsort(fr->f, fr->n, sizeof *fr->f, cmp_double);
	size_t k = 0;
	for (size_t i = 0; i < fr->n; i++)
		if (k == 0 || fr->f[i] != fr->f[k - 1])
			fr->f[k++] = fr->f[i];
	fr->n = k;
}

/* The grid frames frameStart + k strictly between lo and hi. Returns 0, or
 * −1 when out of memory; *cut says the grid was cut at GLTF_MAX_SAMPLES. */
static int add_grid(struct frames *fr, const struct rig_gltf *g, double lo, double hi, bool *cut)
{
	double start = g->in->model->frame_start;
	double k = ceil(lo - start);
	for (size_t n = 0; start + k < hi; k++, n++) {
		if (n == GLTF_MAX_SAMPLES) {
			*cut = true;
			return 0;
		}
		if (start + k > lo && frames_add(fr, start + k) != 0)
			return -1;
	}
	return 0;
}

/* The interpolations of the segments of n keys (the last key governs
 * nothing), added to seen[RIG_INTERP_*]. */
static void note_interps(bool seen[3], const struct rig_key *keys, size_t n)
{
	for (size_t k = 0; k + 1 < n; k++)
		seen[keys[k].interp] = true;
}

/* The mode the interpolations seen need; *bezier says one is eased. */
static enum mode mode_of(const bool seen[3], bool *bezier)
{
	*bezier = seen[RIG_INTERP_BEZIER];
	if (*bezier || (seen[RIG_INTERP_LINEAR] && seen[RIG_INTERP_HOLD]))
		return MODE_SAMPLED;
	return seen[RIG_INTERP_HOLD] ? MODE_STEP : MODE_LINEAR;
}

/* ---- samplers ---- */

/* One sampler and its channel: n shot frames with n_comp values each. A
 * frame whose float time does not pass the one before is left out (glTF's
 * times increase strictly). */
static int emit(struct rig_gltf *g, long node, const char *path, const double *frames,
		const float *values, size_t n, int n_comp, enum mode mode)
{
	float *t = malloc((n ? n : 1) * sizeof *t);
	float *v = malloc((n ? n : 1) * (size_t)n_comp * sizeof *v);
	if (!t || !v) {
		free(t);
		free(v);
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		float ti = (float)rig_gltf__time(g, frames[i]);
		if (k && !(ti > t[k - 1]))
			continue;
		t[k] = ti;
		memcpy(&v[k * (size_t)n_comp], &values[i * (size_t)n_comp],
		       (size_t)n_comp * sizeof *v);
		k++;
	}
	struct rig_gltf_data in = {t, k, RIG_GLTF_FLOAT, "SCALAR", 1, 0, true};
	bool scalar = strcmp(path, "weights") == 0;
	struct rig_gltf_data out = {v,
				    scalar ? k * (size_t)n_comp : k,
				    RIG_GLTF_FLOAT,
				    scalar        ? "SCALAR"
				    : n_comp == 4 ? "VEC4"
						  : "VEC3",
				    scalar ? 1 : n_comp,
				    0,
				    false};
	long ai = rig_gltf__accessor(g, &in), ao = rig_gltf__accessor(g, &out);
	free(t);
	free(v);
	if (ai < 0 || ao < 0)
		return -1;
	json_t *sampler =
		json_pack("{s:I, s:I, s:s}", "input", (json_int_t)ai, "output", (json_int_t)ao,
			  "interpolation", mode == MODE_STEP ? "STEP" : "LINEAR");
	json_t *channel = json_pack("{s:I, s:{s:I, s:s}}", "sampler",
				    (json_int_t)json_array_size(g->samplers), "target", "node",
				    (json_int_t)node, "path", path);
	int rc = sampler && channel && json_array_append(g->samplers, sampler) == 0 &&
				 json_array_append(g->channels, channel) == 0
			 ? 0
			 : -1;
	json_decref(sampler);
	json_decref(channel);
	return rc;
}

static void report_sampled(struct rig_gltf *g, const char *layer_id, const char *what, bool bezier,
			   bool cut)
{
	rig_export_unsupported(
		g->report, bezier ? "bezier ease" : "mixed interpolation", layer_id,
		"the %s keys of '%s' %s; written at each frame of the shot "
		"(%.17g fps)%s",
		what, layer_id, bezier ? "have bezier eases" : "mix linear and hold segments",
		g->in->model->fps, cut ? ", cut at 100000 frames past their first key" : "");
}

/* The frames a group of channels of l is written at (shot frames), and its
 * mode; fr->n < 2 when it needs no animation. */
static int group_frames(struct frames *fr, enum mode *mode, struct rig_gltf *g,
			const struct rig_model_layer *l, const enum rig_channel *chs, int n_chs,
			const char *what)
{
	const struct rig_key_list *lists[2];
	size_t most = 0;
	for (int c = 0; c < n_chs; c++) {
		lists[c] = &l->keys[chs[c]];
		most = lists[c]->count > most ? lists[c]->count : most;
	}
	if (most < 2)
		return 0; /* constant: the node's value says it */
	bool seen[3] = {false}, bezier, cut = false;
	for (int c = 0; c < n_chs; c++)
		note_interps(seen, lists[c]->items, lists[c]->count);
	*mode = mode_of(seen, &bezier);
	double lo = INFINITY, hi = -INFINITY;
	for (int c = 0; c < n_chs; c++)
		for (size_t k = 0; k < lists[c]->count; k++) {
			double f = lists[c]->items[k].frame + l->time_offset;
			lo = fmin(lo, f);
			hi = fmax(hi, f);
			if (frames_add(fr, f) != 0)
				return -1;
		}
	if (*mode == MODE_SAMPLED) {
		if (add_grid(fr, g, lo, hi, &cut) != 0)
			return -1;
		report_sampled(g, l->id, what, bezier, cut);
	}
	frames_sort_unique(fr);
	return 0;
}

static double channel_at(const struct rig_model_layer *l, enum rig_channel c, double shot_frame)
{
	struct rig_keys k = {l->keys[c].items, l->keys[c].count};
	return rig_keys_eval(&k, shot_frame - l->time_offset, l->statics.ch[c]);
}

/* A pair of channels as a VEC3 [sign·a, sign·b, z] on node's path. */
static int animate_pair(struct rig_gltf *g, const struct rig_model_layer *l, long node,
			const char *path, enum rig_channel a, double sign, double z)
{
	enum rig_channel chs[2] = {a, a + 1};
	struct frames fr = {0};
	enum mode mode = MODE_LINEAR;
	int rc = group_frames(&fr, &mode, g, l, chs, 2, path);
	float *v = rc == 0 && fr.n >= 2 ? malloc(3 * fr.n * sizeof *v) : NULL;
	for (size_t i = 0; v && i < fr.n; i++) {
		v[3 * i] = (float)(sign * channel_at(l, a, fr.f[i]));
		v[3 * i + 1] = (float)(sign * channel_at(l, a + 1, fr.f[i]));
		v[3 * i + 2] = (float)z;
	}
	if (rc == 0 && fr.n >= 2)
		rc = v ? emit(g, node, path, fr.f, v, fr.n, 3, mode) : -1;
	free(v);
	free(fr.f);
	return rc;
}

/* ---- rotation ---- */

/* Splits every segment of n frames and angles whose angles differ by 180° or
 * more into equal parts below 180° (linear in frame and angle, so the line is
 * the same), into out_f and out_deg (malloc'd); returns their count, or 0
 * when out of memory. */
static size_t split_turns(double **out_f, double **out_deg, const double *f, const double *deg,
			  size_t n)
{
	size_t total = n;
	for (size_t i = 0; i + 1 < n; i++)
		total += (size_t)floor(fabs(deg[i + 1] - deg[i]) / 180);
	double *of = malloc(total * sizeof *of), *od = malloc(total * sizeof *od);
	if (!of || !od) {
		free(of);
		free(od);
		return 0;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		of[k] = f[i], od[k++] = deg[i];
		if (i + 1 == n)
			break;
		size_t parts = (size_t)floor(fabs(deg[i + 1] - deg[i]) / 180) + 1;
		for (size_t p = 1; p < parts; p++) {
			double u = (double)p / (double)parts;
			of[k] = f[i] + (f[i + 1] - f[i]) * u;
			od[k++] = deg[i] + (deg[i + 1] - deg[i]) * u;
		}
	}
	*out_f = of;
	*out_deg = od;
	return k;
}

/* Rotations in degrees as quaternions about z on node's "rotation". */
static int emit_rotation(struct rig_gltf *g, long node, const double *f, const double *deg,
			 size_t n, enum mode mode)
{
	double *sf = NULL, *sd = NULL;
	size_t m = mode == MODE_STEP ? n : split_turns(&sf, &sd, f, deg, n);
	const double *ff = mode == MODE_STEP ? f : sf, *dd = mode == MODE_STEP ? deg : sd;
	float *q = m ? malloc(4 * m * sizeof *q) : NULL;
	for (size_t i = 0; q && i < m; i++) {
		double h = dd[i] * (M_PI / 360);
		q[4 * i] = 0, q[4 * i + 1] = 0;
		q[4 * i + 2] = (float)sin(h), q[4 * i + 3] = (float)cos(h);
	}
	int rc = q ? emit(g, node, "rotation", ff, q, m, 4, mode) : -1;
	free(q);
	free(sf);
	free(sd);
	return rc;
}

static int animate_rotation(struct rig_gltf *g, const struct rig_model_layer *l, long node)
{
	enum rig_channel ch = RIG_CH_ROTATION;
	struct frames fr = {0};
	enum mode mode = MODE_LINEAR;
	int rc = group_frames(&fr, &mode, g, l, &ch, 1, "rotation");
	double *deg = rc == 0 && fr.n >= 2 ? malloc(fr.n * sizeof *deg) : NULL;
	for (size_t i = 0; deg && i < fr.n; i++)
		deg[i] = channel_at(l, ch, fr.f[i]);
	if (rc == 0 && fr.n >= 2)
		rc = deg ? emit_rotation(g, node, fr.f, deg, fr.n, mode) : -1;
	free(deg);
	free(fr.f);
	return rc;
}

/* ---- constraints: baking ---- */

/* Marks in baked every layer a usable constraint poses (its chain); reports
 * each constraint baked, or skipped as rigd skips it. */
static void mark_baked(struct rig_gltf *g, bool *baked)
{
	const struct rig_scene_view *v = g->in->view;
	const struct rig_shot_model *m = g->in->model;
	for (size_t c = 0; c < v->scene.n_constraints; c++) {
		const struct rig_constraint *k = &v->constraints[c];
		if (!rig_constraint_is_usable(&v->scene, k)) {
			rig_export_unsupported(g->report, "constraint", NULL,
					       "constraint '%s' cannot be solved (rigd skips it "
					       "too); it is not written",
					       k->id);
			continue;
		}
		for (size_t i = 0; i < k->n_chain; i++) {
			long li = rig_shot_model_index(m, k->chain_ids[i]);
			if (li >= 0)
				baked[li] = true;
		}
		for (size_t f = 0; f < k->walk.n_feet; f++) { /* the IK targets it places */
			long li = rig_shot_model_index(m, v->constraints[k->walk.ik[f]].target_id);
			if (li >= 0)
				baked[li] = true;
		}
		rig_export_unsupported(
			g->report, "constraint", k->chain_ids[0],
			"glTF has no constraints; the %zu layers of %s constraint "
			"'%s' are baked at each frame of [%.17g, %.17g] (%.17g fps) and "
			"hold their end poses outside it",
			k->n_chain + k->walk.n_feet, rig_constraint_kind_name(k->kind), k->id,
			m->frame_start, m->frame_end, m->fps);
	}
}

/* Layer l's local matrix m as translation, rotation (degrees, unwrapped
 * towards prev_deg) and scale, with its pivot p: m = T(t)·R·S·T(−p), so
 * t = m's translation + R·S·p; R·S's first column gives the angle and sx,
 * its determinant sy. */
static void decompose(double out[5], const struct rig_affine *a, double px, double py,
		      double prev_deg)
{
	const double *m = a->m;
	double sx = hypot(m[0], m[1]);
	double deg = sx > 0 ? atan2(m[1], m[0]) * (180 / M_PI) : 0;
	double sy = sx > 0 ? (m[0] * m[3] - m[1] * m[2]) / sx : m[3];
	deg = prev_deg + remainder(deg - prev_deg, 360);
	out[0] = m[4] + m[0] * px + m[2] * py;
	out[1] = m[5] + m[1] * px + m[3] * py;
	out[2] = deg, out[3] = sx, out[4] = sy;
}

/* Bakes the baked layers' translation, rotation and scale at every grid
 * frame of [frameStart, frameEnd]. */
static int bake(struct rig_gltf *g, const bool *baked)
{
	const struct rig_shot_model *m = g->in->model;
	struct frames fr = {0};
	bool cut = false;
	int rc = frames_add(&fr, m->frame_start);
	if (rc == 0)
		rc = add_grid(&fr, g, m->frame_start, m->frame_end, &cut);
	if (rc == 0 && m->frame_end > m->frame_start)
		rc = frames_add(&fr, m->frame_end);
	size_t n_baked = 0;
	for (size_t i = 0; i < m->n_layers; i++)
		n_baked += baked[i];
	double *trs = rc == 0 ? malloc((n_baked ? n_baked : 1) * fr.n * 5 * sizeof *trs) : NULL;
	struct rig_resolver *r = trs ? rig_resolver_new(&g->in->view->scene) : NULL;
	rc = r ? 0 : -1;
	for (size_t k = 0; r && rc == 0 && k < fr.n; k++) {
		if (rig_resolver_frame_ok(r, fr.f[k], g->errs) != 0) {
			g->refused = true;
			rc = -1;
			break;
		}
		size_t b = 0;
		for (size_t i = 0; i < m->n_layers; i++) {
			if (!baked[i])
				continue;
			const struct rig_model_layer *l = &m->layers[i];
			struct rig_affine a =
				rig_resolver_local(r, g->in->view->index_of[i], fr.f[k]);
			double *out = &trs[(b * fr.n + k) * 5];
			double prev_deg = k ? out[-5 + 2] : 0; /* this layer's last frame */
			decompose(out, &a, channel_at(l, RIG_CH_PIVOT_X, fr.f[k]),
				  channel_at(l, RIG_CH_PIVOT_Y, fr.f[k]), prev_deg);
			b++;
		}
	}
	float *v = rc == 0 ? malloc(3 * fr.n * sizeof *v) : NULL;
	double *deg = rc == 0 ? malloc(fr.n * sizeof *deg) : NULL;
	rc = v && deg ? 0 : -1;
	for (size_t i = 0, b = 0; rc == 0 && i < m->n_layers; i++) {
		if (!baked[i])
			continue;
		const double *t = &trs[b++ * fr.n * 5];
		for (int pass = 0; rc == 0 && pass < 2; pass++) {
			for (size_t k = 0; k < fr.n; k++) {
				v[3 * k] = (float)t[5 * k + (pass ? 3 : 0)];
				v[3 * k + 1] = (float)t[5 * k + (pass ? 4 : 1)];
				v[3 * k + 2] = pass ? 1.0f : 0.0f;
			}
			rc = emit(g, g->node_of[i], pass ? "scale" : "translation", fr.f, v, fr.n,
				  3, MODE_LINEAR);
		}
		for (size_t k = 0; k < fr.n; k++)
			deg[k] = t[5 * k + 2];
		if (rc == 0)
			rc = emit_rotation(g, g->node_of[i], fr.f, deg, fr.n, MODE_LINEAR);
	}
	rig_resolver_free(r);
	free(v);
	free(deg);
	free(trs);
	free(fr.f);
	return rc;
}

/* ---- morph weights ---- */

void rig_gltf__morph_weights(float *out, const struct rig_key *times, size_t n, double frame)
{
	memset(out, 0, n * sizeof *out);
	struct rig_key_blend b = rig_keys_blend(times, n, frame);
	if (b.a == b.b) {
		out[b.a] = 1;
		return;
	}
	out[b.a] = (float)(1 - b.u);
	out[b.b] = (float)b.u;
}

static int animate_morph(struct rig_gltf *g, const struct rig_gltf_morph *mo)
{
	const struct rig_model_layer *l = &g->in->model->layers[mo->layer];
	if (mo->n_keys < 2)
		return 0;
	bool seen[3] = {false}, bezier, cut = false;
	note_interps(seen, mo->times, mo->n_keys);
	enum mode mode = mode_of(seen, &bezier);
	struct frames fr = {0};
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < mo->n_keys; k++)
		rc = frames_add(&fr, mo->times[k].frame + l->time_offset);
	if (rc == 0 && mode == MODE_SAMPLED) {
		rc = add_grid(&fr, g, fr.f[0], fr.f[fr.n - 1], &cut);
		report_sampled(g, l->id, "mesh", bezier, cut);
		frames_sort_unique(&fr);
	}
	float *w = rc == 0 ? malloc(fr.n * mo->n_keys * sizeof *w) : NULL;
	for (size_t i = 0; w && i < fr.n; i++)
		rig_gltf__morph_weights(&w[i * mo->n_keys], mo->times, mo->n_keys,
					fr.f[i] - l->time_offset);
	rc = w ? emit(g, mo->node, "weights", fr.f, w, fr.n, (int)mo->n_keys, mode) : -1;
	free(w);
	free(fr.f);
	return rc;
}

int rig_gltf__animate(struct rig_gltf *g)
{
	const struct rig_shot_model *m = g->in->model;
	bool *baked = calloc(m->n_layers ? m->n_layers : 1, sizeof *baked);
	if (!baked)
		return -1;
	mark_baked(g, baked);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (g->node_of[i] < 0)
			continue;
		if (!baked[i]) {
			rc = animate_pair(g, l, g->node_of[i], "translation", RIG_CH_POSITION_X, 1,
					  0);
			if (rc == 0)
				rc = animate_rotation(g, l, g->node_of[i]);
			if (rc == 0)
				rc = animate_pair(g, l, g->node_of[i], "scale", RIG_CH_SCALE_X, 1,
						  1);
		}
		if (rc == 0 && g->attach_of[i] != g->node_of[i])
			rc = animate_pair(g, l, g->attach_of[i], "translation", RIG_CH_PIVOT_X, -1,
					  0);
	}
	for (size_t k = 0; rc == 0 && k < g->n_morphs; k++)
		rc = animate_morph(g, &g->morphs[k]);
	bool any = false;
	for (size_t i = 0; i < m->n_layers; i++)
		any |= baked[i];
	if (rc == 0 && any)
		rc = bake(g, baked);
	free(baked);
	return rc;
}
