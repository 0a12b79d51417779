/* Spine 4.2 import, the animation: which one (options.animation, else the
 * first in document order; the others are reported) and its bone timelines
 * as absolute layer keys. Everything else an animation holds (slot,
 * attachment, deform, draw order, event and constraint timelines, shear and
 * inherit) is reported unsupported with its pointer.
 *
 * Values: Spine's bone timelines are relative to the setup pose (rotate and
 * translate add to it, scale multiplies it, as spine-core's
 * getRelativeValue/getScaleValue with MixBlend.setup); rigd's keys are
 * absolute. Before a timeline's first key spine-core shows the setup pose,
 * so a first key after time 0 gets a held setup-pose key at frame 0.
 *
 * Curves: linear keys are rigd's linear, "stepped" rigd's hold. A bezier
 * spine-core never evaluates as a cubic: CurveTimeline.setBezier samples it
 * at t = 0.1 … 0.9 and getBezierValue interpolates linearly between those
 * points, 10 line segments per key. Those line segments are what Spine
 * plays, so they are written exactly as linear keys at the 9 sample points
 * (frames = sample time × fps, fractional), reported under adjusted once per
 * timeline. rigd's bezier ease would evaluate the cubic itself, up to a few
 * tenths of a degree away from Spine's polyline on a large swing. A bezier
 * whose control points lie on the straight line is linear, and written so.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/interchange/spine_internal.h"

#define SPINE_BEZIER_SAMPLES 9

int spine__choose_animation(struct spine_reader *r)
{
	static const char *const allowed[] = {"animation", NULL};
	const struct rig_import_opts *o = r->im->opts;
	struct rig_jr ojr = {r->jr->errs, RIG_OP_INVALID, o->options_pointer, r->jr->op_index};
	if (o->options && rig_jr_known(&ojr, o->options, allowed) != 0)
		return -1;
	const char *wanted = NULL;
	if (rig_jr_string(&ojr, o->options, "animation", false, 256, &wanted) != 0)
		return -1;
	json_t *anims = json_object_get(r->doc, "animations");
	if (anims && !json_is_object(anims))
		return rig_jr_fail(r->jr, "animations",
				   "member 'animations' must be an object of animations");
	const char *name;
	json_t *a;
	json_object_foreach(anims, name, a)
	{
		if (!r->animation && (!wanted || strcmp(wanted, name) == 0)) {
			r->animation = a;
			r->animation_name = name;
		}
	}
	if (wanted && !r->animation) {
		rig_jr_fail(&ojr, "animation", "the document has no animation '%.64s'", wanted);
		struct rig_err *e = &r->jr->errs->items[r->jr->errs->count - 1];
		json_object_foreach(anims, name, a) rig_err_list_add(e, "validAnimations", name);
		return -1;
	}
	json_object_foreach(anims, name, a)
	{
		if (a == r->animation)
			continue;
		char source[SPINE_PATH_MAX] = "/animations";
		spine__path_add(source, name);
		rig_import_unsupported(r->im, "animation", source,
				       "one animation is imported ('%.64s'); pick another with "
				       "options.animation",
				       r->animation_name);
	}
	return 0;
}

bool spine__scale_keyed(const struct spine_reader *r, size_t i)
{
	json_t *tl = json_object_get(json_object_get(r->animation, "bones"), r->bones[i].name);
	return json_object_get(tl, "scale") || json_object_get(tl, "scalex") ||
	       json_object_get(tl, "scaley");
}

/* One rigd channel fed by one Spine timeline. */
struct channel {
	const char *rig;   /* rigd's channel */
	const char *value; /* the key member holding its value */
	int curve;         /* which 4 numbers of "curve" are its bezier */
	double fallback;   /* the value when the member is absent */
	bool scales;       /* absolute = setup × value, else setup + value */
	double setup;
};

/* The cubic through (p0, p1, p2, p3) at s. */
static double bezier(double p0, double p1, double p2, double p3, double s)
{
	double u = 1 - s;
	return u * u * u * p0 + 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s * p3;
}

