/* Walkers' feet (footstep.h). */
#include "core/footstep.h"

#include <math.h>
#include <stdbool.h>

void rig_footstep_start(struct rig_foot *feet, const struct rig_ik_vec *targets, size_t n)
{
	for (size_t i = 0; i < n; i++)
		feet[i] = (struct rig_foot){.at = targets[i], .from = targets[i], .phase = 0};
}

/* Foot f at step m of its step towards target: on the arc, or on the target
 * and planted at the last step (bit for bit, not lerp(…, 1)). */
static void move(struct rig_foot *f, int m, struct rig_ik_vec target, struct rig_ik_vec up,
		 const struct rig_footstep_params *p)
{
	if (m >= p->step_frames) {
		f->at = target;
		f->phase = 0;
		return;
	}
	double t = (double)m / p->step_frames, lift = p->height * 4 * t * (1 - t);
	f->at = (struct rig_ik_vec){f->from.x + (target.x - f->from.x) * t + up.x * lift,
				    f->from.y + (target.y - f->from.y) * t + up.y * lift};
	f->phase = m;
}

/* True when a foot of a group other than g is moving in out[0..n). */
static bool other_group_moving(const struct rig_foot *out, size_t n, int g,
			       const struct rig_footstep_params *p)
{
	for (size_t k = 0; k < n; k++)
		if (out[k].phase > 0 && p->group[k] != g)
			return true;
	return false;
}

void rig_footstep_step(struct rig_foot *out, const struct rig_foot *prev,
		       const struct rig_ik_vec *targets, struct rig_ik_vec up,
		       const struct rig_footstep_params *p)
{
	size_t n = p->n_feet;
	/* Moving feet first, so a planted foot sees every group that moves on
	 * (a foot landing in this step counts as moving: phase stays > 0 here). */
	for (size_t i = 0; i < n; i++) {
		out[i] = prev[i];
		if (prev[i].phase > 0)
			out[i].phase = prev[i].phase + 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (prev[i].phase > 0)
			continue;
		double dx = targets[i].x - prev[i].at.x, dy = targets[i].y - prev[i].at.y;
		/* NaN never steps: a foot without a finite target stays */
		if (!(sqrt(dx * dx + dy * dy) > p->threshold) ||
		    other_group_moving(out, n, p->group[i], p))
			continue;
		out[i].from = prev[i].at;
		out[i].phase = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (out[i].phase > 0)
			move(&out[i], out[i].phase, targets[i], up, p);
}
