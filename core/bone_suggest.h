/* Bone chains for automatic rigs (issue 25 item 4): a parent chain along the
 * principal axis of a covered region (the sprite seed's suggestBones), and
 * named presets (biped, quadruped) placed in a bounding box. Positions are
 * in the region's coordinates (the mesh's rest space, y up). No I/O.
 */
#ifndef RIG_BONE_SUGGEST_H
#define RIG_BONE_SUGGEST_H

#include <stddef.h>

#include "core/err.h"
#include "core/rig_limits.h"

#define RIG_BONE_NAME_MAX 32

/* One suggested joint: its name (preset) or index, its parent among the
 * result (-1 for the root, which comes first; parents always come before
 * their children), its rest origin and its bone's length along the heading
 * (the direction to its first child; for a leaf, toward its tip: a chain's
 * last joint along the chain's axis, a preset's leaf toward the tip its
 * table gives — core/bone_suggest.c). */
struct rig_bone_suggestion {
	char name[RIG_BONE_NAME_MAX];
	long parent;
	double x, y;
	double rotation_deg; /* the heading, degrees counter-clockwise from +x */
	double length;
};

/* A chain of n (1..RIG_MAX_SUGGEST_BONES) joints along the principal axis of
 * the points (2 · n_points, the covered region's samples: a mesh's source
 * vertices, say): vertical when the region's bounding box is at least as tall
 * as it is wide, from the bottom up, else horizontal from left to right;
 * evenly spaced within the region's extent along the axis, each centred
 * across the axis on the covered span of its slice. Names "bone0".. .
 * Joint i sits at a0 + i·L/n along the axis (L the extent, a0 its start), so
 * bone i owns the i-th of n equal slices and the last bone, L/n long along
 * the axis, reaches the far end; an empty slice centres its joint on the
 * box (core/bone_suggest.c has the whole rule). out holds n. Returns the
 * count (n), or -1 with errs filled, reporting every violation:
 * INVALID_FIELD at "/n" for n outside [1, RIG_MAX_SUGGEST_BONES], at
 * "/points/<i>" for a point that is not finite (and "/points" for an extent
 * that overflows); TESSELLATE_EMPTY when there are no points or the region
 * has no extent (one point, however often repeated). */
long rig_bones_chain(struct rig_bone_suggestion *out, size_t n, const double *points,
		     size_t n_points, struct rig_errs *errs);

enum rig_bone_preset { RIG_PRESET_BIPED = 0, RIG_PRESET_QUADRUPED = 1 };

/* "biped", "quadruped"; NULL outside. Parse: 0 or -1. */
const char *rig_bone_preset_name(enum rig_bone_preset p);
int rig_bone_preset_parse(enum rig_bone_preset *out, const char *name);

/* The preset's joints placed in the box [x0, x1] × [y0, y1] (y up): out holds
 * at least RIG_MAX_SUGGEST_BONES. biped: 17 joints (hips, spine, chest, neck,
 * head, upperArm/forearm/hand.L and .R, thigh/shin/foot.L and .R; .L on +x,
 * the character facing the viewer); quadruped: 18 (hips, spine, chest, neck,
 * head, tail, hindUpper/hindLower/hindFoot and frontUpper/frontLower/
 * frontFoot, .L and .R; in profile facing +x). Returns the count, or -1
 * with errs filled: INVALID_FIELD at "/preset" outside the enum, at "/box"
 * when a coordinate or the size is not finite; TESSELLATE_EMPTY at "/box"
 * when the box is empty (x1 <= x0 or y1 <= y0). */
long rig_bones_preset(struct rig_bone_suggestion *out, enum rig_bone_preset preset, double x0,
		      double y0, double x1, double y1, struct rig_errs *errs);

#endif