static double absolute(const struct channel *c, double v)
{
	return c->scales ? c->setup * v : c->setup + v;
}

static int add_key(json_t *keys, double frame, double value, const char *interp)
{
	return json_array_append_new(keys, json_pack("{s:f, s:f, s:s}", "frame", frame, "value",
						     value, "interp", interp));
}

/* rigd's Spine export writes a key's frame and absolute value beside Spine's
 * time and relative value ("rigdFrame", "rigdValue") where time × fps or
 * setup + value would not give them back bit for bit: they are taken when
 * they agree with what Spine's members say (1e-6 of a frame, 1e-9 of the
 * value, relative), so an import → export → import keeps the keys' bits. */
static double exact_member(json_t *key, const char *member, double computed, double tolerance)
{
	double v;
	if (spine__finite(json_object_get(key, member), &v) &&
	    fabs(v - computed) <= tolerance * fmax(1, fabs(v)))
		return v;
	return computed;
}

static double key_frame(const struct spine_reader *r, json_t *key, double time)
{
	return exact_member(key, "rigdFrame", time * r->im->opts->fps, 1e-6);
}

static double key_value(json_t *key, const struct channel *c, double v)
{
	return exact_member(key, "rigdValue", absolute(c, v), 1e-9);
}

/* A key's time and value (at path). */
static int read_key(const struct spine_reader *r, json_t *key, const struct channel *c,
		    const char *path, double *time, double *value)
{
	if (!json_is_object(key))
		return rig_jr_fail(r->jr, path, "a key must be an object");
	json_t *t = json_object_get(key, "time"), *v = json_object_get(key, c->value);
	*time = t ? json_number_value(t) : 0;
	*value = v ? json_number_value(v) : c->fallback;
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/time", path);
	if (t && (!json_is_number(t) || !isfinite(*time) || *time < 0))
		return rig_jr_fail(r->jr, at, "a key's time is a finite number >= 0");
	snprintf(at, sizeof at, "%s/%s", path, c->value);
	if (v && (!json_is_number(v) || !isfinite(*value)))
		return rig_jr_fail(r->jr, at, "member '%s' must be a finite number", c->value);
	return 0;
}

/* The segment from key (t1, v1) to (t2, v2) with key's curve, as rigd keys
 * (the first one at t1; the next key adds its own). *sampled counts the
 * beziers written as their sample points. */
static int add_segment(const struct spine_reader *r, json_t *keys, json_t *key,
		       const struct channel *c, const char *path, const double seg[4],
		       size_t *sampled)
{
	double fps = r->im->opts->fps, t1 = seg[0], v1 = seg[1], t2 = seg[2], v2 = seg[3];
	json_t *curve = json_object_get(key, "curve");
	const char *s = json_string_value(curve);
	char at[SPINE_PATH_MAX];
	snprintf(at, sizeof at, "%s/curve", path);
	if (!curve)
		return add_key(keys, key_frame(r, key, t1), key_value(key, c, v1), "linear");
	if (s && strcmp(s, "stepped") == 0)
		return add_key(keys, key_frame(r, key, t1), key_value(key, c, v1), "hold");
	double p[4];
	size_t base = 4 * (size_t)c->curve;
	bool ok = json_is_array(curve) && json_array_size(curve) >= base + 4;
	for (size_t k = 0; ok && k < 4; k++) {
		json_t *n = json_array_get(curve, base + k);
		p[k] = json_number_value(n);
		ok = json_is_number(n) && isfinite(p[k]);
	}
	if (!ok)
		return rig_jr_fail(r->jr, at,
				   "a curve is \"stepped\" or %zu finite bezier numbers (cx1, cy1, "
				   "cx2, cy2 per value)",
				   base + 4);
	if (p[0] < t1 || p[0] > t2 || p[2] < t1 || p[2] > t2)
		return rig_jr_fail(r->jr, at,
				   "a bezier's time handles (cx1 %g, cx2 %g) must lie within its "
				   "keys' times [%g, %g]",
				   p[0], p[2], t1, t2);
	int rc = add_key(keys, key_frame(r, key, t1), key_value(key, c, v1), "linear");
	double dt = t2 - t1, dv = v2 - v1, scale = fabs(dt) + fabs(dv);
	double cross1 = dt * (p[1] - v1) - dv * (p[0] - t1);
	double cross2 = dt * (p[3] - v1) - dv * (p[2] - t1);
	if (fabs(cross1) <= 1e-12 * scale * scale && fabs(cross2) <= 1e-12 * scale * scale)
		return rc; /* the handles lie on the line: linear, exactly */
	for (int k = 1; k <= SPINE_BEZIER_SAMPLES; k++) {
		double u = k / 10.0;
		rc |= add_key(keys, bezier(t1, p[0], p[2], t2, u) * fps,
			      absolute(c, bezier(v1, p[1], p[3], v2, u)), "linear");
	}
	(*sampled)++;
	return rc;
}

