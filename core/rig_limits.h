/* Geometry limits: the one place they are defined. GET /v1/limits reports them. */
#ifndef RIG_RIG_LIMITS_H
#define RIG_RIG_LIMITS_H

#define RIG_MIN_VERTICES 3
#define RIG_MAX_VERTICES 1048576
#define RIG_MIN_TRIANGLES 1
#define RIG_MAX_TRIANGLES 2097152
#define RIG_MIN_JOINTS 1
#define RIG_MAX_JOINTS 256
#define RIG_MIN_INFLUENCES 1
#define RIG_MAX_INFLUENCES 8

/* A mesh binding's keys hold at most this many vertices together (keys ×
 * vertices): 16 keys of the largest mesh, 256 MiB of coordinates. */
#define RIG_MAX_MESH_KEY_VERTICES 16777216

/* A shot's frameStart and frameEnd lie in [-RIG_MAX_ABS_FRAME,
 * RIG_MAX_ABS_FRAME]: about 11.5 hours at 24 fps each way, and a frame count
 * (frameEnd - frameStart + 1) that stays exact and finite. */
#define RIG_MAX_ABS_FRAME 1000000

/* Most points one map-points request maps. */
#define RIG_MAX_MAP_POINTS 1000000

/* Layer, project and shot names: 1 to this many bytes of UTF-8. */
#define RIG_MAX_NAME_BYTES 256

/* |sum(w) - 1| must not exceed this many DBL_EPSILON. */
#define RIG_WEIGHT_SUM_EPSILONS 64

/* Fixed Newton/bisection steps of the cubic-bezier ease solver. */
#define RIG_BEZIER_ITERATIONS 24

#endif