/* Timeline tl (at path) of bone b into rigd channel c: one layer.key.put. */
static int import_channel(struct spine_reader *r, size_t b, json_t *tl, const struct channel *c,
			  const char *path)
{
	size_t n = json_array_size(tl), sampled = 0;
	json_t *keys = json_array();
	int rc = keys ? 0 : rig_jr_out_of_memory(r->jr, path);
	double prev[2] = {0, 0};
	for (size_t i = 0; i < n && rc == 0; i++) {
		char at[SPINE_PATH_MAX];
		snprintf(at, sizeof at, "%s/%zu", path, i);
		double t = 0, v = 0;
		if ((rc = read_key(r, json_array_get(tl, i), c, at, &t, &v)) != 0)
			break;
		if (i > 0 && t <= prev[0]) {
			rc = rig_jr_fail(r->jr, at, "key times must increase (%g after %g)", t,
					 prev[0]);
			break;
		}
		if (i == 0 && t > 0)
			rc = add_key(keys, 0, c->setup, "hold"); /* spine-core's setup pose */
		else if (i > 0) {
			double seg[4] = {prev[0], prev[1], t, v};
			snprintf(at, sizeof at, "%s/%zu", path, i - 1);
			rc = add_segment(r, keys, json_array_get(tl, i - 1), c, at, seg, &sampled);
		}
		if (rc == 0 && i == n - 1)
			rc = add_key(keys, key_frame(r, json_array_get(tl, i), t),
				     key_value(json_array_get(tl, i), c, v), "linear");
		prev[0] = t, prev[1] = v;
	}
	char source[SPINE_PATH_MAX];
	snprintf(source, sizeof source, "/%s", path);
	json_t *op = json_pack("{s:s, s:s, s:s, s:O}", "op", "layer.key.put", "layerId",
			       r->bones[b].id, "channel", c->rig, "keys", keys);
	if (rc == 0 && n > 0 && rig_import_op(r->im, op, source) != 0)
		rc = rig_jr_out_of_memory(r->jr, path);
	else if (rc != 0 || n == 0)
		json_decref(op);
	json_decref(keys);
	if (rc == 0 && sampled)
		rig_import_adjusted(r->im, "bezier sampled", source,
				    "%zu bezier segment(s) of %s written as linear keys at the %d "
				    "points spine-core samples each into (its 10 line segments)",
				    sampled, c->rig, SPINE_BEZIER_SAMPLES);
	return rc;
}

/* The rigd channels of Spine timeline name (up to 2); 0 when not a bone
 * transform timeline rigd carries. */
static int channels_of(const char *name, const struct spine_bone *b, struct channel out[2])
{
	struct channel rot = {"rotation", "value", 0, 0, false, b->rotation_deg};
	struct channel tx = {"position.x", "x", 0, 0, false, b->x};
	struct channel ty = {"position.y", "y", 1, 0, false, b->y};
	struct channel sx = {"scale.x", "x", 0, 1, true, b->scale_x};
	struct channel sy = {"scale.y", "y", 1, 1, true, b->scale_y};
	if (strcmp(name, "rotate") == 0)
		return out[0] = rot, 1;
	if (strcmp(name, "translate") == 0)
		return out[0] = tx, out[1] = ty, 2;
	if (strcmp(name, "scale") == 0)
		return out[0] = sx, out[1] = sy, 2;
	struct channel *one = strcmp(name, "translatex") == 0   ? &tx
			      : strcmp(name, "translatey") == 0 ? &ty
			      : strcmp(name, "scalex") == 0     ? &sx
			      : strcmp(name, "scaley") == 0     ? &sy
								: NULL;
	if (!one)
		return 0;
	one->value = "value";
	one->curve = 0;
	out[0] = *one;
	return 1;
}

/* Bone b's timelines (the object tls at path). */
static int import_bone_timelines(struct spine_reader *r, size_t b, json_t *tls, const char *path)
{
	const char *name;
	json_t *tl;
	bool keyed[5] = {false};
	static const char *const order[5] = {"rotation", "position.x", "position.y", "scale.x",
					     "scale.y"};
	json_object_foreach(tls, name, tl)
	{
		char at[SPINE_PATH_MAX];
		memcpy(at, path, SPINE_PATH_MAX);
		spine__path_add(at, name);
		struct channel ch[2];
		int n = channels_of(name, &r->bones[b], ch);
		char source[SPINE_PATH_MAX];
		snprintf(source, sizeof source, "/%s", at);
		if (n == 0) {
			rig_import_unsupported(r->im, "timeline", source,
					       "bone timeline '%.32s' is not carried", name);
			continue;
		}
		if (!json_is_array(tl))
			return rig_jr_fail(r->jr, at, "a timeline must be an array of keys");
		for (int k = 0; k < n; k++) {
			size_t slot = 0;
			while (strcmp(order[slot], ch[k].rig) != 0)
				slot++;
			if (keyed[slot]) {
				rig_import_unsupported(
					r->im, "timeline", source,
					"%s is keyed by another timeline of the bone "
					"first; this one is not carried",
					ch[k].rig);
				continue;
			}
			keyed[slot] = true;
			if (import_channel(r, b, tl, &ch[k], at) != 0)
				return -1;
		}
	}
	return 0;
}

int spine__import_animation(struct spine_reader *r)
{
	if (!r->animation)
		return 0;
	char path[SPINE_PATH_MAX] = "animations";
	spine__path_add(path, r->animation_name);
	if (!json_is_object(r->animation))
		return rig_jr_fail(r->jr, path, "an animation must be an object of timelines");
	const char *member;
	json_t *v;
	json_object_foreach(r->animation, member, v)
	{
		char at[SPINE_PATH_MAX];
		memcpy(at, path, SPINE_PATH_MAX);
		spine__path_add(at, member);
		if (strcmp(member, "bones") == 0)
			continue;
		char source[SPINE_PATH_MAX];
		snprintf(source, sizeof source, "/%s", at);
		rig_import_unsupported(r->im, "timeline", source,
				       "'%.32s' timelines are not carried (bone transforms are)",
				       member);
	}
	json_t *bones = json_object_get(r->animation, "bones");
	char bones_path[SPINE_PATH_MAX];
	memcpy(bones_path, path, SPINE_PATH_MAX);
	spine__path_add(bones_path, "bones");
	if (bones && !json_is_object(bones))
		return rig_jr_fail(r->jr, bones_path, "bones must be an object of bone timelines");
	const char *bone;
	json_object_foreach(bones, bone, v)
	{
		char at[SPINE_PATH_MAX];
		memcpy(at, bones_path, SPINE_PATH_MAX);
		spine__path_add(at, bone);
		long b = spine__bone_index(r, bone);
		if (b < 0)
			return rig_jr_fail(r->jr, at,
					   "the animation keys '%.64s', which is not a bone", bone);
		if (!json_is_object(v))
			return rig_jr_fail(r->jr, at, "a bone's timelines must be an object");
		if (import_bone_timelines(r, (size_t)b, v, at) != 0)
			return -1;
	}
	char source[SPINE_PATH_MAX];
	snprintf(source, sizeof source, "/%s", path);
	rig_import_mapped(r->im, "animation", source, r->animation_name, NULL, NULL);
	return 0;
}
